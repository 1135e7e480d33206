#pragma once

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

// Where one variable's values for one time step come from.
struct SourceRef {
    std::uint32_t file = 0;
    std::uint32_t variable = 0; // index into that file's variables()
    std::uint32_t step = 0;     // index into that file's steps()
    friend bool operator==(const SourceRef&, const SourceRef&) = default;
};

// The rows' positions for a set of time steps: the box on the global grid and the real coordinates
// of its rows (north to south) and columns (west to east).
struct DatasetGeometry {
    GridBox box;
    std::vector<double> latitudes;
    std::vector<double> longitudes;
};

// One time step of the dataset: which file provides each variable (none: NULL in those rows).
struct DatasetStep {
    PgTimestamp time;
    std::uint32_t geometry = 0;
    PerVariable<std::optional<SourceRef>> sources;
    // For ERA5-Land accumulations: the same variable one hour earlier (none: cannot be turned into
    // an hourly amount, loaded as NULL).
    PerVariable<std::optional<SourceRef>> previous;
};

// The files behind the paths a user gives: a directory stands for the NetCDF files in it (*.nc,
// *.nc4, *.netcdf, *.zip, sorted by name; not recursive). Throws isobar::Error for a directory
// without any.
std::vector<std::filesystem::path> expandInputs(const std::vector<std::filesystem::path>& paths);

// Many files as one dataset keyed by (time, grid point): the variables of one time step may come
// from different files (NCAR's one file per variable, CDS's instant/accumulated archive members).
// Files are checked to agree: one global grid, one product, the same box where they meet, and no
// (variable, time) given twice with different values.
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
    std::uint64_t rowCount() const noexcept { return rows_; }
    std::uint64_t rowsOf(const DatasetStep& step) const {
        const GridBox& b = geometries_[step.geometry].box;
        return static_cast<std::uint64_t>(b.rows) * b.cols;
    }
    // The variables at least one file provides (after keepOnly(), those kept).
    const std::vector<Variable>& variables() const noexcept { return variables_; }
    // Loads only `wanted` of the variables: the others are left out as if the files lacked them
    // (their columns stay NULL). Throws isobar::Error when the files have none of `wanted`.
    void keepOnly(const std::vector<Variable>& wanted);
    // "t2m,tp" after keepOnly() left something out; empty when every variable of the files loads.
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
    std::uint64_t rows_ = 0;
    std::vector<Variable> variables_;
    std::string selection_;
    std::vector<std::string> notes_;
    std::filesystem::path extractedDir_; // ZIP members live here while the dataset is open
};

} // namespace isobar
