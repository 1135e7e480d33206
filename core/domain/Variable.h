// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "util/Error.h"

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace isobar {

// How a file's value becomes the table's value.
enum class Conversion : std::uint8_t {
    None,                // same unit in file and table
    KelvinToCelsius,     // K -> degC: x - 273.15
    MetresToMillimetres, // m (of water equivalent) -> mm: x * 1000
    PercentToFraction,   // % -> (0 - 1): x / 100
};

// What a parameter measures, which decides the units a file may declare for it and how they are
// converted: by the parameter's kind, never guessed from the units string alone (boundary layer
// height is in m and stays in m; total precipitation is in m of water and goes to mm).
enum class Quantity : std::uint8_t {
    Temperature, // K in ERA5, stored in degC
    Speed,       // m s**-1
    Fraction,    // (0 - 1), or % converted
    WaterDepth,  // m of water equivalent in ERA5, stored in mm
    AsStored,    // anything else (Pa, J m**-2, W m**-2, m**2 s**-2, m, K of an index, ...): the units ERA5
                 // stores, loaded as they are
};

// How a parameter's value relates to time.
enum class Timing : std::uint8_t {
    Instant,     // the value at the time step
    Accumulated, // an amount over the hour before (ERA5), or since 00 UTC (ERA5-Land)
    MeanRate,    // a mean rate over the hour before (ERA5 "mean ..." parameters, W m**-2, kg m**-2 s**-1)
    Extreme,     // a maximum or minimum since the previous post-processing
};

using Aliases = std::array<std::string_view, 5>;

// One entry of the variable catalog: an ERA5 parameter Isobar has notes on, with ECMWF's identity
// and units for it (its name, ecCodes shortName and units come from ECMWF's parameter database at
// run time: see ParameterDatabase.h).
struct VariableSpec {
    std::string_view shortName; // the netCDF variable name the CDS writes (ecCodes' cfVarName)
    std::string_view column;    // target table column
    std::string fileUnits;      // ECMWF's units: what ERA5 stores
    std::string tableUnits;
    std::string longName; // ECMWF's name
    Quantity quantity;
    Conversion conversion; // from the units ERA5 stores to the table's
    // Other names the variable goes by, compared case-insensitively with a file's variable name or
    // long_name: NCAR RDA names, CDS request names, the CDS's older long names.
    Aliases aliases;
    bool accumulated;          // an amount over a period (precipitation, snowfall), not an instant value
    int paramId;               // ECMWF GRIB parameter id
    std::string gribName;      // ecCodes shortName
    std::string_view ncarName; // variable name in NCAR RDA's ds633.0 files
    // Where values usually lie, in the units ERA5 stores (what the sample writer packs into).
    double typicalMin;
    double typicalMax;
    Timing timing = Timing::Instant;
    std::string standardName;    // CF standard_name: ECMWF's, else Isobar's where one fits
    bool pressureLevels = false; // a parameter of ERA5's pressure-level product
};

// A variable of the catalog: its position there, which is also its column's position among the
// value columns of the weather table. A handle, not an enumeration: what a variable is lives in
// its catalog entry (spec()).
class Variable {
public:
    constexpr Variable() = default;
    constexpr explicit Variable(std::size_t index)
        : index_(static_cast<std::uint16_t>(index)) {}

    constexpr std::size_t index() const noexcept { return index_; }

    friend constexpr bool operator==(Variable, Variable) = default;
    // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 sees the 0 a defaulted <=> compares with
    friend constexpr auto operator<=>(Variable, Variable) = default;

    // The seed's six, the catalog's first entries, in the seed table's column order.
    static const Variable T2m, U10, V10, Tcc, Tp, Sf;

private:
    std::uint16_t index_ = 0;
};

inline constexpr Variable Variable::T2m{0};
inline constexpr Variable Variable::U10{1};
inline constexpr Variable Variable::V10{2};
inline constexpr Variable Variable::Tcc{3};
inline constexpr Variable Variable::Tp{4};
inline constexpr Variable Variable::Sf{5};

// The seed's six, in the seed table's column order (what the published benchmark loads).
inline constexpr std::array<Variable, 6> kSeedVariables{Variable::T2m, Variable::U10, Variable::V10,
                                                        Variable::Tcc, Variable::Tp,  Variable::Sf};

// The catalog: every variable Isobar loads, in the weather table's column order.
std::span<const VariableSpec> variableCatalog();
std::size_t variableCount();
// Every variable of the catalog, in order.
std::vector<Variable> allVariables();
const VariableSpec& spec(Variable v);
inline std::size_t index(Variable v) {
    return v.index();
}

// "t2m, u10, v10, tcc, tp, sf": the short names of the catalog, for messages.
std::string catalogShortNames();

// What a file says about one of its variables, to find which parameter it is.
struct VariableClues {
    std::string_view name;
    std::string_view longName;
    std::string_view standardName;
    std::optional<long> paramId; // GRIB paramId, or GRIB_paramId where a netCDF file carries it
    std::string_view units;      // to tell apart parameters of one name ("Snow depth": sd, sde)
};

struct EcmwfParameter;

// Which parameter a file's variable is: Isobar's catalog entry where it has one, and ECMWF's.
struct ParameterMatch {
    std::optional<Variable> variable;          // Isobar's catalog entry, if any
    const EcmwfParameter* parameter = nullptr; // ECMWF's, if ECMWF defines it
    std::string rule;                          // what decided: "GRIB_paramId 167", "name t2m", ...
    bool loose = false;                        // decided by long_name or standard_name only
    long paramId() const;                      // 0 when neither knows one
};

// A variable whose clues name two different parameters (its GRIB_paramId one, its name another).
class ParameterClash : public Error {
public:
    using Error::Error;
};

// Which parameter a file's variable is, most certain first: its GRIB paramId; then its name, as the
// CDS and cfgrib write it (Isobar's names first, then ECMWF's cfVarName and shortName where one
// parameter has it); then its long_name, then its standard_name, where only one parameter has it
// (a loose match). nullopt when no rule finds one. Throws ParameterClash when the paramId and the
// name name different parameters.
std::optional<ParameterMatch> matchParameter(const VariableClues& clues);

// The catalog variable a file's variable is (matchParameter's), nullopt when the catalog has none.
std::optional<Variable> findVariable(const VariableClues& clues);
inline std::optional<Variable> findVariable(std::string_view name, std::string_view longName = {}) {
    return findVariable(VariableClues{name, longName, {}, std::nullopt, {}});
}

// The catalog variable with this GRIB paramId.
std::optional<Variable> findParamId(long paramId);

// What a parameter of ECMWF's measures, by its units: K is a temperature unless its name says it is a
// difference of temperatures (an anomaly, a tendency, an index); "m of water equivalent" a depth of
// water; m s**-1 a speed; (0 - 1) a fraction. Isobar's catalog says more where the units do not tell
// (total precipitation is in m).
Quantity quantityOf(const EcmwfParameter& p);
// The table's units for a quantity whose file units are `fileUnits`, and the conversion to them.
std::string tableUnitsOf(Quantity q, std::string_view fileUnits);
Conversion conversionOf(Quantity q);

// Units in one spelling, so that "m s**-1", "m s-1", "m/s" and "m.s^-1" compare equal: lower case,
// one "base^exponent" token per unit, sorted ("m^1 s^-1"). Words that are not units ("of water
// equivalent") are kept as words.
std::string canonicalUnits(std::string_view units);

// "temperature", "speed", ...: what the GUI and the column comments call a quantity.
std::string_view describe(Quantity q);
std::string_view describe(Timing t);

// One value per catalog variable (the ways a dataset, a band or a form keeps something for each).
template <typename T>
class PerVariable {
public:
    PerVariable()
        : values_(variableCount()) {}

    T& operator[](Variable v) { return values_[v.index()]; }
    const T& operator[](Variable v) const { return values_[v.index()]; }
    T& operator[](std::size_t i) { return values_[i]; }
    const T& operator[](std::size_t i) const { return values_[i]; }
    std::size_t size() const noexcept { return values_.size(); }
    const T* data() const noexcept { return values_.data(); }
    auto begin() noexcept { return values_.begin(); }
    auto end() noexcept { return values_.end(); }
    auto begin() const noexcept { return values_.begin(); }
    auto end() const noexcept { return values_.end(); }

private:
    std::vector<T> values_;
};

// Applies a unit conversion in double precision; the table stores the result as float4.
constexpr double convert(Conversion c, double value) {
    switch (c) {
    case Conversion::KelvinToCelsius:
        return value - 273.15;
    case Conversion::MetresToMillimetres:
        return value * 1000.0;
    case Conversion::PercentToFraction:
        return value / 100.0;
    case Conversion::None:
        break;
    }
    return value;
}

constexpr std::string_view describe(Conversion c) {
    switch (c) {
    case Conversion::KelvinToCelsius:
        return "K -> degC (x - 273.15)";
    case Conversion::MetresToMillimetres:
        return "m -> mm (x * 1000)";
    case Conversion::PercentToFraction:
        return "% -> fraction (x / 100)";
    case Conversion::None:
        break;
    }
    return "none";
}

} // namespace isobar
