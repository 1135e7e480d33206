// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// Naming and unit conventions of ERA5 files, shared by the Era5File readers. Not a public API.

#include "domain/ParameterDatabase.h"
#include "domain/Variable.h"
#include "era5/Era5File.h"
#include "util/Format.h"

#include <netcdf.h>

#include <optional>
#include <string>
#include <string_view>

namespace isobar::conventions {

std::string lower(std::string_view s);
bool contains(const std::string& haystack, const char* needle);
// Variables that describe the data rather than being data: never "ignored variables".
bool isAuxiliary(const std::string& name);
// What a parameter's values must be in: its quantity and ECMWF's units, and its name for messages.
struct ExpectedUnits {
    Quantity quantity;
    std::string fileUnits;
    std::string label; // "t2m (2 metre temperature)"
};
ExpectedUnits expectedUnits(const ParameterMatch& m);
// The conversion for a parameter given the units its file declares, or an error naming both.
Conversion conversionFor(const ExpectedUnits& s, const std::string& unitsText, const std::string& file,
                         const std::string& varName);
// The column a file's variable goes to, by the parameter it is (its clues in `fv`: name, longName,
// standardName, paramId, units, stepType): the catalog's, ECMWF's, or nullopt where ECMWF does not
// define it. Sets fv.conversion, matchedBy and looseMatch. Throws isobar::Error, naming the file,
// for a clash of clues or units it cannot convert.
std::optional<ValueColumn> columnOfParameter(FileVariable& fv, const std::string& file);
double defaultFill(nc_type type);
std::string typeName(nc_type type);

// Something a file says about the time its values are for: a GRIB step type or stream, or the
// dataset its history names, of one variable or the whole file.
struct TimeClue {
    std::string source; // "GRIB_stepType", "GRIB stream", "history"
    std::string value;  // "avgad", "moda", "reanalysis-era5-single-levels-monthly-means"
    std::string of;     // the variable it is of ("tp"); empty for the file
};
struct TimeMeaning {
    bool monthly = false;
    std::string rule; // what decided, for inspect and the run report
};
// Monthly means only where the user (--product) or the file says so; hourly where the file says so;
// else the times as stored. Throws isobar::Error, naming both, where the file says both.
TimeMeaning decideTimeMeaning(MeansOverride override, const std::vector<TimeClue>& clues,
                              const std::string& file);
// The step types of ERA5's monthly means (avgua, avgad, avgas, ...); plain "avg" is an hourly mean
// rate (avg_tprate).
bool isMonthlyStepType(const std::string& stepType);
// An expver label of final ERA5 ("0001", "1"), not ERA5T ("0005") or none.
bool isFinalEra5(const std::string& expver);
// "3 of 24 steps are preliminary ERA5T data (expver 0005); ...", for a file's notes.
std::string era5tNote(std::size_t era5tSteps, std::size_t steps, const std::string& label);
// The row a monthly mean lands on: 00 UTC of the month's first day (plus the hour of day for monthly
// means by hour of day), whatever day and hour the file stamps it with (the new CDS stamps
// accumulated means 06 UTC, GRIB encodes them as the previous day 18 UTC + 0-12 h).
PgTimestamp monthlyRowTime(PgTimestamp stamped, bool byHourOfDay);
std::string monthlyMeansNote();
// ERA5-Land accumulates from 00 UTC: marks its accumulated variables (hourly data only) and says so.
void markSinceMidnight(std::vector<FileVariable>& variables, std::vector<std::string>& notes);
// The order a file's variables are listed in: catalog variables in the catalog's order, then the
// others by column key. Positions into `variables`.
std::vector<std::size_t> catalogOrder(const std::vector<FileVariable>& variables);

struct DimInfo {
    std::string name;
    std::size_t length = 0;
};

} // namespace isobar::conventions
