#include "era5/Era5File.h"

#include "era5/Grid.h"
#include "era5/TimeUnits.h"
#include "util/Error.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>

namespace isobar {

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

// Names of variables that describe the data rather than being data; never "ignored variables".
bool isAuxiliary(const std::string& name) {
    static const std::set<std::string> aux = {"number",      "expver",         "utc_date", "time_bnds",
                                              "time_bounds", "step",           "surface",  "crs",
                                              "spatial_ref", "valid_time_bnds"};
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
    return std::nullopt;
}

// The conversion for a variable given the units its file declares, or an error naming both.
Conversion conversionFor(Variable v, const std::string& unitsText, const std::filesystem::path& file,
                         const std::string& varName) {
    std::string u = lower(unitsText);
    u.erase(std::remove(u.begin(), u.end(), ' '), u.end());
    const auto refuse = [&]() -> Conversion {
        throw Error(file.string() + ": variable " + varName + " has units '" + unitsText + "', but " +
                    std::string(spec(v).shortName) + " is expected in " + std::string(spec(v).fileUnits) +
                    " (or a unit Isobar converts from); refusing to guess");
    };
    switch (v) {
    case Variable::T2m:
        if (u == "k" || u == "kelvin") {
            return Conversion::KelvinToCelsius;
        }
        if (u == "degc" || u == "c" || u == "celsius" || u == "deg_c" || u == "°c" || u == "degreesc" ||
            u == "degree_celsius" || u == "degrees_celsius") {
            return Conversion::None;
        }
        return refuse();
    case Variable::U10:
    case Variable::V10:
        if (u == "ms**-1" || u == "m/s" || u == "ms-1" || u == "ms^-1" || u == "m.s-1") {
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
        if (u == "m" || u == "mofwaterequivalent" || u == "metres" || u == "meters") {
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

} // namespace

const FileVariable* Era5File::find(Variable v) const {
    for (const auto& var : variables_) {
        if (var.variable == v) {
            return &var;
        }
    }
    return nullptr;
}

Era5File Era5File::open(const std::filesystem::path& path) {
    Era5File file(NetcdfHandle::open(path));
    const int ncid = file.handle_.id();
    const auto fail = [&](const std::string& why) {
        throw Error(path.string() + ": " + why);
    };

    int ndims = 0;
    int nvars = 0;
    int format = 0;
    std::vector<std::string> dimNames;
    std::vector<size_t> dimLengths;
    {
        std::lock_guard lock(netcdfMutex());
        ncCheck(nc_inq_format(ncid, &format), path, "cannot read the format");
        ncCheck(nc_inq_ndims(ncid, &ndims), path, "cannot read the dimensions");
        ncCheck(nc_inq_nvars(ncid, &nvars), path, "cannot read the variables");
        // Dimension ids are 0..ndims-1 in the root group.
        for (int d = 0; d < ndims; ++d) {
            std::array<char, NC_MAX_NAME + 1> name{};
            size_t length = 0;
            ncCheck(nc_inq_dim(ncid, d, name.data(), &length), path, "cannot read a dimension");
            dimNames.emplace_back(name.data());
            dimLengths.push_back(length);
        }
    }
    file.format_ = formatName(format);

    const auto findDim = [&](std::initializer_list<const char*> names) -> int {
        for (const char* wanted : names) {
            for (int d = 0; d < ndims; ++d) {
                if (lower(dimNames[static_cast<size_t>(d)]) == wanted) {
                    return d;
                }
            }
        }
        return -1;
    };
    const auto listDims = [&]() {
        std::string out;
        for (int d = 0; d < ndims; ++d) {
            out += (out.empty() ? "" : ", ") + dimNames[static_cast<size_t>(d)] + "=" +
                   std::to_string(dimLengths[static_cast<size_t>(d)]);
        }
        return out.empty() ? std::string("none") : out;
    };
    const int latDim = findDim({"latitude", "lat"});
    const int lonDim = findDim({"longitude", "lon"});
    const int timeDim = findDim({"time", "valid_time"});
    if (latDim < 0 || lonDim < 0) {
        fail("no latitude/longitude dimensions, so not a regular latitude/longitude grid (dimensions: " +
             listDims() + ")");
    }
    if (timeDim < 0) {
        fail("no time dimension (time or valid_time); dimensions: " + listDims());
    }
    if (dimLengths[static_cast<size_t>(timeDim)] == 0) {
        fail("the time dimension '" + dimNames[static_cast<size_t>(timeDim)] +
             "' is empty: the file has no time steps");
    }
    if (dimLengths[static_cast<size_t>(latDim)] == 0 || dimLengths[static_cast<size_t>(lonDim)] == 0) {
        fail("the latitude or longitude dimension is empty");
    }

    // Coordinate variables: same name as their dimension.
    const auto readCoordinate = [&](int dim) {
        const std::string& name = dimNames[static_cast<size_t>(dim)];
        std::vector<double> values(dimLengths[static_cast<size_t>(dim)]);
        std::lock_guard lock(netcdfMutex());
        int varid = -1;
        if (nc_inq_varid(ncid, name.c_str(), &varid) != NC_NOERR) {
            fail("the dimension '" + name + "' has no coordinate variable, so its values are unknown");
        }
        ncCheck(nc_get_var_double(ncid, varid, values.data()), path,
                "cannot read the " + name + " coordinate");
        return std::pair{varid, values};
    };
    file.latitudes_ = readCoordinate(latDim).second;
    file.longitudes_ = readCoordinate(lonDim).second;

    const std::string& timeName = dimNames[static_cast<size_t>(timeDim)];
    int timeVar = -1;
    nc_type timeType = NC_NAT;
    {
        std::lock_guard lock(netcdfMutex());
        if (nc_inq_varid(ncid, timeName.c_str(), &timeVar) != NC_NOERR) {
            fail("the time dimension '" + timeName + "' has no coordinate variable");
        }
        ncCheck(nc_inq_vartype(ncid, timeVar, &timeType), path, "cannot read the time coordinate");
    }
    const auto timeUnitsText = file.handle_.textAttribute(timeVar, "units");
    if (!timeUnitsText) {
        fail("the time coordinate '" + timeName + "' has no units attribute");
    }
    const std::string calendar = file.handle_.textAttribute(timeVar, "calendar").value_or("standard");
    TimeUnits timeUnits;
    try {
        timeUnits = TimeUnits::parse(*timeUnitsText, calendar);
    } catch (const Error& e) {
        fail(std::string("time coordinate '") + timeName + "': " + e.what());
    }
    const size_t timeCount = dimLengths[static_cast<size_t>(timeDim)];
    file.times_.reserve(timeCount);
    if (timeType == NC_FLOAT || timeType == NC_DOUBLE) {
        std::vector<double> raw(timeCount);
        {
            std::lock_guard lock(netcdfMutex());
            ncCheck(nc_get_var_double(ncid, timeVar, raw.data()), path, "cannot read the time coordinate");
        }
        for (double v : raw) {
            if (!std::isfinite(v)) {
                fail("the time coordinate holds a missing or non-finite value");
            }
            file.times_.push_back(timeUnits.fromDouble(v));
        }
    } else {
        std::vector<long long> raw(timeCount);
        {
            std::lock_guard lock(netcdfMutex());
            ncCheck(nc_get_var_longlong(ncid, timeVar, raw.data()), path, "cannot read the time coordinate");
        }
        for (long long v : raw) {
            file.times_.push_back(timeUnits.fromInteger(v));
        }
    }

    // The grid: inside the globe, on the seed's 0.25 degree grid, no point twice.
    std::set<std::int32_t> latIndices;
    for (double lat : file.latitudes_) {
        if (!(lat >= -90.0 && lat <= 90.0)) {
            fail("latitude " + std::to_string(lat) + " is outside -90..90");
        }
        if (!onGrid(lat, kSeedGridStep)) {
            fail("latitude " + std::to_string(lat) +
                 " is not on the 0.25 degree ERA5 grid; points off the grid "
                 "are not loaded");
        }
        if (!latIndices.insert(seedLatitudeIndex(lat)).second) {
            fail("latitude " + std::to_string(lat) + " appears twice");
        }
    }
    std::set<std::int32_t> lonIndices;
    for (double lon : file.longitudes_) {
        if (!(lon >= -180.0 && lon <= 360.0)) {
            fail("longitude " + std::to_string(lon) + " is outside -180..360");
        }
        if (!onGrid(lon, kSeedGridStep)) {
            fail("longitude " + std::to_string(lon) +
                 " is not on the 0.25 degree ERA5 grid; points off the grid "
                 "are not loaded");
        }
        if (!lonIndices.insert(seedLongitudeIndex(lon)).second) {
            fail("longitude " + std::to_string(lon) +
                 " is the same grid column as another longitude in the file "
                 "(e.g. both 0 and 360)");
        }
    }

    // Variables.
    for (int v = 0; v < nvars; ++v) {
        std::array<char, NC_MAX_NAME + 1> nameBuf{};
        int varDims = 0;
        nc_type type = NC_NAT;
        std::array<int, NC_MAX_VAR_DIMS> dimIds{};
        {
            std::lock_guard lock(netcdfMutex());
            ncCheck(nc_inq_var(ncid, v, nameBuf.data(), &type, &varDims, dimIds.data(), nullptr), path,
                    "cannot read a variable");
        }
        const std::string name(nameBuf.data());
        if (std::find(dimNames.begin(), dimNames.end(), name) != dimNames.end() || isAuxiliary(name)) {
            continue;
        }
        const std::string longName = file.handle_.textAttribute(v, "long_name").value_or("");
        const auto target = matchVariable(name, longName);
        if (!target) {
            file.ignored_.push_back(name);
            continue;
        }
        if (const FileVariable* existing = file.find(*target)) {
            fail("both '" + existing->name + "' and '" + name + "' look like " +
                 std::string(spec(*target).shortName) + "; refusing to choose");
        }
        std::string shape;
        for (int d = 0; d < varDims; ++d) {
            shape += (d == 0 ? "" : ", ") + dimNames[static_cast<size_t>(dimIds[static_cast<size_t>(d)])];
        }
        if (varDims == 4) {
            fail("variable " + name + " has 4 dimensions (" + shape +
                 "): this looks like a pressure-level or ensemble file; Isobar loads single-level surface "
                 "variables shaped (time, latitude, longitude)");
        }
        if (varDims != 3 || dimIds[0] != timeDim || dimIds[1] != latDim || dimIds[2] != lonDim) {
            fail("variable " + name + " is shaped (" + shape + "); expected (" + timeName + ", " +
                 dimNames[static_cast<size_t>(latDim)] + ", " + dimNames[static_cast<size_t>(lonDim)] + ")");
        }
        if (type != NC_SHORT && type != NC_FLOAT && type != NC_DOUBLE) {
            fail("variable " + name + " is stored as " + typeName(type) +
                 "; expected short (packed), float or double");
        }
        FileVariable fv;
        fv.variable = *target;
        fv.name = name;
        fv.varid = v;
        fv.type = type;
        const auto scale = file.handle_.numberAttribute(v, "scale_factor");
        const auto offset = file.handle_.numberAttribute(v, "add_offset");
        fv.packed = scale.has_value() || offset.has_value();
        fv.scale = scale.value_or(1.0);
        fv.offset = offset.value_or(0.0);
        auto fills = file.handle_.numberAttributeValues(v, "_FillValue");
        if (fills.empty()) {
            fills.push_back(defaultFill(type));
        }
        const auto missing = file.handle_.numberAttributeValues(v, "missing_value");
        fv.missingValues = fills;
        fv.missingValues.insert(fv.missingValues.end(), missing.begin(), missing.end());
        fv.units = file.handle_.textAttribute(v, "units").value_or("");
        fv.conversion = conversionFor(*target, fv.units, path, name);
        file.variables_.push_back(std::move(fv));
    }
    if (file.variables_.empty()) {
        std::string has;
        for (const auto& n : file.ignored_) {
            has += (has.empty() ? "" : ", ") + n;
        }
        fail("no ERA5 variable that Isobar loads (t2m, u10, v10, tcc, tp, sf); the file has: " +
             (has.empty() ? std::string("no data variables") : has));
    }
    std::sort(file.variables_.begin(), file.variables_.end(),
              [](const FileVariable& a, const FileVariable& b) { return a.variable < b.variable; });
    return file;
}

void Era5File::readBand(const FileVariable& var, std::size_t timeIndex, std::size_t latBegin,
                        std::size_t latCount, RawBand& out) const {
    const std::array<size_t, 3> start{timeIndex, latBegin, 0};
    const std::array<size_t, 3> count{1, latCount, longitudes_.size()};
    out.type = var.type;
    out.count = latCount * longitudes_.size();
    int status = NC_NOERR;
    switch (var.type) {
    case NC_SHORT:
        out.shorts.resize(out.count);
        {
            std::lock_guard lock(netcdfMutex());
            status =
                nc_get_vara_short(handle_.id(), var.varid, start.data(), count.data(), out.shorts.data());
        }
        break;
    case NC_FLOAT:
        out.floats.resize(out.count);
        {
            std::lock_guard lock(netcdfMutex());
            status =
                nc_get_vara_float(handle_.id(), var.varid, start.data(), count.data(), out.floats.data());
        }
        break;
    default:
        out.doubles.resize(out.count);
        {
            std::lock_guard lock(netcdfMutex());
            status =
                nc_get_vara_double(handle_.id(), var.varid, start.data(), count.data(), out.doubles.data());
        }
        break;
    }
    if (status != NC_NOERR) {
        throw Error(path().string() + ": cannot read " + var.name + " at time step " +
                    std::to_string(timeIndex) + " (" + formatTimestamp(times_[timeIndex]) +
                    "), latitude rows " + std::to_string(latBegin) + "-" +
                    std::to_string(latBegin + latCount - 1) +
                    " (the file may be truncated or corrupt): " + nc_strerror(status));
    }
}

float decodeOne(const FileVariable& var, double stored) {
    if (std::isnan(stored)) {
        return std::numeric_limits<float>::quiet_NaN();
    }
    for (double m : var.missingValues) {
        if (stored == m) {
            return std::numeric_limits<float>::quiet_NaN();
        }
    }
    const double unpacked = var.packed ? stored * var.scale + var.offset : stored;
    return static_cast<float>(convert(var.conversion, unpacked));
}

ValueDecoder::ValueDecoder(const FileVariable& var)
    : var_(&var) {
    if (var.type == NC_SHORT) {
        shortTable_.resize(65536);
        for (std::int32_t raw = -32768; raw <= 32767; ++raw) {
            shortTable_[static_cast<std::uint16_t>(raw)] = decodeOne(var, raw);
        }
    }
}

void ValueDecoder::decode(const RawBand& raw, float* out) const {
    switch (raw.type) {
    case NC_SHORT: {
        const float* table = shortTable_.data();
        const std::int16_t* in = raw.shorts.data();
        for (std::size_t i = 0; i < raw.count; ++i) {
            out[i] = table[static_cast<std::uint16_t>(in[i])];
        }
        break;
    }
    case NC_FLOAT:
        for (std::size_t i = 0; i < raw.count; ++i) {
            out[i] = decodeOne(*var_, static_cast<double>(raw.floats[i]));
        }
        break;
    default:
        for (std::size_t i = 0; i < raw.count; ++i) {
            out[i] = decodeOne(*var_, raw.doubles[i]);
        }
        break;
    }
}

} // namespace isobar
