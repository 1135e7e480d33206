// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// GRIB fixtures written by the tests themselves with ecCodes, message by message, with every key
// that Isobar reads set explicitly (nothing left to a sample's defaults that matters).

#include "Fixtures.h"

#include <QString>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace isobar::test {

// A regular latitude/longitude grid as GRIB describes it: the first and last point and the
// increments, with the scanning directions.
struct GribGrid {
    long ni = 0; // points along a latitude row
    long nj = 0; // rows
    double latitudeOfFirst = 0.0;
    double longitudeOfFirst = 0.0;
    double latitudeOfLast = 0.0;
    double longitudeOfLast = 0.0;
    double iIncrement = 0.25;
    double jIncrement = 0.25;
    bool jScansPositively = false; // south to north
    bool iScansNegatively = false;
    std::string gridType = "regular_ll"; // "reduced_gg" takes a Gaussian sample instead
};

// One message. Values are in the grid's scanning order (row by row); NaN goes in the bitmap.
struct GribField {
    int edition = 1;
    long paramId = 167;
    // GRIB 1 only: a parameter no definition of ecCodes names (table 199, this indicator) instead of
    // paramId, when > 0.
    long undefinedParameter = 0;
    std::string stepType = "instant";
    long dataDate = 20240101;
    long dataTime = 0; // HHMM
    long startStep = 0;
    long endStep = 0;
    std::string typeOfLevel; // empty: the sample's (surface); "isobaricInhPa" with `level`
    long level = 0;
    std::string marsClass = "ea";
    std::string stream = "oper";
    std::string type = "an";
    std::string expver = "0001";
    long number = -1; // an ensemble member number (-1: none set)
    long bitsPerValue = 16;
    GribGrid grid;
    std::vector<double> values;
};

// Writes the messages to `path` (appending when `append`), each padded with NULs to a multiple of
// `padTo` bytes when `padTo` > 0, as the legacy CDS does with 120. Throws std::runtime_error.
void writeGribFixture(const QString& path, const std::vector<GribField>& fields, int padTo = 0,
                      bool append = false);

// What ecCodes' own API says a paramId is (set on a message of its GRIB 2 sample, else GRIB 1):
// the oracle for Isobar's reading of ECMWF's parameter database. Empty shortName: ecCodes cannot
// encode the paramId.
struct EcmwfOracle {
    std::string shortName;
    std::string name;
    std::string units;
    std::string cfVarName;
    long edition = 0;
};
EcmwfOracle ecmwfOracle(long paramId);

// The values a field of `grid` decodes to exactly under 16-bit simple packing: `base` plus
// multiples of 1/8 (the packing's binary scale is finer than that for ranges below 8192), so
// expected table values can be worked out without ecCodes.
double gribExact(double base, std::size_t step, std::size_t row, std::size_t col, int salt = 0);

inline constexpr double kGribMissing = std::numeric_limits<double>::quiet_NaN();

// --- The seed's six as GRIB messages, and the rows they must become ---

// A box of nj rows and ni columns from (first latitude, first longitude), `step` apart, north to
// south unless `southNorth`.
GribGrid box(double lat1, double lon1, long nj, long ni, double step = 0.25, bool southNorth = false);
double latitudeOf(const GribGrid& g, std::size_t row);
double longitudeOf(const GribGrid& g, std::size_t col);
// The stored value of seed column `column` at step s, point (row, col), in ERA5's units; NaN (a
// bitmap hole) at some t2m points. Exact under 16-bit packing.
double seedValue(int column, std::size_t s, std::size_t row, std::size_t col);
// What a stored value becomes in the table, worked out as the NetCDF fixtures' are.
std::optional<float> tableOf(int column, double stored);

// One hour of the seed: its valid time, the analysis it is, and the forecast its accumulations
// come from (start date, start time, step).
struct SeedHour {
    qint64 validMicros;
    long dataDate;
    long dataTime;
    long forecastDate; // the forecast an accumulation comes from
    long forecastTime;
    long step;
};

// The seed's six at each hour: instant ones as analyses, tp and sf as forecasts.
std::vector<GribField> seedFields(int edition, const GribGrid& grid, const std::vector<SeedHour>& hours);
// The rows seedFields() must load to (location_ids on the grid of spacing `step`).
WeatherRows expectedSeed(const GribGrid& grid, const std::vector<SeedHour>& hours, double step = 0.25);
// Hours 00, 01, ... of 2024-03-01, accumulations from the 18 UTC forecast of 29 February.
std::vector<SeedHour> marchHours(int count);

} // namespace isobar::test
