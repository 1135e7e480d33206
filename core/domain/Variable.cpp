#include "domain/Variable.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace isobar {

namespace {

// Adding a variable is adding an entry here (issue: every ERA5 variable). The first six are the
// seed's, whose table columns keep the seed's names.
constexpr std::array<VariableSpec, 6> kCatalog{{
    {"t2m",
     "temperature_2m",
     "K",
     "degC",
     "2 metre temperature",
     Quantity::Temperature,
     Conversion::KelvinToCelsius,
     {"2t", "var_2t", "2m_temperature", "2_metre_temperature"},
     false,
     167,
     "2t",
     "VAR_2T",
     180.0,
     335.0},
    {"u10",
     "zonal_wind_10m",
     "m s**-1",
     "m s**-1",
     "10 metre U wind component",
     Quantity::Speed,
     Conversion::None,
     {"10u", "var_10u", "10m_u_component_of_wind", "10_metre_u_wind_component"},
     false,
     165,
     "10u",
     "VAR_10U",
     -40.0,
     40.0},
    {"v10",
     "meridional_wind_10m",
     "m s**-1",
     "m s**-1",
     "10 metre V wind component",
     Quantity::Speed,
     Conversion::None,
     {"10v", "var_10v", "10m_v_component_of_wind", "10_metre_v_wind_component"},
     false,
     166,
     "10v",
     "VAR_10V",
     -40.0,
     40.0},
    {"tcc",
     "total_cloud_cover",
     "(0 - 1)",
     "(0 - 1)",
     "Total cloud cover",
     Quantity::Fraction,
     Conversion::None,
     {"var_tcc", "total_cloud_cover", "", ""},
     false,
     164,
     "tcc",
     "TCC",
     0.0,
     1.0},
    {"tp",
     "total_precipitation",
     "m",
     "mm",
     "Total precipitation",
     Quantity::WaterDepth,
     Conversion::MetresToMillimetres,
     {"var_tp", "total_precipitation", "", ""},
     true,
     228,
     "tp",
     "TP",
     0.0,
     0.05},
    {"sf",
     "snowfall",
     "m of water equivalent",
     "mm",
     "Snowfall",
     Quantity::WaterDepth,
     Conversion::MetresToMillimetres,
     {"var_sf", "snowfall", "", ""},
     true,
     144,
     "sf",
     "SF",
     0.0,
     0.02},
}};

std::string lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
    return out;
}

} // namespace

std::span<const VariableSpec> variableCatalog() {
    return kCatalog;
}

std::size_t variableCount() {
    return kCatalog.size();
}

std::vector<Variable> allVariables() {
    std::vector<Variable> out;
    for (std::size_t i = 0; i < kCatalog.size(); ++i) {
        out.emplace_back(i);
    }
    return out;
}

const VariableSpec& spec(Variable v) {
    return kCatalog.at(v.index());
}

std::string catalogShortNames() {
    std::string out;
    for (const VariableSpec& v : kCatalog) {
        out += (out.empty() ? "" : ", ") + std::string(v.shortName);
    }
    return out;
}

std::optional<Variable> findVariable(std::string_view name, std::string_view longName) {
    const std::string n = lower(name);
    const std::string ln = lower(longName);
    for (std::size_t i = 0; i < kCatalog.size(); ++i) {
        if (n == kCatalog[i].shortName || (!ln.empty() && ln == lower(kCatalog[i].longName))) {
            return Variable(i);
        }
    }
    for (std::size_t i = 0; i < kCatalog.size(); ++i) {
        for (std::string_view alias : kCatalog[i].aliases) {
            if (!alias.empty() && (n == alias || ln == alias)) {
                return Variable(i);
            }
        }
    }
    return std::nullopt;
}

} // namespace isobar
