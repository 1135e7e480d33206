// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// Fixtures of many variables and of pressure levels, and their rows by column name, which the tests
// of variables share (tst_variable_columns, tst_pressure_levels, tst_variable_refusals): what each
// variable must become, worked out here from what the test wrote, not asked of Isobar.

#include "Fixtures.h"
#include "db/Connection.h"

#include <QString>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace isobar::test {

// What one variable of a fixture becomes in the table: its column and the conversion from the
// units written.
struct ColumnExpectation {
    std::string column;
    std::function<double(double)> convert = [](double x) {
        return x;
    };
};

double kelvinToCelsius(double k);
double metresToMillimetres(double m);

// A variable of a fixture: name, units, long name, values from a formula of (step, level, row, col).
FixtureVariable
fixtureVariable(const std::string& name, const std::string& units, const std::string& longName,
                std::function<double(std::size_t, std::size_t, std::size_t, std::size_t)> value);

// A row of a weather table: values by column, NULL as nullopt.
using ColumnRow = std::map<std::string, std::optional<float>>;
// (time in microseconds since 2000, pressure level in thousandths of a hPa or -1, location_id).
using ColumnKey = std::tuple<qint64, qint64, int>;
using ColumnRows = std::map<ColumnKey, ColumnRow>;

// The rows a fixture must become: per step, level and point, each variable through its
// expectation (stored * scale + offset, then the conversion), as float4.
ColumnRows expectedColumnRows(const FixtureSpec& spec, const std::vector<qint64>& stepMicros,
                              const std::map<std::string, ColumnExpectation>& expect);
// Every row of `table`, every column of it but time, location_id and pressure_level by name.
ColumnRows readColumnRows(Connection& conn, const std::string& table);
// Empty when equal; else the first differences.
QString compareColumnRows(const ColumnRows& actual, const ColumnRows& expected);
// The table's columns in their order, comma-separated.
std::string columnNamesOf(Connection& conn, const std::string& table);

// Twelve variables of a surface download (the seed's t2m and u10, humidity, pressure, radiation,
// 100 m wind, soil water, evaporation, boundary layer height, column water vapour) and one the
// catalog does not know: int16 packed as the legacy CDS writes them, or float32 as the 2024 one.
FixtureSpec twelveVariableFile(bool packed);

// A pressure-level file in the legacy CDS layout (level in millibars, int16 packed) or the 2024 one
// (pressure_level in hPa, descending, float32).
FixtureSpec pressureLevelFile(bool legacy, const std::vector<qint64>& micros);

} // namespace isobar::test
