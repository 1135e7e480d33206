#include "copy/WeatherRowEncoder.h"

#include "era5/Grid.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace isobar {

namespace {

// An 8-byte float4 field as it goes on the wire: int32 length 4, then the value, both big-endian,
// as a little-endian machine stores it from one uint64.
std::uint64_t floatField(float value) {
    const auto bits = std::bit_cast<std::uint32_t>(value);
    return (static_cast<std::uint64_t>(__builtin_bswap32(bits)) << 32) | 0x04000000ULL;
}

constexpr std::uint32_t kNullField = 0xFFFFFFFFU; // int32 length -1

} // namespace

void GridGeometry::prepareFields() {
    latitudeField.clear();
    longitudeField.clear();
    for (float lat : latitude) {
        latitudeField.push_back(floatField(lat));
    }
    for (float lon : longitude) {
        longitudeField.push_back(floatField(lon));
    }
}

GridGeometry GridGeometry::fromAxes(const std::vector<double>& latitudes,
                                    const std::vector<double>& longitudes) {
    GridGeometry g;
    g.latitude.reserve(latitudes.size());
    g.latIdBase.reserve(latitudes.size());
    for (double lat : latitudes) {
        g.latitude.push_back(static_cast<float>(lat));
        g.latIdBase.push_back(seedLatitudeIndex(lat) * kSeedLongitudes + 1);
    }
    g.longitude.reserve(longitudes.size());
    g.lonIndex.reserve(longitudes.size());
    for (double lon : longitudes) {
        g.longitude.push_back(static_cast<float>(normalizeLongitude(lon)));
        g.lonIndex.push_back(seedLongitudeIndex(lon));
    }
    g.prepareFields();
    return g;
}

GridGeometry GridGeometry::forBox(const GlobalGrid& grid, std::int32_t northRow, std::int32_t westColumn,
                                  const std::vector<double>& latitudes,
                                  const std::vector<double>& longitudes) {
    GridGeometry g;
    for (std::size_t r = 0; r < latitudes.size(); ++r) {
        g.latitude.push_back(static_cast<float>(latitudes[r]));
        g.latIdBase.push_back((northRow - static_cast<std::int32_t>(r)) * grid.longitudes() + 1);
    }
    for (std::size_t c = 0; c < longitudes.size(); ++c) {
        g.longitude.push_back(static_cast<float>(normalizeLongitude(longitudes[c])));
        g.lonIndex.push_back((westColumn + static_cast<std::int32_t>(c)) % grid.longitudes());
    }
    g.prepareFields();
    return g;
}

void encodeWeatherBand(const GridGeometry& grid, PgTimestamp time, std::size_t latBegin, std::size_t latCount,
                       const BandValues& values, BinaryCopyBuffer& out) {
    static_assert(std::endian::native == std::endian::little,
                  "the row layout below assumes a little-endian host");
    const std::size_t nlon = grid.longitude.size();
    out.reserve(latCount * nlon * kMaxWeatherRowBytes);
    // The first 18 bytes are the same for every row of the band: field count 10, the timestamp
    // field, and the length of location_id.
    char prefix[18];
    const std::uint16_t fields = __builtin_bswap16(10);
    const std::uint32_t eight = __builtin_bswap32(8);
    const auto micros = __builtin_bswap64(static_cast<std::uint64_t>(time.micros));
    const std::uint32_t four = __builtin_bswap32(4);
    std::memcpy(prefix, &fields, 2);
    std::memcpy(prefix + 2, &eight, 4);
    std::memcpy(prefix + 6, &micros, 8);
    std::memcpy(prefix + 14, &four, 4);
    std::size_t k = 0;
    for (std::size_t i = latBegin; i < latBegin + latCount; ++i) {
        const std::uint64_t latField = grid.latitudeField[i];
        const std::int32_t idBase = grid.latIdBase[i];
        for (std::size_t j = 0; j < nlon; ++j, ++k) {
            // Reserve was for the worst case; each row takes what it needs.
            char* p = out.append(18 + 4 + 8 + 8);
            std::memcpy(p, prefix, 18);
            const std::uint32_t id = __builtin_bswap32(static_cast<std::uint32_t>(idBase + grid.lonIndex[j]));
            std::memcpy(p + 18, &id, 4);
            std::memcpy(p + 22, &latField, 8);
            std::memcpy(p + 30, &grid.longitudeField[j], 8);
            for (const float* column : values) {
                if (column == nullptr || std::isnan(column[k])) {
                    std::memcpy(out.append(4), &kNullField, 4);
                } else {
                    const std::uint64_t field = floatField(column[k]);
                    std::memcpy(out.append(8), &field, 8);
                }
            }
        }
    }
}

} // namespace isobar
