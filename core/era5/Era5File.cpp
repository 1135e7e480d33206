#include "era5/Era5File.h"

#include "era5/TimeUnits.h"
#include "util/Error.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <utility>

namespace isobar {

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

bool contains(const std::string& haystack, const char* needle) {
    return haystack.find(needle) != std::string::npos;
}

// Coordinates and spacings as people write them: 55.695, not 55.69499969 (the float32 the file holds).
std::string number(double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.6f", v);
    std::string s = buf;
    while (!s.empty() && s.back() == '0') {
        s.pop_back();
    }
    if (!s.empty() && s.back() == '.') {
        s.pop_back();
    }
    return s == "-0" ? "0" : s;
}

// Variables that describe the data rather than being data: never "ignored variables".
bool isAuxiliary(const std::string& name) {
    static const std::set<std::string> aux = {"number",
                                              "expver",
                                              "utc_date",
                                              "time_bnds",
                                              "time_bounds",
                                              "step",
                                              "surface",
                                              "crs",
                                              "spatial_ref",
                                              "valid_time_bnds",
                                              "realization",
                                              "date",
                                              "forecast_reference_time"};
    return aux.count(lower(name)) > 0;
}

std::optional<Variable> matchVariable(const std::string& name, const std::string& longName) {
    const std::string n = lower(name);
    const std::string ln = lower(longName);
    for (const auto& s : kVariables) {
        if (n == s.shortName || (!ln.empty() && ln == lower(std::string(s.longName)))) {
            return s.variable;
        }
    }
    for (const auto& s : kVariables) {
        for (std::string_view alias : s.aliases) {
            if (!alias.empty() && (n == alias || ln == alias)) {
                return s.variable;
            }
        }
    }
    return std::nullopt;
}

// The conversion for a variable given the units its file declares, or an error naming both.
Conversion conversionFor(Variable v, const std::string& unitsText, const std::string& file,
                         const std::string& varName) {
    std::string u = lower(unitsText);
    u.erase(std::remove(u.begin(), u.end(), ' '), u.end());
    const auto refuse = [&]() -> Conversion {
        throw Error(file + ": variable " + varName + " has units '" + unitsText + "', but " +
                    std::string(spec(v).shortName) + " is expected in " + std::string(spec(v).fileUnits) +
                    " (or a unit Isobar converts from); refusing to guess");
    };
    switch (v) {
    case Variable::T2m:
        if (u == "k" || u == "kelvin" || u == "degk" || u == "degrees_kelvin") {
            return Conversion::KelvinToCelsius;
        }
        if (u == "degc" || u == "c" || u == "celsius" || u == "deg_c" || u == "°c" || u == "degreesc" ||
            u == "degree_celsius" || u == "degrees_celsius") {
            return Conversion::None;
        }
        return refuse();
    case Variable::U10:
    case Variable::V10:
        if (u == "ms**-1" || u == "m/s" || u == "ms-1" || u == "ms^-1" || u == "m.s-1" ||
            u == "meterspersecond") {
            return Conversion::None;
        }
        return refuse();
    case Variable::Tcc:
        if (u.empty() || u == "(0-1)" || u == "1" || u == "0-1" || u == "fraction" || u == "dimensionless" ||
            u == "~") {
            return Conversion::None;
        }
        if (u == "%" || u == "percent") {
            return Conversion::PercentToFraction;
        }
        return refuse();
    case Variable::Tp:
    case Variable::Sf:
        if (u == "m" || u == "mofwaterequivalent" || u == "metres" || u == "meters" || u == "mday**-1" ||
            u == "m/day") {
            return Conversion::MetresToMillimetres;
        }
        if (u == "mm" || u == "kgm**-2" || u == "kgm-2" || u == "mmofwaterequivalent") {
            return Conversion::None;
        }
        return refuse();
    }
    return refuse();
}

double defaultFill(nc_type type) {
    switch (type) {
    case NC_SHORT:
        return NC_FILL_SHORT;
    case NC_INT:
        return NC_FILL_INT;
    case NC_FLOAT:
        return static_cast<double>(NC_FILL_FLOAT);
    case NC_DOUBLE:
        return NC_FILL_DOUBLE;
    default:
        return std::numeric_limits<double>::quiet_NaN();
    }
}

std::string typeName(nc_type type) {
    switch (type) {
    case NC_BYTE:
        return "byte";
    case NC_UBYTE:
        return "unsigned byte";
    case NC_CHAR:
        return "char";
    case NC_SHORT:
        return "short";
    case NC_INT:
        return "int";
    case NC_FLOAT:
        return "float";
    case NC_DOUBLE:
        return "double";
    case NC_INT64:
        return "int64";
    case NC_STRING:
        return "string";
    default:
        return "type " + std::to_string(type);
    }
}

struct DimInfo {
    std::string name;
    std::size_t length = 0;
};

} // namespace

std::string GridBox::describe(const GlobalGrid& grid) const {
    const double north = grid.latitudeOf(northRow);
    const double south = grid.latitudeOf(northRow - static_cast<std::int32_t>(rows) + 1);
    const double west = grid.longitudeOf(westColumn);
    const double east =
        grid.longitudeOf((westColumn + static_cast<std::int32_t>(cols) - 1) % grid.longitudes());
    return "lat " + number(north) + ".." + number(south) + ", lon " + number(west) + ".." + number(east) +
           " (" + std::to_string(rows) + " x " + std::to_string(cols) + " points)";
}

