#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace isobar {

// The six surface variables Isobar loads, in the column order of the seed table.
enum class Variable : std::uint8_t { T2m, U10, V10, Tcc, Tp, Sf };

inline constexpr std::size_t kVariableCount = 6;

// How a file's value becomes the table's value.
enum class Conversion : std::uint8_t {
    None,                // same unit in file and table
    KelvinToCelsius,     // K -> degC: x - 273.15
    MetresToMillimetres, // m (of water equivalent) -> mm: x * 1000
    PercentToFraction,   // % -> (0 - 1): x / 100
};

struct VariableSpec {
    Variable variable;
    std::string_view shortName; // CDS short name
    std::string_view column;    // seed table column
    std::string_view fileUnits; // units ERA5 stores
    std::string_view tableUnits;
    std::string_view longName; // long_name as the CDS writes it
    Conversion conversion;
    // Other names the variable goes by, compared case-insensitively with a file's variable name or
    // long_name: GRIB short names, NCAR RDA names, CDS request names.
    std::array<std::string_view, 4> aliases;
    bool accumulated; // an amount over a period (precipitation, snowfall), not an instant value
};

inline constexpr std::array<VariableSpec, kVariableCount> kVariables{{
    {Variable::T2m,
     "t2m",
     "temperature_2m",
     "K",
     "degC",
     "2 metre temperature",
     Conversion::KelvinToCelsius,
     {"2t", "var_2t", "2m_temperature", "2_metre_temperature"},
     false},
    {Variable::U10,
     "u10",
     "zonal_wind_10m",
     "m s**-1",
     "m s**-1",
     "10 metre U wind component",
     Conversion::None,
     {"10u", "var_10u", "10m_u_component_of_wind", "10_metre_u_wind_component"},
     false},
    {Variable::V10,
     "v10",
     "meridional_wind_10m",
     "m s**-1",
     "m s**-1",
     "10 metre V wind component",
     Conversion::None,
     {"10v", "var_10v", "10m_v_component_of_wind", "10_metre_v_wind_component"},
     false},
    {Variable::Tcc,
     "tcc",
     "total_cloud_cover",
     "(0 - 1)",
     "(0 - 1)",
     "Total cloud cover",
     Conversion::None,
     {"var_tcc", "total_cloud_cover", "", ""},
     false},
    {Variable::Tp,
     "tp",
     "total_precipitation",
     "m",
     "mm",
     "Total precipitation",
     Conversion::MetresToMillimetres,
     {"var_tp", "total_precipitation", "", ""},
     true},
    {Variable::Sf,
     "sf",
     "snowfall",
     "m of water equivalent",
     "mm",
     "Snowfall",
     Conversion::MetresToMillimetres,
     {"var_sf", "snowfall", "", ""},
     true},
}};

constexpr const VariableSpec& spec(Variable v) {
    return kVariables[static_cast<std::size_t>(v)];
}
constexpr std::size_t index(Variable v) {
    return static_cast<std::size_t>(v);
}

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
