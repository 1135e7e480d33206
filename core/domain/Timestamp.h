// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace isobar {

// A PostgreSQL timestamptz value: microseconds since 2000-01-01 00:00:00 UTC, which is what the
// binary COPY format carries. INT64_MIN / INT64_MAX are -infinity / infinity.
struct PgTimestamp {
    std::int64_t micros = 0;

    friend constexpr bool operator==(PgTimestamp, PgTimestamp) = default;
    // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 sees the 0 a defaulted <=> compares with
    friend constexpr auto operator<=>(PgTimestamp, PgTimestamp) = default;
};

// Seconds between the Unix epoch (1970-01-01) and PostgreSQL's (2000-01-01).
inline constexpr std::int64_t kUnixToPgEpochSeconds = 946'684'800;
inline constexpr std::int64_t kMicrosPerSecond = 1'000'000;
inline constexpr std::int64_t kMicrosPerHour = 3'600 * kMicrosPerSecond;
inline constexpr std::int64_t kSecondsPerDay = 86'400;

constexpr PgTimestamp pgTimestampFromUnixMicros(std::int64_t unixMicros) {
    return PgTimestamp{unixMicros - kUnixToPgEpochSeconds * kMicrosPerSecond};
}

constexpr std::int64_t unixMicrosFromPgTimestamp(PgTimestamp t) {
    return t.micros + kUnixToPgEpochSeconds * kMicrosPerSecond;
}

// Hour of day (0-23, UTC).
constexpr int hourOfDay(PgTimestamp t) {
    const std::int64_t hours = (t.micros / kMicrosPerHour) % 24;
    return static_cast<int>(hours < 0 ? hours + 24 : hours);
}

// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (negative before).
std::int64_t daysFromCivil(std::int64_t year, unsigned month, unsigned day);

// 00:00 UTC on the first day of the month `t` falls in.
PgTimestamp monthStart(PgTimestamp t);

// "2024-01-01 00:00:00+00" (UTC, ISO 8601 with a space), for messages, reports and SQL literals.
std::string formatTimestamp(PgTimestamp t);

// A time as a user types it, in UTC: "2024-01-01", "2024-01-01 06:00", "2024-01-01T06:00:00Z",
// formatTimestamp()'s "2024-01-01 06:00:00+00". nullopt when it is none of these or no such date.
std::optional<PgTimestamp> parseTimestamp(std::string_view text);

} // namespace isobar
