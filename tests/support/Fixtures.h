// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <QString>
#include <QStringList>

#include <netcdf.h>

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace isobar {
class Dataset;
}

namespace isobar::test {

// A variable of a fixture file, with the values exactly as stored (before any unpacking).
// Every member has a default, so that a designated initializer names only the ones it sets (GCC's
// -Wmissing-field-initializers flags a member without one).
struct FixtureVariable {
    std::string name{};
    nc_type type = NC_SHORT;
    std::optional<double> scaleFactor{};
    std::optional<double> addOffset{};
    std::optional<double> fillValue{};
    std::optional<double> missingValue{};
    std::string units{};
    std::string longName{};
    std::map<std::string, std::string> text{}; // extra text attributes (GRIB_stepType, ...)
    // Stored values by (time step, expver position - or pressure level position in a file with a
    // level dimension, file row, file column); time step counts forecast (init, hour) pairs
    // init-major. When empty, `stored` holds them in the variable's
    // dimension order.
    std::function<double(std::size_t, std::size_t, std::size_t, std::size_t)> value{};
    std::vector<double> stored{}; // time x latitude x longitude, row-major
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
    std::map<std::string, std::string> latText; // extra text attributes of the latitude coordinate
    std::map<std::string, std::string> lonText; // ... and of the longitude coordinate
    nc_type coordType = NC_FLOAT;
    // Dimension order of the data variables, by role: "time", "expver", "init", "hour", "lat", "lon",
    // "number" (a size-1 dimension, or `members` long), "level".
    std::vector<std::string> dimOrder = {"time", "lat", "lon"};
    // A level dimension: its name, coordinate values, type and attributes (units, long_name, ...).
    std::string levelName = "level";
    std::vector<double> levels;
    nc_type levelType = NC_INT;
    std::map<std::string, std::string> levelText;
    std::size_t members = 1;             // length of the "number" dimension
    std::vector<long long> expver;       // an expver dimension with these values
    bool expverAsStrings = false;        // ... stored as "0001", "0005" strings
    std::vector<std::string> stepExpver; // a per-step expver(time) string variable (CDS 2024)
    std::vector<double> forecastHours;   // forecast layout: forecast_hour values
    std::string initName = "forecast_initial_time";
    std::string hourName = "forecast_hour";
    bool utcDate = false;            // an NCAR-style utc_date(time) variable
    bool numberScalar = false;       // a scalar `number` coordinate (CDS 2024)
    bool stringAttributes = false;   // text attributes as NC_STRING, not NC_CHAR
    int deflate = 0;                 // netCDF-4 zlib level (0: none)
    std::vector<std::size_t> chunks; // netCDF-4 chunk sizes in dimOrder (empty: default)
    bool unlimitedTime = true;