// Does the detective work of Era5File::open, one concern per method.
class Era5FileBuilder {
public:
    Era5FileBuilder(Era5File& file, const NetcdfHandle& handle, const OpenOptions& options)
        : f_(file)
        , handle_(handle)
        , options_(options)
        , ncid_(handle.id()) {}

    void build() {
        readDimensions();
        findTargetVariables();
        readGrid();
        readTimeAxis();
        readExpver();
        decideProduct();
        decideLayout();
        tuneChunkCache();
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

    void readDimensions() {
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

    // The role of dimension `d` by its name and its coordinate variable's attributes.
    DimRole roleOf(int d, const std::string& varName) const {
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
        if (dim.length == 1) {
            return DimRole::Singleton;
        }
        if (n == "level" || n == "pressure_level" || n == "isobaricinhpa" || n == "plev" || n == "lev" ||
            standard == "air_pressure" || n == "depth" || n == "height") {
            fail("variable " + varName + " has a " + dim.name + " dimension with " +
                 std::to_string(dim.length) +
                 " levels: this is a pressure-level (or multi-level) file; Isobar loads single-level surface "
                 "variables");
        }
        if (n == "number" || n == "ensemble" || n == "realization") {
            fail("variable " + varName + " has " + std::to_string(dim.length) +
                 " ensemble members (dimension " + dim.name + "); Isobar loads the deterministic reanalysis");
        }
        fail("variable " + varName + " has an unexpected dimension " + dim.name + " of size " +
             std::to_string(dim.length) + " (dimensions of the file: " + dimList() + ")");
    }

    void findTargetVariables() {
        for (int v = 0; v < nvars_; ++v) {
            std::array<char, NC_MAX_NAME + 1> nameBuf{};
            int varDims = 0;
            nc_type type = NC_NAT;
            std::array<int, NC_MAX_VAR_DIMS> dimIds{};
            {
                std::lock_guard lock(netcdfMutex());
                ncCheck(nc_inq_var(ncid_, v, nameBuf.data(), &type, &varDims, dimIds.data(), nullptr),
                        f_.name_, "cannot read a variable");
            }
            const std::string name(nameBuf.data());
            const bool isCoordinate =
                std::any_of(dims_.begin(), dims_.end(), [&](const DimInfo& d) { return d.name == name; });
            if (isCoordinate || isAuxiliary(name) || type == NC_STRING || type == NC_CHAR) {
                continue;
            }
            const std::string longName = text(v, "long_name").value_or("");
            auto target = matchVariable(name, longName);
            if (!target) {
                if (const auto standard = text(v, "standard_name");
                    standard && lower(*standard) == "cloud_area_fraction") {
                    target = Variable::Tcc;
                }
            }
            if (!target) {
                if (varDims >= 2) {
                    f_.ignored_.push_back(name);
                }
                continue;
            }
            if (const FileVariable* existing = f_.find(*target)) {
                fail("both '" + existing->name + "' and '" + name + "' look like " +
                     std::string(spec(*target).shortName) + "; refusing to choose");
            }
            FileVariable fv;
            fv.variable = *target;
            fv.name = name;
            fv.varid = v;
            fv.type = type;
            std::string shape;
            for (int d = 0; d < varDims; ++d) {
                shape +=
                    (d == 0 ? "" : ", ") + dims_[static_cast<size_t>(dimIds[static_cast<size_t>(d)])].name;
            }
            int latPos = -1;
            int lonPos = -1;
            for (int d = 0; d < varDims; ++d) {
                const int dimId = dimIds[static_cast<size_t>(d)];
                const DimRole role = roleOf(dimId, name);
                fv.dims.push_back(role);
                dimIds_[name].push_back(dimId);
                if (role == DimRole::Latitude) {
                    latPos = d;
                    latDim_ = latDim_ < 0 ? dimId : latDim_;
                    if (latDim_ != dimId) {
                        fail("variables use different latitude dimensions");
                    }
                } else if (role == DimRole::Longitude) {
                    lonPos = d;
                    lonDim_ = lonDim_ < 0 ? dimId : lonDim_;
                    if (lonDim_ != dimId) {
                        fail("variables use different longitude dimensions");
                    }
                }
            }
            if (latPos < 0 || lonPos < 0) {
                fail("variable " + name + " is shaped (" + shape +
                     "): it needs latitude and longitude dimensions of a regular grid");
            }
            fv.latBeforeLon = latPos < lonPos;
            if (type != NC_SHORT && type != NC_INT && type != NC_FLOAT && type != NC_DOUBLE) {
                fail("variable " + name + " is stored as " + typeName(type) +
                     "; expected short (packed), int, float or double");
            }
            const auto scale = handle_.numberAttribute(v, "scale_factor");
            const auto offset = handle_.numberAttribute(v, "add_offset");
            fv.packed = scale.has_value() || offset.has_value();
            fv.scale = scale.value_or(1.0);
            fv.offset = offset.value_or(0.0);
            auto fills = handle_.numberAttributeValues(v, "_FillValue");
            if (fills.empty()) {
                fills.push_back(defaultFill(type));
            }
            const auto missing = handle_.numberAttributeValues(v, "missing_value");
            fv.missingValues = fills;
            fv.missingValues.insert(fv.missingValues.end(), missing.begin(), missing.end());
            fv.units = text(v, "units").value_or("");
            fv.conversion = conversionFor(*target, fv.units, f_.name_, name);
            fv.stepType = lower(text(v, "GRIB_stepType").value_or(""));
            shapes_[name] = shape;
            f_.variables_.push_back(std::move(fv));
        }
        if (f_.variables_.empty()) {
            std::string has;
            for (const auto& n : f_.ignored_) {
                has += (has.empty() ? "" : ", ") + n;
            }
            throw NoTargetVariables(f_.name_ +
                                        ": no ERA5 variable that Isobar loads (t2m, u10, v10, tcc, tp, sf); "
                                        "the file has: " +
                                        (has.empty() ? std::string("no data variables") : has),
                                    f_.ignored_);
        }
        std::sort(f_.variables_.begin(), f_.variables_.end(),
                  [](const FileVariable& a, const FileVariable& b) { return a.variable < b.variable; });
        // Every target variable must share the same time dimensions: one time axis per file.
        const auto timeDims = [&](const FileVariable& var) {
            std::vector<int> ids;
            for (size_t d = 0; d < var.dims.size(); ++d) {
                if (var.dims[d] == DimRole::Time || var.dims[d] == DimRole::ForecastInit ||
                    var.dims[d] == DimRole::ForecastHour) {
                    ids.push_back(dimIds_[var.name][d]);
                }
            }
            return ids;
        };
        timeDims_ = timeDims(f_.variables_.front());
        for (const auto& var : f_.variables_) {
            if (timeDims(var) != timeDims_) {
                fail("variables " + f_.variables_.front().name + " (" + shapes_[f_.variables_.front().name] +
                     ") and " + var.name + " (" + shapes_[var.name] + ") have different time axes");
            }
        }
    }

    std::vector<double> readDoubles(int dim, const char* what) const {
        const std::string& name = dims_[static_cast<size_t>(dim)].name;
        const int varid = varidOf(name);
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

    // The spacing of a coordinate axis; nullopt for a single value. Fails when it is not regular.
    std::optional<double> spacing(const std::vector<double>& values, const char* what, bool wraps) const {
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
            fail(std::string(what) + " " + number(values[0]) + " appears twice");
        }
        for (size_t i = 1; i + 1 < values.size(); ++i) {
            const double d = diff(i);
            if (std::fabs(d - first) > 1e-4 + 1e-3 * std::fabs(first)) {
                fail("the " + std::string(what) + " axis is not regular (spacing " +
                     number(std::fabs(first)) + " near " + number(values[0]) + " but " +
                     number(std::fabs(d)) + " near " + number(values[i]) +
                     "): Isobar loads regular latitude/longitude grids");
            }
        }
        return std::fabs(first);
    }

    void readGrid() {
        f_.latitudes_ = readDoubles(latDim_, "latitude");
        f_.longitudes_ = readDoubles(lonDim_, "longitude");
        f_.latLength_ = f_.latitudes_.size();
        f_.lonLength_ = f_.longitudes_.size();
        if (f_.latLength_ == 0 || f_.lonLength_ == 0) {
            fail("the latitude or longitude dimension is empty");
        }
        for (double lat : f_.latitudes_) {
            if (!(lat >= -90.0 && lat <= 90.0)) {
                fail("latitude " + number(lat) + " is outside -90..90");
            }
        }
        for (double lon : f_.longitudes_) {
            if (!(lon >= -180.0 && lon <= 360.0)) {
                fail("longitude " + number(lon) + " is outside -180..360");
            }
        }
        const auto dlat = spacing(f_.latitudes_, "latitude", false);
        const auto dlon = spacing(f_.longitudes_, "longitude", true);
        if (dlat && dlon && std::fabs(*dlat - *dlon) > 1e-4) {
            fail("the grid spacing differs between latitude (" + number(*dlat) + ") and longitude (" +
                 number(*dlon) + "); Isobar loads square latitude/longitude grids like ERA5's");
        }
        std::optional<double> step = dlat ? dlat : dlon;
        if (step) {
            // A spacing measured between float32 coordinates is off by up to ~2e-5 degrees
            // (0.0999985 for ERA5-Land's 0.1): take the spacing that divides 360 it is meant to be.
            const double parts = std::round(360.0 / *step);
            if (parts >= 1.0 && std::fabs(360.0 / parts - *step) < 5e-5) {
                step = 360.0 / parts;
            }
        }
        if (options_.gridStep) {
            if (step && std::fabs(*step - *options_.gridStep) > 1e-4) {
                fail("the file's grid spacing is " + number(*step) + " degrees, not the " +
                     number(*options_.gridStep) + " asked for");
            }
            step = options_.gridStep;
        }
        if (!step) {
            // A single point: the grid the GRIB message came from, if the file says, else ERA5's.
            for (const auto& var : f_.variables_) {
                if (const auto inc =
                        handle_.numberAttribute(var.varid, "GRIB_iDirectionIncrementInDegrees")) {
                    step = *inc;
                    break;
                }
            }
            if (!step) {
                step = 0.25;
                f_.gridStepAssumed_ = true;
                f_.notes_.push_back(
                    "a single point does not show its grid spacing: assumed ERA5's 0.25 degrees "
                    "(use --grid to say otherwise)");
            }
        }
        try {
            f_.grid_ = GlobalGrid::withStep(*step);
        } catch (const Error& e) {
            fail(std::string("the grid cannot be used: ") + e.what());
        }
        const GlobalGrid& g = f_.grid_;
        // On the grid? Off-grid points are refused unless the user asked for the nearest cell.
        std::vector<std::int32_t> latIndex;
        for (double lat : f_.latitudes_) {
            latIndex.push_back(g.latitudeIndex(lat));
        }
        for (double lon : f_.longitudes_) {
            f_.lonIndex_.push_back(g.longitudeIndex(lon));
        }
        std::optional<double> offLat;
        std::optional<double> offLon;
        for (double lat : f_.latitudes_) {
            if (!offLat && !onGrid(lat, g.step())) {
                offLat = lat;
            }
        }
        for (double lon : f_.longitudes_) {
            if (!offLon && !onGrid(lon, g.step())) {
                offLon = lon;
            }
        }
        if (offLat || offLon) {
            if (options_.offGrid == OffGridPolicy::Refuse) {
                fail("the point (latitude " + number(offLat.value_or(f_.latitudes_.front())) +
                     ", longitude " + number(offLon.value_or(f_.longitudes_.front())) + ") is not on the " +
                     g.stepText() +
                     " degree grid; use --off-grid nearest to load it at the nearest grid point's "
                     "location_id, "
                     "keeping its real latitude and longitude");
            }
            f_.offGrid_ = true;
        }
        if (f_.offGrid_) {
            f_.notes_.push_back("points off the " + g.stepText() +
                                " degree grid are loaded with the location_id of "
                                "the nearest grid point and their own latitude/longitude");
        }
        // Rows: contiguous on the grid, north to south or south to north.
        f_.latAscending_ = latIndex.size() > 1 && latIndex[1] > latIndex[0];
        for (size_t i = 1; i < latIndex.size(); ++i) {
            if (std::abs(latIndex[i] - latIndex[i - 1]) != 1) {
                fail("latitudes " + number(f_.latitudes_[i - 1]) + " and " + number(f_.latitudes_[i]) +
                     " fall in the same or non-adjacent grid rows");
            }
        }
        f_.box_.northRow = *std::max_element(latIndex.begin(), latIndex.end());
        f_.box_.rows = latIndex.size();
        // Columns: a contiguous run of grid columns, possibly wrapping; the box starts after the
        // largest gap between the (sorted) columns.
        std::vector<std::int32_t> sorted = f_.lonIndex_;
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
            fail("two longitudes fall in the same grid column (e.g. both 0 and 360)");
        }
        const std::int32_t n = g.longitudes();
        // Ties go to the gap across column 0, so a global file starts at the grid's first column.
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
        const auto boxColOf = [&](std::int32_t column) {
            return static_cast<size_t>(((column - f_.box_.westColumn) % n + n) % n);
        };
        for (size_t j = 0; j < f_.lonIndex_.size(); ++j) {
            if (boxColOf(f_.lonIndex_[j]) >= f_.box_.cols) {
                fail("the longitudes do not form a contiguous run of grid columns");
            }
        }
        // Runs of file columns that map to consecutive box columns.
        for (size_t j = 0; j < f_.lonIndex_.size();) {
            ColumnRun run{j, boxColOf(f_.lonIndex_[j]), 1, 1};
            if (j + 1 < f_.lonIndex_.size()) {
                const size_t c1 = boxColOf(f_.lonIndex_[j + 1]);
                run.step = c1 == run.boxCol + 1 ? 1 : (c1 + 1 == run.boxCol ? -1 : 0);
            }
            if (run.step == 0) {
                run.step = 1;
            }
            while (j + run.length < f_.lonIndex_.size() &&
                   boxColOf(f_.lonIndex_[j + run.length]) ==
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

    // Steps from a CF "since" axis, a date-number axis, or forecast init + hour.
    std::vector<PgTimestamp> readTimes(int dim) const {
        const std::string& name = dims_[static_cast<size_t>(dim)].name;
        const int varid = varidOf(name);
        if (varid < 0) {
            fail("the time dimension '" + name + "' has no coordinate variable, so its times are unknown");
        }
        nc_type type = NC_NAT;
        {
            std::lock_guard lock(netcdfMutex());
            ncCheck(nc_inq_vartype(ncid_, varid, &type), f_.name_, "cannot read the " + name + " coordinate");
        }
        const size_t n = dims_[static_cast<size_t>(dim)].length;
        const std::string units = text(varid, "units").value_or("");
        const std::string calendar = text(varid, "calendar").value_or("standard");
        std::vector<PgTimestamp> times;
        times.reserve(n);
        const bool integral = type != NC_FLOAT && type != NC_DOUBLE;
        std::vector<long long> ints(integral ? n : 0);
        std::vector<double> reals(n);
        {
            std::lock_guard lock(netcdfMutex());
            if (integral) {
                ncCheck(nc_get_var_longlong(ncid_, varid, ints.data()), f_.name_,
                        "cannot read the " + name + " coordinate");
                std::transform(ints.begin(), ints.end(), reals.begin(),
                               [](long long v) { return static_cast<double>(v); });
            } else {
                ncCheck(nc_get_var_double(ncid_, varid, reals.data()), f_.name_,
                        "cannot read the " + name + " coordinate");
            }
        }
        if (contains(lower(units), " since ")) {
            TimeUnits tu;
            try {
                tu = TimeUnits::parse(units, calendar);
            } catch (const Error& e) {
                fail("time coordinate '" + name + "': " + e.what());
            }
            for (size_t i = 0; i < n; ++i) {
                if (!std::isfinite(reals[i])) {
                    fail("the time coordinate '" + name + "' holds a missing value at position " +
                         std::to_string(i));
                }
                times.push_back(integral ? tu.fromInteger(ints[i]) : tu.fromDouble(reals[i]));
            }
            return times;
        }
        // Not CF: dates written as numbers (YYYYMMDD, YYYYMMDDHH, CDO's "day as %Y%m%d.%f").
        for (size_t i = 0; i < n; ++i) {
            const auto t = timestampFromDateNumber(reals[i]);
            if (!t) {
                fail("the time coordinate '" + name + "' has units '" + units + "' and value " +
                     number(reals[i]) +
                     ", which Isobar cannot read as a time (expected '<unit> since <date>' or dates like "
                     "20240131)");
            }
            times.push_back(*t);
        }
        notes_once("the time axis '" + name + "' holds dates as numbers (" + number(reals.front()) +
                   ", ...), not CF units; read as UTC");
        return times;
    }

    void notes_once(const std::string& note) const { pendingNotes_.push_back(note); }

    void readTimeAxis() {
        const FileVariable& first = f_.variables_.front();
        int timeDim = -1;
        int initDim = -1;
        int hourDim = -1;
        for (size_t d = 0; d < first.dims.size(); ++d) {
            const int id = dimIds_[first.name][d];
            if (first.dims[d] == DimRole::Time) {
                if (timeDim >= 0) {
                    fail("variable " + first.name + " has two time dimensions");
                }
                timeDim = id;
            } else if (first.dims[d] == DimRole::ForecastInit) {
                initDim = id;
            } else if (first.dims[d] == DimRole::ForecastHour) {
                hourDim = id;
            }
        }
        if (hourDim >= 0 && initDim < 0 && timeDim >= 0) {
            initDim = std::exchange(timeDim, -1); // cfgrib's (time, step): time is the forecast start
        }
        if (initDim >= 0 || hourDim >= 0) {
            if (initDim < 0 || hourDim < 0) {
                fail("a forecast file needs both a forecast start (forecast_initial_time) and a lead time "
                     "(forecast_hour) dimension");
            }
            const auto inits = readTimes(initDim);
            const std::string& hourName = dims_[static_cast<size_t>(hourDim)].name;
            const int hourVar = varidOf(hourName);
            std::vector<double> hours(dims_[static_cast<size_t>(hourDim)].length);
            std::int64_t unit = 3'600'000'000LL;
            if (hourVar >= 0) {
                std::lock_guard lock(netcdfMutex());
                ncCheck(nc_get_var_double(ncid_, hourVar, hours.data()), f_.name_, "cannot read " + hourName);
            } else {
                for (size_t h = 0; h < hours.size(); ++h) {
                    hours[h] = static_cast<double>(h + 1);
                }
            }
            if (hourVar >= 0) {
                if (const auto u = text(hourVar, "units")) {
                    if (const std::int64_t micros = durationUnitMicros(*u)) {
                        unit = micros;
                    }
                }
            }
            for (size_t i = 0; i < inits.size(); ++i) {
                for (size_t h = 0; h < hours.size(); ++h) {
                    const auto lead =
                        static_cast<std::int64_t>(std::llround(hours[h] * static_cast<double>(unit)));
                    f_.steps_.push_back(FileStep{PgTimestamp{inits[i].micros + lead}, i, h, {}});
                }
            }
            f_.notes_.push_back("forecast layout: each value's valid time is " +
                                dims_[static_cast<size_t>(initDim)].name + " + " + hourName +
                                "; ERA5 forecast accumulations are amounts over the hour ending "
                                "at that time");
        } else if (timeDim >= 0) {
            const auto times = readTimes(timeDim);
            if (times.empty()) {
                fail("the time dimension '" + dims_[static_cast<size_t>(timeDim)].name +
                     "' is empty: the file has no time steps");
            }
            for (size_t i = 0; i < times.size(); ++i) {
                f_.steps_.push_back(FileStep{times[i], i, 0, {}});
            }
        } else {
            // No time dimension: a single field with a scalar time coordinate.
            for (const char* candidate : {"time", "valid_time"}) {
                const int varid = varidOf(candidate);
                if (varid < 0) {
                    continue;
                }
                const auto units = text(varid, "units");
                double value = 0;
                {
                    std::lock_guard lock(netcdfMutex());
                    if (!units || nc_get_var_double(ncid_, varid, &value) != NC_NOERR) {
                        continue;
                    }
                }
                try {
                    const TimeUnits tu =
                        TimeUnits::parse(*units, text(varid, "calendar").value_or("standard"));
                    f_.steps_.push_back(FileStep{tu.fromDouble(value), 0, 0, {}});
                } catch (const Error& e) {
                    fail(std::string("time coordinate '") + candidate + "': " + e.what());
                }
                break;
            }
            if (f_.steps_.empty()) {
                fail("no time dimension (time, valid_time, date or forecast_initial_time) and no time "
                     "coordinate; "
                     "dimensions: " +
                     dimList());
            }
        }
        // One value per time and point: a time that appears twice is a broken axis.
        std::vector<PgTimestamp> sorted;
        for (const auto& s : f_.steps_) {
            sorted.push_back(s.time);
        }
        std::sort(sorted.begin(), sorted.end());
        if (const auto dup = std::adjacent_find(sorted.begin(), sorted.end()); dup != sorted.end()) {
            fail("the time " + formatTimestamp(*dup) + " appears twice in the time axis");
        }
        f_.notes_.insert(f_.notes_.end(), pendingNotes_.begin(), pendingNotes_.end());
    }

    // expver: a dimension (ERA5 and ERA5T side by side), or a label per step (CDS 2024).
    void readExpver() {
        const auto labelOf = [](const std::string& s) {
            std::string t = s;
            t.erase(std::remove_if(t.begin(), t.end(),
                                   [](unsigned char c) { return std::isspace(c) || c == '\0'; }),
                    t.end());
            return t;
        };
        const auto numberOf = [](const std::string& label) {
            try {
                return std::stoi(label);
            } catch (const std::exception&) {
                return 9999;
            }
        };
        const int varid = varidOf("expver");
        std::vector<std::string> labels;
        int expverDims = 0;
        if (varid >= 0) {
            nc_type type = NC_NAT;
            size_t total = 1;
            {
                std::lock_guard lock(netcdfMutex());
                std::array<int, NC_MAX_VAR_DIMS> ids{};
                nc_inq_var(ncid_, varid, nullptr, &type, &expverDims, ids.data(), nullptr);
                for (int d = 0; d < expverDims; ++d) {
                    total *= dims_[static_cast<size_t>(ids[static_cast<size_t>(d)])].length;
                }
                if (type == NC_STRING) {
                    std::vector<char*> values(total, nullptr);
                    if (nc_get_var_string(ncid_, varid, values.data()) == NC_NOERR) {
                        for (char* v : values) {
                            labels.push_back(labelOf(v != nullptr ? v : ""));
                        }
                        nc_free_string(total, values.data());
                    }
                } else if (type == NC_CHAR) {
                    std::string chars(total, '\0');
                    if (nc_get_var_text(ncid_, varid, chars.data()) == NC_NOERR) {
                        const size_t width =
                            expverDims >= 1
                                ? dims_[static_cast<size_t>(ids[static_cast<size_t>(expverDims - 1)])].length
                                : total;
                        for (size_t i = 0; i + width <= chars.size(); i += width) {
                            labels.push_back(labelOf(chars.substr(i, width)));
                        }
                        expverDims = std::max(0, expverDims - 1);
                    }
                } else {
                    std::vector<long long> values(total);
                    if (nc_get_var_longlong(ncid_, varid, values.data()) == NC_NOERR) {
                        for (long long v : values) {
                            char buf[8];
                            std::snprintf(buf, sizeof buf, "%04lld", v);
                            labels.push_back(buf);
                        }
                    }
                }
            }
        }
        bool hasExpverDim = false;
        for (auto& var : f_.variables_) {
            for (size_t d = 0; d < var.dims.size(); ++d) {
                if (var.dims[d] != DimRole::Expver) {
                    continue;
                }
                hasExpverDim = true;
                const size_t n = dims_[static_cast<size_t>(dimIds_[var.name][d])].length;
                std::vector<std::pair<int, size_t>> order;
                for (size_t k = 0; k < n; ++k) {
                    // Without a coordinate the CDS order is [1, 5]: ERA5 first, then ERA5T.
                    const int num =
                        k < labels.size() ? numberOf(labels[k]) : static_cast<int>(k == 0 ? 1 : 5);
                    order.emplace_back(num, k);
                }
                std::sort(order.begin(), order.end());
                var.expverOrder.clear();
                for (const auto& [num, k] : order) {
                    var.expverOrder.push_back(k);
                }
            }
        }
        if (hasExpverDim) {
            std::string list;
            for (const auto& l : labels) {
                list += (list.empty() ? "" : ", ") + l;
            }
            f_.notes_.push_back(
                "expver dimension (" + (list.empty() ? std::string("no labels: assumed 1, 5") : list) +
                "): each value is taken from final ERA5 (expver 1) where present, else from ERA5T");
            return;
        }
        if (labels.empty()) {
            return;
        }
        // A label per step, or one for the whole file.
        size_t era5t = 0;
        for (size_t i = 0; i < f_.steps_.size(); ++i) {
            const std::string& label = labels.size() == f_.steps_.size() ? labels[i] : labels.front();
            f_.steps_[i].expver = label;
            era5t += numberOf(label) != 1 ? 1U : 0U;
        }
        if (era5t > 0) {
            f_.notes_.push_back(std::to_string(era5t) + " of " + std::to_string(f_.steps_.size()) +
                                " steps are preliminary ERA5T data (expver " + labels.front() +
                                "); final ERA5 (expver 0001) replaces them when both are loaded together");
        }
    }

    void decideProduct() {
        std::string provenance;
        for (const char* attr : {"history", "title", "source", "DATA_SOURCE", "GRIB_centreDescription"}) {
            provenance += lower(text(NC_GLOBAL, attr).value_or("")) + " ";
        }
        const bool landByName = contains(provenance, "era5-land") || contains(provenance, "era5_land") ||
                                contains(provenance, "era5land");
        switch (options_.product) {
        case ProductOverride::Era5:
            f_.era5Land_ = false;
            break;
        case ProductOverride::Era5Land:
            f_.era5Land_ = true;
            break;
        case ProductOverride::Auto:
            f_.era5Land_ = landByName || std::fabs(f_.grid_.step() - 0.1) < 1e-9;
            break;
        }
        // Monthly means: the GRIB step type says so, or every step is a calendar month apart.
        bool monthly = false;
        for (const auto& var : f_.variables_) {
            monthly = monthly || var.stepType.rfind("avg", 0) == 0;
        }
        if (!monthly && f_.steps_.size() >= 2) {
            std::vector<PgTimestamp> t;
            for (const auto& s : f_.steps_) {
                t.push_back(s.time);
            }
            std::sort(t.begin(), t.end());
            monthly = true;
            for (size_t i = 1; i < t.size(); ++i) {
                const double days = static_cast<double>(t[i].micros - t[i - 1].micros) / 86400e6;
                monthly = monthly && days >= 28.0 && days <= 31.0;
            }
        }
        monthly = monthly || contains(provenance, "monthly-means") || contains(provenance, "monthly_means");
        f_.monthly_ = monthly;
        if (monthly) {
            f_.notes_.push_back(
                "monthly means: one value per month; accumulated variables are mean daily totals "
                "(loaded in mm per day)");
        }
        if (f_.era5Land_ && !monthly) {
            for (auto& var : f_.variables_) {
                if (spec(var.variable).accumulated) {
                    var.accumulatedSinceMidnight = true;
                }
            }
            if (std::any_of(f_.variables_.begin(), f_.variables_.end(),
                            [](const FileVariable& v) { return v.accumulatedSinceMidnight; })) {
                f_.notes_.push_back(
                    "ERA5-Land accumulates precipitation and snowfall from 00 UTC: each hour is "
                    "loaded as the difference to the hour before (the 01 UTC value as it is)");
            }
        }
    }

    void decideLayout() {
        const bool forecast =
            std::any_of(f_.variables_.front().dims.begin(), f_.variables_.front().dims.end(),
                        [](DimRole r) { return r == DimRole::ForecastHour; });
        const bool expverDim = !f_.variables_.front().expverOrder.empty();
        const bool ncar = varidOf("utc_date") >= 0 ||
                          lower(f_.variables_.front().name).rfind("var_", 0) == 0 ||
                          text(NC_GLOBAL, "NCAR_RDA_DATASET").has_value() ||
                          contains(lower(text(NC_GLOBAL, "NETCDF_CONVERSION").value_or("")), "rda");
        const std::string history = lower(text(NC_GLOBAL, "history").value_or(""));
        const bool cfgrib = contains(history, "cfgrib") ||
                            contains(lower(text(NC_GLOBAL, "GRIB_centre").value_or("")), "ecmf");
        const bool classic = contains(f_.format_, "netCDF3");
        std::string layout;
        if (forecast) {
            layout = ncar ? "NCAR RDA ds633.0 forecast (forecast_initial_time x forecast_hour)"
                          : "forecast (start time x lead time)";
        } else if (ncar) {
            layout = "NCAR RDA ds633.0 analysis";
        } else if (expverDim) {
            layout = "CDS with expver dimension (ERA5 + ERA5T)";
        } else if (cfgrib || f_.variables_.front().stepType.size() > 0) {
            layout = "CDS 2024 (cfgrib)";
        } else if (classic && contains(history, "grib_to_netcdf")) {
            layout = "CDS legacy (grib_to_netcdf)";
        } else if (classic) {
            layout = "CDS legacy layout (netCDF3)";
        } else {
            layout = "CF NetCDF";
        }
        if (f_.era5Land_) {
            layout += ", ERA5-Land";
        }
        if (f_.monthly_) {
            layout += ", monthly means";
        }
        if (f_.box_.rows == 1 && f_.box_.cols == 1) {
            layout += ", single point";
        }
        f_.layout_ = layout;
    }

    // netCDF4/HDF5 decompress whole chunks; make the per-variable chunk cache big enough to hold
    // the chunks of one time step so each chunk is decompressed once, not once per band.
    void tuneChunkCache() {
        if (!contains(f_.format_, "netCDF4")) {
            return;
        }
        std::lock_guard lock(netcdfMutex());
        for (const auto& var : f_.variables_) {
            int storage = 0;
            std::array<size_t, NC_MAX_VAR_DIMS> chunks{};
            if (nc_inq_var_chunking(ncid_, var.varid, &storage, chunks.data()) != NC_NOERR ||
                storage != NC_CHUNKED) {
                continue;
            }
            double perStep = 1.0;
            double chunkCount = 1.0;
            size_t typeSize = 4;
            nc_inq_type(ncid_, var.type, nullptr, &typeSize);
            for (size_t d = 0; d < var.dims.size(); ++d) {
                const double c = static_cast<double>(std::max<size_t>(chunks[d], 1));
                const double len =
                    static_cast<double>(dims_[static_cast<size_t>(dimIds_[var.name][d])].length);
                if (var.dims[d] == DimRole::Latitude || var.dims[d] == DimRole::Longitude) {
                    perStep *= std::ceil(len / c) * c;
                    chunkCount *= std::ceil(len / c);
                } else {
                    perStep *= c;
                }
            }
            const double bytes = perStep * static_cast<double>(typeSize) * 1.25 + (1 << 20);
            const auto size = static_cast<size_t>(std::clamp(bytes, 16.0 * (1 << 20), 512.0 * (1 << 20)));
            const auto slots = static_cast<size_t>(std::max(1009.0, chunkCount * 4 + 1));
            f_.chunkCaches_.push_back(Era5File::ChunkCache{var.varid, size, slots});
        }
    }

    Era5File& f_;
    const NetcdfHandle& handle_;
    const OpenOptions& options_;
    int ncid_;
    int nvars_ = 0;
    std::vector<DimInfo> dims_;
    std::map<std::string, std::vector<int>> dimIds_; // per target variable, its dimension ids
    std::map<std::string, std::string> shapes_;
    int latDim_ = -1;
    int lonDim_ = -1;
    std::vector<int> timeDims_;
    mutable std::vector<std::string> pendingNotes_;
};

Era5File Era5File::open(const std::filesystem::path& path, const OpenOptions& options,
                        const std::string& displayName) {
    Era5File file;
    file.path_ = path;
    file.name_ = displayName.empty() ? path.string() : displayName;
    {
        // Inspected with a handle of its own, closed again at once: reads reopen it on demand.
        const NetcdfHandle handle = NetcdfHandle::open(path, displayName);
        Era5FileBuilder(file, handle, options).build();
    }
    file.key_ = nextNetcdfKey();
    return file;
}

Era5File::Era5File(Era5File&& other) noexcept {
    *this = std::move(other);
}

Era5File& Era5File::operator=(Era5File&& other) noexcept {
    if (this != &other) {
        if (key_ != 0) {
            std::lock_guard lock(netcdfMutex());
            NetcdfOpenFiles::instance().release(key_);
        }
        path_ = std::move(other.path_);
        key_ = std::exchange(other.key_, 0);
        chunkCaches_ = std::move(other.chunkCaches_);
        name_ = std::move(other.name_);
        format_ = std::move(other.format_);
        layout_ = std::move(other.layout_);
        era5Land_ = other.era5Land_;
        monthly_ = other.monthly_;
        grid_ = other.grid_;
        box_ = other.box_;
        latAscending_ = other.latAscending_;
        gridStepAssumed_ = other.gridStepAssumed_;
        offGrid_ = other.offGrid_;
        latitudes_ = std::move(other.latitudes_);
        longitudes_ = std::move(other.longitudes_);
        lonIndex_ = std::move(other.lonIndex_);
        columnRuns_ = std::move(other.columnRuns_);
        steps_ = std::move(other.steps_);
        variables_ = std::move(other.variables_);
        ignored_ = std::move(other.ignored_);
        notes_ = std::move(other.notes_);
        latLength_ = other.latLength_;
        lonLength_ = other.lonLength_;
    }
    return *this;
}

Era5File::~Era5File() {
    if (key_ != 0) {
        std::lock_guard lock(netcdfMutex());
        NetcdfOpenFiles::instance().release(key_);
    }
}

const FileVariable* Era5File::find(Variable v) const {
    for (const auto& var : variables_) {
        if (var.variable == v) {
            return &var;
        }
    }
    return nullptr;
}

std::vector<double> Era5File::boxLatitudes() const {
    std::vector<double> out(latitudes_);
    if (latAscending_) {
        std::reverse(out.begin(), out.end());
    }
    return out;
}

std::vector<double> Era5File::boxLongitudes() const {
    std::vector<double> out(box_.cols);
    for (const ColumnRun& run : columnRuns_) {
        for (size_t k = 0; k < run.length; ++k) {
            const size_t fileCol = run.step > 0 ? run.fileCol + k : run.fileCol + run.length - 1 - k;
            out[run.boxCol + k] = longitudes_[fileCol];
        }
    }
    return out;
}

void Era5File::readRaw(const FileVariable& var, const FileStep& step, std::size_t expverPosition,
                       std::size_t fileRow, std::size_t rowCount, RawBand& out) const {
    std::array<size_t, NC_MAX_VAR_DIMS> start{};
    std::array<size_t, NC_MAX_VAR_DIMS> count{};
    for (size_t d = 0; d < var.dims.size(); ++d) {
        count[d] = 1;
        switch (var.dims[d]) {
        case DimRole::Time:
        case DimRole::ForecastInit:
            start[d] = step.timeIndex;
            break;
        case DimRole::ForecastHour:
            start[d] = step.hourIndex;
            break;
        case DimRole::Expver:
            start[d] = expverPosition;
            break;
        case DimRole::Latitude:
            start[d] = fileRow;
            count[d] = rowCount;
            break;
        case DimRole::Longitude:
            count[d] = lonLength_;
            break;
        case DimRole::Singleton:
            break;
        }
    }
    out.type = var.type;
    out.rows = rowCount;
    out.cols = lonLength_;
    out.latMajor = var.latBeforeLon;
    const size_t n = out.count();
    int status = NC_NOERR;
    {
        std::lock_guard lock(netcdfMutex());
        const int ncid = NetcdfOpenFiles::instance().acquire(key_, path_, name_, [this](int id) {
            // A cache sized for one time step's chunks: each chunk is decompressed once, not once
            // per band.
            for (const ChunkCache& c : chunkCaches_) {
                nc_set_var_chunk_cache(id, c.varid, c.bytes, c.slotCount, 0.75f);
            }
        });
        switch (var.type) {
        case NC_SHORT:
            out.shorts.resize(n);
            status = nc_get_vara_short(ncid, var.varid, start.data(), count.data(), out.shorts.data());
            break;
        case NC_INT:
            out.ints.resize(n);
            status = nc_get_vara_int(ncid, var.varid, start.data(), count.data(), out.ints.data());
            break;
        case NC_FLOAT:
            out.floats.resize(n);
            status = nc_get_vara_float(ncid, var.varid, start.data(), count.data(), out.floats.data());
            break;
        default:
            out.doubles.resize(n);
            status = nc_get_vara_double(ncid, var.varid, start.data(), count.data(), out.doubles.data());
            break;
        }
    }
    if (status != NC_NOERR) {
        throw Error(name_ + ": cannot read " + var.name + " at " + formatTimestamp(step.time) +
                    ", latitude rows " + std::to_string(fileRow) + "-" +
                    std::to_string(fileRow + rowCount - 1) +
                    " (the file may be truncated or corrupt): " + nc_strerror(status));
    }
}

} // namespace isobar
