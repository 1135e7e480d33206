// SPDX-License-Identifier: GPL-3.0-or-later

#include "Fixtures.h"

#include "era5/BandReader.h"
#include "era5/Dataset.h"

#include <QDateTime>
#include <QDir>
#include <QFile>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <zlib.h>

namespace isobar::test {

namespace {

void check(int status, const char* what) {
    if (status != NC_NOERR) {
        throw std::runtime_error(std::string("fixture: ") + what + ": " + nc_strerror(status));
    }
}

bool gStringAttributes = false; // set while writing a spec that wants NC_STRING attributes

void text(int ncid, int varid, const char* name, const std::string& value) {
    if (gStringAttributes) {
        const char* v = value.c_str();
        check(nc_put_att_string(ncid, varid, name, 1, &v), name);
    } else {
        check(nc_put_att_text(ncid, varid, name, value.size(), value.c_str()), name);
    }
}

void numberAttribute(int ncid, int varid, const char* name, nc_type type, double value) {
    switch (type) {
    case NC_SHORT: {
        const auto v = static_cast<short>(value);
        check(nc_put_att_short(ncid, varid, name, NC_SHORT, 1, &v), name);
        break;
    }
    case NC_INT: {
        const auto v = static_cast<int>(value);
        check(nc_put_att_int(ncid, varid, name, NC_INT, 1, &v), name);
        break;
    }
    case NC_FLOAT: {
        const auto v = static_cast<float>(value);
        check(nc_put_att_float(ncid, varid, name, NC_FLOAT, 1, &v), name);
        break;
    }
    default:
        check(nc_put_att_double(ncid, varid, name, NC_DOUBLE, 1, &value), name);
        break;
    }
}

} // namespace

std::vector<double> range(double from, double to, double step) {
    std::vector<double> out;
    const auto n = static_cast<long>(std::lround(std::fabs(to - from) / step));
    const double dir = to >= from ? 1.0 : -1.0;
    for (long k = 0; k <= n; ++k) {
        out.push_back(from + dir * static_cast<double>(k) * step);
    }
    return out;
}

FixtureSpec cds2024Fixture(const std::vector<double>& latitudes, const std::vector<double>& longitudes,
                           const std::vector<qint64>& micros) {
    FixtureSpec spec;
    spec.format = NC_NETCDF4;
    spec.deflate = 1;
    spec.timeName = "valid_time";
    spec.timeType = NC_INT64;
    spec.timeUnits = "seconds since 1970-01-01";
    spec.calendar = "proleptic_gregorian";
    spec.latitudes = latitudes;
    spec.longitudes = longitudes;
    spec.times = timesSince(micros, pgMicros(1970, 1, 1), 1'000'000);
    return spec;
}

void writeFixture(const QString& path, const FixtureSpec& spec) {
    gStringAttributes = spec.stringAttributes;
    int ncid = -1;
    check(nc_create(QFile::encodeName(path).constData(), NC_CLOBBER | spec.format, &ncid), "create");
    const bool forecast = !spec.forecastHours.empty();
    const size_t steps = spec.times.size();
    std::map<std::string, int> dimOf;
    const auto defDim = [&](const std::string& role, const std::string& name, size_t length) {
        int id = -1;
        check(nc_def_dim(ncid, name.c_str(), length, &id), ("dim " + name).c_str());
        dimOf[role] = id;
    };
    // Define the dimensions in the order the data variables use them (the file's order then
    // matches what tools like grib_to_netcdf write, time first).
    for (const std::string& role : spec.dimOrder) {
        if (role == "time" || role == "init") {
            defDim(role, forecast ? spec.initName : spec.timeName,
                   spec.unlimitedTime && spec.format != NC_NETCDF4 ? NC_UNLIMITED : steps);
        } else if (role == "hour") {
            defDim(role, spec.hourName, spec.forecastHours.size());
        } else if (role == "expver") {
            defDim(role, "expver", spec.expver.size());
        } else if (role == "lat") {
            defDim(role, spec.latName, spec.latitudes.size());
        } else if (role == "lon") {
            defDim(role, spec.lonName, spec.longitudes.size());
        } else if (role == "number") {
            defDim(role, "number", spec.members);
        } else if (role == "level") {
            defDim(role, spec.levelName, spec.levels.size());
        }
    }
    const std::string timeRole = forecast ? "init" : "time";
    int vLon = -1;
    int vLat = -1;
    int vTime = -1;
    check(nc_def_var(ncid, spec.lonName.c_str(), spec.coordType, 1, &dimOf.at("lon"), &vLon),
          "var longitude");
    text(ncid, vLon, "units", "degrees_east");
    check(nc_def_var(ncid, spec.latName.c_str(), spec.coordType, 1, &dimOf.at("lat"), &vLat), "var latitude");
    text(ncid, vLat, "units", "degrees_north");
    for (const auto& [name, value] : spec.lonText) {
        text(ncid, vLon, name.c_str(), value);
    }
    for (const auto& [name, value] : spec.latText) {
        text(ncid, vLat, name.c_str(), value);
    }
    check(nc_def_var(ncid, (forecast ? spec.initName : spec.timeName).c_str(), spec.timeType, 1,
                     &dimOf.at(timeRole), &vTime),
          "var time");
    if (!spec.timeUnits.empty()) {
        text(ncid, vTime, "units", spec.timeUnits);
    }
    if (!spec.calendar.empty()) {
        text(ncid, vTime, "calendar", spec.calendar);
    }
    int vHour = -1;
    if (forecast) {
        check(nc_def_var(ncid, spec.hourName.c_str(), NC_INT, 1, &dimOf.at("hour"), &vHour), "var hour");
        text(ncid, vHour, "units", "hour");
    }
    int vExpver = -1;
    if (!spec.expver.empty()) {
        check(nc_def_var(ncid, "expver", spec.expverAsStrings ? NC_STRING : NC_INT, 1, &dimOf.at("expver"),
                         &vExpver),
              "var expver");
    }
    int vStepExpver = -1;
    if (!spec.stepExpver.empty()) {
        check(nc_def_var(ncid, "expver", NC_STRING, 1, &dimOf.at(timeRole), &vStepExpver),
              "var expver(time)");
    }
    int vUtc = -1;
    if (spec.utcDate) {
        check(nc_def_var(ncid, "utc_date", NC_INT, 1, &dimOf.at(timeRole), &vUtc), "var utc_date");
    }
    int vLevel = -1;
    if (dimOf.count("level") > 0) {
        check(nc_def_var(ncid, spec.levelName.c_str(), spec.levelType, 1, &dimOf.at("level"), &vLevel),
              "var level");
        for (const auto& [name, value] : spec.levelText) {
            text(ncid, vLevel, name.c_str(), value);
        }
    }
    int vNumber = -1;
    if (spec.numberScalar) {
        check(nc_def_var(ncid, "number", NC_INT64, 0, nullptr, &vNumber), "var number");
    }
    std::vector<int> dims;
    for (const std::string& role : spec.dimOrder) {
        dims.push_back(dimOf.at(role));
    }
    std::vector<int> ids;
    for (const auto& v : spec.variables) {
        int id = -1;
        check(nc_def_var(ncid, v.name.c_str(), v.type, static_cast<int>(dims.size()), dims.data(), &id),
              "var");
        if (spec.deflate > 0) {
            check(nc_def_var_deflate(ncid, id, 1, 1, spec.deflate), "deflate");
        }
        if (!spec.chunks.empty()) {
            check(nc_def_var_chunking(ncid, id, NC_CHUNKED, spec.chunks.data()), "chunking");
        }
        if (v.scaleFactor) {
            numberAttribute(ncid, id, "scale_factor", NC_DOUBLE, *v.scaleFactor);
        }
        if (v.addOffset) {
            numberAttribute(ncid, id, "add_offset", NC_DOUBLE, *v.addOffset);
        }
        if (v.fillValue) {
            numberAttribute(ncid, id, "_FillValue", v.type, *v.fillValue);
        }
        if (v.missingValue) {
            numberAttribute(ncid, id, "missing_value", v.type, *v.missingValue);
        }
        if (!v.units.empty()) {
            text(ncid, id, "units", v.units);
        }
        if (!v.longName.empty()) {
            text(ncid, id, "long_name", v.longName);
        }
        for (const auto& [name, value] : v.text) {
            text(ncid, id, name.c_str(), value);
        }
        ids.push_back(id);
    }
    for (const auto& [name, value] : spec.globalText) {
        text(ncid, NC_GLOBAL, name.c_str(), value);
    }
    check(nc_enddef(ncid), "enddef");
    if (spec.coordType == NC_DOUBLE) {
        check(nc_put_var_double(ncid, vLon, spec.longitudes.data()), "longitudes");
        check(nc_put_var_double(ncid, vLat, spec.latitudes.data()), "latitudes");
    } else {
        std::vector<float> lonf(spec.longitudes.begin(), spec.longitudes.end());
        std::vector<float> latf(spec.latitudes.begin(), spec.latitudes.end());
        check(nc_put_var_float(ncid, vLon, lonf.data()), "longitudes");
        check(nc_put_var_float(ncid, vLat, latf.data()), "latitudes");
    }
    const size_t start0[1] = {0};
    const size_t nt[1] = {steps};
    if (steps > 0) {
        check(nc_put_vara_longlong(ncid, vTime, start0, nt, spec.times.data()), "times");
    }
    if (forecast) {
        std::vector<int> hours(spec.forecastHours.begin(), spec.forecastHours.end());
        check(nc_put_var_int(ncid, vHour, hours.data()), "hours");
    }
    if (vExpver >= 0) {
        if (spec.expverAsStrings) {
            std::vector<std::string> labels;
            for (long long e : spec.expver) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "%04lld", e);
                labels.emplace_back(buf);
            }
            std::vector<const char*> ptrs;
            ptrs.reserve(labels.size());
            for (const auto& l : labels) {
                ptrs.push_back(l.c_str());
            }
            check(nc_put_var_string(ncid, vExpver, ptrs.data()), "expver");
        } else {
            std::vector<int> e(spec.expver.begin(), spec.expver.end());
            check(nc_put_var_int(ncid, vExpver, e.data()), "expver");
        }
    }
    if (vStepExpver >= 0 && steps > 0) {
        std::vector<const char*> ptrs;
        for (const auto& l : spec.stepExpver) {
            ptrs.push_back(l.c_str());
        }
        check(nc_put_vara_string(ncid, vStepExpver, start0, nt, ptrs.data()), "expver(time)");
    }
    if (vUtc >= 0 && steps > 0) {
        std::vector<int> dates(steps, 2024010100);
        check(nc_put_vara_int(ncid, vUtc, start0, nt, dates.data()), "utc_date");
    }
    if (vLevel >= 0) {
        check(nc_put_var_double(ncid, vLevel, spec.levels.data()), "levels");
    }
    if (vNumber >= 0) {
        const long long zero = 0;
        check(nc_put_var_longlong(ncid, vNumber, &zero), "number");
    }
    // Values, laid out in the dimension order.
    std::vector<size_t> lengths;
    for (const std::string& role : spec.dimOrder) {
        size_t len = 1;
        if (role == "time" || role == "init") {
            len = steps;
        } else if (role == "hour") {
            len = spec.forecastHours.size();
        } else if (role == "expver") {
            len = spec.expver.size();
        } else if (role == "level") {
            len = spec.levels.size();
        } else if (role == "number") {
            len = spec.members;
        } else if (role == "lat") {
            len = spec.latitudes.size();
        } else if (role == "lon") {
            len = spec.longitudes.size();
        }
        lengths.push_back(len);
    }
    size_t total = 1;
    for (size_t len : lengths) {
        total *= len;
    }
    for (size_t i = 0; i < spec.variables.size() && total > 0; ++i) {
        const auto& v = spec.variables[i];
        std::vector<double> values(total);
        if (v.value) {
            std::vector<size_t> idx(lengths.size(), 0);
            for (size_t k = 0; k < total; ++k) {
                size_t t = 0;
                size_t e = 0;
                size_t r = 0;
                size_t c = 0;
                size_t h = 0;
                for (size_t d = 0; d < lengths.size(); ++d) {
                    const std::string& role = spec.dimOrder[d];
                    if (role == "time" || role == "init") {
                        t = idx[d];
                    } else if (role == "hour") {
                        h = idx[d];
                    } else if (role == "expver" || role == "level") {
                        e = idx[d];
                    } else if (role == "lat") {
                        r = idx[d];
                    } else if (role == "lon") {
                        c = idx[d];
                    }
                }
                const size_t step = forecast ? t * spec.forecastHours.size() + h : t;
                values[k] = v.value(step, e, r, c);
                for (size_t d = lengths.size(); d-- > 0;) {
                    if (++idx[d] < lengths[d]) {
                        break;
                    }
                    idx[d] = 0;
                }
            }
        } else {
            values = v.stored;
        }
        std::vector<size_t> start(lengths.size(), 0);
        check(nc_put_vara_double(ncid, ids[i], start.data(), lengths.data(), values.data()), "values");
    }
    check(nc_close(ncid), "close");
    gStringAttributes = false;
}

