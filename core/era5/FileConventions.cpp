// SPDX-License-Identifier: GPL-3.0-or-later

#include "era5/FileConventions.h"

#include "util/Error.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

namespace isobar::conventions {

std::string lower(std::string_view s) {
    return lowerCase(s);
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
ExpectedUnits expectedUnits(const ParameterMatch& m) {
    if (m.variable) {
        const VariableSpec& s = spec(*m.variable);
        return {s.quantity, s.fileUnits, std::string(s.shortName) + " (" + s.longName + ")"};
    }
    return {quantityOf(*m.parameter), m.parameter->units,
            m.parameter->shortName + " (" + m.parameter->name + ", paramId " +
                std::to_string(m.parameter->paramId) + ")"};
}

namespace {

// Units of a number without dimension, as ECMWF and netCDF writers spell them.
bool dimensionless(const std::string& u) {
    return u.empty() || u == "~" || u == "1" || u == "(0-1)" || u == "0-1" || u == "dimensionless" ||
           u == "numeric" || u == "proportion" || u == "fraction";
}

} // namespace

Conversion conversionFor(const ExpectedUnits& s, const std::string& unitsText, const std::string& file,
                         const std::string& varName) {
    std::string u = lower(unitsText);
    u.erase(std::remove(u.begin(), u.end(), ' '), u.end());
    const auto refuse = [&]() -> Conversion {
        throw Error(file + ": variable " + varName + " has units '" + unitsText + "', but " + s.label +
                    " is expected in " + s.fileUnits +
                    " (or a unit Isobar converts from); refusing to guess");
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
        // A number without dimension (a code, a shape factor), however the file spells that.
        std::string e = lower(s.fileUnits);
        e.erase(std::remove(e.begin(), e.end(), ' '), e.end());
        const bool codes = e.find("codetable") != std::string::npos;
        if ((dimensionless(u) && (dimensionless(e) || codes)) ||
            (codes && u.find("codetable") != std::string::npos)) {
            return Conversion::None; // "(Code table 4.201)" and ecCodes' "code table (4.201)" alike
        }
        return refuse();
    }
    return refuse();
}

std::optional<ValueColumn> columnOfParameter(FileVariable& fv, const std::string& file) {
    std::optional<ParameterMatch> m;
    try {
        m = matchParameter(VariableClues{fv.name, fv.longName, fv.standardName, fv.paramId, fv.units});
    } catch (const ParameterClash& e) {
        throw Error(file + ": " + e.what());
    }
    if (!m) {
        return std::nullopt;
    }
    fv.matchedBy = m->rule;
    fv.looseMatch = m->loose;
    fv.conversion = conversionFor(expectedUnits(*m), fv.units, file, fv.name);
    if (m->variable) {
        return ValueColumn::of(*m->variable);
    }
    // ECMWF's word, or the file's step type, on whether it is an accumulation.
    const bool accumulated = m->parameter->accumulated || fv.stepType == "accum";
    ValueColumn c = ValueColumn::ofParameter(*m->parameter, accumulated);
    // ECMWF names some parameters alike (sro: 8 and 174008); the catalog's keeps the plain name.
    const auto catalog = variableCatalog();
    if (std::any_of(catalog.begin(), catalog.end(),
                    [&](const VariableSpec& s) { return s.column == c.column; })) {
        c.key = c.column = columnIdentifier(c.column + "_" + std::to_string(m->parameter->paramId));
    }
    return c;
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

namespace {

bool saysMonthly(const TimeClue& c) {
    if (c.source == "GRIB stream") {
        return c.value == "moda" || c.value == "mnth" || c.value == "wamo" || c.value == "wamd";
    }
    if (c.source == "GRIB_stepType") {
        return isMonthlyStepType(c.value);
    }
    return contains(c.value, "monthly-means") || contains(c.value, "monthly_means");
}

bool saysHourly(const TimeClue& c) {
    if (c.source == "GRIB stream") {
        return c.value == "oper" || c.value == "enda" || c.value == "wave" || c.value == "ewda";
    }
    if (c.source == "GRIB_stepType") {
        return c.value == "instant" || c.value == "accum" || c.value == "avg" || c.value == "max" ||
               c.value == "min" || c.value == "diff";
    }
    return false;
}

// "GRIB_stepType instant (t2m, u10), accum (tp); GRIB stream oper": the clues by source, then by
// value, with the variables that say it (three, then how many more).
std::string listed(const std::vector<TimeClue>& clues) {
    std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::vector<std::string>>>>>
        bySource;
    for (const TimeClue& c : clues) {
        auto source = std::find_if(bySource.begin(), bySource.end(),
                                   [&](const auto& e) { return e.first == c.source; });
        if (source == bySource.end()) {
            source = bySource.insert(bySource.end(), {c.source, {}});
        }
        auto& values = source->second;
        auto value =
            std::find_if(values.begin(), values.end(), [&](const auto& e) { return e.first == c.value; });
        if (value == values.end()) {
            value = values.insert(values.end(), {c.value, {}});
        }
        if (!c.of.empty() &&
            std::find(value->second.begin(), value->second.end(), c.of) == value->second.end()) {
            value->second.push_back(c.of);
        }
    }
    std::string out;
    for (const auto& [source, values] : bySource) {
        out += (out.empty() ? "" : "; ") + source + " ";
        for (std::size_t v = 0; v < values.size(); ++v) {
            const auto& [value, of] = values[v];
            out += (v == 0 ? "" : ", ") + value;
            std::string names;
            for (std::size_t i = 0; i < of.size() && i < 3; ++i) {
                names += (i == 0 ? "" : ", ") + of[i];
            }
            if (of.size() > 3) {
                names += " and " + std::to_string(of.size() - 3) + " more";
            }
            out += names.empty() ? "" : " (" + names + ")";
        }
    }
    return out;
}

} // namespace

TimeMeaning decideTimeMeaning(MeansOverride override, const std::vector<TimeClue>& clues,
                              const std::string& file) {
    if (override == MeansOverride::Monthly) {
        return {true, "monthly means: --product says so"};
    }
    if (override == MeansOverride::Hourly) {
        return {false, "hourly: --product says so"};
    }
    std::vector<TimeClue> monthly;
    std::vector<TimeClue> hourly;
    for (const TimeClue& c : clues) {
        if (saysMonthly(c)) {
            monthly.push_back(c);
        } else if (saysHourly(c)) {
            hourly.push_back(c);
        }
    }
    if (!monthly.empty() && !hourly.empty()) {
        throw Error(file + ": " + listed(monthly) + " says monthly means, but " + listed(hourly) +
                    " says hourly data; a file holds one or the other (--product hourly or --product "
                    "monthly says which, where you know)");
    }
    if (!monthly.empty()) {
        return {true, "monthly means: " + listed(monthly)};
    }
    if (!hourly.empty()) {
        return {false, "hourly: " + listed(hourly)};
    }
    return {false, "times as stored: the file does not say whether it holds monthly means"};
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

std::vector<std::size_t> catalogOrder(const std::vector<FileVariable>& variables) {
    std::vector<std::size_t> order(variables.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    const auto rank = [&](std::size_t i) {
        const FileVariable& v = variables[i];
        return std::pair(v.column.variable ? v.column.variable->index() : variableCount(), v.column.key);
    };
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
    return order;
}

} // namespace isobar::conventions

namespace isobar {

std::optional<ProductChoice> parseProduct(std::string_view word) {
    static const std::map<std::string_view, ProductChoice> words{
        {"auto", {ProductOverride::Auto, MeansOverride::Auto}},
        {"era5", {ProductOverride::Era5, MeansOverride::Auto}},
        {"era5-land", {ProductOverride::Era5Land, MeansOverride::Auto}},
        {"hourly", {ProductOverride::Auto, MeansOverride::Hourly}},
        {"monthly", {ProductOverride::Auto, MeansOverride::Monthly}},
        {"era5-hourly", {ProductOverride::Era5, MeansOverride::Hourly}},
        {"era5-monthly", {ProductOverride::Era5, MeansOverride::Monthly}},
        {"era5-land-hourly", {ProductOverride::Era5Land, MeansOverride::Hourly}},
        {"era5-land-monthly", {ProductOverride::Era5Land, MeansOverride::Monthly}},
    };
    const auto it = words.find(word);
    return it == words.end() ? std::nullopt : std::optional<ProductChoice>(it->second);
}

} // namespace isobar
