// SPDX-License-Identifier: GPL-3.0-or-later

#include "domain/UnitPlace.h"

#include <cstdio>

namespace isobar {

namespace {

// "2024-01-01T06:00:00Z"
std::string iso(PgTimestamp t) {
    std::string out = formatTimestamp(t); // "2024-01-01 06:00:00+00"
    out[10] = 'T';
    return out.substr(0, out.size() - 3) + "Z";
}

} // namespace

std::string UnitPlace::key(const GlobalGrid& grid) const {
    // Many hours as an ISO 8601 interval of its first and last: one hour keeps the key of one.
    std::string out = iso(time) + (until && *until != time ? "/" + iso(*until) : std::string());
    char text[200];
    if (level) {
        std::snprintf(text, sizeof text, " %.6g hPa", *level); // a unit never spans two levels
        out += text;
    }
    std::snprintf(text, sizeof text, " lat %.6g..%.6g lon %.6g..%.6g on %s", grid.latitudeOf(north),
                  grid.latitudeOf(south), grid.longitudeOf(west), grid.longitudeOf(east),
                  grid.spacingText().c_str());
    return out + text;
}

} // namespace isobar