FixtureSpec classicFixture(const std::vector<double>& latitudes, const std::vector<double>& longitudes,
                           int hours, int missingPerVariable) {
    FixtureSpec spec;
    spec.latitudes = latitudes;
    spec.longitudes = longitudes;
    for (int h = 0; h < hours; ++h) {
        spec.times.push_back(1'086'000 + h); // hours since 1900: 2023-11-22T00 and on
    }
    struct Def {
        const char* name;
        double scale;
        double offset;
        const char* units;
        const char* longName;
    };
    const Def defs[] = {
        {"t2m", 0.0017, 268.5, "K", "2 metre temperature"},
        {"u10", 0.00061, -1.25, "m s**-1", "10 metre U wind component"},
        {"v10", 0.00058, 0.75, "m s**-1", "10 metre V wind component"},
        {"tcc", 1.5259e-05, 0.5, "(0 - 1)", "Total cloud cover"},
        {"tp", 2.1e-07, 0.0068, "m", "Total precipitation"},
        {"sf", 9.5e-08, 0.0031, "m of water equivalent", "Snowfall"},
    };
    const size_t n = spec.times.size() * latitudes.size() * longitudes.size();
    unsigned state = 12345;
    int varIndex = 0;
    for (const auto& d : defs) {
        FixtureVariable v;
        v.name = d.name;
        v.type = NC_SHORT;
        v.scaleFactor = d.scale;
        v.addOffset = d.offset;
        v.fillValue = -32767;
        v.missingValue = -32767;
        v.units = d.units;
        v.longName = d.longName;
        v.stored.resize(n);
        for (size_t k = 0; k < n; ++k) {
            state = state * 1103515245u + 12345u;
            v.stored[k] = static_cast<double>(static_cast<int>((state >> 8) % 65533) - 32766);
        }
        // Extremes must survive too.
        if (n > 2) {
            v.stored[0] = -32766;
            v.stored[1] = 32767;
        }
        for (int m = 0; m < missingPerVariable && n > 0; ++m) {
            v.stored[(static_cast<size_t>(m) * 7919 + static_cast<size_t>(varIndex) * 31 + 2) % n] = -32767;
        }
        ++varIndex;
        spec.variables.push_back(std::move(v));
    }
    return spec;
}

