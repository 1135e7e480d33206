#pragma once

#include <QString>

#include <netcdf.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace isobar::test {

// A variable of a fixture file, with the values exactly as stored (before any unpacking).
struct FixtureVariable {
    std::string name;
    nc_type type = NC_SHORT;
    std::optional<double> scaleFactor;
    std::optional<double> addOffset;
    std::optional<double> fillValue;
    std::optional<double> missingValue;
    std::string units;
    std::string longName;
    std::map<std::string, std::string> text; // extra text attributes (GRIB_stepType, ...)
    // Stored values by (time step, expver position, file row, file column); time step counts
    // forecast (init, hour) pairs init-major. When empty, `stored` holds them in the variable's
    // dimension order.
    std::function<double(std::size_t, std::size_t, std::size_t, std::size_t)> value;
    std::vector<double> stored; // time x latitude x longitude, row-major
};

// A small NetCDF file described in full, written with netcdf-c by the tests themselves.
struct FixtureSpec {
    int format = NC_64BIT_OFFSET; // NC_64BIT_OFFSET, NC_CLASSIC_MODEL, NC_NETCDF4, ...
    std::string timeName = "time";
    nc_type timeType = NC_INT;
    std::string timeUnits = "hours since 1900-01-01 00:00:00.0";
    std::string calendar = "gregorian";
    std::vector<long long> times; // forecast files: the start times
    std::vector<double> latitudes;
    std::vector<double> longitudes;
    std::vector<FixtureVariable> variables;
    std::map<std::string, std::string> globalText;

    std::string latName = "latitude";
    std::string lonName = "longitude";
    nc_type coordType = NC_FLOAT;
    // Dimension order of the data variables, by role: "time", "expver", "init", "hour", "lat", "lon",
    // "number" (a size-1 dimension).
    std::vector<std::string> dimOrder = {"time", "lat", "lon"};
    std::vector<long long> expver;              // an expver dimension with these values
    bool expverAsStrings = false;               // ... stored as "0001", "0005" strings
    std::vector<std::string> stepExpver;        // a per-step expver(time) string variable (CDS 2024)
    std::vector<double> forecastHours;          // forecast layout: forecast_hour values
    std::string initName = "forecast_initial_time";
    std::string hourName = "forecast_hour";
    bool utcDate = false;                       // an NCAR-style utc_date(time) variable
    bool numberScalar = false;                  // a scalar `number` coordinate (CDS 2024)
    bool stringAttributes = false;              // text attributes as NC_STRING, not NC_CHAR
    int deflate = 0;                            // netCDF-4 zlib level (0: none)
    std::vector<std::size_t> chunks;            // netCDF-4 chunk sizes in dimOrder (empty: default)
    bool unlimitedTime = true;

    std::size_t stepCount() const { return forecastHours.empty() ? times.size() : times.size() * forecastHours.size(); }
};

// Writes the file; QFAIL-style failures are reported by throwing std::runtime_error.
void writeFixture(const QString& path, const FixtureSpec& spec);

// A classic-CDS-shaped fixture over a small box with deterministic stored values (int16 packed,
// with the given number of _FillValue entries scattered per variable).
FixtureSpec classicFixture(const std::vector<double>& latitudes, const std::vector<double>& longitudes,
                           int hours, int missingPerVariable);

// Reads a whole variable as doubles with netcdf-c (no unpacking), and its numeric attribute.
std::vector<double> readStored(const QString& path, const std::string& variable);
std::optional<double> readNumberAttribute(const QString& path, const std::string& variable,
                                          const std::string& name);
std::vector<double> readCoordinate(const QString& path, const std::string& name);

// The ../shared/era5-samples directory, or an empty string when it is absent.
QString samplesDir();

// Axis helpers: from, from+step, ... through `to` (inclusive), either direction.
std::vector<double> range(double from, double to, double step);

} // namespace isobar::test
