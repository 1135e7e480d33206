// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "domain/Timestamp.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace isobar {

// A CF time coordinate's meaning: "<unit> since <reference date-time>" in a given calendar.
// Values convert exactly (integer arithmetic) to PostgreSQL timestamps in UTC.
class TimeUnits {
public:
    // Parses the `units` and `calendar` attributes of a time coordinate, e.g.
    // "hours since 1900-01-01 00:00:00.0" with calendar "gregorian". Throws isobar::Error with a
    // message naming what is not understood.
    static TimeUnits parse(std::string_view units, std::string_view calendar = "standard");

    // One step of the unit, in microseconds.
    std::int64_t unitMicros() const noexcept { return unitMicros_; }
    PgTimestamp reference() const noexcept { return reference_; }

    // The time `value` units after the reference; nullopt when that is not a time of the years
    // 1 to 9999 (a damaged coordinate: 2e9 days would overflow the microseconds).
    std::optional<PgTimestamp> fromInteger(std::int64_t value) const;
    // Fractional offsets are rounded to the nearest microsecond.
    std::optional<PgTimestamp> fromDouble(double value) const;

private:
    std::int64_t unitMicros_ = 0;
    PgTimestamp reference_{};
};

// A date written as a number, as some non-CF time axes store it: YYYYMMDD (a day, 00 UTC),
// YYYYMMDDHH (an hour), or YYYYMMDD.fraction (CDO's "day as %Y%m%d.%f"). nullopt when `value`
// is not such a date.
std::optional<PgTimestamp> timestampFromDateNumber(double value);

// The length of the unit of a duration coordinate ("hour", "hours", "h", "minutes", "s", ...), in
// microseconds; 0 when unknown.
std::int64_t durationUnitMicros(std::string_view unit);

} // namespace isobar