std::vector<double> readStored(const QString& path, const std::string& variable) {
    int ncid = -1;
    check(nc_open(QFile::encodeName(path).constData(), NC_NOWRITE, &ncid), "open");
    int varid = -1;
    check(nc_inq_varid(ncid, variable.c_str(), &varid), "varid");
    int ndims = 0;
    int dimids[NC_MAX_VAR_DIMS];
    check(nc_inq_var(ncid, varid, nullptr, nullptr, &ndims, dimids, nullptr), "inq var");
    size_t total = 1;
    for (int d = 0; d < ndims; ++d) {
        size_t len = 0;
        check(nc_inq_dimlen(ncid, dimids[d], &len), "dimlen");
        total *= len;
    }
    std::vector<double> values(total);
    check(nc_get_var_double(ncid, varid, values.data()), "get var");
    nc_close(ncid);
    return values;
}

std::optional<double> readNumberAttribute(const QString& path, const std::string& variable,
                                          const std::string& name) {
    int ncid = -1;
    check(nc_open(QFile::encodeName(path).constData(), NC_NOWRITE, &ncid), "open");
    int varid = -1;
    check(nc_inq_varid(ncid, variable.c_str(), &varid), "varid");
    double value = 0;
    const int status = nc_get_att_double(ncid, varid, name.c_str(), &value);
    nc_close(ncid);
    if (status != NC_NOERR) {
        return std::nullopt;
    }
    return value;
}

std::vector<double> readCoordinate(const QString& path, const std::string& name) {
    return readStored(path, name);
}

QString samplesDir() {
    const QString dir = QDir::cleanPath(QStringLiteral(ISOBAR_SAMPLES_DIR));
    return QDir(dir).exists() ? dir : QString();
}

} // namespace isobar::test
