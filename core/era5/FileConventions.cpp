#include "era5/FileConventions.h"

#include "util/Error.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>
#include <set>

namespace isobar::conventions {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

bool contains(const std::string& haystack, const char* needle) {
    return haystack.find(needle) != std::string::npos;
}

// Variables that describe the data rather than being data: never "ignored variables".
bool isAuxiliary(const std::string& name) {
    static const std::set<std::string> aux = {"number",
                                              "expver",
                                              "utc_date",
                                              "time_bnds",
                                              "time_bounds",
                                              "step",
                                              "surface",
                                              "crs",
                                              "spatial_ref",
                                              "valid_time_bnds",
                                              "realization",
                                              "date",
                                              "forecast_reference_time"};
    return aux.count(lower(name)) > 0;
}

// The conversion for a variable given the units its file declares, or an error naming both.
Conversion conversionFor(Variable v, const std::string& unitsText, const std::string& file,
                         const std::string& varName) {
    const VariableSpec& s = spec(v);
    std::string u = lower(unitsText);
    u.erase(std::remove(u.begin(), u.end(), ' '), u.end());
    const auto refuse = [&]() -> Conversion {
        throw Error(file + ": variable " + varName + " has units '" + unitsText + "', but " +
                    std::string(s.shortName) + " (" + std::string(s.longName) + ") is expected in " +
                    std::string(s.fileUnits) + " (or a unit Isobar converts from); refusing to guess");
    };
    const std::string canonical = canonicalUnits(unitsText);
    switch (s.quantity) {
    case Quantity::Temperature:
        if (u == "k" || u == "kelvin" || u == "degk" || u == "degrees_kelvin") {
            return Conversion::KelvinToCelsius;
        }
        if (u == "degc" || u == "c" || u == "celsius" || u == "deg_c" || u == "°c" || u == "degreesc" ||
            u == "degree_celsius" || u == "degrees_celsius") {
            return Conversion::None;
        }
        return refuse();
    case Quantity::Speed:
        if (canonical == canonicalUnits("m s**-1") || u == "meterspersecond" || u == "metrespersecond") {
            return Conversion::None;
        }
        return refuse();
    case Quantity::Fraction:
        if (u.empty() || u == "(0-1)" || u == "1" || u == "0-1" || u == "fraction" || u == "dimensionless" ||
            u == "~") {
            return Conversion::None;
        }
        if (u == "%" || u == "percent") {
            return Conversion::PercentToFraction;
        }
        return refuse();
    case Quantity::WaterDepth:
        if (u == "m" || u == "mofwaterequivalent" || u == "metres" || u == "meters" || u == "mday**-1" ||
            u == "m/day" || canonical == canonicalUnits("m day**-1")) {
            return Conversion::MetresToMillimetres;
        }
        if (u == "mm" || u == "kgm**-2" || u == "kgm-2" || u == "mmofwaterequivalent" ||
            canonical == canonicalUnits("kg m**-2")) {
            return Conversion::None;
        }
        return refuse();
    case Quantity::AsStored:
        // Loaded as stored, so the file must store what the column says: the units ERA5 stores. A
        // file that declares none (some GRIB conversions) is taken at its parameter's word.
        if (u.empty() || u == "~" || canonical == canonicalUnits(s.fileUnits)) {
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
    case NC_INT:
        return NC_FILL_INT;
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
    case NC_UBYTE:
        return "unsigned byte";
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

bool isMonthlyStepType(const std::string& stepType) {
    return stepType.rfind("avg", 0) == 0 && stepType.size() > 3;
}

bool isFinalEra5(const std::string& expver) {
    try {
        return !expver.empty() && std::stoi(expver) == 1;
    } catch (const std::exception&) {
        return false;
    }
}

std::string era5tNote(std::size_t era5tSteps, std::size_t steps, const std::string& label) {
    return std::to_string(era5tSteps) + " of " + std::to_string(steps) +
           " steps are preliminary ERA5T data (expver " + label +
           "); final ERA5 (expver 0001) replaces them when both are loaded together";
}

PgTimestamp monthlyRowTime(PgTimestamp stamped, bool byHourOfDay) {
    const PgTimestamp month = monthStart(stamped);
    return byHourOfDay ? PgTimestamp{month.micros + hourOfDay(stamped) * kMicrosPerHour} : month;
}

std::string monthlyMeansNote() {
    return "monthly means: one value per month, at 00 UTC of its first day; accumulated variables are mean "
           "daily totals (loaded in mm per day)";
}

void markSinceMidnight(std::vector<FileVariable>& variables, std::vector<std::string>& notes) {
    std::string names;
    for (auto& var : variables) {
        if (var.column.accumulated) {
            var.accumulatedSinceMidnight = true;
            names += (names.empty() ? "" : ", ") + var.column.key;
        }
    }
    if (!names.empty()) {
        notes.push_back("ERA5-Land accumulates " + names +
                        " from 00 UTC: each hour is loaded as the difference to the hour before (the 01 UTC "
                        "value as it is)");
    }
}

} // namespace isobar::conventions
