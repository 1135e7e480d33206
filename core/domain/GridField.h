// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "domain/Grid.h"
#include "domain/Timestamp.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace isobar {

// One variable at one time step (and pressure level) on a box of the global grid, in table units:
// what a map shows. Read from a file (the values a load would store) or from a table (the values
// a load stored); rows north to south, columns west to east, NaN where the value is missing.
struct GridField {
    std::string column; // the table column ("temperature_2m")
    std::string key;    // the variable's key ("t2m")
    std::string units;  // of the values ("degC")
    PgTimestamp time;
    std::optional<double> level; // hPa, for pressure-level data
    GlobalGrid grid;
    GridBox box;
    std::vector<double> latitudes;  // per row, north to south
    std::vector<double> longitudes; // per column, west to east, normalized to (-180, 180]
    std::vector<float> values;      // rows x cols

    std::size_t rows() const noexcept { return box.rows; }
    std::size_t cols() const noexcept { return box.cols; }
    float at(std::size_t row, std::size_t col) const { return values[row * box.cols + col]; }
    LocationId locationAt(std::size_t row, std::size_t col) const {
        return grid.locationId(box.gridRow(row), box.gridColumn(col, grid));
    }
    // The box position of a grid point, if the box holds it.
    std::optional<std::pair<std::size_t, std::size_t>> positionOf(LocationId id) const;

    // The smallest and largest value that is not missing; nullopt when every value is missing.
    std::optional<std::pair<float, float>> range() const;
    std::size_t missingCount() const;

    // The part of the field of rows [row, row + rows) and columns [col, col + cols) (clamped to the
    // field): the same variable and time, each point with its own coordinates, value and location.
    GridField cropped(std::size_t row, std::size_t rows, std::size_t col, std::size_t cols) const;
};

// A box of `grid` that holds exactly the given points, from their global row and column indices
// (in any order, repeats allowed): rows from the northernmost, columns from the west end of the
// smallest arc that holds them all (so a box across the date line starts east of it). Rows or
// columns the points skip (a coarser grid on this one) are left out, as GridBox::rowIndex and
// columnIndex say. An empty box when there are no points.
GridBox boxOfPoints(const GlobalGrid& grid, std::vector<std::int32_t> rows,
                    std::vector<std::int32_t> columns);

// Latitude and longitude bounds of what a load wrote, in the table's convention (longitude in
// (-180, 180]); west > east for a box across the date line.
struct GeoBounds {
    double south = -90.0;
    double north = 90.0;
    double west = -180.0;
    double east = 180.0;
    friend bool operator==(const GeoBounds&, const GeoBounds&) = default;
};

// Evenly spaced times: first, first + step, ... (count of them).
struct TimeRun {
    PgTimestamp first;
    std::int64_t stepMicros = 0;
    std::size_t count = 1;
    friend bool operator==(const TimeRun&, const TimeRun&) = default;
};

// Ascending distinct times as runs (an hourly year is one run), and back.
std::vector<TimeRun> timeRuns(const std::vector<PgTimestamp>& times);
std::vector<PgTimestamp> expandTimeRuns(const std::vector<TimeRun>& runs);

// Where a load's rows lie: the grid, the box, the time steps and the pressure levels. What a map
// of the table after the load reads (the report keeps it). Empty (gridSpacing 0) in reports of older
// versions.
struct LoadedExtent {
    double gridSpacing = 0.0;
    GeoBounds bounds;
    std::vector<TimeRun> times;
    std::vector<double> levels; // hPa; empty for surface data
    bool empty() const noexcept { return gridSpacing <= 0.0; }
    friend bool operator==(const LoadedExtent&, const LoadedExtent&) = default;
};

// One value of a point's time series, as a table holds it (NaN: NULL).
struct SeriesPoint {
    PgTimestamp time;
    float value = std::nanf("");
};

} // namespace isobar
