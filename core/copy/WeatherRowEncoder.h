#pragma once

#include "copy/BinaryCopyBuffer.h"
#include "domain/Band.h"
#include "domain/Grid.h"
#include "domain/Timestamp.h"

#include <cstdint>
#include <vector>

namespace isobar {

// Upper bound of one encoded weather row: int16 field count, time (4+8), location_id (4+4) and the
// float4 fields (4+4 each) of latitude, longitude and each value column.
constexpr std::size_t maxWeatherRowBytes(std::size_t valueColumns) {
    return 2 + 12 + 8 + 8 * (2 + valueColumns);
}

// Encodes bands of one box into weather rows on the binary COPY wire. The latitude and longitude
// fields (int32 length 4, float4 big-endian) are prepared once per box, so the per-row work is
// copying, not converting.
class WeatherRowEncoder {
public:
    explicit WeatherRowEncoder(GridGeometry geometry);

    // Appends the rows of latitude rows [latBegin, latBegin + latCount) at one time step, in the
    // seed's column order, to `out`.
    void encode(PgTimestamp time, std::size_t latBegin, std::size_t latCount, const BandValues& values,
                BinaryCopyBuffer& out) const;

private:
    GridGeometry geometry_;
    std::vector<std::uint64_t> latitudeField_;
    std::vector<std::uint64_t> longitudeField_;
};

} // namespace isobar
