#pragma once

#include <cmath>
#include <cstdint>

namespace isobar {

// Strong types for the integers that are easy to mix up.
struct LocationId {
    std::int32_t value = 0;
    friend constexpr bool operator==(LocationId, LocationId) = default;
};

// The seed's global ERA5 grid: 0.25 deg, 721 latitudes (-90..90) x 1440 longitudes.
inline constexpr double kSeedGridStep = 0.25;
inline constexpr std::int32_t kSeedLongitudes = 1440;
inline constexpr std::int32_t kSeedLatitudes = 721;

// Longitude in (-180, 180], as the seed stores it: x - 360 where x > 180; -180 becomes 180.
constexpr double normalizeLongitude(double lon) {
    if (lon > 180.0) {
        lon -= 360.0;
    }
    if (lon <= -180.0) {
        lon += 360.0;
    }
    return lon;
}

// Row index of a latitude on the seed grid: (lat + 90) / 0.25, rounded to nearest (never truncated).
inline std::int32_t seedLatitudeIndex(double lat) {
    return static_cast<std::int32_t>(std::lround((lat + 90.0) / kSeedGridStep));
}

// Column index of a longitude (any convention) on the seed grid: (lon + 179.75) / 0.25 after
// normalization to (-180, 180], rounded to nearest.
inline std::int32_t seedLongitudeIndex(double lon) {
    return static_cast<std::int32_t>(std::lround((normalizeLongitude(lon) + 179.75) / kSeedGridStep));
}

// location_id = lat_index * 1440 + lon_index + 1, so ids agree with the seed's tables whatever
// region a file covers.
inline LocationId seedLocationId(double lat, double lon) {
    return LocationId{seedLatitudeIndex(lat) * kSeedLongitudes + seedLongitudeIndex(lon) + 1};
}

// True when `value` is a whole multiple of `step` (within float32 coordinate precision).
inline bool onGrid(double value, double step) {
    const double k = value / step;
    return std::fabs(k - std::round(k)) * step < 1e-4;
}

} // namespace isobar
