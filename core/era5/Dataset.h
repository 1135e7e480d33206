// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "domain/GridField.h"
#include "era5/Era5File.h"

#include <array>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace isobar {

// ERA5-Land accumulates from 00 UTC: the 01 UTC value is the first hour's amount as it is, every
// other hour's amount is its value minus the one an hour earlier.
constexpr bool needsPreviousHour(PgTimestamp validTime) {
    return hourOfDay(validTime) != 1;
}

// Where one variable's values for one time step (and pressure level) come from.
struct SourceRef {
    std::uint32_t file = 0;
    std::uint32_t variable = 0; // index into that file's variables()
    std::uint32_t step = 0;     // index into that file's steps()
    std::uint32_t level = 0;    // index into that file's levels() (0 for a surface file)
    friend bool operator==(const SourceRef&, const SourceRef&) = default;
};

// The raw slabs behind one band of one time step: per column one slab per expver position, and
// for ERA5-Land accumulations the slabs of the hour before.
struct RawPiece {
    std::size_t column = 0; // position in the dataset's columns()
    bool previousHour = false;
    SourceRef source;
    RawBand raw;
};

struct RawUnit {
    std::size_t step = 0;
    std::size_t row0 = 0; // first box row
    std::size_t rows = 0; // box rows; for hours of a point series, the hours (see BandReader::fetchHours)
    bool hours = false;
    std::vector<RawPiece> pieces;
};

// The rows' positions for a set of time steps: the box on the global grid and the real coordinates
// of its rows (north to south) and columns (west to east).
struct DatasetGeometry {
    GridBox box;
    std::vector<double> latitudes;
    std::vector<double> longitudes;
};

// One time step (at one pressure level, for pressure-level data) of the dataset: which file provides
// each of the dataset's variables (none: NULL in those rows), indexed like Dataset::variables().
struct DatasetStep {
    PgTimestamp time;
    std::optional<double> level; // hPa, for pressure-level data
    std::uint32_t geometry = 0;
    std::vector<std::optional<SourceRef>> sources;
    // For ERA5-Land accumulations: the same variable one hour earlier (none: cannot be turned into
    // an hourly amount, loaded as NULL).
    std::vector<std::optional<SourceRef>> previous;
};

// The files behind the paths a user gives: a directory stands for the NetCDF, GRIB and time-series
// CSV files in it (*.nc, *.nc4, *.netcdf, *.zip, *.grib, *.grb, *.grib1, *.grib2, *.grb2, *.csv,
// sorted by name; not recursive). Throws isobar::Error for a directory
// without any.
std::vector<std::filesystem::path> expandInputs(const std::vector<std::filesystem::path>& paths);

// Many files as one dataset keyed by (time, pressure level, grid point): the variables of one time
// step may come from different files (NCAR's one file per variable, CDS's instant/accumulated archive
// members, one file per level). Files are checked to agree: one global grid, one product, surface or
// pressure levels, the same box where they meet, and no (variable, time, level) given twice with
// different values.
class Dataset {
public:
    // Opens every file (ZIP archives: every member) and merges them. Throws isobar::Error naming
    // the file(s) and what is wrong.
    static Dataset open(const std::vector<std::filesystem::path>& paths, const OpenOptions& options = {});

    Dataset(Dataset&&) noexcept;
    Dataset& operator=(Dataset&&) noexcept;
    Dataset(const Dataset&) = delete;
    Dataset& operator=(const Dataset&) = delete;
    ~Dataset();

