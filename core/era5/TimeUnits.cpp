// SPDX-License-Identifier: GPL-3.0-or-later

#include "era5/TimeUnits.h"

#include "util/Error.h"
#include "util/Format.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace isobar {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.back())) || s.back() == '\0')) {
        s.remove_suffix(1);
    }
    return s;
}

// Reads an unsigned decimal number at `pos`; returns false when there is none.
bool readNumber(std::string_view s, std::size_t& pos, std::int64_t& out, std::size_t maxDigits = 9) {
    std::size_t digits = 0;
    out = 0;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos])) && digits < maxDigits) {
        out = out * 10 + (s[pos] - '0');
        ++pos;
        ++digits;
    }
    return digits > 0;
}

std::int64_t unitFor(const std::string& unit) {
    static const std::pair<const char*, std::int64_t> units[] = {
        {"microseconds", 1},      {"microsecond", 1},      {"us", 1},
        {"milliseconds", 1000},   {"millisecond", 1000},   {"ms", 1000},
        {"seconds", 1'000'000},   {"second", 1'000'000},   {"secs", 1'000'000},
        {"sec", 1'000'000},       {"s", 1'000'000},        {"minutes", 60'000'000},
        {"minute", 60'000'000},   {"mins", 60'000'000},    {"min", 60'000'000},
        {"hours", 3'600'000'000}, {"hour", 3'600'000'000}, {"hrs", 3'600'000'000},
        {"hr", 3'600'000'000},    {"h", 3'600'000'000},    {"days", 86'400'000'000},
        {"day", 86'400'000'000},  {"d", 86'400'000'000},
    };
    for (const auto& [name, micros] : units) {
        if (unit == name) {
            return micros;
        }
    }
    return 0;
}

} // namespace

TimeUnits TimeUnits::parse(std::string_view unitsText, std::string_view calendarText) {
    const std::string units = lowerCase(trim(unitsText));
    const auto fail = [&](const std::string& why) -> TimeUnits {
        throw Error("time units '" + std::string(trim(unitsText)) + "' are not understood: " + why);
    };
    const auto since = units.find(" since ");
    if (since == std::string::npos) {
        return fail("expected '<unit> since <date>'");
    }
    TimeUnits result;
    result.unitMicros_ = unitFor(std::string(trim(std::string_view(units).substr(0, since))));
    if (result.unitMicros_ == 0) {
        return fail("unknown unit (expected seconds, minutes, hours or days)");
    }

    std::string_view ref = trim(std::string_view(units).substr(since + 7));
    std::size_t pos = 0;
    std::int64_t year = 0;
    std::int64_t month = 1;
    std::int64_t day = 1;
    std::int64_t hour = 0;
    std::int64_t minute = 0;
    std::int64_t second = 0;
    std::int64_t micros = 0;
    bool negativeYear = false;
    if (pos < ref.size() && ref[pos] == '-') {
        negativeYear = true;
        ++pos;
    }
    if (!readNumber(ref, pos, year, 6) || pos >= ref.size() || ref[pos] != '-') {
        return fail("the reference date is not YYYY-MM-DD");
    }
    ++pos;
    if (!readNumber(ref, pos, month, 2) || pos >= ref.size() || ref[pos] != '-') {
        return fail("the reference date is not YYYY-MM-DD");
    }
    ++pos;
    if (!readNumber(ref, pos, day, 2)) {
        return fail("the reference date is not YYYY-MM-DD");
    }
    if (negativeYear) {
        year = -year;
    }
    if (pos < ref.size() && (ref[pos] == ' ' || ref[pos] == 't')) {
        ++pos;
        while (pos < ref.size() && ref[pos] == ' ') {
            ++pos;
        }
        if (pos < ref.size() && std::isdigit(static_cast<unsigned char>(ref[pos]))) {
            if (!readNumber(ref, pos, hour, 2)) {
                return fail("the reference time is not hh:mm:ss");
            }
            if (pos < ref.size() && ref[pos] == ':') {
                ++pos;
                if (!readNumber(ref, pos, minute, 2)) {
                    return fail("the reference time is not hh:mm:ss");
                }
                if (pos < ref.size() && ref[pos] == ':') {
                    ++pos;
                    if (!readNumber(ref, pos, second, 2)) {
                        return fail("the reference time is not hh:mm:ss");
                    }
                    if (pos < ref.size() && ref[pos] == '.') {
                        ++pos;
                        std::int64_t scale = 100000;
                        while (pos < ref.size() && std::isdigit(static_cast<unsigned char>(ref[pos]))) {
                            micros += (ref[pos] - '0') * scale;
                            scale /= 10;
                            ++pos;
                        }
                    }
                }
            }
        }
    }
    // Time zone: none, "z", "utc", "gmt", or an offset "+hh[:mm]" / "-hh[:mm]".
    std::int64_t offsetMinutes = 0;
    std::string_view zone = trim(ref.substr(pos));
    if (!zone.empty() && zone != "z" && zone != "utc" && zone != "gmt") {
        if (zone.front() != '+' && zone.front() != '-') {
            return fail("unexpected text after the reference date");
        }
        const int sign = zone.front() == '-' ? -1 : 1;
        std::size_t zpos = 1;
        std::int64_t oh = 0;
        std::int64_t om = 0;
        if (!readNumber(zone, zpos, oh, 2)) {
            return fail("the time zone offset is not +hh:mm");
        }
        if (zpos < zone.size() && zone[zpos] == ':') {
            ++zpos;
        }
        readNumber(zone, zpos, om, 2);
        if (zpos != zone.size()) {
            return fail("unexpected text after the time zone offset");
        }
        offsetMinutes = sign * (oh * 60 + om);
    }
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 24 || minute > 59 || second > 60) {
        return fail("the reference date-time is out of range");
    }
    // Six digits of year would overflow the microseconds (past year 292,277).
    if (year < -9999 || year > 9999) {
        return fail("the reference year " + std::to_string(year) + " is out of range");
    }

    const std::string calendar = lowerCase(trim(calendarText));
    if (calendar == "standard" || calendar == "gregorian" || calendar.empty()) {
        // The mixed Julian/Gregorian calendar agrees with the proleptic Gregorian one from
        // 1582-10-15 on; every ERA5 file is far after that.
        if (year < 1582 || (year == 1582 && (month < 10 || (month == 10 && day < 15)))) {
            return fail("a reference date before 1582-10-15 in the " + calendar +
                        " calendar mixes Julian and Gregorian dates, which Isobar does not convert");
        }
    } else if (calendar != "proleptic_gregorian") {
        throw Error("time calendar '" + std::string(trim(calendarText)) +
                    "' is not supported: ERA5 uses the standard (Gregorian) calendar");
    }

    const std::int64_t days = daysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
    const std::int64_t unixSeconds = days * 86400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60;
    result.reference_ = pgTimestampFromUnixMicros(unixSeconds * kMicrosPerSecond + micros);
    return result;
}

