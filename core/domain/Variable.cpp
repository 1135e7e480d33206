#include "domain/Variable.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

namespace isobar {

namespace {

// How a quantity's values are stored in the table: units and conversion from ERA5's units.
struct Storage {
    std::string_view tableUnits;
    Conversion conversion;
};

constexpr Storage storageOf(Quantity q, std::string_view fileUnits) {
    switch (q) {
    case Quantity::Temperature:
        return {"degC", Conversion::KelvinToCelsius};
    case Quantity::WaterDepth:
        return {"mm", Conversion::MetresToMillimetres};
    case Quantity::Speed:
    case Quantity::Fraction:
    case Quantity::AsStored:
        break;
    }
    return {fileUnits, Conversion::None};
}

using Aliases = std::array<std::string_view, 4>;

// One parameter: its table column is its short name (the seed's six keep the seed's names).
constexpr VariableSpec param(std::string_view shortName, std::string_view column, int paramId,
                             Quantity quantity, std::string_view fileUnits, std::string_view longName,
                             Timing timing, std::string_view gribName, Aliases aliases = {},
                             std::string_view ncarName = {}, double typicalMin = 0.0, double typicalMax = 1.0,
                             std::string_view standardName = {}, bool pressureLevels = false) {
    const Storage s = storageOf(quantity, fileUnits);
    return VariableSpec{shortName,
                        column.empty() ? shortName : column,
                        fileUnits,
                        s.tableUnits,
                        longName,
                        quantity,
                        s.conversion,
                        aliases,
                        timing == Timing::Accumulated,
                        paramId,
                        gribName,
                        ncarName,
                        typicalMin,
                        typicalMax,
                        timing,
                        standardName,
                        pressureLevels};
}

constexpr Quantity kT = Quantity::Temperature;
constexpr Quantity kSpeed = Quantity::Speed;
constexpr Quantity kFraction = Quantity::Fraction;
constexpr Quantity kWater = Quantity::WaterDepth;
constexpr Quantity kAsIs = Quantity::AsStored;
constexpr Timing kInst = Timing::Instant;
constexpr Timing kAcc = Timing::Accumulated;
constexpr Timing kRate = Timing::MeanRate;
constexpr Timing kExt = Timing::Extreme;
constexpr bool kPl = true;

// The ERA5 parameters (single levels, ERA5-Land, pressure levels) by ECMWF's parameter database:
// short name as the CDS NetCDF names the variable, paramId, what it measures, the units ERA5 stores,
// the long name the CDS writes and how it relates to time. Aliases are the other names files use
// (ecCodes short names, the new CDS's avg_* names for mean rates, CDS request names).
// Adding a variable is adding a line; the first six are the seed's, whose columns keep the seed's
// names, in the seed table's column order.
// clang-format off
constexpr std::array kCatalog{
    // The seed's six.
    param("t2m", "temperature_2m", 167, kT, "K", "2 metre temperature", kInst, "2t", {"2t", "var_2t", "2m_temperature", "2_metre_temperature"}, "VAR_2T", 180.0, 335.0),
    param("u10", "zonal_wind_10m", 165, kSpeed, "m s**-1", "10 metre U wind component", kInst, "10u", {"10u", "var_10u", "10m_u_component_of_wind", "10_metre_u_wind_component"}, "VAR_10U", -40.0, 40.0),
    param("v10", "meridional_wind_10m", 166, kSpeed, "m s**-1", "10 metre V wind component", kInst, "10v", {"10v", "var_10v", "10m_v_component_of_wind", "10_metre_v_wind_component"}, "VAR_10V", -40.0, 40.0),
    param("tcc", "total_cloud_cover", 164, kFraction, "(0 - 1)", "Total cloud cover", kInst, "tcc", {"var_tcc", "total_cloud_cover"}, "TCC", 0.0, 1.0, "cloud_area_fraction"),
    param("tp", "total_precipitation", 228, kWater, "m", "Total precipitation", kAcc, "tp", {"var_tp", "total_precipitation"}, "TP", 0.0, 0.05),
    param("sf", "snowfall", 144, kWater, "m of water equivalent", "Snowfall", kAcc, "sf", {"var_sf", "snowfall"}, "SF", 0.0, 0.02),
    // Single levels: temperatures and humidity.
    param("d2m", "", 168, kT, "K", "2 metre dewpoint temperature", kInst, "2d", {"2d", "var_2d", "2m_dewpoint_temperature"}, "VAR_2D", 180.0, 310.0, "dew_point_temperature"),
    param("skt", "", 235, kT, "K", "Skin temperature", kInst, "skt", {"skin_temperature"}, "SKT", 180.0, 340.0),
    param("sst", "", 34, kT, "K", "Sea surface temperature", kInst, "sst", {"sstk", "sea_surface_temperature"}, "SSTK", 270.0, 310.0, "sea_surface_temperature"),
    param("mx2t", "", 201, kT, "K", "Maximum temperature at 2 metres since previous post-processing", kExt, "mx2t", {"maximum_2m_temperature_since_previous_post_processing"}, "MX2T", 180.0, 335.0),
    param("mn2t", "", 202, kT, "K", "Minimum temperature at 2 metres since previous post-processing", kExt, "mn2t", {"minimum_2m_temperature_since_previous_post_processing"}, "MN2T", 180.0, 335.0),
    param("stl1", "", 139, kT, "K", "Soil temperature level 1", kInst, "stl1", {"soil_temperature_level_1"}, "STL1", 200.0, 330.0),
    param("stl2", "", 170, kT, "K", "Soil temperature level 2", kInst, "stl2", {"soil_temperature_level_2"}, "STL2", 200.0, 330.0),
    param("stl3", "", 183, kT, "K", "Soil temperature level 3", kInst, "stl3", {"soil_temperature_level_3"}, "STL3", 200.0, 330.0),
    param("stl4", "", 236, kT, "K", "Soil temperature level 4", kInst, "stl4", {"soil_temperature_level_4"}, "STL4", 200.0, 330.0),
    param("tsn", "", 238, kT, "K", "Temperature of snow layer", kInst, "tsn", {"temperature_of_snow_layer"}, "TSN", 200.0, 280.0),
    param("istl1", "", 35, kT, "K", "Ice temperature layer 1", kInst, "istl1", {"ice_temperature_layer_1"}, "ISTL1", 200.0, 280.0),
    param("tcw", "", 136, kAsIs, "kg m**-2", "Total column water", kInst, "tcw", {"total_column_water"}, "TCW", 0.0, 80.0),
    param("tcwv", "", 137, kAsIs, "kg m**-2", "Total column water vapour", kInst, "tcwv", {"total_column_water_vapour"}, "TCWV", 0.0, 80.0),
    param("tclw", "", 78, kAsIs, "kg m**-2", "Total column cloud liquid water", kInst, "tclw", {"total_column_cloud_liquid_water"}, "TCLW", 0.0, 2.0),
    param("tciw", "", 79, kAsIs, "kg m**-2", "Total column cloud ice water", kInst, "tciw", {"total_column_cloud_ice_water"}, "TCIW", 0.0, 2.0),
    param("tcrw", "", 228089, kAsIs, "kg m**-2", "Total column rain water", kInst, "tcrw", {"total_column_rain_water"}, "", 0.0, 2.0),
    param("tcsw", "", 228090, kAsIs, "kg m**-2", "Total column snow water", kInst, "tcsw", {"total_column_snow_water"}, "", 0.0, 2.0),
    param("tco3", "", 206, kAsIs, "kg m**-2", "Total column ozone", kInst, "tco3", {"total_column_ozone"}, "TCO3", 0.004, 0.01),
    // Pressure.
    param("sp", "", 134, kAsIs, "Pa", "Surface pressure", kInst, "sp", {"surface_pressure"}, "SP", 50000.0, 105000.0, "surface_air_pressure"),
    param("msl", "", 151, kAsIs, "Pa", "Mean sea level pressure", kInst, "msl", {"mean_sea_level_pressure"}, "MSL", 94000.0, 106000.0, "air_pressure_at_mean_sea_level"),
    // Wind.
    param("u100", "", 228246, kSpeed, "m s**-1", "100 metre U wind component", kInst, "100u", {"100u", "var_100u", "100m_u_component_of_wind"}, "VAR_100U", -50.0, 50.0),
    param("v100", "", 228247, kSpeed, "m s**-1", "100 metre V wind component", kInst, "100v", {"100v", "var_100v", "100m_v_component_of_wind"}, "VAR_100V", -50.0, 50.0),
    param("u10n", "", 228131, kSpeed, "m s**-1", "10 metre u-component of neutral wind", kInst, "u10n", {"10m_u_component_of_neutral_wind"}, "U10N", -40.0, 40.0),
    param("v10n", "", 228132, kSpeed, "m s**-1", "10 metre v-component of neutral wind", kInst, "v10n", {"10m_v_component_of_neutral_wind"}, "V10N", -40.0, 40.0),
    param("si10", "", 207, kSpeed, "m s**-1", "10 metre wind speed", kInst, "10si", {"10si", "10m_wind_speed"}, "VAR_10SI", 0.0, 40.0, "wind_speed"),
    param("i10fg", "", 228029, kSpeed, "m s**-1", "Instantaneous 10 metre wind gust", kInst, "i10fg", {"instantaneous_10m_wind_gust"}, "I10FG", 0.0, 60.0),
    param("fg10", "", 49, kSpeed, "m s**-1", "Maximum 10 metre wind gust since previous post-processing", kExt, "10fg", {"10fg", "10m_wind_gust_since_previous_post_processing"}, "VAR_10FG", 0.0, 60.0, "wind_speed_of_gust"),
    param("ewss", "", 180, kAsIs, "N m**-2 s", "Eastward turbulent surface stress", kAcc, "ewss", {"eastward_turbulent_surface_stress"}, "EWSS", -5000.0, 5000.0),
    param("nsss", "", 181, kAsIs, "N m**-2 s", "Northward turbulent surface stress", kAcc, "nsss", {"northward_turbulent_surface_stress"}, "NSSS", -5000.0, 5000.0),
    // Clouds, boundary layer, convection.
    param("lcc", "", 186, kFraction, "(0 - 1)", "Low cloud cover", kInst, "lcc", {"low_cloud_cover"}, "LCC", 0.0, 1.0),
    param("mcc", "", 187, kFraction, "(0 - 1)", "Medium cloud cover", kInst, "mcc", {"medium_cloud_cover"}, "MCC", 0.0, 1.0),
    param("hcc", "", 188, kFraction, "(0 - 1)", "High cloud cover", kInst, "hcc", {"high_cloud_cover"}, "HCC", 0.0, 1.0),
    param("cbh", "", 228023, kAsIs, "m", "Cloud base height", kInst, "cbh", {"cloud_base_height"}, "CBH", 0.0, 10000.0),
    param("blh", "", 159, kAsIs, "m", "Boundary layer height", kInst, "blh", {"boundary_layer_height"}, "BLH", 10.0, 5000.0, "atmosphere_boundary_layer_thickness"),
    param("cape", "", 59, kAsIs, "J kg**-1", "Convective available potential energy", kInst, "cape", {"convective_available_potential_energy"}, "CAPE", 0.0, 5000.0),
    param("cin", "", 228001, kAsIs, "J kg**-1", "Convective inhibition", kInst, "cin", {"convective_inhibition"}, "CIN", 0.0, 1000.0),
    param("kx", "", 260121, kAsIs, "K", "K index", kInst, "kx", {"k_index"}, "KX", -20.0, 50.0),
    param("totalx", "", 260123, kAsIs, "K", "Total totals index", kInst, "totalx", {"total_totals_index"}, "TOTALX", 0.0, 70.0),
    param("ptype", "", 260015, kAsIs, "(Code table 4.201)", "Precipitation type", kInst, "ptype", {"precipitation_type"}, "PTYPE", 0.0, 12.0),
    param("crr", "", 228218, kAsIs, "kg m**-2 s**-1", "Convective rain rate", kInst, "crr", {"convective_rain_rate"}, "CRR", 0.0, 0.01),
    param("lsrr", "", 228219, kAsIs, "kg m**-2 s**-1", "Large scale rain rate", kInst, "lsrr", {"large_scale_rain_rate"}, "LSRR", 0.0, 0.01),
    // Precipitation, snow, evaporation, runoff: depths of water, in mm.
    param("cp", "", 143, kWater, "m", "Convective precipitation", kAcc, "cp", {"convective_precipitation"}, "CP", 0.0, 0.05),
    param("lsp", "", 142, kWater, "m", "Large-scale precipitation", kAcc, "lsp", {"large_scale_precipitation"}, "LSP", 0.0, 0.05),
    param("csf", "", 239, kWater, "m of water equivalent", "Convective snowfall", kAcc, "csf", {"convective_snowfall"}, "CSF", 0.0, 0.02),
    param("lsf", "", 240, kWater, "m of water equivalent", "Large-scale snowfall", kAcc, "lsf", {"large_scale_snowfall"}, "LSF", 0.0, 0.02),
    param("sd", "", 141, kWater, "m of water equivalent", "Snow depth", kInst, "sd", {"snow_depth"}, "SD", 0.0, 10.0, "lwe_thickness_of_surface_snow_amount"),
    param("sde", "", 3066, kAsIs, "m", "Snow depth", kInst, "sde", {"snow_depth_m"}, "", 0.0, 10.0, "surface_snow_thickness"),
    param("rsn", "", 33, kAsIs, "kg m**-3", "Snow density", kInst, "rsn", {"snow_density"}, "RSN", 100.0, 450.0),
    param("asn", "", 32, kFraction, "(0 - 1)", "Snow albedo", kInst, "asn", {"snow_albedo"}, "ASN", 0.5, 0.9),
    param("snowc", "", 260038, kAsIs, "%", "Snow cover", kInst, "snowc", {"snow_cover"}, "", 0.0, 100.0),
    param("smlt", "", 45, kWater, "m of water equivalent", "Snowmelt", kAcc, "smlt", {"snowmelt"}, "SMLT", 0.0, 0.01),
    param("es", "", 44, kWater, "m of water equivalent", "Snow evaporation", kAcc, "es", {"snow_evaporation"}, "ES", -0.001, 0.001),
    param("e", "", 182, kWater, "m of water equivalent", "Evaporation", kAcc, "e", {"evaporation", "total_evaporation"}, "E", -0.002, 0.001),
    param("pev", "", 228251, kWater, "m", "Potential evaporation", kAcc, "pev", {"potential_evaporation"}, "PEV", -0.003, 0.001),
    param("evabs", "", 228101, kWater, "m of water equivalent", "Evaporation from bare soil", kAcc, "evabs", {"evaporation_from_bare_soil"}, "", -0.002, 0.001),
    param("evaow", "", 228102, kWater, "m of water equivalent", "Evaporation from open water surfaces excluding oceans", kAcc, "evaow", {"evaporation_from_open_water_surfaces_excluding_oceans"}, "", -0.002, 0.001),
    param("evatc", "", 228100, kWater, "m of water equivalent", "Evaporation from the top of canopy", kAcc, "evatc", {"evaporation_from_the_top_of_canopy"}, "", -0.002, 0.001),
    param("evavt", "", 228103, kWater, "m of water equivalent", "Evaporation from vegetation transpiration", kAcc, "evavt", {"evaporation_from_vegetation_transpiration"}, "", -0.002, 0.001),
    param("ro", "", 205, kWater, "m", "Runoff", kAcc, "ro", {"runoff"}, "RO", 0.0, 0.01),
    param("sro", "", 8, kWater, "m", "Surface runoff", kAcc, "sro", {"surface_runoff"}, "SRO", 0.0, 0.01),
    param("ssro", "", 9, kWater, "m", "Sub-surface runoff", kAcc, "ssro", {"sub_surface_runoff"}, "SSRO", 0.0, 0.01),
    param("src", "", 198, kWater, "m of water equivalent", "Skin reservoir content", kInst, "src", {"skin_reservoir_content"}, "SRC", 0.0, 0.001),
    // Soil and surface.
    param("swvl1", "", 39, kAsIs, "m**3 m**-3", "Volumetric soil water layer 1", kInst, "swvl1", {"volumetric_soil_water_layer_1"}, "SWVL1", 0.0, 0.8),
    param("swvl2", "", 40, kAsIs, "m**3 m**-3", "Volumetric soil water layer 2", kInst, "swvl2", {"volumetric_soil_water_layer_2"}, "SWVL2", 0.0, 0.8),
    param("swvl3", "", 41, kAsIs, "m**3 m**-3", "Volumetric soil water layer 3", kInst, "swvl3", {"volumetric_soil_water_layer_3"}, "SWVL3", 0.0, 0.8),
    param("swvl4", "", 42, kAsIs, "m**3 m**-3", "Volumetric soil water layer 4", kInst, "swvl4", {"volumetric_soil_water_layer_4"}, "SWVL4", 0.0, 0.8),
    param("lsm", "", 172, kFraction, "(0 - 1)", "Land-sea mask", kInst, "lsm", {"land_sea_mask"}, "LSM", 0.0, 1.0, "land_binary_mask"),
    param("siconc", "", 31, kFraction, "(0 - 1)", "Sea ice area fraction", kInst, "ci", {"ci", "sea_ice_cover"}, "CI", 0.0, 1.0, "sea_ice_area_fraction"),
    param("fal", "", 243, kFraction, "(0 - 1)", "Forecast albedo", kInst, "fal", {"forecast_albedo"}, "FAL", 0.0, 1.0),
    param("fsr", "", 244, kAsIs, "m", "Forecast surface roughness", kInst, "fsr", {"forecast_surface_roughness"}, "FSR", 0.0, 3.0),
    param("lai_hv", "", 66, kAsIs, "m**2 m**-2", "Leaf area index, high vegetation", kInst, "lai_hv", {"leaf_area_index_high_vegetation"}, "LAI_HV", 0.0, 7.0),
    param("lai_lv", "", 67, kAsIs, "m**2 m**-2", "Leaf area index, low vegetation", kInst, "lai_lv", {"leaf_area_index_low_vegetation"}, "LAI_LV", 0.0, 7.0),
    param("cvh", "", 28, kFraction, "(0 - 1)", "High vegetation cover", kInst, "cvh", {"high_vegetation_cover"}, "CVH", 0.0, 1.0),
    param("cvl", "", 27, kFraction, "(0 - 1)", "Low vegetation cover", kInst, "cvl", {"low_vegetation_cover"}, "CVL", 0.0, 1.0),
    param("z", "", 129, kAsIs, "m**2 s**-2", "Geopotential", kInst, "z", {"geopotential"}, "Z", -5000.0, 500000.0, "geopotential", kPl),
    // Radiation and heat fluxes: accumulations in J m**-2 ...
    param("ssrd", "", 169, kAsIs, "J m**-2", "Surface solar radiation downwards", kAcc, "ssrd", {"surface_solar_radiation_downwards"}, "SSRD", 0.0, 4.0e6),
    param("strd", "", 175, kAsIs, "J m**-2", "Surface thermal radiation downwards", kAcc, "strd", {"surface_thermal_radiation_downwards"}, "STRD", 0.0, 2.0e6),
    param("ssr", "", 176, kAsIs, "J m**-2", "Surface net solar radiation", kAcc, "ssr", {"surface_net_solar_radiation"}, "SSR", 0.0, 4.0e6),
    param("str", "", 177, kAsIs, "J m**-2", "Surface net thermal radiation", kAcc, "str", {"surface_net_thermal_radiation"}, "STR", -1.0e6, 2.0e5),
    param("ssrdc", "", 228129, kAsIs, "J m**-2", "Surface solar radiation downward clear-sky", kAcc, "ssrdc", {"surface_solar_radiation_downward_clear_sky"}, "SSRDC", 0.0, 4.0e6),
    param("strdc", "", 228130, kAsIs, "J m**-2", "Surface thermal radiation downward clear-sky", kAcc, "strdc", {"surface_thermal_radiation_downward_clear_sky"}, "STRDC", 0.0, 2.0e6),
    param("ssrc", "", 210, kAsIs, "J m**-2", "Surface net solar radiation, clear sky", kAcc, "ssrc", {"surface_net_solar_radiation_clear_sky"}, "SSRC", 0.0, 4.0e6),
    param("strc", "", 211, kAsIs, "J m**-2", "Surface net thermal radiation, clear sky", kAcc, "strc", {"surface_net_thermal_radiation_clear_sky"}, "STRC", -1.0e6, 2.0e5),
    param("tisr", "", 212, kAsIs, "J m**-2", "TOA incident solar radiation", kAcc, "tisr", {"toa_incident_solar_radiation"}, "TISR", 0.0, 5.0e6),
    param("tsr", "", 178, kAsIs, "J m**-2", "Top net solar radiation", kAcc, "tsr", {"top_net_solar_radiation"}, "TSR", 0.0, 5.0e6),
    param("ttr", "", 179, kAsIs, "J m**-2", "Top net thermal radiation", kAcc, "ttr", {"top_net_thermal_radiation"}, "TTR", -1.2e6, 0.0),
    param("fdir", "", 228021, kAsIs, "J m**-2", "Total sky direct solar radiation at surface", kAcc, "fdir", {"total_sky_direct_solar_radiation_at_surface"}, "FDIR", 0.0, 4.0e6),
    param("cdir", "", 228022, kAsIs, "J m**-2", "Clear-sky direct solar radiation at surface", kAcc, "cdir", {"clear_sky_direct_solar_radiation_at_surface"}, "CDIR", 0.0, 4.0e6),
    param("uvb", "", 57, kAsIs, "J m**-2", "Downward UV radiation at the surface", kAcc, "uvb", {"downward_uv_radiation_at_the_surface"}, "UVB", 0.0, 5.0e5),
    param("slhf", "", 147, kAsIs, "J m**-2", "Surface latent heat flux", kAcc, "slhf", {"surface_latent_heat_flux"}, "SLHF", -2.0e6, 5.0e5),
    param("sshf", "", 146, kAsIs, "J m**-2", "Surface sensible heat flux", kAcc, "sshf", {"surface_sensible_heat_flux"}, "SSHF", -2.0e6, 1.0e6),
    // ... and mean rates in W m**-2 or kg m**-2 s**-1 (the new CDS names them avg_*).
    param("msdwswrf", "", 235035, kAsIs, "W m**-2", "Mean surface downward short-wave radiation flux", kRate, "msdwswrf", {"avg_sdswrf", "mean_surface_downward_short_wave_radiation_flux"}, "MSDWSWRF", 0.0, 1200.0),
    param("msdwlwrf", "", 235036, kAsIs, "W m**-2", "Mean surface downward long-wave radiation flux", kRate, "msdwlwrf", {"avg_sdlwrf", "mean_surface_downward_long_wave_radiation_flux"}, "MSDWLWRF", 50.0, 550.0),
    param("msnswrf", "", 235037, kAsIs, "W m**-2", "Mean surface net short-wave radiation flux", kRate, "msnswrf", {"avg_snswrf", "mean_surface_net_short_wave_radiation_flux"}, "MSNSWRF", 0.0, 1200.0),
    param("msnlwrf", "", 235038, kAsIs, "W m**-2", "Mean surface net long-wave radiation flux", kRate, "msnlwrf", {"avg_snlwrf", "mean_surface_net_long_wave_radiation_flux"}, "MSNLWRF", -300.0, 50.0),
    param("mtnswrf", "", 235039, kAsIs, "W m**-2", "Mean top net short-wave radiation flux", kRate, "mtnswrf", {"avg_tnswrf", "mean_top_net_short_wave_radiation_flux"}, "MTNSWRF", 0.0, 1400.0),
    param("mtnlwrf", "", 235040, kAsIs, "W m**-2", "Mean top net long-wave radiation flux", kRate, "mtnlwrf", {"avg_tnlwrf", "mean_top_net_long_wave_radiation_flux"}, "MTNLWRF", -350.0, -80.0),
    param("mtdwswrf", "", 235053, kAsIs, "W m**-2", "Mean top downward short-wave radiation flux", kRate, "mtdwswrf", {"avg_tdswrf", "mean_top_downward_short_wave_radiation_flux"}, "MTDWSWRF", 0.0, 1400.0),
    param("msdrswrf", "", 235058, kAsIs, "W m**-2", "Mean surface direct short-wave radiation flux", kRate, "msdrswrf", {"avg_sdirswrf", "mean_surface_direct_short_wave_radiation_flux"}, "MSDRSWRF", 0.0, 1100.0),
    param("msdwswrfcs", "", 235068, kAsIs, "W m**-2", "Mean surface downward short-wave radiation flux, clear sky", kRate, "msdwswrfcs", {"avg_sdswrfcs", "mean_surface_downward_short_wave_radiation_flux_clear_sky"}, "MSDWSWRFCS", 0.0, 1200.0),
    param("msdrswrfcs", "", 235059, kAsIs, "W m**-2", "Mean surface direct short-wave radiation flux, clear sky", kRate, "msdrswrfcs", {"avg_sdirswrfcs", "mean_surface_direct_short_wave_radiation_flux_clear_sky"}, "MSDRSWRFCS", 0.0, 1100.0),
    param("msshf", "", 235033, kAsIs, "W m**-2", "Mean surface sensible heat flux", kRate, "msshf", {"avg_ishf", "mean_surface_sensible_heat_flux"}, "MSSHF", -500.0, 300.0),
    param("mslhf", "", 235034, kAsIs, "W m**-2", "Mean surface latent heat flux", kRate, "mslhf", {"avg_slhtf", "mean_surface_latent_heat_flux"}, "MSLHF", -800.0, 200.0),
    param("mtpr", "", 235055, kAsIs, "kg m**-2 s**-1", "Mean total precipitation rate", kRate, "mtpr", {"avg_tprate", "mean_total_precipitation_rate"}, "MTPR", 0.0, 0.01),
    param("mcpr", "", 235030, kAsIs, "kg m**-2 s**-1", "Mean convective precipitation rate", kRate, "mcpr", {"avg_cpr", "mean_convective_precipitation_rate"}, "MCPR", 0.0, 0.01),
    param("mlspr", "", 235029, kAsIs, "kg m**-2 s**-1", "Mean large-scale precipitation rate", kRate, "mlspr", {"avg_lsprate", "mean_large_scale_precipitation_rate"}, "MLSPR", 0.0, 0.01),
    param("msr", "", 235031, kAsIs, "kg m**-2 s**-1", "Mean snowfall rate", kRate, "msr", {"avg_tsrwe", "mean_snowfall_rate"}, "MSR", 0.0, 0.005),
    param("mer", "", 235043, kAsIs, "kg m**-2 s**-1", "Mean evaporation rate", kRate, "mer", {"avg_ie", "mean_evaporation_rate"}, "MER", -0.001, 0.0005),
    param("mror", "", 235020, kAsIs, "kg m**-2 s**-1", "Mean runoff rate", kRate, "mror", {"avg_rorwe", "mean_runoff_rate"}, "MROR", 0.0, 0.005),
    // Pressure levels (z is above, with the surface's geopotential).
    param("t", "", 130, kT, "K", "Temperature", kInst, "t", {"temperature"}, "T", 180.0, 320.0, "air_temperature", kPl),
    param("u", "", 131, kSpeed, "m s**-1", "U component of wind", kInst, "u", {"u_component_of_wind"}, "U", -80.0, 80.0, "eastward_wind", kPl),
    param("v", "", 132, kSpeed, "m s**-1", "V component of wind", kInst, "v", {"v_component_of_wind"}, "V", -80.0, 80.0, "northward_wind", kPl),
    param("w", "", 135, kAsIs, "Pa s**-1", "Vertical velocity", kInst, "w", {"vertical_velocity"}, "W", -5.0, 5.0, "lagrangian_tendency_of_air_pressure", kPl),
    param("q", "", 133, kAsIs, "kg kg**-1", "Specific humidity", kInst, "q", {"specific_humidity"}, "Q", 0.0, 0.03, "specific_humidity", kPl),
    param("r", "", 157, kAsIs, "%", "Relative humidity", kInst, "r", {"relative_humidity"}, "R", 0.0, 100.0, "relative_humidity", kPl),
    param("vo", "", 138, kAsIs, "s**-1", "Vorticity (relative)", kInst, "vo", {"vorticity"}, "VO", -0.0005, 0.0005, "atmosphere_relative_vorticity", kPl),
    param("d", "", 155, kAsIs, "s**-1", "Divergence", kInst, "d", {"divergence"}, "D", -0.0005, 0.0005, "divergence_of_wind", kPl),
    param("pv", "", 60, kAsIs, "K m**2 kg**-1 s**-1", "Potential vorticity", kInst, "pv", {"potential_vorticity"}, "PV", -1.0e-5, 1.0e-5, "ertel_potential_vorticity", kPl),
    param("cc", "", 248, kFraction, "(0 - 1)", "Fraction of cloud cover", kInst, "cc", {"fraction_of_cloud_cover"}, "CC", 0.0, 1.0, "", kPl),
    param("o3", "", 203, kAsIs, "kg kg**-1", "Ozone mass mixing ratio", kInst, "o3", {"ozone_mass_mixing_ratio"}, "O3", 0.0, 2.0e-5, "mass_fraction_of_ozone_in_air", kPl),
    param("clwc", "", 246, kAsIs, "kg kg**-1", "Specific cloud liquid water content", kInst, "clwc", {"specific_cloud_liquid_water_content"}, "CLWC", 0.0, 0.001, "", kPl),
    param("ciwc", "", 247, kAsIs, "kg kg**-1", "Specific cloud ice water content", kInst, "ciwc", {"specific_cloud_ice_water_content"}, "CIWC", 0.0, 0.001, "", kPl),
    param("crwc", "", 75, kAsIs, "kg kg**-1", "Specific rain water content", kInst, "crwc", {"specific_rain_water_content"}, "CRWC", 0.0, 0.001, "", kPl),
    param("cswc", "", 76, kAsIs, "kg kg**-1", "Specific snow water content", kInst, "cswc", {"specific_snow_water_content"}, "CSWC", 0.0, 0.001, "", kPl),
};
// clang-format on

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

std::optional<Variable> findParamId(long paramId) {
    for (std::size_t i = 0; i < kCatalog.size(); ++i) {
        if (kCatalog[i].paramId == paramId) {
            return Variable(i);
        }
    }
    return std::nullopt;
}

std::optional<Variable> findVariable(const VariableClues& clues) {
    const std::string n = lower(clues.name);
    const std::string ln = lower(clues.longName);
    // Short names first across the whole catalog: sd and sde share the long name "Snow depth".
    for (std::size_t i = 0; i < kCatalog.size(); ++i) {
        if (n == kCatalog[i].shortName) {
            return Variable(i);
        }
    }
    for (std::size_t i = 0; i < kCatalog.size(); ++i) {
        if (!ln.empty() && ln == lower(kCatalog[i].longName)) {
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
    if (clues.paramId) {
        if (auto v = findParamId(*clues.paramId)) {
            return v;
        }
    }
    const std::string standard = lower(clues.standardName);
    if (!standard.empty()) {
        std::optional<Variable> only;
        for (std::size_t i = 0; i < kCatalog.size(); ++i) {
            if (standard == kCatalog[i].standardName) {
                if (only) {
                    return std::nullopt; // air_temperature: t2m or t? The standard name does not say.
                }
                only = Variable(i);
            }
        }
        return only;
    }
    return std::nullopt;
}

namespace {

bool isUnitChar(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '%' || c == '~' || c == '(' || c == ')';
}

} // namespace

std::string canonicalUnits(std::string_view units) {
    std::string u = lower(units);
    // "m/s", "kg/m2": what follows a slash has its exponent negated.
    std::vector<std::pair<std::string, int>> tokens;
    int sign = 1;
    std::size_t i = 0;
    while (i < u.size()) {
        const char c = u[i];
        if (c == '/') {
            sign = -1;
            ++i;
            continue;
        }
        if (!isUnitChar(c)) {
            ++i;
            continue;
        }
        std::string base;
        while (i < u.size() && isUnitChar(u[i])) {
            base += u[i++];
        }
        // An exponent: "**-2", "^-2", "-2", "2".
        std::size_t j = i;
        while (j < u.size() && (u[j] == '*' || u[j] == '^')) {
            ++j;
        }
        int exponent = 1;
        if (j < u.size() && (u[j] == '-' || u[j] == '+' || std::isdigit(static_cast<unsigned char>(u[j])))) {
            std::size_t k = j + (u[j] == '-' || u[j] == '+' ? 1 : 0);
            if (k < u.size() && std::isdigit(static_cast<unsigned char>(u[k]))) {
                int value = 0;
                while (k < u.size() && std::isdigit(static_cast<unsigned char>(u[k]))) {
                    value = value * 10 + (u[k++] - '0');
                }
                exponent = u[j] == '-' ? -value : value;
                i = k;
            }
        }
        tokens.emplace_back(base, sign * exponent);
    }
    std::sort(tokens.begin(), tokens.end());
    std::string out;
    for (const auto& [base, exponent] : tokens) {
        out += (out.empty() ? "" : " ") + base + (exponent == 1 ? "" : "^" + std::to_string(exponent));
    }
    return out;
}

std::string_view describe(Quantity q) {
    switch (q) {
    case Quantity::Temperature:
        return "temperature";
    case Quantity::Speed:
        return "speed";
    case Quantity::Fraction:
        return "fraction";
    case Quantity::WaterDepth:
        return "depth of water";
    case Quantity::AsStored:
        break;
    }
    return "as stored";
}

std::string_view describe(Timing t) {
    switch (t) {
    case Timing::Instant:
        return "instantaneous";
    case Timing::Accumulated:
        return "accumulated";
    case Timing::MeanRate:
        return "mean rate";
    case Timing::Extreme:
        return "extreme since the previous post-processing";
    }
    return "instantaneous";
}

} // namespace isobar
