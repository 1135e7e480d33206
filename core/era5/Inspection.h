// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "era5/Era5File.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace isobar {

struct VariableInspection {
    std::string name;            // in the file
    ValueColumn column;          // what it loads into
    std::string storage;         // "int16 packed (scale 0.0017, offset 268.5)", "float32"
    std::optional<long> paramId; // GRIB paramId, where the file says
    std::string units;
    std::string conversion; // "K -> degC (x - 273.15)"
    std::string missingValues;
    std::string stepType;
    // ECMWF's word on the parameter (empty where ECMWF does not define it), and what matched it.
    std::string ecmwfShortName;
    std::string ecmwfName;
    std::string ecmwfUnits;
    std::string matchedBy; // "GRIB_paramId 167", "name t2m", "long_name '...'"
    bool looseMatch = false;
    std::string handling;                      // "ERA5/ERA5T merged", "de-accumulated from 00 UTC", ...
    std::optional<std::uint64_t> missingCount; // with --scan
    std::uint64_t valueCount = 0;
};

struct FileInspection {
    std::string name;
    std::optional<std::string> error; // the file cannot be loaded, and why
    std::string format;
    std::string layout;
    std::string product;
    std::string timeRule; // what decided hourly or monthly means ("hourly: GRIB_stepType instant (t2m)")
    // "0.25 deg global grid (721 x 1440 points)", ", the file's points 1 deg apart" when they skip
    // some of the grid's (a coarser download of its points, or off-grid points at another spacing)
    std::string grid;
    double gridSpacing = 0.0;
    std::string pointSpacing; // "1 deg", "0.25 x 0.25025 deg"; empty when it is the grid's step
    std::string box;          // "lat 70..30, lon -30..10 (161 x 161 points)"
    std::string orientation;  // "latitude descending"
    bool offGrid = false;
    std::size_t steps = 0;
    std::string firstTime;
    std::string lastTime;
    std::string timeSpacing; // "hourly", "irregular: 1 h to 6 h", "monthly"
    std::string levels;      // "surface (single level)", "3 pressure levels: 500, 850, 1000 hPa"
    std::uint64_t rows = 0;
    std::vector<VariableInspection> variables;
    std::vector<std::string> ignored;
    std::vector<std::string> notes;
};

struct DatasetInspection {
    std::optional<std::string> error; // the files cannot be loaded together, and why
    std::string product;
    std::string timeRule;
    std::string grid;
    std::size_t files = 0;
    std::size_t steps = 0;
    std::string firstTime;
    std::string lastTime;
    std::string levels; // as FileInspection::levels
    std::uint64_t rows = 0;
    std::vector<std::string> variables; // "t2m -> temperature_2m"
    std::vector<std::string> notes;
};

struct Inspection {
    std::vector<FileInspection> files;
    DatasetInspection dataset;
    bool ok() const;
};

// What `isobar-cli inspect` reports: per file (a bad file is reported and the others still
// inspected) and for the dataset they form. `scan` reads every value to count missing ones.
Inspection inspect(const std::vector<std::filesystem::path>& paths, const OpenOptions& options, bool scan);

// The files opened together, as a load opens them (expanded inputs): what `inspect` says of the
// dataset, or in `error` why they cannot be loaded together.
DatasetInspection inspectDataset(const std::vector<std::filesystem::path>& files, const OpenOptions& options);

// "surface (single level)", "3 pressure level(s): 500, 850, 1000 hPa" (the first and last three of a
// long list).
std::string describeLevels(const std::vector<double>& levels);

class Dataset;
// Where every file of `dataset` is a point series of the CDS time-series datasets: "one point
// (latitude 52.5, longitude 13.25) over 8784 hours from 2024-01-01 00:00 to 2024-12-31 23:00" (or
// "3 points (...) ..."), for the maps, which do not draw one cell per point. Empty otherwise.
std::string describePointSeries(const Dataset& dataset);

std::string renderInspectionText(const Inspection& inspection);
std::string renderInspectionJson(const Inspection& inspection);

} // namespace isobar