std::int64_t durationUnitMicros(std::string_view unit) {
    return unitFor(lowerCase(trim(unit)));
}

std::optional<PgTimestamp> timestampFromDateNumber(double value) {
    if (!std::isfinite(value) || value < 0) {
        return std::nullopt;
    }
    double whole = std::floor(value);
    double fraction = value - whole;
    std::int64_t hour = 0;
    if (whole >= 1e9 && whole < 1e10) { // YYYYMMDDHH
        const auto v = static_cast<std::int64_t>(whole);
        hour = v % 100;
        const std::int64_t date = v / 100; // YYYYMMDD
        whole = static_cast<double>(date);
        if (fraction != 0.0 || hour > 23) {
            return std::nullopt;
        }
    }
    if (whole < 1e7 || whole >= 1e8) {
        return std::nullopt;
    }
    const auto v = static_cast<std::int64_t>(whole);
    const std::int64_t year = v / 10000;
    const std::int64_t month = v / 100 % 100;
    const std::int64_t day = v % 100;
    if (year < 1582 || month < 1 || month > 12 || day < 1 || day > 31) {
        return std::nullopt;
    }
    const std::int64_t days = daysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
    const auto micros = static_cast<std::int64_t>(std::llround(fraction * 86400.0 * 1e6));
    return pgTimestampFromUnixMicros((days * 86400 + hour * 3600) * kMicrosPerSecond + micros);
}

namespace {

// The years a time coordinate may reach, 0001-01-01 up to 10000-01-01, in microseconds since
// 1970: far past ERA5's, and far inside what 64-bit microseconds hold (292,000 years).
constexpr std::int64_t kMicrosPerDay = 86'400LL * kMicrosPerSecond;

std::optional<PgTimestamp> withinYears(std::int64_t pgMicros) {
    static const std::int64_t first =
        pgTimestampFromUnixMicros(daysFromCivil(1, 1, 1) * kMicrosPerDay).micros;
    static const std::int64_t end =
        pgTimestampFromUnixMicros(daysFromCivil(10000, 1, 1) * kMicrosPerDay).micros;
    if (pgMicros < first || pgMicros >= end) {
        return std::nullopt;
    }
    return PgTimestamp{pgMicros};
}

} // namespace

std::optional<PgTimestamp> TimeUnits::fromInteger(std::int64_t value) const {
    std::int64_t offset = 0;
    std::int64_t micros = 0;
    if (__builtin_mul_overflow(value, unitMicros_, &offset) ||
        __builtin_add_overflow(reference_.micros, offset, &micros)) {
        return std::nullopt;
    }
    return withinYears(micros);
}

std::optional<PgTimestamp> TimeUnits::fromDouble(double value) const {
    const double offset = value * static_cast<double>(unitMicros_);
    // Past 2^62 microseconds (146,000 years) the offset cannot land within the years anyway.
    if (!std::isfinite(offset) || std::fabs(offset) > 0x1p62) {
        return std::nullopt;
    }
    return withinYears(reference_.micros + static_cast<std::int64_t>(std::llround(offset)));
}

} // namespace isobar
