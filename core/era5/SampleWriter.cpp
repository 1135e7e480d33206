#include "era5/SampleWriter.h"

#include "era5/Netcdf.h"
#include "era5/TimeUnits.h"
#include "era5/Variable.h"
#include "util/Error.h"

#include <netcdf.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <ctime>
#include <numbers>
#include <string>
#include <vector>

namespace isobar {

namespace {

constexpr double kStep = 0.25;
constexpr std::int16_t kFill = -32767;

double parseNumber(std::string_view text, std::string_view full) {
    try {
        size_t used = 0;
        const std::string s(text);
        const double v = std::stod(s, &used);
        if (used != s.size()) {
            throw std::invalid_argument("trailing text");
        }
        return v;
    } catch (const std::exception&) {
        throw Error("--region '" + std::string(full) + "': '" + std::string(text) + "' is not a number");
    }
}

// Deterministic noise in [0, 1) from a few integers (splitmix64 finalizer).
double noise(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
    std::uint64_t z =
        seed * 0x9E3779B97F4A7C15ULL + a * 0xBF58476D1CE4E5B9ULL + b * 0x94D049BB133111EBULL + c;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
}

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

constexpr std::array<Packing, kVariableCount> kPacking{{
    {180.0, 335.0}, // t2m, K
    {-40.0, 40.0},  // u10, m/s
    {-40.0, 40.0},  // v10, m/s
    {0.0, 1.0},     // tcc
    {0.0, 0.05},    // tp, m
    {0.0, 0.02},    // sf, m of water equivalent
}};

std::vector<double> axis(double from, double to, double step) {
    std::vector<double> values;
    const auto n = static_cast<long>(std::lround(std::fabs(to - from) / step));
    const double dir = to >= from ? 1.0 : -1.0;
    for (long k = 0; k <= n; ++k) {
        values.push_back(from + dir * static_cast<double>(k) * step);
    }
    return values;
}

void check(int status, const std::filesystem::path& path, const char* what) {
    ncCheck(status, path, what);
}

void putText(int ncid, int varid, const char* name, const std::string& value,
             const std::filesystem::path& path) {
    check(nc_put_att_text(ncid, varid, name, value.size(), value.c_str()), path, "cannot write an attribute");
}

} // namespace

SampleRegion SampleRegion::parse(std::string_view text) {
    std::array<double, 4> v{};
    size_t part = 0;
    size_t pos = 0;
    while (part < 4) {
        const size_t comma = text.find(',', pos);
        const std::string_view item =
            text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos);
        v[part++] = parseNumber(item, text);
        if (comma == std::string_view::npos) {
            break;
        }
        pos = comma + 1;
    }
    if (part != 4 || text.find(',', pos) != std::string_view::npos) {
        throw Error("--region '" + std::string(text) + "': expected four numbers LAT0,LAT1,LON0,LON1");
    }
    SampleRegion r{v[0], v[1], v[2], v[3]};
    for (double lat : {r.latitude0, r.latitude1}) {
        if (lat < -90.0 || lat > 90.0) {
            throw Error("--region: latitude " + std::to_string(lat) + " is outside -90..90");
        }
    }
    for (double lon : {r.longitude0, r.longitude1}) {
        if (lon < -180.0 || lon > 360.0) {
            throw Error("--region: longitude " + std::to_string(lon) + " is outside -180..360");
        }
    }
    for (double x : v) {
        const double k = x / kStep;
        if (std::fabs(k - std::round(k)) > 1e-9) {
            throw Error("--region: " + std::to_string(x) + " is not on the 0.25 degree grid");
        }
    }
    return r;
}

