// SPDX-License-Identifier: GPL-3.0-or-later

#include "domain/Timestamp.h"

#include <cstdio>

namespace isobar {

std::int64_t daysFromCivil(std::int64_t year, unsigned month, unsigned day) {
    // Shift the year to start in March so the leap day is the last day of the "year"; then count
    // 400-year eras of 146097 days.
    year -= month <= 2 ? 1 : 0;
    const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
    const auto yearOfEra = static_cast<std::int64_t>(year - era * 400);
    const std::int64_t monthFromMarch = month > 2 ? month - 3 : month + 9;
    const std::int64_t dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1;
    const std::int64_t dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
    return era * 146097 + dayOfEra - 719468;
}

namespace {

struct Civil {
    std::int64_t year;
    std::int64_t month;
    std::int64_t day;
};

// Inverse of daysFromCivil.
Civil civilFromDays(std::int64_t days) {
    const std::int64_t z = days + 719468;
    const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const std::int64_t doe = z - era * 146097;
    const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const std::int64_t mp = (5 * doy + 2) / 153;
    const std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
    const std::int64_t m = mp < 10 ? mp + 3 : mp - 9;
    return Civil{yoe + era * 400 + (m <= 2 ? 1 : 0), m, d};
}

std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
    return a / b - ((a % b != 0 && (a < 0) != (b < 0)) ? 1 : 0);
}

} // namespace

PgTimestamp monthStart(PgTimestamp t) {
    constexpr std::int64_t kMicrosPerDay = 86'400LL * kMicrosPerSecond;
    const Civil c = civilFromDays(floorDiv(unixMicrosFromPgTimestamp(t), kMicrosPerDay));
    return pgTimestampFromUnixMicros(daysFromCivil(c.year, static_cast<unsigned>(c.month), 1) *
                                     kMicrosPerDay);
}

std::string formatTimestamp(PgTimestamp t) {
    const std::int64_t unixMicros = unixMicrosFromPgTimestamp(t);
    std::int64_t seconds = unixMicros / kMicrosPerSecond;
    std::int64_t micros = unixMicros % kMicrosPerSecond;
    if (micros < 0) {
        micros += kMicrosPerSecond;
        seconds -= 1;
    }
    std::int64_t days = seconds / 86400;
    std::int64_t secOfDay = seconds % 86400;
    if (secOfDay < 0) {
        secOfDay += 86400;
        days -= 1;
    }
    const Civil c = civilFromDays(days);
    const std::int64_t y = c.year;
    const std::int64_t m = c.month;
    const std::int64_t d = c.day;
    char buf[64];
    if (micros != 0) {
        std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lld %02lld:%02lld:%02lld.%06lld+00",
                      static_cast<long long>(y), static_cast<long long>(m), static_cast<long long>(d),
                      static_cast<long long>(secOfDay / 3600), static_cast<long long>(secOfDay / 60 % 60),
                      static_cast<long long>(secOfDay % 60), static_cast<long long>(micros));
    } else {
        std::snprintf(buf, sizeof buf, "%04lld-%02lld-%02lld %02lld:%02lld:%02lld+00",
                      static_cast<long long>(y), static_cast<long long>(m), static_cast<long long>(d),
                      static_cast<long long>(secOfDay / 3600), static_cast<long long>(secOfDay / 60 % 60),
                      static_cast<long long>(secOfDay % 60));
    }
    return buf;
}

namespace {

bool digitsAt(std::string_view s, std::size_t at, std::size_t n, int& out) {
    out = 0;
    for (std::size_t i = at; i < at + n; ++i) {
        if (s[i] < '0' || s[i] > '9') {
            return false;
        }
        out = out * 10 + (s[i] - '0');
    }
    return true;
}

// "YYYY-MM-DD HH:MM:SS" (or with 'T') at fixed positions, without sscanf or a round trip through
// formatTimestamp: a CDS time-series CSV has one per hour for decades. nullopt: not this form, or
// no such date or time.
std::optional<PgTimestamp> parseFixedTimestamp(std::string_view s) {
    int y = 0;
    int mo = 0;
    int d = 0;
    int h = 0;
    int mi = 0;
    int sec = 0;
    if (s.size() < 19 || !digitsAt(s, 0, 4, y) || s[4] != '-' || !digitsAt(s, 5, 2, mo) || s[7] != '-' ||
        !digitsAt(s, 8, 2, d) || (s[10] != ' ' && s[10] != 'T') || !digitsAt(s, 11, 2, h) || s[13] != ':' ||
        !digitsAt(s, 14, 2, mi) || s[16] != ':' || !digitsAt(s, 17, 2, sec)) {
        return std::nullopt;
    }
    static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || sec > 59 ||
        d > kDays[mo - 1] + (mo == 2 && leap ? 1 : 0)) {
        return std::nullopt;
    }
    const std::int64_t days = daysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
    return pgTimestampFromUnixMicros((days * kSecondsPerDay + h * 3600 + mi * 60 + sec) * kMicrosPerSecond);
}

} // namespace

std::optional<PgTimestamp> parseTimestamp(std::string_view text) {
    if (text.size() >= 19) {
        const std::string_view rest = text.substr(19);
        if (rest.empty() || rest == "Z" || rest == "+00" || rest == "+00:00") {
            return parseFixedTimestamp(text);
        }
    }
    int y = 0;
    unsigned mo = 0;
    unsigned d = 0;
    int h = 0;
    int mi = 0;
    int sec = 0;
    char sep = ' ';
    const std::string s(text);
    int used = 0;
    // NOLINTNEXTLINE(cert-err34-c): every field is range-checked below
    const int n = std::sscanf(s.c_str(), "%4d-%2u-%2u%n%c%2d:%2d%n:%2d%n", &y, &mo, &d, &used, &sep, &h, &mi,
                              &used, &sec, &used);
    if (n != 3 && n != 6 && n != 7) {
        return std::nullopt;
    }
    if (n > 3 && sep != ' ' && sep != 'T') {
        return std::nullopt;
    }
    const std::string_view rest = text.substr(static_cast<std::size_t>(used));
    if (!rest.empty() && rest != "Z" && rest != "+00" && rest != "+00:00") {
        return std::nullopt;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59) {
        return std::nullopt;
    }
    const std::int64_t days = daysFromCivil(y, mo, d);
    const PgTimestamp t =
        pgTimestampFromUnixMicros(((days * kSecondsPerDay) + h * 3600 + mi * 60 + sec) * kMicrosPerSecond);
    // 2024-02-30 would come out as March 1st: not a date.
    if (formatTimestamp(t).substr(0, 10) != s.substr(0, 10)) {
        return std::nullopt;
    }
    return t;
}

} // namespace isobar
