// SPDX-License-Identifier: GPL-3.0-or-later

// The synthetic weather of the synthetic files (SyntheticParts.h): a formula per variable, plausible and the
// same for the same seed in every layout.

#include "synth/SyntheticParts.h"
#include "util/Format.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <ctime>
#include <numbers>
#include <string>
#include <vector>

namespace isobar {

namespace synth {

namespace {

// Deterministic noise in [0, 1) from a few integers (splitmix64 finalizer).
double noise(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
    std::uint64_t z =
        seed * 0x9E3779B97F4A7C15ULL + a * 0xBF58476D1CE4E5B9ULL + b * 0x94D049BB133111EBULL + c;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
}

constexpr double kGravity = 9.80665;             // m s**-2: the WMO standard ERA5 divides geopotential by
constexpr double kStefanBoltzmann = 5.670374e-8; // W m**-2 K**-4
constexpr double kSolarConstant = 1361.0;        // W m**-2 at the top of the atmosphere
constexpr double kSecondsPerHour = 3600.0;       // an ERA5 accumulation is over the hour before
constexpr double kPi = std::numbers::pi;

double clamp01(double x) {
    return std::clamp(x, 0.0, 1.0);
}

double square(double x) {
    return x * x;
}

// The height of a pressure level in the ICAO standard atmosphere (m): the troposphere's lapse rate up
// to 226.32 hPa (11 km), isothermal above (a fair stand-in up to 1 hPa, ~45 km).
double standardHeight(double hPa) {
    if (hPa >= 226.32) {
        return 44330.8 * (1.0 - std::pow(hPa / 1013.25, 0.190263));
    }
    return 11000.0 + 6341.6 * std::log(226.32 / hPa);
}

// Saturation specific humidity (kg kg**-1) at temperature `kelvin` and pressure `hPa` (Bolton's fit).
double saturationHumidity(double kelvin, double hPa) {
    const double es = 6.112 * std::exp(17.67 * (kelvin - 273.15) / (kelvin - 29.65));
    return 0.622 * es / std::max(hPa - 0.378 * es, 1e-3);
}

// How a variable's values are made. The seed's six keep the formulas they always had (the published
// benchmark's files and every layout test depend on them); the others derive from the same fields,
// so that d2m stays below t2m, ssrd follows the sun and clouds, sp falls over mountains.
// clang-format off
enum class Recipe : std::uint8_t {
    T2m, U10, V10, Tcc, Tp, Sf,
    Dewpoint, Skin, SeaSurface, Max2m, Min2m, Soil1, Soil2, Soil3, Soil4, SnowLayer, IceLayer,
    ColumnWater, ColumnVapour, ColumnLiquid, ColumnIce, ColumnRain, ColumnSnow, ColumnOzone,
    SurfacePressure, SeaLevelPressure,
    U100, V100, U10Neutral, V10Neutral, WindSpeed, Gust, MaxGust, StressEast, StressNorth,
    LowCloud, MidCloud, HighCloud, CloudBase, BoundaryLayer, Cape, Cin, KIndex, TotalTotals,
    PrecipitationType, ConvectiveRainRate, LargeScaleRainRate,
    ConvectivePrecipitation, LargeScalePrecipitation, ConvectiveSnowfall, LargeScaleSnowfall,
    SnowDepth, SnowDepthMetres, SnowDensity, SnowAlbedo, SnowCover, Snowmelt, SnowEvaporation,
    Evaporation, PotentialEvaporation, BareSoilEvaporation, OpenWaterEvaporation, CanopyEvaporation,
    Transpiration, Runoff, SurfaceRunoff, SubSurfaceRunoff, SkinReservoir,
    SoilWater1, SoilWater2, SoilWater3, SoilWater4, LandSea, SeaIce, Albedo, Roughness, LeafAreaHigh,
    LeafAreaLow, VegetationHigh, VegetationLow, Geopotential,
    SolarDown, ThermalDown, SolarNet, ThermalNet, SolarDownClear, ThermalDownClear, SolarNetClear,
    ThermalNetClear, TopIncident, TopSolarNet, TopThermalNet, DirectSolar, DirectSolarClear,
    Ultraviolet, LatentHeat, SensibleHeat,
    LevelTemperature, LevelU, LevelV, LevelW, LevelHumidity, LevelRelativeHumidity, LevelVorticity,
    LevelDivergence, LevelPotentialVorticity, LevelCloud, LevelOzone, LevelLiquid, LevelIce, LevelRain,
    LevelSnow,
    Generic, // a catalog entry added later: a smooth pattern scaled into its typical range
};
// clang-format on

struct RecipeOf {
    std::string_view shortName;
    Recipe recipe;
    double factor = 1.0; // mean rates: the accumulation over the hour, per second
};

// clang-format off
constexpr RecipeOf kRecipes[] = {
    {"t2m", Recipe::T2m}, {"u10", Recipe::U10}, {"v10", Recipe::V10}, {"tcc", Recipe::Tcc}, {"tp", Recipe::Tp},
    {"sf", Recipe::Sf},
    {"d2m", Recipe::Dewpoint}, {"skt", Recipe::Skin}, {"sst", Recipe::SeaSurface}, {"mx2t", Recipe::Max2m},
    {"mn2t", Recipe::Min2m}, {"stl1", Recipe::Soil1}, {"stl2", Recipe::Soil2}, {"stl3", Recipe::Soil3},
    {"stl4", Recipe::Soil4}, {"tsn", Recipe::SnowLayer}, {"istl1", Recipe::IceLayer},
    {"tcw", Recipe::ColumnWater}, {"tcwv", Recipe::ColumnVapour}, {"tclw", Recipe::ColumnLiquid},
    {"tciw", Recipe::ColumnIce}, {"tcrw", Recipe::ColumnRain}, {"tcsw", Recipe::ColumnSnow},
    {"tco3", Recipe::ColumnOzone}, {"sp", Recipe::SurfacePressure}, {"msl", Recipe::SeaLevelPressure},
    {"u100", Recipe::U100}, {"v100", Recipe::V100}, {"u10n", Recipe::U10Neutral}, {"v10n", Recipe::V10Neutral},
    {"si10", Recipe::WindSpeed}, {"i10fg", Recipe::Gust}, {"fg10", Recipe::MaxGust},
    {"ewss", Recipe::StressEast}, {"nsss", Recipe::StressNorth},
    {"lcc", Recipe::LowCloud}, {"mcc", Recipe::MidCloud}, {"hcc", Recipe::HighCloud}, {"cbh", Recipe::CloudBase},
    {"blh", Recipe::BoundaryLayer}, {"cape", Recipe::Cape}, {"cin", Recipe::Cin}, {"kx", Recipe::KIndex},
    {"totalx", Recipe::TotalTotals}, {"ptype", Recipe::PrecipitationType}, {"crr", Recipe::ConvectiveRainRate},
    {"lsrr", Recipe::LargeScaleRainRate},
    {"cp", Recipe::ConvectivePrecipitation}, {"lsp", Recipe::LargeScalePrecipitation},
    {"csf", Recipe::ConvectiveSnowfall}, {"lsf", Recipe::LargeScaleSnowfall}, {"sd", Recipe::SnowDepth},
    {"sde", Recipe::SnowDepthMetres}, {"rsn", Recipe::SnowDensity}, {"asn", Recipe::SnowAlbedo},
    {"snowc", Recipe::SnowCover}, {"smlt", Recipe::Snowmelt}, {"es", Recipe::SnowEvaporation},
    {"e", Recipe::Evaporation}, {"pev", Recipe::PotentialEvaporation}, {"evabs", Recipe::BareSoilEvaporation},
    {"evaow", Recipe::OpenWaterEvaporation}, {"evatc", Recipe::CanopyEvaporation},
    {"evavt", Recipe::Transpiration}, {"ro", Recipe::Runoff}, {"sro", Recipe::SurfaceRunoff},
    {"ssro", Recipe::SubSurfaceRunoff}, {"src", Recipe::SkinReservoir},
    {"swvl1", Recipe::SoilWater1}, {"swvl2", Recipe::SoilWater2}, {"swvl3", Recipe::SoilWater3},
    {"swvl4", Recipe::SoilWater4}, {"lsm", Recipe::LandSea}, {"siconc", Recipe::SeaIce}, {"fal", Recipe::Albedo},
    {"fsr", Recipe::Roughness}, {"lai_hv", Recipe::LeafAreaHigh}, {"lai_lv", Recipe::LeafAreaLow},
    {"cvh", Recipe::VegetationHigh}, {"cvl", Recipe::VegetationLow}, {"z", Recipe::Geopotential},
    {"ssrd", Recipe::SolarDown}, {"strd", Recipe::ThermalDown}, {"ssr", Recipe::SolarNet},
    {"str", Recipe::ThermalNet}, {"ssrdc", Recipe::SolarDownClear}, {"strdc", Recipe::ThermalDownClear},
    {"ssrc", Recipe::SolarNetClear}, {"strc", Recipe::ThermalNetClear}, {"tisr", Recipe::TopIncident},
    {"tsr", Recipe::TopSolarNet}, {"ttr", Recipe::TopThermalNet}, {"fdir", Recipe::DirectSolar},
    {"cdir", Recipe::DirectSolarClear}, {"uvb", Recipe::Ultraviolet}, {"slhf", Recipe::LatentHeat},
    {"sshf", Recipe::SensibleHeat},
    {"msdwswrf", Recipe::SolarDown, 1.0 / kSecondsPerHour}, {"msdwlwrf", Recipe::ThermalDown, 1.0 / kSecondsPerHour},
    {"msnswrf", Recipe::SolarNet, 1.0 / kSecondsPerHour}, {"msnlwrf", Recipe::ThermalNet, 1.0 / kSecondsPerHour},
    {"mtnswrf", Recipe::TopSolarNet, 1.0 / kSecondsPerHour}, {"mtnlwrf", Recipe::TopThermalNet, 1.0 / kSecondsPerHour},
    {"mtdwswrf", Recipe::TopIncident, 1.0 / kSecondsPerHour}, {"msdrswrf", Recipe::DirectSolar, 1.0 / kSecondsPerHour},
    {"msdwswrfcs", Recipe::SolarDownClear, 1.0 / kSecondsPerHour},
    {"msdrswrfcs", Recipe::DirectSolarClear, 1.0 / kSecondsPerHour},
    {"msshf", Recipe::SensibleHeat, 1.0 / kSecondsPerHour}, {"mslhf", Recipe::LatentHeat, 1.0 / kSecondsPerHour},
    // m of water over the hour -> kg m**-2 s**-1: x 1000 kg m**-3 / 3600 s.
    {"mtpr", Recipe::Tp, 1.0 / 3.6}, {"mcpr", Recipe::ConvectivePrecipitation, 1.0 / 3.6},
    {"mlspr", Recipe::LargeScalePrecipitation, 1.0 / 3.6}, {"msr", Recipe::Sf, 1.0 / 3.6},
    {"mer", Recipe::Evaporation, 1.0 / 3.6}, {"mror", Recipe::Runoff, 1.0 / 3.6},
    {"t", Recipe::LevelTemperature}, {"u", Recipe::LevelU}, {"v", Recipe::LevelV}, {"w", Recipe::LevelW},
    {"q", Recipe::LevelHumidity}, {"r", Recipe::LevelRelativeHumidity}, {"vo", Recipe::LevelVorticity},
    {"d", Recipe::LevelDivergence}, {"pv", Recipe::LevelPotentialVorticity}, {"cc", Recipe::LevelCloud},
    {"o3", Recipe::LevelOzone}, {"clwc", Recipe::LevelLiquid}, {"ciwc", Recipe::LevelIce},
    {"crwc", Recipe::LevelRain}, {"cswc", Recipe::LevelSnow},
};
// clang-format on

// One variable's recipe, resolved once per fill.
struct Rule {
    Recipe recipe = Recipe::Generic;
    double factor = 1.0;
    bool seed = false; // one of the seed's six: its formula's values as they are, unclamped
    double min = 0.0;
    double max = 1.0;
    bool accumulated = false;
    std::uint64_t channel = 0; // the variable's own noise
};

Rule ruleOf(Variable v) {
    const VariableSpec& s = spec(v);
    Rule r;
    for (const RecipeOf& known : kRecipes) {
        if (known.shortName == s.shortName) {
            r.recipe = known.recipe;
            r.factor = known.factor;
            break;
        }
    }
    r.seed = std::find(kSeedVariables.begin(), kSeedVariables.end(), v) != kSeedVariables.end();
    r.min = s.typicalMin;
    r.max = s.typicalMax;
    r.accumulated = s.accumulated;
    // Channels 1-4 are the seed's; each variable (and level) gets its own stream above them.
    r.channel = 16 + v.index() * 2048;
    return r;
}

// The level a fill is for: a single level, or a pressure level and its standard height.
struct Level {
    bool pressure = false;
    double hPa = 1000.0;
    double height = 0.0; // m, standard atmosphere
    std::uint64_t key = 0;
};

// What every recipe of one grid point draws on.
struct Cell {
    double sinLat, sinLat2, cosLat, cos4Lat, cos6Lat, absLat;
    double lonWave, diurnal, sun, synoptic;
    double orography, land;
    double n1, n2, n3, rain;
    double t2m, u10, v10, tcc, tp, sf;
    double speed; // of the 10 m wind
    double own;   // the variable's own noise, [0, 1)
};

// The synthetic fields shared by several recipes.
double tMean(const Cell& c) {
    return 301.0 - 52.0 * c.sinLat2;
}

double snowDepth(const Cell& c) {
    return std::max(0.0, 272.0 - tMean(c)) * 0.012 * (0.7 + 0.3 * c.lonWave);
}

double snowDensity(const Cell& c) {
    return 120.0 + 250.0 * clamp01((tMean(c) - 240.0) / 35.0) + 20.0 * (c.own - 0.5);
}

double seaIce(const Cell& c) {
    return (1.0 - c.land) * clamp01((c.absLat - 62.0) / 12.0);
}

double vegetationHigh(const Cell& c) {
    return c.land * clamp01(1.1 * c.cosLat * c.cosLat - 0.25 + 0.2 * c.lonWave);
}

double albedo(const Cell& c) {
    const double base = c.land * (0.14 + 0.12 * (1.0 - vegetationHigh(c))) + (1.0 - c.land) * 0.06;
    const double white = std::max(seaIce(c), clamp01(snowDepth(c) / 0.05));
    return base + (0.8 - base) * white;
}

double convectiveShare(const Cell& c) {
    return 0.3 + 0.6 * c.cosLat * c.cosLat;
}

double seaLevelPressure(const Cell& c) {
    const double sin2Lat2 = 4.0 * c.sinLat2 * (1.0 - c.sinLat2);
    // The seed's noise, not the variable's: sp is this reduced by the height, so never above msl.
    return 101300.0 - 1000.0 * c.cos6Lat + 1400.0 * c.synoptic * sin2Lat2 + 100.0 * (c.n3 - 0.5);
}

double clearSkySolar(const Cell& c) {
    return kSecondsPerHour * kSolarConstant * c.sun * 0.75;
}

double solarDown(const Cell& c) {
    return clearSkySolar(c) * (1.0 - 0.65 * c.tcc * c.tcc);
}

double thermalEmission(double kelvin) {
    return kSecondsPerHour * kStefanBoltzmann * square(square(kelvin));
}

double evaporation(const Cell& c) {
    const double wetness = 1.0 - 0.5 * c.land;
    return -(2e-5 + 3e-4 * c.sun * c.cosLat * (0.3 + 0.7 * wetness)) * (0.7 + 0.6 * c.own);
}

double levelTemperature(const Cell& c, const Level& lv) {
    const double h = lv.height;
    const double tropopause = 197.0 + 22.0 * c.sinLat2 + std::max(0.0, h - 20000.0) * 0.0016;
    return std::max(tropopause, tMean(c) + 4.0 * (c.n1 - 0.5) - 0.0065 * h +
                                    2.0 * c.cosLat * c.diurnal * std::exp(-h / 1500.0));
}

double levelRelativeHumidity(const Cell& c, const Level& lv) {
    return 100.0 *
           std::clamp(0.2 + 0.6 * c.tcc + 0.15 * (c.own - 0.5) - 0.5 * clamp01((lv.height - 6000.0) / 8000.0),
                      0.01, 1.0);
}

double valueOf(Recipe recipe, const Cell& c, const Level& lv, const Rule& rule) {
    const double e = c.own - 0.5;
    const double speed = c.speed;
    const double h = lv.height;
    switch (recipe) {
    case Recipe::T2m:
        return c.t2m;
    case Recipe::U10:
        return c.u10;
    case Recipe::V10:
        return c.v10;
    case Recipe::Tcc:
        return c.tcc;
    case Recipe::Tp:
        return c.tp;
    case Recipe::Sf:
        return c.sf;
    case Recipe::Dewpoint:
        return c.t2m - (1.5 + 7.0 * (1.0 - c.tcc) + 2.0 * c.own);
    case Recipe::Skin:
        return c.t2m + 3.0 * c.cosLat * c.diurnal * (1.0 - c.tcc) + e;
    case Recipe::SeaSurface:
        return std::max(271.45, 302.0 - 34.0 * c.sinLat2 + 0.4 * e);
    case Recipe::Max2m:
        return c.t2m + 0.3 + 1.5 * c.own;
    case Recipe::Min2m:
        return c.t2m - 0.3 - 1.5 * c.own;
    case Recipe::Soil1:
    case Recipe::Soil2:
    case Recipe::Soil3:
    case Recipe::Soil4: {
        // Deeper layers: less of the day, more of the annual mean.
        const auto layer = static_cast<double>(static_cast<int>(recipe) - static_cast<int>(Recipe::Soil1));
        const double w = layer / 3.0;
        const double amplitude = 3.0 * std::pow(0.35, layer);
        return (1.0 - w) * tMean(c) + w * (289.0 - 30.0 * c.sinLat2) + amplitude * c.cosLat * c.diurnal +
               0.5 * e * (1.0 - w);
    }
    case Recipe::SnowLayer:
        return std::min(c.t2m, 273.15) - 2.0 * c.own;
    case Recipe::IceLayer:
        return std::min(c.t2m + 2.0, 271.45) - c.own;
    case Recipe::ColumnVapour:
        return 2.0 + 52.0 * c.cosLat * c.cosLat * (0.6 + 0.4 * c.tcc) + 2.0 * e;
    case Recipe::ColumnLiquid:
        return 0.3 * c.tcc * c.tcc * c.cosLat * (0.5 + c.own);
    case Recipe::ColumnIce:
        return 0.15 * c.tcc * c.tcc * (0.5 + c.own);
    case Recipe::ColumnWater:
        return 2.0 + 52.0 * c.cosLat * c.cosLat * (0.6 + 0.4 * c.tcc) + 0.45 * c.tcc * c.tcc + 2.0 * e;
    case Recipe::ColumnRain:
        return c.tp * 25.0;
    case Recipe::ColumnSnow:
        return c.sf * 40.0;
    case Recipe::ColumnOzone:
        return 0.0056 + 0.0024 * c.sinLat2 + 0.0004 * c.synoptic * c.sinLat2 + 0.0002 * e;
    case Recipe::SeaLevelPressure:
        return seaLevelPressure(c);
    case Recipe::SurfacePressure:
        // A scale height of 8.4 km.
        return seaLevelPressure(c) * std::exp(-c.orography / 8400.0);
    case Recipe::U100:
        return c.u10 * 1.3 + 0.6 * e;
    case Recipe::V100:
        return c.v10 * 1.3 + 0.6 * e;
    case Recipe::U10Neutral:
        return c.u10 * 1.04 + 0.2 * e;
    case Recipe::V10Neutral:
        return c.v10 * 1.04 + 0.2 * e;
    case Recipe::WindSpeed:
        return speed;
    case Recipe::Gust:
        return speed * (1.3 + 0.3 * c.own) + 0.5;
    case Recipe::MaxGust:
        return speed * (1.5 + 0.4 * c.own) + 1.0;
    case Recipe::StressEast:
        // Bulk formula: air density x drag coefficient x |U| U, over the hour.
        return kSecondsPerHour * 1.2 * 1.3e-3 * speed * c.u10;
    case Recipe::StressNorth:
        return kSecondsPerHour * 1.2 * 1.3e-3 * speed * c.v10;
    case Recipe::LowCloud:
        return c.tcc * (0.5 + 0.5 * c.own);
    case Recipe::MidCloud:
        return c.tcc * (0.2 + 0.6 * c.own);
    case Recipe::HighCloud:
        return c.tcc * (0.1 + 0.7 * c.own);
    case Recipe::CloudBase:
        return 300.0 + 2500.0 * (1.0 - c.tcc) + 400.0 * c.own;
    case Recipe::BoundaryLayer:
        return 150.0 + 1400.0 * c.sun * (1.0 - 0.5 * c.tcc) * (0.3 + 0.7 * c.land) + 150.0 * c.own;
    case Recipe::Cape:
        return std::max(0.0, c.t2m - 291.0) * 110.0 * (0.4 + c.own);
    case Recipe::Cin:
        return c.t2m > 291.0 ? 10.0 + 90.0 * c.own : 0.0;
    case Recipe::KIndex:
        return -8.0 + 42.0 * c.cosLat * c.cosLat + 8.0 * c.tcc + 3.0 * e;
    case Recipe::TotalTotals:
        return 32.0 + 18.0 * c.cosLat * c.cosLat + 6.0 * c.tcc + 3.0 * e;
    case Recipe::PrecipitationType:
        // WMO code table 4.201: 0 none, 1 rain, 5 snow.
        return c.tp > 0.0 ? (c.t2m < 273.15 ? 5.0 : 1.0) : 0.0;
    case Recipe::ConvectiveRainRate:
        return (c.tp - c.sf) * convectiveShare(c) / 3.6;
    case Recipe::LargeScaleRainRate:
        return (c.tp - c.sf) * (1.0 - convectiveShare(c)) / 3.6;
    case Recipe::ConvectivePrecipitation:
        return c.tp * convectiveShare(c);
    case Recipe::LargeScalePrecipitation:
        return c.tp * (1.0 - convectiveShare(c));
    case Recipe::ConvectiveSnowfall:
        return c.sf * convectiveShare(c) * 0.5;
    case Recipe::LargeScaleSnowfall:
        return c.sf * (1.0 - convectiveShare(c) * 0.5);
    case Recipe::SnowDepth:
        return snowDepth(c);
    case Recipe::SnowDepthMetres:
        // Water equivalent over density: 1000 kg m**-3 of water.
        return snowDepth(c) * 1000.0 / snowDensity(c);
    case Recipe::SnowDensity:
        return snowDensity(c);
    case Recipe::SnowAlbedo:
        return 0.85 - 0.3 * clamp01((tMean(c) - 245.0) / 28.0) + 0.02 * e;
    case Recipe::SnowCover:
        return 100.0 * clamp01(snowDepth(c) / 0.05);
    case Recipe::Snowmelt:
        return snowDepth(c) > 0.0 && c.t2m > 273.15
                   ? std::min(0.002, (c.t2m - 273.15) * 1.5e-4 * (0.5 + c.own))
                   : 0.0;
    case Recipe::SnowEvaporation:
        // ERA5's sign convention: evaporation is negative.
        return snowDepth(c) > 0.0 ? -8e-6 * (0.5 + c.own) : 0.0;
    case Recipe::Evaporation:
        return evaporation(c);
    case Recipe::PotentialEvaporation:
        return evaporation(c) * 1.6;
    case Recipe::BareSoilEvaporation:
        return evaporation(c) * 0.3 * c.land;
    case Recipe::OpenWaterEvaporation:
        return evaporation(c) * 0.05 * c.land;
    case Recipe::CanopyEvaporation:
        return evaporation(c) * 0.1 * c.land;
    case Recipe::Transpiration:
        return evaporation(c) * 0.45 * c.land;
    case Recipe::SurfaceRunoff:
        return c.tp * 0.25 * c.land;
    case Recipe::SubSurfaceRunoff:
        return (c.tp * 0.1 + 2e-6 * c.own) * c.land;
    case Recipe::Runoff:
        return (c.tp * 0.35 + 2e-6 * c.own) * c.land;
    case Recipe::SkinReservoir:
        return std::min(0.0008, 0.0002 * c.tcc * c.land * (0.5 + c.own) + c.tp * 0.1);
    case Recipe::SoilWater1:
    case Recipe::SoilWater2:
    case Recipe::SoilWater3:
    case Recipe::SoilWater4: {
        const auto layer =
            static_cast<double>(static_cast<int>(recipe) - static_cast<int>(Recipe::SoilWater1));
        return c.land *
               (0.12 + 0.22 * (0.5 + 0.5 * c.cos4Lat) * (0.8 + 0.2 * c.lonWave) + 0.02 * layer + 0.01 * e);
    }
    case Recipe::LandSea:
        return c.land;
    case Recipe::SeaIce:
        return seaIce(c);
    case Recipe::Albedo:
        return albedo(c) + 0.01 * e;
    case Recipe::Roughness:
        return c.land * (0.03 + 1.6 * vegetationHigh(c)) + (1.0 - c.land) * 0.0002;
    case Recipe::LeafAreaHigh:
        return vegetationHigh(c) * 4.5 * (0.6 + 0.4 * c.cosLat);
    case Recipe::LeafAreaLow:
        return c.land * (1.0 - vegetationHigh(c)) * 0.7 * 3.0;
    case Recipe::VegetationHigh:
        return vegetationHigh(c);
    case Recipe::VegetationLow:
        return c.land * (1.0 - vegetationHigh(c)) * 0.7;
    case Recipe::Geopotential:
        if (!lv.pressure) {
            return kGravity * c.orography; // the surface's: orography
        }
        // Higher where the column is warm (the tropics), with the synoptic waves of the pressure.
        return kGravity *
               (h * (1.0 + 0.06 * (c.cosLat * c.cosLat - 0.5)) +
                80.0 * c.synoptic * 4.0 * c.sinLat2 * (1.0 - c.sinLat2) * (1.0 + h / 6000.0) + 5.0 * e);
    case Recipe::SolarDown:
        return solarDown(c);
    case Recipe::SolarDownClear:
        return clearSkySolar(c);
    case Recipe::SolarNet:
        return solarDown(c) * (1.0 - albedo(c));
    case Recipe::SolarNetClear:
        return clearSkySolar(c) * (1.0 - albedo(c));
    case Recipe::TopIncident:
        return kSecondsPerHour * kSolarConstant * c.sun;
    case Recipe::TopSolarNet:
        return kSecondsPerHour * kSolarConstant * c.sun * (0.72 - 0.25 * c.tcc);
    case Recipe::DirectSolar:
        return solarDown(c) * 0.85 * (1.0 - c.tcc);
    case Recipe::DirectSolarClear:
        return clearSkySolar(c) * 0.85;
    case Recipe::Ultraviolet:
        return solarDown(c) * 0.04;
    case Recipe::ThermalDown:
        return thermalEmission(c.t2m) * (0.72 + 0.2 * c.tcc);
    case Recipe::ThermalDownClear:
        return thermalEmission(c.t2m) * 0.72;
    case Recipe::ThermalNet:
        return thermalEmission(c.t2m) * (0.72 + 0.2 * c.tcc - 0.99);
    case Recipe::ThermalNetClear:
        return thermalEmission(c.t2m) * (0.72 - 0.99);
    case Recipe::TopThermalNet:
        return -thermalEmission(0.86 * c.t2m) * (1.0 - 0.2 * c.tcc);
    case Recipe::LatentHeat:
        // Downward positive, as ERA5 has it: the surface loses heat by evaporation.
        return -kSecondsPerHour *
               (10.0 + 170.0 * c.cosLat * c.cosLat * (1.0 - 0.6 * c.land) * (0.4 + 0.6 * c.sun)) *
               (0.8 + 0.4 * c.own);
    case Recipe::SensibleHeat:
        return kSecondsPerHour * (12.0 * (1.0 - c.sun) - (130.0 * c.land + 20.0 * (1.0 - c.land)) * c.sun) *
               (0.8 + 0.4 * c.own);
    case Recipe::LevelTemperature:
        return levelTemperature(c, lv);
    case Recipe::LevelU: {
        // The trade winds and westerlies strengthen with height, with a jet at ~35 degrees, ~11 km.
        const double jet =
            42.0 * std::exp(-square((c.absLat - 35.0) / 12.0)) * std::exp(-square((h - 11000.0) / 5000.0));
        return c.u10 * (1.0 + std::min(h, 12000.0) / 7000.0) + jet + 2.0 * e;
    }
    case Recipe::LevelV:
        return c.v10 * (1.0 + std::min(h, 12000.0) / 6000.0) + 1.5 * e;
    case Recipe::LevelW:
        return 0.35 * c.lonWave * c.cos4Lat * std::sin(kPi * std::min(1.0, lv.hPa / 1000.0)) + 0.25 * e;
    case Recipe::LevelRelativeHumidity:
        return levelRelativeHumidity(c, lv);
    case Recipe::LevelHumidity:
        if (lv.hPa < 100.0) {
            return 2.5e-6 * (0.8 + 0.4 * c.own); // the dry stratosphere
        }
        return levelRelativeHumidity(c, lv) / 100.0 * saturationHumidity(levelTemperature(c, lv), lv.hPa);
    case Recipe::LevelVorticity:
        return 6e-5 * c.sinLat * c.synoptic * (0.5 + 0.5 * std::exp(-square((h - 9000.0) / 6000.0))) +
               1.5e-5 * e;
    case Recipe::LevelDivergence:
        return 1.5e-5 * c.lonWave * c.cos4Lat * std::cos(kPi * std::min(1.0, lv.hPa / 1000.0)) + 0.8e-5 * e;
    case Recipe::LevelPotentialVorticity:
        // Small in the troposphere, large in the stratosphere; its sign the hemisphere's.
        return c.sinLat * (0.35e-6 + 1.4e-6 * std::clamp((h - 7000.0) / 6000.0, 0.0, 3.0)) + 0.05e-6 * e;
    case Recipe::LevelCloud:
        return clamp01(c.tcc * std::exp(-square((h - 3500.0) / 3500.0)) * (0.6 + 0.8 * c.own));
    case Recipe::LevelOzone:
        // The ozone layer, peaking at ~32 km (~10 hPa).
        return 1.2e-5 * std::exp(-square((h - 32000.0) / 9000.0)) + 4e-8 * (1.0 + 0.2 * e);
    case Recipe::LevelLiquid:
        return levelTemperature(c, lv) > 258.0
                   ? 2.5e-4 * c.tcc * std::exp(-square((h - 2500.0) / 2500.0)) * (0.5 + c.own)
                   : 0.0;
    case Recipe::LevelIce:
        return levelTemperature(c, lv) < 268.0
                   ? 8e-5 * c.tcc * std::exp(-square((h - 7000.0) / 3000.0)) * (0.5 + c.own)
                   : 0.0;
    case Recipe::LevelRain:
        return levelTemperature(c, lv) > 273.15 && h < 4000.0 ? c.tp * 0.06 * (1.0 - h / 4000.0) : 0.0;
    case Recipe::LevelSnow:
        return levelTemperature(c, lv) <= 273.15 && h < 7000.0 ? c.tp * 0.05 * (1.0 - h / 7000.0) : 0.0;
    case Recipe::Generic:
        break;
    }
    // Sparse like precipitation for amounts that cannot be negative; else a smooth field.
    const double p = rule.accumulated && rule.min >= 0.0
                         ? c.tp / 0.006
                         : 0.5 + 0.25 * c.cos4Lat * c.lonWave + 0.1 * c.cosLat * c.diurnal + 0.1 * e;
    return rule.min + clamp01(p) * (rule.max - rule.min);
}

} // namespace

SyntheticWeather::SyntheticWeather(std::uint64_t seed, const Grid& grid)
    : seed_(seed)
    , grid_(grid) {
    for (double lat : grid.latitudes) {
        const double phi = lat * std::numbers::pi / 180.0;
        sinLat_.push_back(std::sin(phi));
        sinLat2_.push_back(std::sin(phi) * std::sin(phi));
        cosLat_.push_back(std::cos(phi));
        cos4Lat_.push_back(std::cos(4.0 * phi));
        cos6Lat_.push_back(std::cos(6.0 * phi));
    }
    for (double lon : grid.longitudes) {
        lonWave_.push_back(std::sin(2.0 * lon * std::numbers::pi / 180.0 + static_cast<double>(seed % 7)));
    }
    // Continents of a made-up planet, the same for every seed: a few long waves, land where they
    // rise above a threshold, mountains where they rise further.
    relief_.resize(grid.points());
    for (std::size_t i = 0; i < grid.latitudes.size(); ++i) {
        const double phi = grid.latitudes[i] * kPi / 180.0;
        for (std::size_t j = 0; j < grid.longitudes.size(); ++j) {
            const double lambda = grid.longitudes[j] * kPi / 180.0;
            relief_[i * grid.longitudes.size() + j] =
                3500.0 * (0.6 * std::sin(3.0 * lambda + 0.7) * std::cos(2.0 * phi) +
                          0.4 * std::sin(5.0 * lambda + 1.3) * std::sin(3.0 * phi + 0.4) +
                          0.15 * std::sin(11.0 * lambda) * std::cos(7.0 * phi));
        }
    }
}

void SyntheticWeather::fill(std::int64_t hour1900, std::optional<double> levelHpa,
                            std::span<const Variable> variables,
                            std::vector<std::vector<double>>& out) const {
    const std::size_t nlat = grid_.latitudes.size();
    const std::size_t nlon = grid_.longitudes.size();
    out.resize(variables.size());
    std::vector<Rule> rules;
    for (std::size_t b = 0; b < variables.size(); ++b) {
        out[b].resize(nlat * nlon);
        rules.push_back(ruleOf(variables[b]));
    }
    Level level;
    if (levelHpa) {
        level.pressure = true;
        level.hPa = *levelHpa;
        level.height = standardHeight(*levelHpa);
        level.key = static_cast<std::uint64_t>(std::lround(*levelHpa));
    }
    const auto hourOfDay = static_cast<double>(((hour1900 % 24) + 24) % 24);
    const auto t = static_cast<std::uint64_t>(hour1900);
    // The sun's declination over the year (days since 1900-01-01 in tropical years; the December
    // solstice ~10 days before the year's start).
    const double dayOfYear = std::fmod(static_cast<double>(hour1900) / 24.0, 365.2422);
    const double declination = -23.44 * kPi / 180.0 * std::cos(2.0 * kPi * (dayOfYear + 10.0) / 365.2422);
    std::vector<double> diurnal(nlon);
    std::vector<double> cosHourAngle(nlon);
    std::vector<double> synoptic(nlon);
    for (std::size_t j = 0; j < nlon; ++j) {
        // Local solar time peaks in the afternoon (15 h). Cells are keyed by their global grid
        // position so a region holds the same values as the globe there.
        diurnal[j] =
            std::cos(2.0 * std::numbers::pi * (hourOfDay + grid_.longitudes[j] / 15.0 - 15.0) / 24.0);
        cosHourAngle[j] = std::cos(2.0 * kPi * (hourOfDay + grid_.longitudes[j] / 15.0 - 12.0) / 24.0);
        // Pressure systems drifting east, a wave every 120 degrees, once round in 4 days.
        synoptic[j] =
            std::sin(3.0 * grid_.longitudes[j] * kPi / 180.0 -
                     2.0 * kPi * static_cast<double>(hour1900) / 96.0 + static_cast<double>(seed_ % 5));
    }
    Cell c{};
    for (std::size_t i = 0; i < nlat; ++i) {
        const auto row = static_cast<std::uint64_t>(std::lround((grid_.latitudes[i] + 90.0) * 4.0));
        c.sinLat = sinLat_[i];
        c.sinLat2 = sinLat2_[i];
        c.cosLat = cosLat_[i];
        c.cos4Lat = cos4Lat_[i];
        c.cos6Lat = cos6Lat_[i];
        c.absLat = std::fabs(grid_.latitudes[i]);
        for (std::size_t j = 0; j < nlon; ++j) {
            double lon = std::fmod(grid_.longitudes[j] + 360.0, 360.0);
            const auto col = static_cast<std::uint64_t>(std::lround(lon * 4.0)) % 1440;
            const std::size_t k = i * nlon + j;
            const std::uint64_t cell = row * 2048 + col;
            c.n1 = noise(seed_, t, cell, 1);
            c.n2 = noise(seed_, t, cell, 2);
            c.n3 = noise(seed_, t, cell, 3);
            c.rain = noise(seed_, t / 3, cell / 8, 4);
            c.lonWave = lonWave_[j];
            c.diurnal = diurnal[j];
            c.synoptic = synoptic[j];
            c.sun = std::max(0.0, c.sinLat * std::sin(declination) +
                                      c.cosLat * std::cos(declination) * cosHourAngle[j]);
            const double relief = relief_[k];
            c.land = clamp01((relief - 500.0) / 300.0);
            c.orography = std::max(0.0, relief - 650.0) * 1.1;
            // The seed's six, exactly as they have always been computed.
            const double t2m =
                301.0 - 52.0 * sinLat2_[i] + 6.0 * cosLat_[i] * diurnal[j] + 4.0 * (c.n1 - 0.5);
            const double tp = c.rain > 0.88 ? (c.rain - 0.88) / 0.12 * 0.004 * (0.5 + c.n2) : 0.0;
            c.t2m = t2m;
            c.u10 = -6.0 * cos4Lat_[i] + 3.0 * (c.n2 - 0.5) * 2.0;
            c.v10 = 2.5 * lonWave_[j] * cosLat_[i] + 2.0 * (c.n3 - 0.5) * 2.0;
            c.tcc = std::clamp(0.55 + 0.35 * lonWave_[j] * cos4Lat_[i] + (c.n1 - 0.5) * 0.6, 0.0, 1.0);
            c.tp = tp;
            c.sf = t2m < 273.15 ? tp : 0.0;
            c.speed = std::hypot(c.u10, c.v10);
            for (std::size_t b = 0; b < rules.size(); ++b) {
                const Rule& rule = rules[b];
                if (rule.seed) {
                    out[b][k] = valueOf(rule.recipe, c, level, rule);
                    continue;
                }
                c.own = noise(seed_, t, cell, rule.channel + level.key);
                const double value = valueOf(rule.recipe, c, level, rule) * rule.factor;
                out[b][k] = std::clamp(value, std::min(rule.min, rule.max), std::max(rule.min, rule.max));
            }
        }
    }
}

std::string syntheticNotice(std::uint64_t seed, const std::string& layout) {
    return "true: every value in this file is made up by a formula (seed " + std::to_string(seed) +
           "); it only imitates the layout of " + layout + " ERA5 data";
}

std::string nowStamp() {
    return formatUtcNow("%Y-%m-%d %H:%M:%S GMT");
}

} // namespace synth

} // namespace isobar
