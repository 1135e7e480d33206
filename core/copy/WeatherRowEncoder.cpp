#include "copy/WeatherRowEncoder.h"

#include "era5/Grid.h"

#include <cmath>

namespace isobar {

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
    return g;
}

GridGeometry GridGeometry::forBox(const GlobalGrid& grid, std::int32_t northRow, std::int32_t westColumn,
                                  const std::vector<double>& latitudes, const std::vector<double>& longitudes) {
    GridGeometry g;
    for (std::size_t r = 0; r < latitudes.size(); ++r) {
        g.latitude.push_back(static_cast<float>(latitudes[r]));
        g.latIdBase.push_back((northRow - static_cast<std::int32_t>(r)) * grid.longitudes() + 1);
    }
    for (std::size_t c = 0; c < longitudes.size(); ++c) {
        g.longitude.push_back(static_cast<float>(normalizeLongitude(longitudes[c])));
        g.lonIndex.push_back((westColumn + static_cast<std::int32_t>(c)) % grid.longitudes());
    }
    return g;
}

void encodeWeatherBand(const GridGeometry& grid, PgTimestamp time, std::size_t latBegin, std::size_t latCount,
                       const BandValues& values, BinaryCopyBuffer& out) {
    const std::size_t nlon = grid.longitude.size();
    out.reserve(latCount * nlon * kMaxWeatherRowBytes);
    std::size_t k = 0;
    for (std::size_t i = latBegin; i < latBegin + latCount; ++i) {
        const float lat = grid.latitude[i];
        const std::int32_t idBase = grid.latIdBase[i];
        for (std::size_t j = 0; j < nlon; ++j, ++k) {
            out.beginTuple(10);
            out.addTimestamptz(time);
            out.addInt32(idBase + grid.lonIndex[j]);
            out.addFloat4(lat);
            out.addFloat4(grid.longitude[j]);
            for (const float* column : values) {
                if (column == nullptr || std::isnan(column[k])) {
                    out.addNull();
                } else {
                    out.addFloat4(column[k]);
                }
            }
        }
    }
}

} // namespace isobar
