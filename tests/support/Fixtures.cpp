#include "Fixtures.h"

#include <QDir>
#include <QFile>

#include <cmath>
#include <stdexcept>

namespace isobar::test {

namespace {

void check(int status, const char* what) {
    if (status != NC_NOERR) {
        throw std::runtime_error(std::string("fixture: ") + what + ": " + nc_strerror(status));
    }
}

void text(int ncid, int varid, const char* name, const std::string& value) {
    check(nc_put_att_text(ncid, varid, name, value.size(), value.c_str()), name);
}

void numberAttribute(int ncid, int varid, const char* name, nc_type type, double value) {
    switch (type) {
    case NC_SHORT: {
        const auto v = static_cast<short>(value);
        check(nc_put_att_short(ncid, varid, name, NC_SHORT, 1, &v), name);
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

void writeFixture(const QString& path, const FixtureSpec& spec) {
    int ncid = -1;
    check(nc_create(QFile::encodeName(path).constData(), NC_CLOBBER | spec.format, &ncid), "create");
    int dLon = -1;
    int dLat = -1;
    int dTime = -1;
    check(nc_def_dim(ncid, "longitude", spec.longitudes.size(), &dLon), "dim longitude");
    check(nc_def_dim(ncid, "latitude", spec.latitudes.size(), &dLat), "dim latitude");
    check(nc_def_dim(ncid, spec.timeName.c_str(), NC_UNLIMITED, &dTime), "dim time");
    int vLon = -1;
    int vLat = -1;
    int vTime = -1;
    check(nc_def_var(ncid, "longitude", NC_FLOAT, 1, &dLon, &vLon), "var longitude");
    text(ncid, vLon, "units", "degrees_east");
    check(nc_def_var(ncid, "latitude", NC_FLOAT, 1, &dLat, &vLat), "var latitude");
    text(ncid, vLat, "units", "degrees_north");
    check(nc_def_var(ncid, spec.timeName.c_str(), spec.timeType, 1, &dTime, &vTime), "var time");
    text(ncid, vTime, "units", spec.timeUnits);
    if (!spec.calendar.empty()) {
        text(ncid, vTime, "calendar", spec.calendar);
    }
    std::vector<int> ids;
    const int dims[3] = {dTime, dLat, dLon};
    for (const auto& v : spec.variables) {
        int id = -1;
        check(nc_def_var(ncid, v.name.c_str(), v.type, 3, dims, &id), "var");
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
        ids.push_back(id);
    }
    for (const auto& [name, value] : spec.globalText) {
        text(ncid, NC_GLOBAL, name.c_str(), value);
    }
    check(nc_enddef(ncid), "enddef");
    std::vector<float> lonf(spec.longitudes.begin(), spec.longitudes.end());
    std::vector<float> latf(spec.latitudes.begin(), spec.latitudes.end());
    check(nc_put_var_float(ncid, vLon, lonf.data()), "longitudes");
    check(nc_put_var_float(ncid, vLat, latf.data()), "latitudes");
    const size_t start0[1] = {0};
    const size_t nt[1] = {spec.times.size()};
    check(nc_put_vara_longlong(ncid, vTime, start0, nt, spec.times.data()), "times");
    const size_t start[3] = {0, 0, 0};
    const size_t count[3] = {spec.times.size(), spec.latitudes.size(), spec.longitudes.size()};
    for (size_t i = 0; i < spec.variables.size(); ++i) {
        check(nc_put_vara_double(ncid, ids[i], start, count, spec.variables[i].stored.data()), "values");
    }
    check(nc_close(ncid), "close");
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
