// SPDX-License-Identifier: GPL-3.0-or-later

#include "util/Format.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <set>

namespace isobar {

std::string formatDuration(double seconds, DurationPrecision precision) {
    if (!(seconds >= 0.0)) {
        return "-";
    }
    char buf[64];
    if (precision == DurationPrecision::WholeSeconds) {
        const auto total = static_cast<long long>(std::llround(seconds));
        if (total < 60) {
            std::snprintf(buf, sizeof buf, "%llds", total);
        } else if (total < 3600) {
            std::snprintf(buf, sizeof buf, "%lldm%llds", total / 60, total % 60);
        } else {
            std::snprintf(buf, sizeof buf, "%lldh%lldm", total / 3600, total / 60 % 60);
        }
    } else if (seconds < 1.0) {
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

std::string formatByteFigure(double bytes) {
    return bytes < 0 ? std::string("not seen") : formatBytes(static_cast<std::uint64_t>(std::llround(bytes)));
}

std::string formatThousands(std::uint64_t v) {
    const std::string digits = std::to_string(v);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) {
            out += ',';
        }
        out += digits[i];
    }
    return out;
}

std::string lowerCase(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

std::string htmlEscaped(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

namespace {

// "1.50" -> "1.5", "2.00" -> "2"; text without a point stays as it is.
std::string withoutTrailingZeros(std::string s) {
    if (s.find('.') == std::string::npos) {
        return s;
    }
    while (s.back() == '0') {
        s.pop_back();
    }
    if (s.back() == '.') {
        s.pop_back();
    }
    return s;
}

std::string printed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return withoutTrailingZeros(buf);
}

// The decimals that tell multiples of `step` apart: 0 for 5, 1 for 0.5, 2 for 0.25.
int decimalsFor(double step) {
    for (int d = 0; d < 6; ++d) {
        const double scaled = step * std::pow(10.0, d);
        if (std::abs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled)) {
            return d;
        }
    }
    return 6;
}

// "0.5s", "45s", "1m30s", "2h", "1h15m": the style of formatDuration(WholeSeconds), exact at each tick.
std::string secondsLabel(double seconds, double step) {
    if (step < 1) {
        return printed(seconds, decimalsFor(step)) + "s";
    }
    const auto total = static_cast<long long>(std::llround(seconds));
    const long long h = total / 3600;
    const long long m = total / 60 % 60;
    const long long s = total % 60;
    std::string out;
    if (h > 0) {
        out += std::to_string(h) + "h";
    }
    if (m > 0) {
        out += std::to_string(m) + "m";
    }
    if (s > 0 || out.empty()) {
        out += std::to_string(s) + "s";
    }
    return out;
}

// Below a tenth of a second the decimal steps; above, the steps a clock has.
double secondsStep(double span, int ticks) {
    static constexpr double kSteps[] = {0.1, 0.2, 0.25, 0.5, 1,    2,    5,    10,    15,    30,    60,
                                        120, 300, 600,  900, 1800, 3600, 7200, 10800, 21600, 43200, 86400};
    if (span / ticks < kSteps[0]) {
        return niceStep(span, ticks);
    }
    for (double step : kSteps) {
        if (step * ticks >= span) {
            return step;
        }
    }
    return niceStep(span / 86400, ticks) * 86400;
}

std::string bytesLabel(double bytes, double unit, const char* unitName, double step) {
    return bytes == 0 ? std::string("0") : printed(bytes / unit, decimalsFor(step / unit)) + " " + unitName;
}

} // namespace

std::string formatCompact(double value, int significant) {
    if (!std::isfinite(value)) {
        return "-";
    }
    // The unit follows the value as it will be printed: 999,950 is "1M", not "1000k".
    const double magnitude = value == 0 ? 0 : std::floor(std::log10(std::abs(value)));
    const double factor = std::pow(10.0, magnitude - significant + 1);
    const double rounded = std::round(value / factor) * factor;
    static constexpr std::pair<double, const char*> kUnits[] = {
        {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    double scale = 1;
    const char* suffix = "";
    for (const auto& [unit, name] : kUnits) {
        if (std::abs(rounded) >= unit) {
            scale = unit;
            suffix = name;
            break;
        }
    }
    const double shown = rounded / scale;
    const int whole = shown == 0 ? 1 : static_cast<int>(std::floor(std::log10(std::abs(shown)))) + 1;
    return printed(shown, std::max(0, significant - whole)) + suffix;
}

double niceStep(double span, int ticks) {
    if (!(span > 0) || !std::isfinite(span) || ticks < 1) {
        return 1;
    }
    const double raw = span / ticks;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0}) {
        // The tolerance keeps 0.3 / 3 from asking for a step above 0.1 through rounding.
        if (m * magnitude >= raw * (1 - 1e-9)) {
            return m * magnitude;
        }
    }
    return 10 * magnitude;
}

AxisTicks axisTicks(double max, AxisScale scale, int ticks) {
    const double span = std::isfinite(max) && max > 0 ? max : 1; // an empty chart still has an axis
    ticks = std::max(ticks, 1);
    static constexpr const char* kByteUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    std::size_t unit = 0;
    while (unit + 1 < std::size(kByteUnits) && span >= std::pow(1024.0, static_cast<double>(unit + 1))) {
        ++unit;
    }
    const double unitBytes = std::pow(1024.0, static_cast<double>(unit));
    AxisTicks axis;
    switch (scale) {
    case AxisScale::Count:
        axis.step = niceStep(span, ticks);
        break;
    case AxisScale::Bytes:
        axis.step = std::max(niceStep(span / unitBytes, ticks) * unitBytes, 1.0);
        break;
    case AxisScale::Seconds:
        axis.step = secondsStep(span, ticks);
        break;
    }
    const auto intervals = static_cast<long long>(std::max(1.0, std::ceil(span / axis.step - 1e-9)));
    axis.top = static_cast<double>(intervals) * axis.step;
    // Three significant digits tell a count's ticks apart unless the step is fine for its range
    // (1.005M next to 1.01M): then more, until no two read the same.
    for (int significant = 3; significant <= 9; ++significant) {
        axis.labels.clear();
        std::set<std::string> seen;
        for (long long i = 0; i <= intervals; ++i) {
            const double v = static_cast<double>(i) * axis.step;
            std::string label = scale == AxisScale::Count ? formatCompact(v, significant)
                                : scale == AxisScale::Bytes
                                    ? bytesLabel(v, unitBytes, kByteUnits[unit], axis.step)
                                    : secondsLabel(v, axis.step);
            seen.insert(label);
            axis.labels.emplace_back(v, std::move(label));
        }
        if (seen.size() == axis.labels.size()) {
            break;
        }
    }
    return axis;
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
