// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "copy/BinaryCopyBuffer.h"
#include "domain/Band.h"
#include "domain/Grid.h"
#include "domain/Timestamp.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace isobar {

// Upper bound of one encoded weather row: int16 field count, time (4+8), location_id (4+4) and the
// float4 fields (4+4 each) of the pressure level (on pressure levels), latitude, longitude and each
// value column.
constexpr std::size_t maxWeatherRowBytes(std::size_t valueColumns, bool pressureLevel = false) {
    return 2 + 12 + 8 + 8 * ((pressureLevel ? 3 : 2) + valueColumns);
}

// Encodes bands of one box into weather rows on the binary COPY wire. The latitude and longitude
// fields (int32 length 4, float4 big-endian) are prepared once per box, so the per-row work is
// copying, not converting.
class WeatherRowEncoder {
public:
    explicit WeatherRowEncoder(GridGeometry geometry);

    // Appends the rows of latitude rows [latBegin, latBegin + latCount) at one time step (and
    // pressure level, in hPa, for a pressure-level table) to `out`: time, [pressure_level,]
    // location_id, latitude, longitude, then `values` in their order. `values` hold every column
    // of the box for each of those rows; only columns [colBegin, colBegin + colCount) are encoded
    // (colCount 0: to the last).
    void encode(PgTimestamp time, std::optional<float> level, std::size_t latBegin, std::size_t latCount,
                const BandValues& values, BinaryCopyBuffer& out, std::size_t colBegin = 0,
                std::size_t colCount = 0) const;

private:
    GridGeometry geometry_;
    std::vector<std::uint64_t> latitudeField_;
    std::vector<std::uint64_t> longitudeField_;
};

} // namespace isobar
