// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "domain/Grid.h"
#include "domain/Timestamp.h"

#include <cstdint>
#include <optional>
#include <string>

namespace isobar {

// Where a unit's rows lie: one valid time (and pressure level), or for a unit of many hours of one
// point the hours from `time` to `until` (inside one UTC month), and a rectangle of the table's
// global grid, in its row and column indexes (GlobalGrid). Two units with the same place hold the
// same rows of the table, whichever files they came from.
struct UnitPlace {
    PgTimestamp time;
    std::optional<PgTimestamp> until; // the last hour, when the unit spans several (the ledger's valid_until)
    std::optional<double> level;      // hPa, on pressure levels
    std::int32_t north = 0;           // global latitude indexes, north >= south
    std::int32_t south = 0;
    std::int32_t west = 0; // global longitude indexes, west <= east (a box across column 0 is two units)
    std::int32_t east = 0;
    // The points of a coarser grid (or of nearest cells off it) within the rectangle, not every
    // cell of it: such a place is only ever compared whole.
    bool sparse = false;

    // The last time step the unit holds (its only one, unless it spans several).
    PgTimestamp last() const { return until.value_or(time); }
    bool timesOverlap(const UnitPlace& o) const {
        return level == o.level && time <= o.last() && o.time <= last();
    }
    bool overlaps(const UnitPlace& o) const {
        return timesOverlap(o) && south <= o.north && o.south <= north && west <= o.east && o.west <= east;
    }
    bool contains(const UnitPlace& o) const {
        return level == o.level && time <= o.time && o.last() <= last() && south <= o.south &&
               o.north <= north && west <= o.west && o.east <= east;
    }
    // The same time steps, level and rectangle.
    bool sameExtent(const UnitPlace& o) const {
        return time == o.time && last() == o.last() && level == o.level && north == o.north &&
               south == o.south && west == o.west && east == o.east && sparse == o.sparse;
    }
    std::uint64_t cells() const {
        return static_cast<std::uint64_t>(north - south + 1) * static_cast<std::uint64_t>(east - west + 1);
    }
    // The unit key: what the rows are, never which file brought them. "2024-01-01T06:00:00Z lat
    // 42..40 lon 0..2 on 0.25", "2024-01-01T06:00:00Z 500 hPa lat ...", "... on 0.25 sparse",
    // "2024-01-01T00:00:00Z/2024-01-31T23:00:00Z lat 52.5..52.5 lon 13.25..13.25 on 0.25".
    std::string key(const GlobalGrid& grid) const;
};

} // namespace isobar