    std::size_t stepCount() const {
        return forecastHours.empty() ? times.size() : times.size() * forecastHours.size();
    }
};

// Writes the file; QFAIL-style failures are reported by throwing std::runtime_error.
void writeFixture(const QString& path, const FixtureSpec& spec);

// A CDS 2024 (cfgrib) shaped fixture, without variables: netCDF-4 with zlib, valid_time in seconds
// since 1970 at `micros`, the given coordinates (float32 unless coordType says otherwise).
FixtureSpec cds2024Fixture(const std::vector<double>& latitudes, const std::vector<double>& longitudes,
                           const std::vector<qint64>& micros);

// A classic-CDS-shaped fixture over a small box with deterministic stored values (int16 packed,
// with the given number of _FillValue entries scattered per variable).
FixtureSpec classicFixture(const std::vector<double>& latitudes, const std::vector<double>& longitudes,
                           int hours, int missingPerVariable);

// Reads a whole variable as doubles with netcdf-c (no unpacking), and its numeric attribute.
std::vector<double> readStored(const QString& path, const std::string& variable);
std::optional<double> readNumberAttribute(const QString& path, const std::string& variable,
                                          const std::string& name);
std::vector<double> readCoordinate(const QString& path, const std::string& name);

// --- What a fixture must become: rows of the seed table, computed independently of Isobar ---

// One row of the weather table: time as microseconds since 2000-01-01 UTC, location_id, latitude,
// longitude and the six value columns (temperature_2m, zonal_wind_10m, meridional_wind_10m,
// total_cloud_cover, total_precipitation, snowfall; nullopt = NULL).
struct WeatherRow {
    qint64 micros = 0;
    int locationId = 0;
    float latitude = 0;
    float longitude = 0;
    std::array<std::optional<float>, 6> values;
};
using RowKey = std::pair<qint64, int>; // (time, location_id): one row per key
using WeatherRows = std::map<RowKey, WeatherRow>;

// Microseconds since 2000-01-01 00:00 UTC of a UTC date and time (QDateTime: proleptic Gregorian).
qint64 pgMicros(int year, int month, int day, int hour = 0, int minute = 0, int second = 0);
// Longitude in (-180, 180] as the seed stores it: x - 360 where x > 180, -180 becomes 180.
double seedLongitude(double lon);
// location_id on the global grid of spacing `step` (the seed's formula, generalized):
// round((lat + 90) / step) * round(360 / step) + round((lon + 180 - step) / step) + 1, lon as above
// (the column taken modulo round(360 / step): the nearest point of a longitude just east of -180 is 180).
int gridLocationId(double lat, double lon, double step = 0.25);
// The table column of a variable name (t2m / VAR_2T -> 0, ..., sf -> 5); -1 for anything else.
int columnOf(const std::string& variableName);
// A value as netcdf-c stores it in a variable of `type` (float32 rounding, integer types).
double storedAs(nc_type type, double value);
// The table value of `value` written into `v`: nullopt when it is NaN, _FillValue or missing_value;
// else stored * scale_factor + add_offset in double, converted for `column` (K -> degC for 0,
// m -> mm for 4 and 5), cast to float.
std::optional<float> tableValue(const FixtureVariable& v, double value, int column);
// A coordinate as the table stores it (after the file's coordinate type).
float tableLatitude(const FixtureSpec& spec, double lat);
float tableLongitude(const FixtureSpec& spec, double lon);
// The rows of a plain fixture (no expver dimension, nothing accumulated since midnight): step s at
// stepMicros[s], every variable's value(s, 0, row, col) through tableValue().
WeatherRows expectedRows(const FixtureSpec& spec, const std::vector<qint64>& stepMicros, double step = 0.25);
// Every row of a dataset as Isobar decodes it (Dataset + BandReader, `bandRows` rows at a time),
// keyed by time and the location_id worked out here from each row's coordinates; a key seen twice
// throws std::runtime_error.
WeatherRows decodedRows(const isobar::Dataset& dataset, double step = 0.25, std::size_t bandRows = 2);
// Empty when equal; else the first differences and the counts, for QVERIFY2.
QString compareRows(const WeatherRows& actual, const WeatherRows& expected);

// --- Building blocks for fixtures ---

using ValueFn = std::function<double(std::size_t, std::size_t, std::size_t, std::size_t)>;
inline constexpr qint64 kMicrosPerHour = 3'600'000'000LL;

// A deterministic, plausible physical value in file units (K, m/s, 0-1, m) for table column
// `column` at step s and file position (r, c); `salt` tells sources apart (ERA5 from ERA5T, ...).
double synthValue(int column, std::size_t s, std::size_t r, std::size_t c, double salt = 0);
// synthValue() with NaN at about one point in eleven.
ValueFn withHoles(int column, double salt = 0);
// float32 as the CDS 2024 writes it: short name (or `name`), units, long_name, NaN _FillValue,
// GRIB_stepType instant / accum.
FixtureVariable floatVariable(int column, ValueFn value, const std::string& name = {});
// int16 packed as the legacy CDS writes it (scale_factor, add_offset, _FillValue = missing_value =
// -32767); `physical` gives file-unit values, NaN for missing.
FixtureVariable packedVariable(int column, const ValueFn& physical);
// `micros` as whole `unit`s since `epoch` (all microseconds since 2000-01-01).
std::vector<long long> timesSince(const std::vector<qint64>& micros, qint64 epoch, qint64 unit);
std::vector<qint64> hourly(qint64 first, int count);
// True when one of `lines` contains every one of `parts`; joinLines() for the failure message.
bool anyLineContains(const std::vector<std::string>& lines, const QStringList& parts);
QString joinLines(const std::vector<std::string>& lines);

// --- ZIP archives written here, independently of Isobar's reader ---

// A ZIP archive of the given files (member name, file on disk), every member stored (method 0),
// CRC-32 from zlib. Throws std::runtime_error.
void writeStoredZip(const QString& path, const std::vector<std::pair<std::string, QString>>& members);

// The ../shared/era5-samples directory, or an empty string when it is absent.
QString samplesDir();

// Axis helpers: from, from+step, ... through `to` (inclusive), either direction.
std::vector<double> range(double from, double to, double step);

} // namespace isobar::test
