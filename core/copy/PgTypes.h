#pragma once

#include <compare>
#include <cstdint>

namespace isobar {

// A PostgreSQL timestamptz value: microseconds since 2000-01-01 00:00:00 UTC, which is what the
// binary COPY format carries. INT64_MIN / INT64_MAX are -infinity / infinity.
struct PgTimestamp {
    std::int64_t micros = 0;

    friend constexpr bool operator==(PgTimestamp, PgTimestamp) = default;
    friend constexpr auto operator<=>(PgTimestamp, PgTimestamp) = default;
};

// Seconds between the Unix epoch (1970-01-01) and PostgreSQL's (2000-01-01).
inline constexpr std::int64_t kUnixToPgEpochSeconds = 946'684'800;
inline constexpr std::int64_t kMicrosPerSecond = 1'000'000;

constexpr PgTimestamp pgTimestampFromUnixMicros(std::int64_t unixMicros) {
    return PgTimestamp{unixMicros - kUnixToPgEpochSeconds * kMicrosPerSecond};
}

constexpr std::int64_t unixMicrosFromPgTimestamp(PgTimestamp t) {
    return t.micros + kUnixToPgEpochSeconds * kMicrosPerSecond;
}

} // namespace isobar
