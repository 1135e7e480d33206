// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// The detective work behind Era5File::open, one concern per method; split over
// NetcdfParser.cpp (dimensions, coordinates; GridFit places them), NetcdfParserVariables.cpp
// (variables, pressure levels) and NetcdfParserTime.cpp (time axis, expver, product, layout,
// chunk cache). Not a public API.

#include "era5/Era5File.h"
#include "era5/FileConventions.h"
#include "era5/GridFit.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace isobar {

class NetcdfParser {
public:
    NetcdfParser(Era5File& file, const NetcdfHandle& handle, const OpenOptions& options)
        : f_(file)
        , handle_(handle)
        , options_(options)
        , ncid_(handle.id()) {}

    void parse() {
        readDimensions();
        findTargetVariables();
        readGrid();
        readTimeAxis();
        readExpver();
        decideProduct();
        decideLayout();
        if (pointSeries_) {
            readSeriesValues();
        } else {
            tuneChunkCache();
        }
    }

private:
    [[noreturn]] void fail(const std::string& why) const { throw Error(f_.name_ + ": " + why); }

    std::string dimList() const {
        std::string out;
        for (const auto& d : dims_) {
            out += (out.empty() ? "" : ", ") + d.name + "=" + std::to_string(d.length);
        }
        return out.empty() ? std::string("none") : out;
    }

    std::optional<std::string> text(int varid, const char* name) const {
        return handle_.textAttribute(varid, name);
    }

    int varidOf(const std::string& name) const {
        std::lock_guard lock(netcdfMutex());
        int varid = -1;
        return nc_inq_varid(ncid_, name.c_str(), &varid) == NC_NOERR ? varid : -1;
    }

    void notes_once(const std::string& note) const { pendingNotes_.push_back(note); }

    void readDimensions();
    // A point series of the CDS time-series datasets: scalar latitude and longitude variables, no
    // such dimensions. Sets pointSeries_ and the two variables.
    void findSeriesPoint();
    // A point series' values, read whole into the file's SeriesContent.
    void readSeriesValues();
    // The dimension ids of variable `varid`, in its order.
    std::vector<int> dimensionsOf(int varid) const;
    // The coordinate variable of dimension `dim` (the variable named as it; -1: none), which must
    // lie along that dimension alone: netcdf-c's nc_get_var_* writes every value a variable has,
    // whatever room the buffer has.
    int coordinateOf(int dim, const std::string& what) const;
    // The role of dimension `d` by its name and its coordinate variable's attributes.
    DimRole roleOf(int d, const std::string& varName) const;
    ValueColumn columnFor(int varid, const std::string& name, FileVariable& fv) const;
    void findTargetVariables();
    void readLevels();
    std::vector<double> readDoubles(int dim, const char* what) const;
    void readGrid();
    // For a single point: the grid increment of the GRIB message it came from, when the file says.
    std::optional<double> declaredIncrement() const;
    // The global attributes that tell where the file comes from, lower case.
    std::string provenance() const;
    // The provenance names ERA5-Land.
    bool namedEra5Land() const;
    // Steps from a CF "since" axis, a date-number axis, or forecast init + hour.
    std::vector<PgTimestamp> readTimes(int dim) const;
    void readTimeAxis();
    // expver: a dimension (ERA5 and ERA5T side by side), or a label per step (CDS 2024).
    void readExpver();
    void decideProduct();
    void decideLayout();
    // netCDF4/HDF5 decompress whole chunks; make the per-variable chunk cache big enough to hold
    // the chunks of one time step so each chunk is decompressed once, not once per band.
    void tuneChunkCache();

    Era5File& f_;
    const NetcdfHandle& handle_;
    const OpenOptions& options_;
    int ncid_;
    int nvars_ = 0;
    std::vector<conventions::DimInfo> dims_;
    std::map<std::string, std::vector<int>> dimIds_; // per target variable, its dimension ids
    std::map<std::string, std::string> shapes_;
    bool pointSeries_ = false;
    int latScalar_ = -1;
    int lonScalar_ = -1;
    int latDim_ = -1;
    int lonDim_ = -1;
    int levelDim_ = -1;
    std::vector<int> timeDims_;
    mutable std::vector<std::string> pendingNotes_;
};

} // namespace isobar
