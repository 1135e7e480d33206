// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace isobar {

// Strong types for the integers that are easy to mix up.
struct LocationId {
    std::int32_t value = 0;
    friend constexpr bool operator==(LocationId, LocationId) = default;
};

// Longitude in (-180, 180], as the seed stores it: x - 360 where x > 180; -180 becomes 180.
constexpr double normalizeLongitude(double lon) {
    while (lon > 180.0) {
        lon -= 360.0;
    }
    while (lon <= -180.0) {
        lon += 360.0;
    }
    return lon;
}

// True when `value` is a whole multiple of `spacing` (within float32 coordinate precision).
inline bool onGrid(double value, double spacing) {
    const double k = value / spacing;
    return std::fabs(k - std::round(k)) * spacing < 1e-4;
}

// A global regular latitude/longitude grid whose spacing divides 360: ERA5's 0.25 deg, ERA5-Land's
// 0.1 deg, or a coarser regridding. Its points are the multiples of the spacing (as MARS anchors its
// grids at 0, 0). location_id numbers them the way the seed numbers the 0.25 deg grid: row by row
// from the south, columns from the westmost one after -180 eastwards to 180, starting at 1; for
// 0.25 deg that is exactly lat_index = (lat + 90) / 0.25, lon_index = (lon + 179.75) / 0.25.
class GlobalGrid {
public:
    // The seed's grid: 0.25 deg, 721 x 1440.
    GlobalGrid()
        : GlobalGrid(0.25, 1440, 360, -719) {}

    // Throws isobar::Error when `spacing` does not divide 360 (or is absurdly small or large).
    static GlobalGrid withSpacing(double spacing);

    double spacing() const noexcept { return spacing_; }
    std::int32_t longitudes() const noexcept { return longitudes_; }
    std::int32_t latitudes() const noexcept { return 2 * southRows_ + 1; }

    // Nearest row (0 = southernmost) and column (0 = westmost after -180); columns wrap around.
    std::int32_t latitudeIndex(double lat) const {
        return static_cast<std::int32_t>(std::lround(lat / spacing_)) + southRows_;
    }
    std::int32_t longitudeIndex(double lon) const {
        const auto k =
            static_cast<std::int32_t>(std::lround(normalizeLongitude(lon) / spacing_)) - firstColumn_;
        return ((k % longitudes_) + longitudes_) % longitudes_;
    }
    LocationId locationId(std::int32_t latIndex, std::int32_t lonIndex) const {
        return LocationId{firstIdOfRow(latIndex) + lonIndex};
    }
    // The location_id of column 0 of a row: ids run on by one per column eastwards.
    std::int32_t firstIdOfRow(std::int32_t latIndex) const { return latIndex * longitudes_ + 1; }
    LocationId locationId(double lat, double lon) const {
        return locationId(latitudeIndex(lat), longitudeIndex(lon));
    }
    // The coordinates of a grid point (longitude normalized).
    double latitudeOf(std::int32_t latIndex) const { return (latIndex - southRows_) * spacing_; }
    double longitudeOf(std::int32_t lonIndex) const {
        return normalizeLongitude((lonIndex + firstColumn_) * spacing_);
    }
    bool contains(double lat, double lon) const { return onGrid(lat, spacing_) && onGrid(lon, spacing_); }

    // "0.25 deg global grid (721 x 1440 points)"
    std::string describe() const;
    std::string spacingText() const; // "0.25"

    friend bool operator==(const GlobalGrid& a, const GlobalGrid& b) {
        return a.longitudes_ == b.longitudes_;
    }

private:
    GlobalGrid(double spacing, std::int32_t longitudes, std::int32_t southRows, std::int32_t firstColumn)
        : spacing_(spacing)
        , longitudes_(longitudes)
        , southRows_(southRows)
        , firstColumn_(firstColumn) {}

    double spacing_;
    std::int32_t longitudes_;
    std::int32_t southRows_;   // rows south of the equator (the equator is row southRows_)
    std::int32_t firstColumn_; // column 0 is at firstColumn_ * spacing (the westmost point after -180)
};

// The part of the global grid a file covers: rows from north to south, columns from west to east
// (wrapping at the date line). Usually a contiguous block of the grid; a coarser grid whose points
// are points of this one (1 deg on ERA5's 0.25 deg), or the nearest cells of points off the grid
// at a spacing that is not the grid's, skip rows or columns: then rowIndex and columnIndex list them.
struct GridBox {
    std::int32_t northRow = 0; // global latitude index of the first (northernmost) row
    std::size_t rows = 0;
    std::int32_t westColumn = 0; // global longitude index of the first (westernmost) column
    std::size_t cols = 0;
    // The global latitude index of each row (north to south) and longitude index of each column
    // (west to east), when they skip some of the grid's; empty when row i is northRow - i and
    // column j is westColumn + j (wrapped).
    std::vector<std::int32_t> rowIndex{};
    std::vector<std::int32_t> columnIndex{};

    std::int32_t gridRow(std::size_t i) const {
        return rowIndex.empty() ? northRow - static_cast<std::int32_t>(i) : rowIndex[i];
    }
    std::int32_t gridColumn(std::size_t j, const GlobalGrid& grid) const {
        return columnIndex.empty() ? (westColumn + static_cast<std::int32_t>(j)) % grid.longitudes()
                                   : columnIndex[j];
    }

    friend bool operator==(const GridBox&, const GridBox&) = default;
    // "lat 70..30, lon -30..10 (161 x 161 points)"
    std::string describe(const GlobalGrid& grid) const;
};

// What every row of a box needs besides its values, computed once per box: the stored latitude,
// the normalized longitude and the parts of location_id (GlobalGrid::locationId split into a
// per-row and a per-column term, so a row's id is rowFirstId[i] + lonIndex[j]).
struct GridGeometry {
    std::vector<float> latitude;          // per latitude row, as the file stores it
    std::vector<std::int32_t> rowFirstId; // location_id of the row's column 0
    std::vector<float> longitude;         // per longitude column, normalized to (-180, 180]
    std::vector<std::int32_t> lonIndex;   // global column index

    // On the seed's 0.25 deg grid, for coordinates on that grid.
    static GridGeometry fromAxes(const std::vector<double>& latitudes, const std::vector<double>& longitudes);
    // For a box of `grid` with the real coordinates of its rows and columns (which differ from the
    // grid's for off-grid points).
    static GridGeometry forBox(const GlobalGrid& grid, const GridBox& box,
                               const std::vector<double>& latitudes, const std::vector<double>& longitudes);
};

// The seed's formulas on the 0.25 deg grid, kept by name because the tests and the docs speak of
// them: lat_index = (lat + 90) / 0.25, lon_index = (lon + 179.75) / 0.25, both rounded to nearest,
// location_id = lat_index * 1440 + lon_index + 1.
inline constexpr double kSeedGridStep = 0.25;
inline constexpr std::int32_t kSeedLongitudes = 1440;
inline std::int32_t seedLatitudeIndex(double lat) {
    return GlobalGrid().latitudeIndex(lat);
}
inline std::int32_t seedLongitudeIndex(double lon) {
    return GlobalGrid().longitudeIndex(lon);
}
inline LocationId seedLocationId(double lat, double lon) {
    return GlobalGrid().locationId(lat, lon);
}

} // namespace isobar
