// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// Where an opened file's points lie on the global grid: shared by the NetCDF and the GRIB readers
// of Era5File::open. Not a public API.

#include "era5/Era5File.h"

#include <optional>
#include <string>
#include <vector>

namespace isobar {

// What a file says about its grid beyond its coordinates.
struct GridClues {
    // The grid increment the producer declares (GRIB's iDirectionIncrement): for a single point,
    // whose coordinates show no spacing.
    std::optional<double> declaredIncrement;
    bool namedEra5Land = false; // the file says it is ERA5-Land
};

// Takes the file's latitudes and longitudes (set, in file order) and fills in the grid, the box,
// the spacing, the column runs and the off-grid facts; fails (isobar::Error naming the file) for an
// axis that is not regular, points off the grid (unless the options allow them) and two points in
// one grid cell.
class GridFit {
public:
    GridFit(Era5File& file, const OpenOptions& options, GridClues clues)
        : f_(file)
        , options_(options)
        , clues_(clues) {}

    void place();

private:
    [[noreturn]] void fail(const std::string& why) const { throw Error(f_.name_ + ": " + why); }
    // The spacing of a coordinate axis; nullopt for a single value. Fails when it is not regular.
    std::optional<double> spacing(const std::vector<double>& values, const char* what, bool wraps) const;
    // The global grid whose location_ids the rows get (see OpenOptions::gridSpacing).
    GlobalGrid chooseGrid();
    // Box rows and columns: each point's (nearest) grid cell, refused when two points share one.
    void placeRows(const std::vector<std::int32_t>& latIndex);
    void placeColumns(std::int32_t firstRow);
    [[noreturn]] void failSharedCell(std::size_t latA, std::size_t lonA, std::size_t latB, std::size_t lonB,
                                     std::int32_t row, std::int32_t column) const;

    Era5File& f_;
    const OpenOptions& options_;
    GridClues clues_;
};

} // namespace isobar
