// SPDX-License-Identifier: GPL-3.0-or-later

// The synthetic file in each real-world layout (see SyntheticFiles.h).

#include "era5/Netcdf.h"
#include "era5/TimeUnits.h"
#include "synth/SyntheticParts.h"
#include "util/Error.h"

#include <netcdf.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <span>
#include <string_view>

namespace isobar::synth {

namespace {

constexpr std::int16_t kFill = -32767;
constexpr float kNcarMissing = 9.999e20f;
constexpr std::int64_t kSecondsFrom1900To1970 = 2'208'988'800LL;

struct Packing {
    double min;
    double max;
    double scale() const { return (max - min) / 65532.0; }
    // The lowest packed value (-32766) unpacks to exactly `min` (0 for precipitation).
    double offset() const { return min + 32766.0 * scale(); }
    std::int16_t pack(double value) const {
        const double p = std::round((value - offset()) / scale());
        return static_cast<std::int16_t>(std::clamp(p, -32766.0, 32767.0));
    }
};

// Packed over the range where the variable's values usually lie.
Packing packingOf(const VariableSpec& s) {
    return Packing{s.typicalMin, s.typicalMax};
}

// All netcdf-c calls of one file happen under the library lock, on this thread.
class Writer {
public:
    Writer(const std::filesystem::path& path, int mode)
        : lock_(netcdfMutex())
        , path_(path) {
        check(nc_create(path.c_str(), NC_CLOBBER | mode, &ncid_), "cannot create the file");
    }
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;
    ~Writer() {
        if (ncid_ >= 0) {
            nc_close(ncid_);
        }
    }
    int id() const { return ncid_; }
    void check(int status, const char* what) const { ncCheck(status, path_, what); }
    int dim(const char* name, size_t length) {
        int d = -1;
        check(nc_def_dim(ncid_, name, length, &d), "cannot define a dimension");
        return d;
    }
    int var(const char* name, nc_type type, std::vector<int> dims) {
        int v = -1;
        check(nc_def_var(ncid_, name, type, static_cast<int>(dims.size()), dims.data(), &v),
              "cannot define a variable");
        return v;
    }
    void text(int varid, const char* name, const std::string& value) {
        check(nc_put_att_text(ncid_, varid, name, value.size(), value.c_str()), "cannot write an attribute");
    }
    void number(int varid, const char* name, double value) {
        check(nc_put_att_double(ncid_, varid, name, NC_DOUBLE, 1, &value), "cannot write an attribute");
    }
    void close() {
        check(nc_close(ncid_), "cannot finish the file (is the disk full?)");
        ncid_ = -1;
    }

private:
    std::lock_guard<std::mutex> lock_;
    std::filesystem::path path_;
    int ncid_ = -1;
};

// The name cfgrib gives a variable: ERA5's short name, but avg_* for mean rates (avg_tprate).
std::string cfgribName(const VariableSpec& s) {
    if (s.timing == Timing::MeanRate) {
        for (std::string_view alias : s.aliases) {
            if (alias.rfind("avg_", 0) == 0) {
                return std::string(alias);
            }
        }
    }
    return std::string(s.shortName);
}

} // namespace

std::string yyyymmddhh(std::int64_t hour1900) {
    const std::string t = formatTimestamp(
        pgTimestampFromUnixMicros((hour1900 * 3600 - kSecondsFrom1900To1970) * kMicrosPerSecond));
    // "2024-01-01 06:00:00+00" -> "2024010106"
    return t.substr(0, 4) + t.substr(5, 2) + t.substr(8, 2) + t.substr(11, 2);
}

std::string_view stepTypeOf(const VariableSpec& s) {
    switch (s.timing) {
    case Timing::Instant:
        break;
    case Timing::Accumulated:
        return "accum";
    case Timing::MeanRate:
        return "avg";
    case Timing::Extreme:
        return s.longName.rfind("Minimum", 0) == 0 ? "min" : "max";
    }
    return "instant";
}

void writeClassic(const std::filesystem::path& path, const Job& job, bool expverDimension) {
    Writer w(path, NC_64BIT_OFFSET);
    const size_t nlat = job.grid.latitudes.size();
    const size_t nlon = job.grid.longitudes.size();
    const bool pressure = !job.levels.empty();
    const int dLon = w.dim("longitude", nlon);
    const int dLat = w.dim("latitude", nlat);
    const int dLevel = pressure ? w.dim("level", job.levels.size()) : -1;
    const int dTime = w.dim("time", NC_UNLIMITED);
    const int dExpver = expverDimension ? w.dim("expver", 2) : -1;
    const int vLon = w.var("longitude", NC_FLOAT, {dLon});
    w.text(vLon, "units", "degrees_east");
    w.text(vLon, "long_name", "longitude");
    const int vLat = w.var("latitude", NC_FLOAT, {dLat});
    w.text(vLat, "units", "degrees_north");
    w.text(vLat, "long_name", "latitude");
    int vLevel = -1;
    if (pressure) {
        vLevel = w.var("level", NC_INT, {dLevel});
        w.text(vLevel, "units", "millibars");
        w.text(vLevel, "long_name", "pressure_level");
    }
    int vExpver = -1;
    if (expverDimension) {
        vExpver = w.var("expver", NC_INT, {dExpver});
        w.text(vExpver, "long_name", "expver");
    }
    const int vTime = w.var("time", NC_INT, {dTime});
    w.text(vTime, "units", "hours since 1900-01-01 00:00:00.0");
    w.text(vTime, "long_name", "time");
    w.text(vTime, "calendar", "gregorian");
    // (time, [expver], [level], latitude, longitude)
    std::vector<int> dims{dTime};
    if (expverDimension) {
        dims.push_back(dExpver);
    }
    if (pressure) {
        dims.push_back(dLevel);
    }
    dims.push_back(dLat);
    dims.push_back(dLon);
    std::vector<int> ids;
    std::vector<Packing> packings;
    for (Variable v : job.variables) {
        const VariableSpec& s = spec(v);
        const Packing p = packingOf(s);
        const int id = w.var(std::string(s.shortName).c_str(), NC_SHORT, dims);
        w.number(id, "scale_factor", p.scale());
        w.number(id, "add_offset", p.offset());
        w.check(nc_put_att_short(w.id(), id, "_FillValue", NC_SHORT, 1, &kFill), "cannot write _FillValue");
        w.check(nc_put_att_short(w.id(), id, "missing_value", NC_SHORT, 1, &kFill),
                "cannot write missing_value");
        w.text(id, "units", std::string(s.fileUnits));
        w.text(id, "long_name", std::string(s.longName));
        if (!s.standardName.empty() && pressure) {
            w.text(id, "standard_name", std::string(s.standardName));
        }
        ids.push_back(id);
        packings.push_back(p);
    }
    const std::string layout = expverDimension ? "a CDS download mixing ERA5 and ERA5T (expver dimension)"
                               : pressure      ? "a classic Copernicus CDS (grib_to_netcdf) pressure-level"
                                               : "a classic Copernicus CDS (grib_to_netcdf)";
    w.text(NC_GLOBAL, "Conventions", "CF-1.6");
    w.text(NC_GLOBAL, "title", "SYNTHETIC ERA5-like file written by Isobar - NOT real ERA5 data");
    w.text(NC_GLOBAL, "isobar_synthetic", syntheticNotice(job.weather.seed(), layout));
    w.text(NC_GLOBAL, "history",
           nowStamp() + " isobar-cli synth: SYNTHETIC data in the layout of a CDS grib_to_netcdf file");
    int old = 0;
    w.check(nc_set_fill(w.id(), NC_NOFILL, &old), "cannot set fill mode");
    w.check(nc_enddef(w.id()), "cannot finish the header");

    std::vector<float> lonf(job.grid.longitudes.begin(), job.grid.longitudes.end());
    std::vector<float> latf(job.grid.latitudes.begin(), job.grid.latitudes.end());
    w.check(nc_put_var_float(w.id(), vLon, lonf.data()), "cannot write longitudes");
    w.check(nc_put_var_float(w.id(), vLat, latf.data()), "cannot write latitudes");
    if (pressure) {
        std::vector<int> millibars;
        for (double hPa : job.levels) {
            millibars.push_back(static_cast<int>(std::lround(hPa)));
        }
        w.check(nc_put_var_int(w.id(), vLevel, millibars.data()), "cannot write levels");
    }
    if (expverDimension) {
        const int labels[2] = {1, 5};
        w.check(nc_put_var_int(w.id(), vExpver, labels), "cannot write expver");
    }
    // With an expver dimension: the last third of the hours exist only as ERA5T (expver 5), the
    // hour before them in both (ERA5T slightly different: the final ERA5 must win), the rest only
    // as ERA5.
    const int tail = std::max(1, job.hours / 3);
    const int overlap = job.hours - tail - 1;
    const std::vector<std::optional<double>> levels = levelsOf(job);
    std::vector<std::vector<double>> values;
    std::vector<std::int16_t> packed(nlat * nlon);
    const std::vector<std::int16_t> missing(nlat * nlon, kFill);
    for (int h = 0; h < job.hours; ++h) {
        checkStop(job);
        const size_t hIndex = static_cast<size_t>(h);
        const auto hourValue = static_cast<int>(job.firstHour1900 + h);
        w.check(nc_put_var1_int(w.id(), vTime, &hIndex, &hourValue), "cannot write time");
        const bool era5 = h < job.hours - tail;
        const bool era5t = h >= overlap;
        for (size_t l = 0; l < levels.size(); ++l) {
            const auto put = [&](int varid, size_t expver, const std::vector<std::int16_t>& data) {
                std::vector<size_t> start{hIndex};
                std::vector<size_t> count{1};
                if (expverDimension) {
                    start.push_back(expver);
                    count.push_back(1);
                }
                if (pressure) {
                    start.push_back(l);
                    count.push_back(1);
                }
                start.insert(start.end(), {0, 0});
                count.insert(count.end(), {nlat, nlon});
                w.check(nc_put_vara_short(w.id(), varid, start.data(), count.data(), data.data()),
                        "cannot write data (is the disk full?)");
            };
            forEachVariable(job, job.variables, job.firstHour1900 + h, levels[l], values,
                            [&](size_t i, const std::vector<double>& physical) {
                                for (size_t k = 0; k < packed.size(); ++k) {
                                    packed[k] = packings[i].pack(physical[k]);
                                }
                                if (!expverDimension) {
                                    put(ids[i], 0, packed);
                                    return;
                                }
                                std::vector<std::int16_t> preliminary = packed;
                                if (era5 && era5t) {
                                    for (auto& p : preliminary) {
                                        p = static_cast<std::int16_t>(std::min(32767, p + 40));
                                    }
                                }
                                put(ids[i], 0, era5 ? packed : missing);
                                put(ids[i], 1, era5t ? preliminary : missing);
                            });
        }
    }
    w.close();
}

void writeCf2024(const std::filesystem::path& path, const Job& job, const std::vector<Variable>& variables) {
    Writer w(path, NC_NETCDF4);
    const size_t nlat = job.grid.latitudes.size();
    const size_t nlon = job.grid.longitudes.size();
    const auto hours = static_cast<size_t>(job.hours);
    const bool pressure = !job.levels.empty();
    const int dTime = w.dim("valid_time", hours);
    const int dLevel = pressure ? w.dim("pressure_level", job.levels.size()) : -1;
    const int dLat = w.dim("latitude", nlat);
    const int dLon = w.dim("longitude", nlon);
    const int vNumber = w.var("number", NC_INT64, {});
    w.text(vNumber, "long_name", "ensemble member numerical id");
    w.text(vNumber, "units", "1");
    w.text(vNumber, "standard_name", "realization");
    const int vTime = w.var("valid_time", NC_INT64, {dTime});
    w.text(vTime, "long_name", "time");
    w.text(vTime, "standard_name", "time");
    w.text(vTime, "units", "seconds since 1970-01-01");
    w.text(vTime, "calendar", "proleptic_gregorian");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    int vLevel = -1;
    if (pressure) {
        vLevel = w.var("pressure_level", NC_DOUBLE, {dLevel});
        w.check(nc_put_att_double(w.id(), vLevel, "_FillValue", NC_DOUBLE, 1, &nan),
                "cannot write _FillValue");
        w.text(vLevel, "long_name", "pressure");
        w.text(vLevel, "units", "hPa");
        w.text(vLevel, "positive", "down");
        w.text(vLevel, "stored_direction", "decreasing");
        w.text(vLevel, "standard_name", "air_pressure");
    }
    const int vLat = w.var("latitude", NC_DOUBLE, {dLat});
    w.check(nc_put_att_double(w.id(), vLat, "_FillValue", NC_DOUBLE, 1, &nan), "cannot write _FillValue");
    w.text(vLat, "units", "degrees_north");
    w.text(vLat, "standard_name", "latitude");
    w.text(vLat, "long_name", "latitude");
    w.text(vLat, "stored_direction", "decreasing");
    const int vLon = w.var("longitude", NC_DOUBLE, {dLon});
    w.check(nc_put_att_double(w.id(), vLon, "_FillValue", NC_DOUBLE, 1, &nan), "cannot write _FillValue");
    w.text(vLon, "units", "degrees_east");
    w.text(vLon, "standard_name", "longitude");
    w.text(vLon, "long_name", "longitude");
    const int vExpver = w.var("expver", NC_STRING, {dTime});
    std::vector<int> ids;
    const float nanf = std::numeric_limits<float>::quiet_NaN();
    const std::vector<int> dims =
        pressure ? std::vector<int>{dTime, dLevel, dLat, dLon} : std::vector<int>{dTime, dLat, dLon};
    for (Variable v : variables) {
        const VariableSpec& s = spec(v);
        const int id = w.var(cfgribName(s).c_str(), NC_FLOAT, dims);
        const std::vector<size_t> chunks =
            pressure ? std::vector<size_t>{1, 1, nlat, nlon} : std::vector<size_t>{1, nlat, nlon};
        w.check(nc_def_var_chunking(w.id(), id, NC_CHUNKED, chunks.data()), "cannot set chunking");
        w.check(nc_def_var_deflate(w.id(), id, 1, 1, 1), "cannot set compression");
        w.check(nc_put_att_float(w.id(), id, "_FillValue", NC_FLOAT, 1, &nanf), "cannot write _FillValue");
        const long long param = s.paramId;
        w.check(nc_put_att_longlong(w.id(), id, "GRIB_paramId", NC_INT64, 1, &param),
                "cannot write an attribute");
        w.text(id, "GRIB_dataType", s.timing == Timing::Instant ? "an" : "fc");
        w.text(id, "GRIB_stepType", std::string(stepTypeOf(s)));
        w.text(id, "GRIB_gridType", "regular_ll");
        if (pressure) {
            w.text(id, "GRIB_typeOfLevel", "isobaricInhPa");
        }
        w.number(id, "GRIB_iDirectionIncrementInDegrees", 0.25);
        w.number(id, "GRIB_jDirectionIncrementInDegrees", 0.25);
        w.text(id, "GRIB_shortName", std::string(s.gribName));
        w.text(id, "GRIB_name", std::string(s.longName));
        w.text(id, "GRIB_units", std::string(s.fileUnits));
        w.text(id, "long_name", std::string(s.longName));
        w.text(id, "units", std::string(s.fileUnits));
        w.text(id, "standard_name",
               s.standardName.empty() ? std::string("unknown") : std::string(s.standardName));
        w.text(id, "coordinates",
               pressure ? "number valid_time pressure_level latitude longitude expver"
                        : "number valid_time latitude longitude expver");
        ids.push_back(id);
    }
    w.text(NC_GLOBAL, "GRIB_centre", "ecmf");
    w.text(NC_GLOBAL, "GRIB_centreDescription", "European Centre for Medium-Range Weather Forecasts");
    w.text(NC_GLOBAL, "Conventions", "CF-1.7");
    w.text(NC_GLOBAL, "institution", "SYNTHETIC - written by Isobar, not by ECMWF");
    w.text(NC_GLOBAL, "title", "SYNTHETIC ERA5-like file written by Isobar - NOT real ERA5 data");
    w.text(NC_GLOBAL, "isobar_synthetic",
           syntheticNotice(job.weather.seed(), pressure ? "a 2024 Copernicus CDS (cfgrib) pressure-level"
                                                        : "a 2024 Copernicus CDS (cfgrib)"));
    w.text(NC_GLOBAL, "history",
           nowStamp() + " isobar-cli synth: SYNTHETIC data in the layout of a CDS cfgrib file");
    w.check(nc_enddef(w.id()), "cannot finish the header");

    const long long zero = 0;
    w.check(nc_put_var_longlong(w.id(), vNumber, &zero), "cannot write number");
    w.check(nc_put_var_double(w.id(), vLat, job.grid.latitudes.data()), "cannot write latitudes");
    w.check(nc_put_var_double(w.id(), vLon, job.grid.longitudes.data()), "cannot write longitudes");
    if (pressure) {
        w.check(nc_put_var_double(w.id(), vLevel, job.levels.data()), "cannot write levels");
    }
    const std::vector<std::optional<double>> levels = levelsOf(job);
    std::vector<std::vector<double>> values;
    std::vector<float> data(nlat * nlon);
    for (size_t h = 0; h < hours; ++h) {
        checkStop(job);
        const long long seconds =
            (job.firstHour1900 + static_cast<long long>(h)) * 3600 - kSecondsFrom1900To1970;
        w.check(nc_put_var1_longlong(w.id(), vTime, &h, &seconds), "cannot write time");
        const char* label = "0001";
        w.check(nc_put_var1_string(w.id(), vExpver, &h, &label), "cannot write expver");
        for (size_t l = 0; l < levels.size(); ++l) {
            forEachVariable(
                job, variables, job.firstHour1900 + static_cast<std::int64_t>(h), levels[l], values,
                [&](size_t i, const std::vector<double>& src) {
                    std::transform(src.begin(), src.end(), data.begin(),
                                   [](double x) { return static_cast<float>(x); });
                    const std::vector<size_t> start =
                        pressure ? std::vector<size_t>{h, l, 0, 0} : std::vector<size_t>{h, 0, 0};
                    const std::vector<size_t> count =
                        pressure ? std::vector<size_t>{1, 1, nlat, nlon} : std::vector<size_t>{1, nlat, nlon};
                    w.check(nc_put_vara_float(w.id(), ids[i], start.data(), count.data(), data.data()),
                            "cannot write data (is the disk full?)");
                });
        }
    }
    w.close();
}

std::vector<std::filesystem::path> writeNcar(const std::filesystem::path& dir, const Job& job,
                                             std::int64_t& firstHour1900, int& hours) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        throw Error(dir.string() + ": cannot create the directory for the NCAR files: " + ec.message());
    }
    const size_t nlat = job.grid.latitudes.size();
    const size_t nlon = job.grid.longitudes.size();
    // Forecasts start at 06 and 18 UTC and run 1..12 hours. The sample covers whole forecasts,
    // from the one that reaches the first hour asked for through the one that reaches the last,
    // and the analysis files cover the same hours, so every valid time has every variable.
    std::int64_t firstInit = job.firstHour1900 - 1;
    while (((firstInit % 24) + 24) % 24 != 6 && ((firstInit % 24) + 24) % 24 != 18) {
        --firstInit;
    }
    std::vector<std::int64_t> inits{firstInit};
    while (inits.back() + 12 + 1 <= job.firstHour1900 + job.hours - 1) {
        inits.push_back(inits.back() + 12);
    }
    const std::int64_t first = inits.front() + 1;
    const std::int64_t last = inits.back() + 12;
    const auto analysisHours = static_cast<size_t>(last - first + 1);
    std::vector<std::filesystem::path> written;
    std::vector<std::vector<double>> values;
    std::vector<float> data(nlat * nlon);
    const std::string range = yyyymmddhh(first) + "_" + yyyymmddhh(last);
    for (Variable v : job.variables) {
        const VariableSpec& s = spec(v);
        // Accumulations, mean rates and extremes come from the forecasts, the rest from the analysis.
        const bool forecast = s.timing != Timing::Instant;
        const char* kind = "an.sfc";
        switch (s.timing) {
        case Timing::Instant:
            break;
        case Timing::Accumulated:
            kind = "fc.sfc.accumu";
            break;
        case Timing::MeanRate:
            kind = "fc.sfc.meanflux";
            break;
        case Timing::Extreme:
            kind = "fc.sfc.minmax";
            break;
        }
        // GRIB1 table and parameter: 167 is 128_167, 228246 is 228_246.
        const int table = s.paramId < 1000 ? 128 : s.paramId / 1000;
        char name[200];
        std::snprintf(name, sizeof name, "e5.oper.%s.%03d_%03d_%s.ll025sc.%s.nc", kind, table,
                      s.paramId % 1000, std::string(s.gribName).c_str(),
                      forecast ? (yyyymmddhh(inits.front()) + "_" + yyyymmddhh(inits.back())).c_str()
                               : range.c_str());
        const std::filesystem::path final = dir / name;
        const std::filesystem::path part = final.string() + ".part";
        try {
            Writer w(part, NC_NETCDF4);
            const size_t steps = forecast ? inits.size() : analysisHours;
            const int dTime = w.dim(forecast ? "forecast_initial_time" : "time", steps);
            const int dHour = forecast ? w.dim("forecast_hour", 12) : -1;
            const int dLat = w.dim("latitude", nlat);
            const int dLon = w.dim("longitude", nlon);
            const int vTime = w.var(forecast ? "forecast_initial_time" : "time", NC_INT64, {dTime});
            w.text(vTime, "long_name", forecast ? "forecast initial time" : "time");
            w.text(vTime, "units", "hours since 1900-01-01 00:00:00");
            w.text(vTime, "calendar", "gregorian");
            int vHour = -1;
            if (forecast) {
                vHour = w.var("forecast_hour", NC_INT, {dHour});
                w.text(vHour, "long_name", "hours since forecast_initial_time");
                w.text(vHour, "units", "hour");
            }
            const int vLat = w.var("latitude", NC_DOUBLE, {dLat});
            w.text(vLat, "units", "degrees_north");
            w.text(vLat, "long_name", "latitude");
            const int vLon = w.var("longitude", NC_DOUBLE, {dLon});
            w.text(vLon, "units", "degrees_east");
            w.text(vLon, "long_name", "longitude");
            const int vUtc = w.var("utc_date", NC_INT, {dTime});
            w.text(vUtc, "long_name", "UTC date yyyy-mm-dd hh:00:00 as yyyymmddhh");
            w.text(vUtc, "units", "Gregorian_year month day hour");
            const std::vector<int> dims =
                forecast ? std::vector<int>{dTime, dHour, dLat, dLon} : std::vector<int>{dTime, dLat, dLon};
            const int id = w.var(std::string(s.ncarName).c_str(), NC_FLOAT, dims);
            std::vector<size_t> chunks(dims.size(), 1);
            chunks[dims.size() - 2] = nlat;
            chunks[dims.size() - 1] = nlon;
            w.check(nc_def_var_chunking(w.id(), id, NC_CHUNKED, chunks.data()), "cannot set chunking");
            w.check(nc_def_var_deflate(w.id(), id, 1, 1, 1), "cannot set compression");
            w.check(nc_put_att_float(w.id(), id, "_FillValue", NC_FLOAT, 1, &kNcarMissing),
                    "cannot write _FillValue");
            w.check(nc_put_att_float(w.id(), id, "missing_value", NC_FLOAT, 1, &kNcarMissing),
                    "cannot write missing_value");
            w.text(id, "long_name", std::string(s.longName));
            w.text(id, "short_name", std::string(s.gribName));
            w.text(id, "units", std::string(s.fileUnits));
            w.text(NC_GLOBAL, "DATA_SOURCE", "SYNTHETIC - written by Isobar, not ECMWF data");
            w.text(NC_GLOBAL, "NETCDF_CONVERSION",
                   "imitates CISL RDA: Conversion from ECMWF GRIB1 data to netCDF4.");
            w.text(NC_GLOBAL, "NCAR_RDA_DATASET", "ds633.0 (imitated)");
            w.text(NC_GLOBAL, "title", "SYNTHETIC ERA5-like file written by Isobar - NOT real ERA5 data");
            w.text(NC_GLOBAL, "isobar_synthetic", syntheticNotice(job.weather.seed(), "NCAR RDA ds633.0"));
            w.check(nc_enddef(w.id()), "cannot finish the header");
            w.check(nc_put_var_double(w.id(), vLat, job.grid.latitudes.data()), "cannot write latitudes");
            w.check(nc_put_var_double(w.id(), vLon, job.grid.longitudes.data()), "cannot write longitudes");
            if (forecast) {
                std::vector<int> leadHours(12);
                for (int h = 0; h < 12; ++h) {
                    leadHours[static_cast<size_t>(h)] = h + 1;
                }
                w.check(nc_put_var_int(w.id(), vHour, leadHours.data()), "cannot write forecast_hour");
            }
            for (size_t t = 0; t < steps; ++t) {
                checkStop(job);
                const std::int64_t base = forecast ? inits[t] : first + static_cast<std::int64_t>(t);
                const long long base64 = base;
                const int utcDate = static_cast<int>(std::stoll(yyyymmddhh(base)));
                w.check(nc_put_var1_longlong(w.id(), vTime, &t, &base64), "cannot write time");
                w.check(nc_put_var1_int(w.id(), vUtc, &t, &utcDate), "cannot write utc_date");
                for (size_t h = 0; h < (forecast ? 12u : 1u); ++h) {
                    const std::int64_t valid = forecast ? base + static_cast<std::int64_t>(h) + 1 : base;
                    job.weather.fill(valid, std::nullopt, std::span(&v, 1), values);
                    const auto& src = values.front();
                    std::transform(src.begin(), src.end(), data.begin(),
                                   [](double x) { return static_cast<float>(x); });
                    // One time (and one forecast hour) of the whole grid, in the order of `dims`.
                    const std::vector<size_t> start =
                        forecast ? std::vector<size_t>{t, h, 0, 0} : std::vector<size_t>{t, 0, 0};
                    const std::vector<size_t> count =
                        forecast ? std::vector<size_t>{1, 1, nlat, nlon} : std::vector<size_t>{1, nlat, nlon};
                    w.check(nc_put_vara_float(w.id(), id, start.data(), count.data(), data.data()),
                            "cannot write data (is the disk full?)");
                }
            }
            w.close();
        } catch (...) {
            std::filesystem::remove(part, ec);
            for (const auto& f : written) {
                std::filesystem::remove(f, ec);
            }
            throw;
        }
        std::filesystem::rename(part, final, ec);
        if (ec) {
            throw Error(final.string() + ": cannot move the finished file into place: " + ec.message());
        }
        written.push_back(final);
    }
    firstHour1900 = first;
    hours = static_cast<int>(analysisHours);
    return written;
}

} // namespace isobar::synth
