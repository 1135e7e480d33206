#include "util/Format.h"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace isobar {

std::string formatDuration(double seconds) {
    char buf[64];
    if (!(seconds >= 0.0)) {
        seconds = 0.0;
    }
    if (seconds < 1.0) {
        std::snprintf(buf, sizeof buf, "%.0fms", seconds * 1000.0);
    } else if (seconds < 60.0) {
        std::snprintf(buf, sizeof buf, "%.2fs", seconds);
    } else if (seconds < 3600.0) {
        const double minutes = std::floor(seconds / 60.0);
        std::snprintf(buf, sizeof buf, "%.0fm%.1fs", minutes, seconds - minutes * 60.0);
    } else {
        const auto total = static_cast<long long>(std::llround(seconds));
        std::snprintf(buf, sizeof buf, "%lldh%lldm%llds", total / 3600, total / 60 % 60, total % 60);
    }
    return buf;
}

std::string formatWholeSeconds(double seconds) {
    const auto total = static_cast<long long>(std::llround(seconds > 0 ? seconds : 0));
    char buf[48];
    if (total < 60) {
        std::snprintf(buf, sizeof buf, "%llds", total);
    } else if (total < 3600) {
        std::snprintf(buf, sizeof buf, "%lldm%llds", total / 60, total % 60);
    } else {
        std::snprintf(buf, sizeof buf, "%lldh%lldm", total / 3600, total / 60 % 60);
    }
    return buf;
}

std::string formatCopySummary(std::uint64_t rows, double seconds, int workers) {
    const double rate = seconds > 0.0 ? static_cast<double>(rows) / seconds : 0.0;
    char buf[160];
    std::snprintf(buf, sizeof buf, "COPY %llu, took %s with %d worker(s) (mean rate %.1f/sec)",
                  static_cast<unsigned long long>(rows), formatDuration(seconds).c_str(), workers, rate);
    return buf;
}

std::string formatUtcNow(const char* format) {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char buf[64];
    std::strftime(buf, sizeof buf, format, &utc);
    return buf;
}

std::string formatBytes(std::uint64_t bytes) {
    static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
    return buf;
}

std::string formatCoordinate(double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.6f", v);
    std::string s = buf;
    while (!s.empty() && s.back() == '0') {
        s.pop_back();
    }
    if (!s.empty() && s.back() == '.') {
        s.pop_back();
    }
    return s == "-0" ? "0" : s;
}

} // namespace isobar