    const std::vector<Era5File>& files() const noexcept { return files_; }
    const std::vector<DatasetStep>& steps() const noexcept { return steps_; }
    const std::vector<DatasetGeometry>& geometries() const noexcept { return geometries_; }
    const GlobalGrid& grid() const noexcept { return grid_; }
    bool era5Land() const noexcept { return era5Land_; }
    bool monthlyMeans() const noexcept { return monthly_; }
    // "ERA5 hourly", "ERA5-Land hourly", "ERA5 monthly means", ...
    std::string productName() const;
    // What decided hourly or monthly means (see Era5File::timeRule()), for inspect and the run
    // report: the first file's, with how many files say the same.
    std::string timeRule() const;
    std::uint64_t rowCount() const noexcept { return rows_; }
    std::uint64_t rowsOf(const DatasetStep& step) const {
        const GridBox& b = geometries_[step.geometry].box;
        return static_cast<std::uint64_t>(b.rows) * b.cols;
    }
    Vertical vertical() const noexcept { return vertical_; }
    // The pressure levels of the dataset in hPa, ascending (empty for surface data).
    const std::vector<double>& levels() const noexcept { return levels_; }
    // The distinct valid times of the steps, ascending.
    std::vector<PgTimestamp> validTimes() const;
    // Where the dataset's rows lie: the grid, the union of its boxes, its times and levels (what
    // a run report keeps for a map of the table).
    LoadedExtent extent() const;
    // The variables at least one file provides: catalog variables in the catalog's order, then the
    // ones it does not know, by name. DatasetStep::sources is indexed like this.
    const std::vector<ValueColumn>& variables() const noexcept { return variables_; }
    // The position of a variable in variables(), by its column key.
    std::optional<std::size_t> variableIndex(std::string_view key) const;

    // The variables the user named (a short name, the name in the files, a long name, a
    // standard_name, a GRIB paramId, or a catalog alias such as 2t), as positions in variables(), in
    // the order given. Throws isobar::Error naming what is not in the files (and what is), or a name
    // that fits two variables.
    std::vector<std::size_t> match(const std::vector<std::string>& names) const;

    // The columns a load writes, in the table's order, and for each the variable of the files that
    // fills it (none: NULL). By default every variable of the files, in variables() order.
    const std::vector<ValueColumn>& columns() const noexcept { return columns_; }
    const std::vector<std::optional<std::size_t>>& columnVariables() const noexcept {
        return columnVariable_;
    }
    // Loads `columns` (a table's, or a choice of the files' variables): each file variable goes to
    // the column with its key; the files' other variables are left out, columns none of them has
    // stay NULL. Throws isobar::Error when no column has a variable in the files.
    void useColumns(const std::vector<ValueColumn>& columns);
    // Loads the files' variable of column `key` without conversion, in `units`, where its files
    // store it in those units (a table's column made by an earlier Isobar that did not convert
    // it). False, changing nothing, where a file stores it otherwise.
    bool loadAsStored(std::string_view key, const std::string& units);
    // The files' variables that no column takes (after useColumns()).
    std::vector<ValueColumn> leftOut() const;
    // "t2m,tp" when the loaded variables are not every variable of the files; empty when they are.
    // Part of each unit's identity: a unit loaded with some variables is not the unit with all.
    const std::string& selection() const noexcept { return selection_; }
    // Dataset-level facts: gaps, replaced ERA5T steps, identical duplicates, skipped copies, ...
    const std::vector<std::string>& notes() const noexcept { return notes_; }

    const FileVariable& variableOf(const SourceRef& s) const {
        return files_[s.file].variables()[s.variable];
    }
    const FileStep& stepOf(const SourceRef& s) const { return files_[s.file].steps()[s.step]; }

private:
    Dataset() = default;
    class Builder;

    std::vector<Era5File> files_;
    std::vector<DatasetStep> steps_;
    std::vector<DatasetGeometry> geometries_;
    GlobalGrid grid_;
    bool era5Land_ = false;
    bool monthly_ = false;
    std::string timeRule_;
    std::uint64_t rows_ = 0;
    Vertical vertical_ = Vertical::Surface;
    std::vector<double> levels_;
    std::vector<ValueColumn> variables_;
    std::vector<ValueColumn> columns_;
    std::vector<std::optional<std::size_t>> columnVariable_;
    std::string selection_;
    std::vector<std::string> notes_;
    std::filesystem::path extractedDir_; // ZIP members live here while the dataset is open
};

} // namespace isobar
