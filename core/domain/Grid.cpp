// SPDX-License-Identifier: GPL-3.0-or-later

#include "domain/Grid.h"

#include "util/Error.h"
#include "util/Format.h"

#include <cstdio>

namespace isobar {

GlobalGrid GlobalGrid::withSpacing(double spacing) {
    if (!(spacing >= 0.01 && spacing <= 180.0)) {
        throw Error("a grid spacing of " + std::to_string(spacing) +
                    " degrees is not supported (0.01 to 180)");
    }
    const double lons = 360.0 / spacing;
    if (std::fabs(lons - std::round(lons)) > 1e-6 * lons) {
        char buf[160];
        std::snprintf(
            buf, sizeof buf,
            "a grid spacing of %.6g degrees does not divide 360, so its points cannot be numbered on "
            "a global grid",
            spacing);
        throw Error(buf);
    }
    // Use the exact spacing the count implies (0.1 stays 0.1, not the float the file stored).
    const auto nlon = static_cast<std::int32_t>(std::lround(lons));
    const double exact = 360.0 / nlon;
    const auto southRows = static_cast<std::int32_t>(std::floor(90.0 / exact + 1e-9));
    const auto firstColumn = static_cast<std::int32_t>(std::floor(-180.0 / exact + 1e-9)) + 1;
    return GlobalGrid(exact, nlon, southRows, firstColumn);
}

std::string GlobalGrid::spacingText() const {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", spacing_);
    return buf;
}

std::string GlobalGrid::describe() const {
    return spacingText() + " deg global grid (" + std::to_string(latitudes()) + " x " +
           std::to_string(longitudes_) + " points)";
}

std::string GridBox::describe(const GlobalGrid& grid) const {
    const double north = grid.latitudeOf(gridRow(0));
    const double south = grid.latitudeOf(gridRow(rows - 1));
    const double west = grid.longitudeOf(gridColumn(0, grid));
    const double east = grid.longitudeOf(gridColumn(cols - 1, grid));
    return "lat " + formatCoordinate(north) + ".." + formatCoordinate(south) + ", lon " +
           formatCoordinate(west) + ".." + formatCoordinate(east) + " (" + std::to_string(rows) + " x " +
           std::to_string(cols) + " points)";
}

GridGeometry GridGeometry::fromAxes(const std::vector<double>& latitudes,
                                    const std::vector<double>& longitudes) {
    const GlobalGrid seed;
    GridGeometry g;
    for (double lat : latitudes) {
        g.latitude.push_back(static_cast<float>(lat));
        g.rowFirstId.push_back(seed.firstIdOfRow(seed.latitudeIndex(lat)));
    }
    for (double lon : longitudes) {
        g.longitude.push_back(static_cast<float>(normalizeLongitude(lon)));
        g.lonIndex.push_back(seed.longitudeIndex(lon));
    }
    return g;
}

GridGeometry GridGeometry::forBox(const GlobalGrid& grid, const GridBox& box,
                                  const std::vector<double>& latitudes,
                                  const std::vector<double>& longitudes) {
    GridGeometry g;
    for (std::size_t r = 0; r < latitudes.size(); ++r) {
        g.latitude.push_back(static_cast<float>(latitudes[r]));
        g.rowFirstId.push_back(grid.firstIdOfRow(box.gridRow(r)));
    }
    for (std::size_t c = 0; c < longitudes.size(); ++c) {
        g.longitude.push_back(static_cast<float>(normalizeLongitude(longitudes[c])));
        g.lonIndex.push_back(box.gridColumn(c, grid));
    }
    return g;
}

} // namespace isobar
