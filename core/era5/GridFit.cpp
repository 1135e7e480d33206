// SPDX-License-Identifier: GPL-3.0-or-later

// Era5File::open, continued: where a file's points lie on the global grid, for every format.

#include "era5/GridFit.h"

#include "util/Error.h"
#include "util/Format.h"

#include <algorithm>
#include <cmath>

namespace isobar {

// The spacing of a coordinate axis; nullopt for a single value. Fails when it is not regular.
std::optional<double> GridFit::spacing(const std::vector<double>& values, const char* what,
                                       bool wraps) const {
    if (values.size() < 2) {
        return std::nullopt;
    }
    const auto diff = [&](size_t i) {
        double d = values[i + 1] - values[i];
        if (wraps) {
            d = std::fmod(d + 540.0, 360.0) - 180.0; // across the date line
        }
        return d;
    };
    const double first = diff(0);
    if (first == 0.0) {
        fail(std::string(what) + " " + formatCoordinate(values[0]) + " appears twice");
    }
    for (size_t i = 1; i + 1 < values.size(); ++i) {
        const double d = diff(i);
        if (std::fabs(d - first) > 1e-4 + 1e-3 * std::fabs(first)) {
            fail("the " + std::string(what) + " axis is not regular (spacing " +
                 formatCoordinate(std::fabs(first)) + " near " + formatCoordinate(values[0]) + " but " +
                 formatCoordinate(std::fabs(d)) + " near " + formatCoordinate(values[i]) +
                 "): Isobar loads regular latitude/longitude grids");
        }
    }
    return std::fabs(first);
}

namespace {

// A spacing measured between float32 coordinates is off by up to ~2e-5 degrees (0.0999985 for
// ERA5-Land's 0.1): the spacing that divides 360 it is meant to be, else the spacing as measured.
double meantSpacing(double step) {
    const double parts = std::round(360.0 / step);
    if (parts >= 1.0 && std::fabs(360.0 / parts - step) < 5e-5) {
        return 360.0 / parts;
    }
    return step;
}

bool allOnGrid(const std::vector<double>& values, double step) {
    return std::all_of(values.begin(), values.end(), [step](double v) { return onGrid(v, step); });
}

} // namespace

void GridFit::place() {
    f_.latLength_ = f_.latitudes_.size();
    f_.lonLength_ = f_.longitudes_.size();
    if (f_.latLength_ == 0 || f_.lonLength_ == 0) {
        fail("the latitude or longitude dimension is empty");
    }
    for (double lat : f_.latitudes_) {
        if (!(lat >= -90.0 && lat <= 90.0)) {
            fail("latitude " + formatCoordinate(lat) + " is outside -90..90");
        }
    }
    for (double lon : f_.longitudes_) {
        if (!(lon >= -180.0 && lon <= 360.0)) {
            fail("longitude " + formatCoordinate(lon) + " is outside -180..360");
        }
    }
    if (const auto dlat = spacing(f_.latitudes_, "latitude", false)) {
        f_.latSpacing_ = meantSpacing(*dlat);
    }
    if (const auto dlon = spacing(f_.longitudes_, "longitude", true)) {
        f_.lonSpacing_ = meantSpacing(*dlon);
    }
    f_.grid_ = chooseGrid();
    const GlobalGrid& g = f_.grid_;
    // On the grid? Off-grid points are refused unless the user asked for the nearest cell.
    const auto offLat = std::find_if(f_.latitudes_.begin(), f_.latitudes_.end(),
                                     [&](double lat) { return !onGrid(lat, g.spacing()); });
    const auto offLon = std::find_if(f_.longitudes_.begin(), f_.longitudes_.end(),
                                     [&](double lon) { return !onGrid(lon, g.spacing()); });
    if (offLat != f_.latitudes_.end() || offLon != f_.longitudes_.end()) {
        if (options_.offGrid == OffGridPolicy::Refuse) {
            // Say so when the spacing itself is not the grid's (a box interpolated at 0.25025 deg):
            // then no shift of the box puts it on the grid.
            const auto offStep = [&](const std::optional<double>& s) {
                return s && !onGrid(*s, g.spacing());
            };
            std::string why;
            if (offStep(f_.latSpacing_) && offStep(f_.lonSpacing_)) {
                why = " (its latitudes are " + formatCoordinate(*f_.latSpacing_) + " and its longitudes " +
                      formatCoordinate(*f_.lonSpacing_) + " degrees apart: not the grid's spacing)";
            } else if (offStep(f_.latSpacing_)) {
                why = " (its latitudes are " + formatCoordinate(*f_.latSpacing_) +
                      " degrees apart: not the grid's spacing)";
            } else if (offStep(f_.lonSpacing_)) {
                why = " (its longitudes are " + formatCoordinate(*f_.lonSpacing_) +
                      " degrees apart: not the grid's spacing)";
            }
            const double lat = offLat != f_.latitudes_.end() ? *offLat : f_.latitudes_.front();
            const double lon = offLon != f_.longitudes_.end() ? *offLon : f_.longitudes_.front();
            fail("the point (latitude " + formatCoordinate(lat) + ", longitude " + formatCoordinate(lon) +
                 ") is not on the " + g.spacingText() + " degree grid" + why +
                 "; use --off-grid nearest to load it at the nearest grid point's location_id, keeping its "
                 "real latitude and longitude");
        }
        f_.offGrid_ = true;
        f_.notes_.push_back("points off the " + g.spacingText() +
                            " degree grid are loaded with the location_id of "
                            "the nearest grid point and their own latitude/longitude");
    }
    std::vector<std::int32_t> latIndex;
    latIndex.reserve(f_.latitudes_.size());
    for (double lat : f_.latitudes_) {
        latIndex.push_back(g.latitudeIndex(lat));
    }
    f_.lonIndex_.clear();
    for (double lon : f_.longitudes_) {
        f_.lonIndex_.push_back(g.longitudeIndex(lon));
    }
    placeRows(latIndex);
    placeColumns(latIndex.front());
    if (!f_.offGrid_ && (!f_.box_.rowIndex.empty() || !f_.box_.columnIndex.empty())) {
        f_.notes_.push_back("its points, " + f_.spacingText() + " apart, are points of the " +
                            g.spacingText() +
                            " degree grid: they are loaded with that grid's location_ids, so their rows join "
                            "with the full grid's");
    }
}

GlobalGrid GridFit::chooseGrid() {
    const auto gridOf = [&](double step) {
        try {
            return GlobalGrid::withSpacing(step);
        } catch (const Error& e) {
            fail(std::string("the grid cannot be used: ") + e.what());
        }
    };
    if (options_.gridSpacing) {
        return gridOf(*options_.gridSpacing);
    }
    // The file's own spacing: the same along both axes (or along the one with two points), else,
    // for a single point, the increment of the GRIB message it came from when the file says.
    std::optional<double> own;
    if (f_.latSpacing_ && f_.lonSpacing_) {
        if (std::fabs(*f_.latSpacing_ - *f_.lonSpacing_) <= 1e-4) {
            own = f_.latSpacing_;
        }
    } else {
        own = f_.latSpacing_ ? f_.latSpacing_ : f_.lonSpacing_;
    }
    const bool singlePoint = !f_.latSpacing_ && !f_.lonSpacing_;
    if (singlePoint && clues_.declaredIncrement && *clues_.declaredIncrement > 0.0) {
        own = meantSpacing(*clues_.declaredIncrement);
    }
    // The product's grid: ERA5-Land's 0.1 deg when the file says it is ERA5-Land (its name, the
    // 0.1 spacing, --product), else ERA5's 0.25 deg.
    const bool land = options_.product == ProductOverride::Era5Land ||
                      (options_.product == ProductOverride::Auto &&
                       (clues_.namedEra5Land || (own && std::fabs(*own - 0.1) < 1e-9)));
    const GlobalGrid product = gridOf(land ? 0.1 : 0.25);
    if (singlePoint && !own) {
        f_.gridSpacingAssumed_ = true;
        f_.notes_.push_back("a single point does not show its grid spacing: taken as a point of the " +
                            product.spacingText() + " degree grid (use --grid to say otherwise)");
    }
    // Points of the product's grid keep its location_ids, however coarse the file (a 1 deg
    // download has ERA5's 0.25 deg ids, so its rows join with full-resolution tables).
    if (allOnGrid(f_.latitudes_, product.spacing()) && allOnGrid(f_.longitudes_, product.spacing())) {
        return product;
    }
    // A grid that is not a subset of the product's (0.2 deg, say) numbers its own cells, when its
    // spacing divides 360; anything else is off the product's grid.
    if (own && !onGrid(*own, product.spacing())) {
        try {
            return GlobalGrid::withSpacing(*own);
        } catch (const Error&) {
            // Not a global grid: its points are off the product's grid.
        }
    }
    return product;
}

void GridFit::failSharedCell(std::size_t latA, std::size_t lonA, std::size_t latB, std::size_t lonB,
                             std::int32_t row, std::int32_t column) const {
    const GlobalGrid& g = f_.grid_;
    const auto point = [&](std::size_t lat, std::size_t lon) {
        return "(latitude " + formatCoordinate(f_.latitudes_[lat]) + ", longitude " +
               formatCoordinate(f_.longitudes_[lon]) + ")";
    };
    const std::string hint =
        f_.offGrid_ ? "; they are closer together than the grid's spacing (--grid can name a finer grid)"
                    : "";
    fail("the points " + point(latA, lonA) + " and " + point(latB, lonB) +
         (f_.offGrid_ ? " would share" : " share") + " the " + (f_.offGrid_ ? "nearest " : "") +
         "cell of the " + g.spacingText() + " degree grid (latitude " + formatCoordinate(g.latitudeOf(row)) +
         ", longitude " + formatCoordinate(g.longitudeOf(column)) + ", location_id " +
         std::to_string(g.locationId(row, column).value) +
         "): one location_id cannot hold the rows of two points" + hint);
}

void GridFit::placeRows(const std::vector<std::int32_t>& latIndex) {
    // North to south or south to north (the axis is regular, so monotonic), one grid row each.
    f_.latAscending_ = latIndex.size() > 1 && latIndex[1] > latIndex[0];
    for (size_t i = 1; i < latIndex.size(); ++i) {
        if (latIndex[i] == latIndex[i - 1]) {
            failSharedCell(i - 1, 0, i, 0, latIndex[i], f_.lonIndex_.front());
        }
        if ((latIndex[i] > latIndex[i - 1]) != f_.latAscending_) {
            fail("latitudes " + formatCoordinate(f_.latitudes_[i - 1]) + " and " +
                 formatCoordinate(f_.latitudes_[i]) + " are out of order");
        }
    }
    std::vector<std::int32_t> rows(latIndex);
    if (f_.latAscending_) {
        std::reverse(rows.begin(), rows.end());
    }
    f_.box_.northRow = rows.front();
    f_.box_.rows = rows.size();
    for (size_t i = 0; i < rows.size(); ++i) {
        if (rows[i] != f_.box_.northRow - static_cast<std::int32_t>(i)) {
            f_.box_.rowIndex = rows; // rows of a coarser grid, or nearest rows that skip one
            break;
        }
    }
}

void GridFit::placeColumns(std::int32_t firstRow) {
    const std::int32_t n = f_.grid_.longitudes();
    // File columns by grid column; two in one column (0 and 360, or nearest cells) are refused.
    std::vector<std::size_t> byColumn(f_.lonIndex_.size());
    for (size_t j = 0; j < byColumn.size(); ++j) {
        byColumn[j] = j;
    }
    std::sort(byColumn.begin(), byColumn.end(),
              [&](std::size_t a, std::size_t b) { return f_.lonIndex_[a] < f_.lonIndex_[b]; });
    std::vector<std::int32_t> sorted;
    for (size_t k = 0; k < byColumn.size(); ++k) {
        sorted.push_back(f_.lonIndex_[byColumn[k]]);
        if (k > 0 && sorted[k] == sorted[k - 1]) {
            failSharedCell(0, std::min(byColumn[k - 1], byColumn[k]), 0,
                           std::max(byColumn[k - 1], byColumn[k]), firstRow, sorted[k]);
        }
    }
    if (sorted.empty()) {
        fail("the longitude dimension is empty"); // place() refuses it before; the box needs a column
    }
    // The box starts after the largest gap between the (sorted) columns. Ties go to the gap across
    // column 0, so a global file starts at the grid's first column.
    size_t startPos = 0;
    std::int32_t largestGap = sorted.front() + n - sorted.back();
    for (size_t i = 0; i + 1 < sorted.size(); ++i) {
        if (sorted[i + 1] - sorted[i] > largestGap) {
            largestGap = sorted[i + 1] - sorted[i];
            startPos = i + 1;
        }
    }
    f_.box_.westColumn = sorted[startPos];
    f_.box_.cols = sorted.size();
    // Box column of each file column: its place west to east.
    std::vector<std::size_t> boxCol(f_.lonIndex_.size());
    std::vector<std::int32_t> columns(sorted.size());
    bool contiguous = true;
    for (size_t k = 0; k < sorted.size(); ++k) {
        const size_t pos = (startPos + k) % sorted.size();
        boxCol[byColumn[pos]] = k;
        columns[k] = sorted[pos];
        contiguous = contiguous && columns[k] == (f_.box_.westColumn + static_cast<std::int32_t>(k)) % n;
    }
    if (!contiguous) {
        f_.box_.columnIndex = columns; // columns of a coarser grid, or nearest columns that skip one
    }
    // Runs of file columns that map to consecutive box columns.
    for (size_t j = 0; j < boxCol.size();) {
        ColumnRun run{j, boxCol[j], 1, 1};
        if (j + 1 < boxCol.size()) {
            const size_t c1 = boxCol[j + 1];
            run.step = c1 == run.boxCol + 1 ? 1 : (c1 + 1 == run.boxCol ? -1 : 0);
        }
        if (run.step == 0) {
            run.step = 1;
        }
        while (j + run.length < boxCol.size() &&
               boxCol[j + run.length] ==
                   run.boxCol + static_cast<size_t>(static_cast<long>(run.length) * run.step)) {
            ++run.length;
        }
        if (run.step < 0) {
            // Store descending runs by their westmost box column.
            run.boxCol -= run.length - 1;
        }
        f_.columnRuns_.push_back(run);
        j += run.length;
    }
}
} // namespace isobar