SampleInfo writeSample(const SampleOptions& options, const std::stop_token& stop) {
    const auto& path = options.out;
    if (options.hours < 1) {
        throw Error("--hours must be at least 1");
    }
    const SampleRegion& r = options.region;
    // Latitude descending, as the CDS writes it.
    const std::vector<double> lats =
        axis(std::max(r.latitude0, r.latitude1), std::min(r.latitude0, r.latitude1), kStep);
    double west = r.longitude0;
    double east = r.longitude1;
    if (west > east) {
        if (west >= 180.0) {
            // Across the prime meridian in 0..360 numbers (350,10): written as -10..10, as the CDS
            // writes such a box.
            west -= 360.0;
        } else {
            // Across the date line (170,-170): kept in 0..360 numbers, 170..190.
            east += 360.0;
        }
    }
    std::vector<double> lons = axis(west, east, kStep);
    if (lons.size() > 1440) {
        lons.resize(1440);
    }
    if (west < 0.0 && lons.back() >= 180.0) {
        throw Error("--region: longitudes " + std::to_string(west) + ".." + std::to_string(east) +
                    " span more than the globe");
    }

    const std::filesystem::path tmp = path.string() + ".part";
    const std::int64_t hoursSince1900 =
        (unixMicrosFromPgTimestamp(options.start) / kMicrosPerSecond - daysFromCivil(1900, 1, 1) * 86400) /
        3600;

    std::lock_guard lock(netcdfMutex());
    int ncid = -1;
    check(nc_create(tmp.c_str(), NC_CLOBBER | NC_64BIT_OFFSET, &ncid), path, "cannot create the file");
    try {
        int dimLon = -1;
        int dimLat = -1;
        int dimTime = -1;
        check(nc_def_dim(ncid, "longitude", lons.size(), &dimLon), path, "cannot define longitude");
        check(nc_def_dim(ncid, "latitude", lats.size(), &dimLat), path, "cannot define latitude");
        check(nc_def_dim(ncid, "time", NC_UNLIMITED, &dimTime), path, "cannot define time");
        int varLon = -1;
        int varLat = -1;
        int varTime = -1;
        check(nc_def_var(ncid, "longitude", NC_FLOAT, 1, &dimLon, &varLon), path, "cannot define longitude");
        putText(ncid, varLon, "units", "degrees_east", path);
        putText(ncid, varLon, "long_name", "longitude", path);
        check(nc_def_var(ncid, "latitude", NC_FLOAT, 1, &dimLat, &varLat), path, "cannot define latitude");
        putText(ncid, varLat, "units", "degrees_north", path);
        putText(ncid, varLat, "long_name", "latitude", path);
        check(nc_def_var(ncid, "time", NC_INT, 1, &dimTime, &varTime), path, "cannot define time");
        putText(ncid, varTime, "units", "hours since 1900-01-01 00:00:00.0", path);
        putText(ncid, varTime, "long_name", "time", path);
        putText(ncid, varTime, "calendar", "gregorian", path);

        std::array<int, kVariableCount> varIds{};
        const std::array<int, 3> dims{dimTime, dimLat, dimLon};
        for (const auto& s : kVariables) {
            const Packing& p = kPacking[index(s.variable)];
            int id = -1;
            check(nc_def_var(ncid, std::string(s.shortName).c_str(), NC_SHORT, 3, dims.data(), &id), path,
                  "cannot define a variable");
            const double scale = p.scale();
            const double offset = p.offset();
            check(nc_put_att_double(ncid, id, "scale_factor", NC_DOUBLE, 1, &scale), path,
                  "cannot write scale_factor");
            check(nc_put_att_double(ncid, id, "add_offset", NC_DOUBLE, 1, &offset), path,
                  "cannot write add_offset");
            check(nc_put_att_short(ncid, id, "_FillValue", NC_SHORT, 1, &kFill), path,
                  "cannot write _FillValue");
            check(nc_put_att_short(ncid, id, "missing_value", NC_SHORT, 1, &kFill), path,
                  "cannot write missing_value");
            putText(ncid, id, "units", std::string(s.fileUnits), path);
            putText(ncid, id, "long_name", std::string(s.longName), path);
            varIds[index(s.variable)] = id;
        }
        const std::time_t now = std::time(nullptr);
        char stamp[32];
        std::tm utc{};
        gmtime_r(&now, &utc);
        std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S GMT", &utc);
        putText(ncid, NC_GLOBAL, "Conventions", "CF-1.6", path);
        putText(ncid, NC_GLOBAL, "title", "SYNTHETIC ERA5-like sample written by Isobar - NOT real ERA5 data",
                path);
        putText(ncid, NC_GLOBAL, "isobar_synthetic",
                "true: every value in this file is made up by a formula (seed " +
                    std::to_string(options.seed) +
                    "); it only imitates the layout of a classic Copernicus CDS ERA5 download",
                path);
        putText(ncid, NC_GLOBAL, "history",
                std::string(stamp) +
                    " isobar-cli sample: SYNTHETIC data in the layout of a CDS grib_to_netcdf file",
                path);
        int old = 0;
        check(nc_set_fill(ncid, NC_NOFILL, &old), path, "cannot set fill mode");
        check(nc_enddef(ncid), path, "cannot finish the header");

        std::vector<float> lonf(lons.begin(), lons.end());
        std::vector<float> latf(lats.begin(), lats.end());
        check(nc_put_var_float(ncid, varLon, lonf.data()), path, "cannot write longitudes");
        check(nc_put_var_float(ncid, varLat, latf.data()), path, "cannot write latitudes");

        const size_t nlat = lats.size();
        const size_t nlon = lons.size();
        std::vector<double> sinLat2(nlat);
        std::vector<double> cosLat(nlat);
        std::vector<double> cos4Lat(nlat);
        for (size_t i = 0; i < nlat; ++i) {
            const double phi = lats[i] * std::numbers::pi / 180.0;
            sinLat2[i] = std::sin(phi) * std::sin(phi);
            cosLat[i] = std::cos(phi);
            cos4Lat[i] = std::cos(4.0 * phi);
        }
        std::vector<double> lonWave(nlon);
        for (size_t j = 0; j < nlon; ++j) {
            lonWave[j] =
                std::sin(2.0 * lons[j] * std::numbers::pi / 180.0 + static_cast<double>(options.seed % 7));
        }
        std::array<std::vector<std::int16_t>, kVariableCount> slabs;
        for (auto& s : slabs) {
            s.resize(nlat * nlon);
        }
        std::vector<double> diurnal(nlon);
        for (int h = 0; h < options.hours; ++h) {
            if (stop.stop_requested()) {
                throw Cancelled();
            }
            const int hourOfDay = static_cast<int>((hoursSince1900 + h) % 24);
            for (size_t j = 0; j < nlon; ++j) {
                // Local solar time peaks in the afternoon (15 h).
                diurnal[j] = std::cos(2.0 * std::numbers::pi * (hourOfDay + lons[j] / 15.0 - 15.0) / 24.0);
            }
            const auto t = static_cast<std::uint64_t>(hoursSince1900 + h);
            for (size_t i = 0; i < nlat; ++i) {
                for (size_t j = 0; j < nlon; ++j) {
                    const size_t k = i * nlon + j;
                    const auto cell = static_cast<std::uint64_t>(i * 2048 + j);
                    const double n1 = noise(options.seed, t, cell, 1);
                    const double n2 = noise(options.seed, t, cell, 2);
                    const double n3 = noise(options.seed, t, cell, 3);
                    const double rain = noise(options.seed, t / 3, cell / 8, 4);
                    const double t2m =
                        301.0 - 52.0 * sinLat2[i] + 6.0 * cosLat[i] * diurnal[j] + 4.0 * (n1 - 0.5);
                    const double u10 = -6.0 * cos4Lat[i] + 3.0 * (n2 - 0.5) * 2.0;
                    const double v10 = 2.5 * lonWave[j] * cosLat[i] + 2.0 * (n3 - 0.5) * 2.0;
                    const double tcc =
                        std::clamp(0.55 + 0.35 * lonWave[j] * cos4Lat[i] + (n1 - 0.5) * 0.6, 0.0, 1.0);
                    const double tp = rain > 0.88 ? (rain - 0.88) / 0.12 * 0.004 * (0.5 + n2) : 0.0;
                    const double sf = t2m < 273.15 ? tp : 0.0;
                    slabs[0][k] = kPacking[0].pack(t2m);
                    slabs[1][k] = kPacking[1].pack(u10);
                    slabs[2][k] = kPacking[2].pack(v10);
                    slabs[3][k] = kPacking[3].pack(tcc);
                    slabs[4][k] = kPacking[4].pack(tp);
                    slabs[5][k] = kPacking[5].pack(sf);
                }
            }
            const std::array<size_t, 3> start{static_cast<size_t>(h), 0, 0};
            const std::array<size_t, 3> count{1, nlat, nlon};
            const auto hourValue = static_cast<int>(hoursSince1900 + h);
            const size_t hIndex = static_cast<size_t>(h);
            check(nc_put_var1_int(ncid, varTime, &hIndex, &hourValue), path, "cannot write time");
            for (size_t v = 0; v < kVariableCount; ++v) {
                check(nc_put_vara_short(ncid, varIds[v], start.data(), count.data(), slabs[v].data()), path,
                      "cannot write data (is the disk full?)");
            }
        }
        check(nc_close(ncid), path, "cannot finish the file (is the disk full?)");
        ncid = -1;
    } catch (...) {
        if (ncid >= 0) {
            nc_close(ncid);
        }
        std::error_code ec;
        std::filesystem::remove(tmp, ec);
        throw;
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw Error(path.string() + ": cannot move the finished file into place: " + ec.message());
    }
    return SampleInfo{lats.size(), lons.size(), static_cast<size_t>(options.hours)};
}

} // namespace isobar
