// SPDX-License-Identifier: GPL-3.0-or-later

#include "era5/NetcdfParser.h"

#include "era5/SeriesParser.h"
#include "era5/TimeUnits.h"
#include "util/Error.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <utility>

namespace isobar {

using namespace conventions;

void NetcdfParser::readDimensions() {
    std::lock_guard lock(netcdfMutex());
    int format = 0;
    int ndims = 0;
    int nvars = 0;
    ncCheck(nc_inq_format(ncid_, &format), f_.name_, "cannot read the format");
    ncCheck(nc_inq_ndims(ncid_, &ndims), f_.name_, "cannot read the dimensions");
    ncCheck(nc_inq_nvars(ncid_, &nvars), f_.name_, "cannot read the variables");
    f_.format_ = formatName(format);
    nvars_ = nvars;
    for (int d = 0; d < ndims; ++d) {
        std::array<char, NC_MAX_NAME + 1> name{};
        size_t length = 0;
        ncCheck(nc_inq_dim(ncid_, d, name.data(), &length), f_.name_, "cannot read a dimension");
        dims_.push_back(DimInfo{name.data(), length});
    }
}

std::vector<int> NetcdfParser::dimensionsOf(int varid) const {
    std::lock_guard lock(netcdfMutex());
    int ndims = 0;
    ncCheck(nc_inq_varndims(ncid_, varid, &ndims), f_.name_, "cannot read a variable's dimensions");
    if (ndims < 0 || ndims > NC_MAX_VAR_DIMS) {
        fail("a variable has " + std::to_string(ndims) + " dimensions");
    }
    std::vector<int> ids(static_cast<size_t>(ndims));
    ncCheck(nc_inq_vardimid(ncid_, varid, ids.data()), f_.name_, "cannot read a variable's dimensions");
    return ids;
}

int NetcdfParser::coordinateOf(int dim, const std::string& what) const {
    const std::string& name = dims_[static_cast<size_t>(dim)].name;
    const int varid = varidOf(name);
    if (varid < 0) {
        return -1;
    }
    const std::vector<int> ids = dimensionsOf(varid);
    if (ids.size() != 1 || ids.front() != dim) {
        std::string shape;
        for (const int id : ids) {
            const bool known = id >= 0 && static_cast<size_t>(id) < dims_.size();
            shape += (shape.empty() ? "" : ", ") +
                     (known ? dims_[static_cast<size_t>(id)].name : std::string("?"));
        }
        fail("the " + what + " coordinate '" + name + "' has the dimensions (" + shape + "), not (" + name +
             "): it is not the coordinate variable of dimension " + name + "; the file is damaged or not CF");
    }
    return varid;
}

// The role of dimension `d` by its name and its coordinate variable's attributes.
DimRole NetcdfParser::roleOf(int d, const std::string& varName) const {
    const DimInfo& dim = dims_[static_cast<size_t>(d)];
    const std::string n = lower(dim.name);
    const int coord = varidOf(dim.name);
    const std::string units = coord >= 0 ? lower(text(coord, "units").value_or("")) : "";
    const std::string standard = coord >= 0 ? lower(text(coord, "standard_name").value_or("")) : "";
    if (n == "rlat" || n == "rlon" || standard == "grid_latitude" || standard == "grid_longitude" ||
        standard == "projection_x_coordinate" || standard == "projection_y_coordinate") {
        fail("variable " + varName + " is on a rotated or projected grid (dimension " + dim.name +
             "); Isobar loads regular latitude/longitude grids");
    }
    if (n == "latitude" || n == "lat" || standard == "latitude" || units == "degrees_north" ||
        units == "degree_north") {
        return DimRole::Latitude;
    }
    if (n == "longitude" || n == "lon" || standard == "longitude" || units == "degrees_east" ||
        units == "degree_east") {
        return DimRole::Longitude;
    }
    if (n == "forecast_initial_time") {
        return DimRole::ForecastInit;
    }
    if (n == "forecast_hour" || n == "step") {
        return DimRole::ForecastHour;
    }
    if (n == "expver") {
        return DimRole::Expver;
    }
    if (n == "time" || n == "valid_time" || n == "date" || n == "t" || standard == "time" ||
        contains(units, " since ")) {
        return DimRole::Time;
    }
    if (n == "level" || n == "pressure_level" || n == "isobaricinhpa" || n == "plev" || n == "lev" ||
        n == "model_level" || n == "hybrid" || standard == "air_pressure" ||
        standard == "atmosphere_hybrid_sigma_pressure_coordinate") {
        const std::string longName = coord >= 0 ? lower(text(coord, "long_name").value_or("")) : "";
        const bool pressure = units == "hpa" || units == "millibars" || units == "millibar" ||
                              units == "mbar" || units == "pa" || standard == "air_pressure";
        if (!pressure || contains(longName, "model") || contains(longName, "hybrid") || n == "model_level" ||
            n == "hybrid") {
            fail("variable " + varName + " has a " + dim.name + " dimension of " +
                 std::to_string(dim.length) + " level(s) that are not pressure levels (units '" + units +
                 "'" + (longName.empty() ? std::string() : ", " + longName) +
                 "): model-level files are not loaded; Isobar loads single-level and pressure-level files");
        }
        return DimRole::Level;
    }
    if (dim.length == 1) {
        return DimRole::Singleton;
    }
    if (n == "depth" || n == "height" || standard == "depth" || standard == "height") {
        fail("variable " + varName + " has a " + dim.name + " dimension with " + std::to_string(dim.length) +
             " levels: a multi-level file that is not on pressure levels; Isobar loads single-level and "
             "pressure-level files");
    }
    if (n == "number" || n == "ensemble" || n == "realization") {
        fail("variable " + varName + " has " + std::to_string(dim.length) + " ensemble members (dimension " +
             dim.name +
             "): an ERA5 ensemble file (EDA); Isobar loads the deterministic reanalysis, one value "
             "per time and point - download the reanalysis product, or one member per table");
    }
    fail("variable " + varName + " has an unexpected dimension " + dim.name + " of size " +
         std::to_string(dim.length) + " (dimensions of the file: " + dimList() + ")");
}

std::vector<double> NetcdfParser::readDoubles(int dim, const char* what) const {
    const std::string& name = dims_[static_cast<size_t>(dim)].name;
    const int varid = coordinateOf(dim, what);
    if (varid < 0) {
        fail("the " + std::string(what) + " dimension '" + name +
             "' has no coordinate variable, so its values "
             "are unknown");
    }
    std::vector<double> values(dims_[static_cast<size_t>(dim)].length);
    std::lock_guard lock(netcdfMutex());
    ncCheck(nc_get_var_double(ncid_, varid, values.data()), f_.name_,
            "cannot read the " + name + " coordinate");
    return values;
}

void NetcdfParser::findSeriesPoint() {
    const auto scalar = [&](std::initializer_list<const char*> names) {
        for (const char* n : names) {
            const int varid = varidOf(n);
            if (varid >= 0 && dimensionsOf(varid).empty()) {
                return varid;
            }
        }
        return -1;
    };
    latScalar_ = scalar({"latitude", "lat"});
    lonScalar_ = scalar({"longitude", "lon"});
    pointSeries_ = latScalar_ >= 0 && lonScalar_ >= 0;
    if (!pointSeries_) {
        latScalar_ = lonScalar_ = -1;
    }
}

void NetcdfParser::readSeriesValues() {
    auto content = std::make_shared<SeriesContent>();
    const std::size_t length = dims_[static_cast<size_t>(timeDims_.front())].length;
    std::lock_guard lock(netcdfMutex());
    for (const FileVariable& var : f_.variables_) {
        RawBand band;
        band.type = var.type;
        band.rows = length;
        band.cols = 1;
        int status = NC_NOERR;
        switch (var.type) {
        case NC_SHORT:
            band.shorts.resize(length);
            status = nc_get_var_short(ncid_, var.varid, band.shorts.data());
            break;
        case NC_INT:
            band.ints.resize(length);
            status = nc_get_var_int(ncid_, var.varid, band.ints.data());
            break;
        case NC_FLOAT:
            band.floats.resize(length);
            status = nc_get_var_float(ncid_, var.varid, band.floats.data());
            break;
        default:
            band.doubles.resize(length);
            status = nc_get_var_double(ncid_, var.varid, band.doubles.data());
            break;
        }
        ncCheck(status, f_.name_, "cannot read " + var.name + " (the file may be truncated or corrupt)");
        content->values.push_back(std::move(band));
    }
    f_.series_ = std::move(content);
}

void NetcdfParser::readGrid() {
    if (pointSeries_) {
        double lat = 0.0;
        double lon = 0.0;
        {
            std::lock_guard lock(netcdfMutex());
            ncCheck(nc_get_var_double(ncid_, latScalar_, &lat), f_.name_, "cannot read the latitude");
            ncCheck(nc_get_var_double(ncid_, lonScalar_, &lon), f_.name_, "cannot read the longitude");
        }
        SeriesParser(f_, options_).placePoint(lat, lon, provenance());
        return;
    }
    f_.latitudes_ = readDoubles(latDim_, "latitude");
    f_.longitudes_ = readDoubles(lonDim_, "longitude");
    GridFit(f_, options_, GridClues{declaredIncrement(), namedEra5Land()}).place();
}

// For a single point: the increment of the GRIB message it came from, when the file says.
std::optional<double> NetcdfParser::declaredIncrement() const {
    for (const auto& var : f_.variables_) {
        if (const auto inc = handle_.numberAttribute(var.varid, "GRIB_iDirectionIncrementInDegrees");
            inc && *inc > 0.0) {
            return inc;
        }
    }
    return std::nullopt;
}

} // namespace isobar
