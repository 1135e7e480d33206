// SPDX-License-Identifier: GPL-3.0-or-later

#include "domain/Variable.h"

#include "domain/ParameterDatabase.h"
#include "util/Error.h"
#include "util/Format.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

namespace isobar {

namespace {

// What Isobar knows of an ERA5 parameter that ECMWF's database does not say: the CDS's netCDF
// name (the key and, but for the seed's six, the column), what the parameter measures where its
// units do not tell (total precipitation is in m, as boundary layer height), how it relates to time
// in ERA5, the other names files give it, where its values usually lie, and whether it is one of
// the pressure-level product's. Its name and units are ECMWF's (see catalog()).
struct Note {
    std::string_view shortName;
    std::string_view column;
    int paramId;
    Quantity quantity;
    Timing timing;
    Aliases aliases;
    std::string_view ncarName;
    double typicalMin;
    double typicalMax;
    std::string_view standardName;
    bool pressureLevels;
};

constexpr Note note(std::string_view shortName, std::string_view column, int paramId, Quantity quantity,
                    Timing timing, Aliases aliases = {}, std::string_view ncarName = {},
                    double typicalMin = 0.0, double typicalMax = 1.0, std::string_view standardName = {},
                    bool pressureLevels = false) {
    return Note{shortName,     column.empty() ? shortName : column,
                paramId,       quantity,
                timing,        aliases,
                ncarName,      typicalMin,
                typicalMax,    standardName,
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

// The ERA5 parameters Isobar has notes on (single levels, ERA5-Land, pressure levels): the CDS's
// netCDF name, the column, paramId, what it measures, how it relates to time, and the other names
// files use (NCAR's, CDS request names, the new CDS's avg_* names for mean rates, the long names the
// CDS wrote before ECMWF renamed the parameter). tst_parameters checks every line against ecCodes.
// A parameter ECMWF defines needs no line to be loaded (see matchParameter); a line gives it a
// place in the catalog's column order, typical ranges for the sample writer, and its quantity
// where the units do not tell. The first six are the seed's, whose columns keep the seed's names,
// in the seed table's column order.
// clang-format off
constexpr std::array kNotes{
    // The seed's six.
    note("t2m", "temperature_2m", 167, kT, kInst, {"2t", "var_2t", "2m_temperature", "2_metre_temperature"}, "VAR_2T", 180.0, 335.0),
    note("u10", "zonal_wind_10m", 165, kSpeed, kInst, {"10u", "var_10u", "10m_u_component_of_wind", "10_metre_u_wind_component"}, "VAR_10U", -40.0, 40.0),
    note("v10", "meridional_wind_10m", 166, kSpeed, kInst, {"10v", "var_10v", "10m_v_component_of_wind", "10_metre_v_wind_component"}, "VAR_10V", -40.0, 40.0),
    note("tcc", "total_cloud_cover", 164, kFraction, kInst, {"var_tcc", "total_cloud_cover"}, "TCC", 0.0, 1.0, "cloud_area_fraction"),
    note("tp", "total_precipitation", 228, kWater, kAcc, {"var_tp", "total_precipitation"}, "TP", 0.0, 0.05),
    note("sf", "snowfall", 144, kWater, kAcc, {"var_sf", "snowfall"}, "SF", 0.0, 0.02),
    // Single levels: temperatures and humidity.
    note("d2m", "", 168, kT, kInst, {"2d", "var_2d", "2m_dewpoint_temperature"}, "VAR_2D", 180.0, 310.0, "dew_point_temperature"),
    note("skt", "", 235, kT, kInst, {"skin_temperature"}, "SKT", 180.0, 340.0),
    note("sst", "", 34, kT, kInst, {"sstk", "sea_surface_temperature"}, "SSTK", 270.0, 310.0, "sea_surface_temperature"),
    note("mx2t", "", 201, kT, kExt, {"maximum_2m_temperature_since_previous_post_processing"}, "MX2T", 180.0, 335.0),
    note("mn2t", "", 202, kT, kExt, {"minimum_2m_temperature_since_previous_post_processing"}, "MN2T", 180.0, 335.0),
    note("stl1", "", 139, kT, kInst, {"soil_temperature_level_1"}, "STL1", 200.0, 330.0),
    note("stl2", "", 170, kT, kInst, {"soil_temperature_level_2"}, "STL2", 200.0, 330.0),
    note("stl3", "", 183, kT, kInst, {"soil_temperature_level_3"}, "STL3", 200.0, 330.0),
    note("stl4", "", 236, kT, kInst, {"soil_temperature_level_4"}, "STL4", 200.0, 330.0),
    note("tsn", "", 238, kT, kInst, {"temperature_of_snow_layer"}, "TSN", 200.0, 280.0),
    note("istl1", "", 35, kT, kInst, {"ice_temperature_layer_1"}, "ISTL1", 200.0, 280.0),
    note("tcw", "", 136, kAsIs, kInst, {"total_column_water"}, "TCW", 0.0, 80.0),
    note("tcwv", "", 137, kAsIs, kInst, {"total_column_water_vapour", "total column water vapour"}, "TCWV", 0.0, 80.0),
    note("tclw", "", 78, kAsIs, kInst, {"total_column_cloud_liquid_water"}, "TCLW", 0.0, 2.0),
    note("tciw", "", 79, kAsIs, kInst, {"total_column_cloud_ice_water"}, "TCIW", 0.0, 2.0),
    note("tcrw", "", 228089, kAsIs, kInst, {"total_column_rain_water"}, "", 0.0, 2.0),
    note("tcsw", "", 228090, kAsIs, kInst, {"total_column_snow_water"}, "", 0.0, 2.0),
    note("tco3", "", 206, kAsIs, kInst, {"total_column_ozone"}, "TCO3", 0.004, 0.01),
    // Pressure.
    note("sp", "", 134, kAsIs, kInst, {"surface_pressure"}, "SP", 50000.0, 105000.0, "surface_air_pressure"),
    note("msl", "", 151, kAsIs, kInst, {"mean_sea_level_pressure"}, "MSL", 94000.0, 106000.0, "air_pressure_at_mean_sea_level"),
    // Wind.
    note("u100", "", 228246, kSpeed, kInst, {"100u", "var_100u", "100m_u_component_of_wind"}, "VAR_100U", -50.0, 50.0),
    note("v100", "", 228247, kSpeed, kInst, {"100v", "var_100v", "100m_v_component_of_wind"}, "VAR_100V", -50.0, 50.0),
    note("u10n", "", 228131, kSpeed, kInst, {"10m_u_component_of_neutral_wind", "10 metre u-component of neutral wind"}, "U10N", -40.0, 40.0),
    note("v10n", "", 228132, kSpeed, kInst, {"10m_v_component_of_neutral_wind", "10 metre v-component of neutral wind"}, "V10N", -40.0, 40.0),
    note("si10", "", 207, kSpeed, kInst, {"10si", "10m_wind_speed"}, "VAR_10SI", 0.0, 40.0, "wind_speed"),
    note("i10fg", "", 228029, kSpeed, kInst, {"instantaneous_10m_wind_gust"}, "I10FG", 0.0, 60.0),
    note("fg10", "", 49, kSpeed, kExt, {"10fg", "10m_wind_gust_since_previous_post_processing", "maximum 10 metre wind gust since previous post-processing"}, "VAR_10FG", 0.0, 60.0, "wind_speed_of_gust"),
    note("ewss", "", 180, kAsIs, kAcc, {"eastward_turbulent_surface_stress"}, "EWSS", -5000.0, 5000.0),
    note("nsss", "", 181, kAsIs, kAcc, {"northward_turbulent_surface_stress"}, "NSSS", -5000.0, 5000.0),
    // Clouds, boundary layer, convection.
    note("lcc", "", 186, kFraction, kInst, {"low_cloud_cover"}, "LCC", 0.0, 1.0),
    note("mcc", "", 187, kFraction, kInst, {"medium_cloud_cover"}, "MCC", 0.0, 1.0),
    note("hcc", "", 188, kFraction, kInst, {"high_cloud_cover"}, "HCC", 0.0, 1.0),
    note("cbh", "", 228023, kAsIs, kInst, {"cloud_base_height"}, "CBH", 0.0, 10000.0),
    note("blh", "", 159, kAsIs, kInst, {"boundary_layer_height"}, "BLH", 10.0, 5000.0, "atmosphere_boundary_layer_thickness"),
    note("cape", "", 59, kAsIs, kInst, {"convective_available_potential_energy"}, "CAPE", 0.0, 5000.0),
    note("cin", "", 228001, kAsIs, kInst, {"convective_inhibition"}, "CIN", 0.0, 1000.0),
    note("kx", "", 260121, kAsIs, kInst, {"k_index"}, "KX", -20.0, 50.0),
    note("totalx", "", 260123, kAsIs, kInst, {"total_totals_index"}, "TOTALX", 0.0, 70.0),
    note("ptype", "", 260015, kAsIs, kInst, {"precipitation_type"}, "PTYPE", 0.0, 12.0),
    note("crr", "", 228218, kAsIs, kInst, {"convective_rain_rate"}, "CRR", 0.0, 0.01),
    note("lsrr", "", 228219, kAsIs, kInst, {"large_scale_rain_rate"}, "LSRR", 0.0, 0.01),
    // Precipitation, snow, evaporation, runoff: depths of water, in mm.
    note("cp", "", 143, kWater, kAcc, {"convective_precipitation"}, "CP", 0.0, 0.05),
    note("lsp", "", 142, kWater, kAcc, {"large_scale_precipitation"}, "LSP", 0.0, 0.05),
    note("csf", "", 239, kWater, kAcc, {"convective_snowfall"}, "CSF", 0.0, 0.02),
    note("lsf", "", 240, kWater, kAcc, {"large_scale_snowfall"}, "LSF", 0.0, 0.02),
    note("sd", "", 141, kWater, kInst, {"snow_depth"}, "SD", 0.0, 10.0, "lwe_thickness_of_surface_snow_amount"),
    note("sde", "", 3066, kAsIs, kInst, {"snow_depth_m"}, "", 0.0, 10.0, "surface_snow_thickness"),
    note("rsn", "", 33, kAsIs, kInst, {"snow_density"}, "RSN", 100.0, 450.0),
    note("asn", "", 32, kFraction, kInst, {"snow_albedo"}, "ASN", 0.5, 0.9),
    note("snowc", "", 260038, kAsIs, kInst, {"snow_cover"}, "", 0.0, 100.0),
    note("smlt", "", 45, kWater, kAcc, {"snowmelt"}, "SMLT", 0.0, 0.01),
    note("es", "", 44, kWater, kAcc, {"snow_evaporation"}, "ES", -0.001, 0.001),
    note("e", "", 182, kWater, kAcc, {"evaporation", "total_evaporation"}, "E", -0.002, 0.001),
    note("pev", "", 228251, kWater, kAcc, {"potential_evaporation"}, "PEV", -0.003, 0.001),
    note("evabs", "", 228101, kWater, kAcc, {"evaporation_from_bare_soil"}, "", -0.002, 0.001),
    note("evaow", "", 228102, kWater, kAcc, {"evaporation_from_open_water_surfaces_excluding_oceans"}, "", -0.002, 0.001),
    note("evatc", "", 228100, kWater, kAcc, {"evaporation_from_the_top_of_canopy"}, "", -0.002, 0.001),
    note("evavt", "", 228103, kWater, kAcc, {"evaporation_from_vegetation_transpiration"}, "", -0.002, 0.001),
    note("ro", "", 205, kWater, kAcc, {"runoff"}, "RO", 0.0, 0.01),
    note("sro", "", 8, kWater, kAcc, {"surface_runoff"}, "SRO", 0.0, 0.01),
    note("ssro", "", 9, kWater, kAcc, {"sub_surface_runoff"}, "SSRO", 0.0, 0.01),
    note("src", "", 198, kWater, kInst, {"skin_reservoir_content"}, "SRC", 0.0, 0.001),
    // Soil and surface.
    note("swvl1", "", 39, kAsIs, kInst, {"volumetric_soil_water_layer_1"}, "SWVL1", 0.0, 0.8),
    note("swvl2", "", 40, kAsIs, kInst, {"volumetric_soil_water_layer_2"}, "SWVL2", 0.0, 0.8),
    note("swvl3", "", 41, kAsIs, kInst, {"volumetric_soil_water_layer_3"}, "SWVL3", 0.0, 0.8),
    note("swvl4", "", 42, kAsIs, kInst, {"volumetric_soil_water_layer_4"}, "SWVL4", 0.0, 0.8),
    note("lsm", "", 172, kFraction, kInst, {"land_sea_mask"}, "LSM", 0.0, 1.0, "land_binary_mask"),
    note("siconc", "", 31, kFraction, kInst, {"ci", "sea_ice_cover"}, "CI", 0.0, 1.0, "sea_ice_area_fraction"),
    note("fal", "", 243, kFraction, kInst, {"forecast_albedo"}, "FAL", 0.0, 1.0),
    note("fsr", "", 244, kAsIs, kInst, {"forecast_surface_roughness"}, "FSR", 0.0, 3.0),
    note("lai_hv", "", 67, kAsIs, kInst, {"leaf_area_index_high_vegetation"}, "LAI_HV", 0.0, 7.0),
    note("lai_lv", "", 66, kAsIs, kInst, {"leaf_area_index_low_vegetation"}, "LAI_LV", 0.0, 7.0),
    note("cvh", "", 28, kFraction, kInst, {"high_vegetation_cover"}, "CVH", 0.0, 1.0),
    note("cvl", "", 27, kFraction, kInst, {"low_vegetation_cover"}, "CVL", 0.0, 1.0),
    note("z", "", 129, kAsIs, kInst, {"geopotential"}, "Z", -5000.0, 500000.0, "geopotential", kPl),
    // Radiation and heat fluxes: accumulations in J m**-2 ...
    note("ssrd", "", 169, kAsIs, kAcc, {"surface_solar_radiation_downwards", "surface solar radiation downwards"}, "SSRD", 0.0, 4.0e6),
    note("strd", "", 175, kAsIs, kAcc, {"surface_thermal_radiation_downwards", "surface thermal radiation downwards"}, "STRD", 0.0, 2.0e6),
    note("ssr", "", 176, kAsIs, kAcc, {"surface_net_solar_radiation", "surface net solar radiation"}, "SSR", 0.0, 4.0e6),
    note("str", "", 177, kAsIs, kAcc, {"surface_net_thermal_radiation", "surface net thermal radiation"}, "STR", -1.0e6, 2.0e5),
    note("ssrdc", "", 228129, kAsIs, kAcc, {"surface_solar_radiation_downward_clear_sky"}, "SSRDC", 0.0, 4.0e6),
    note("strdc", "", 228130, kAsIs, kAcc, {"surface_thermal_radiation_downward_clear_sky"}, "STRDC", 0.0, 2.0e6),
    note("ssrc", "", 210, kAsIs, kAcc, {"surface_net_solar_radiation_clear_sky", "surface net solar radiation, clear sky"}, "SSRC", 0.0, 4.0e6),
    note("strc", "", 211, kAsIs, kAcc, {"surface_net_thermal_radiation_clear_sky", "surface net thermal radiation, clear sky"}, "STRC", -1.0e6, 2.0e5),
    note("tisr", "", 212, kAsIs, kAcc, {"toa_incident_solar_radiation"}, "TISR", 0.0, 5.0e6),
    note("tsr", "", 178, kAsIs, kAcc, {"top_net_solar_radiation", "top net solar radiation"}, "TSR", 0.0, 5.0e6),
    note("ttr", "", 179, kAsIs, kAcc, {"top_net_thermal_radiation", "top net thermal radiation"}, "TTR", -1.2e6, 0.0),
    note("fdir", "", 228021, kAsIs, kAcc, {"total_sky_direct_solar_radiation_at_surface"}, "FDIR", 0.0, 4.0e6),
    note("cdir", "", 228022, kAsIs, kAcc, {"clear_sky_direct_solar_radiation_at_surface"}, "CDIR", 0.0, 4.0e6),
    note("uvb", "", 57, kAsIs, kAcc, {"downward_uv_radiation_at_the_surface"}, "UVB", 0.0, 5.0e5),
    note("slhf", "", 147, kAsIs, kAcc, {"surface_latent_heat_flux"}, "SLHF", -2.0e6, 5.0e5),
    note("sshf", "", 146, kAsIs, kAcc, {"surface_sensible_heat_flux"}, "SSHF", -2.0e6, 1.0e6),
    // ... and mean rates in W m**-2 or kg m**-2 s**-1 (the new CDS names them avg_*).
    note("msdwswrf", "", 235035, kAsIs, kRate, {"avg_sdswrf", "mean_surface_downward_short_wave_radiation_flux"}, "MSDWSWRF", 0.0, 1200.0),
    note("msdwlwrf", "", 235036, kAsIs, kRate, {"avg_sdlwrf", "mean_surface_downward_long_wave_radiation_flux"}, "MSDWLWRF", 50.0, 550.0),
    note("msnswrf", "", 235037, kAsIs, kRate, {"avg_snswrf", "mean_surface_net_short_wave_radiation_flux"}, "MSNSWRF", 0.0, 1200.0),
    note("msnlwrf", "", 235038, kAsIs, kRate, {"avg_snlwrf", "mean_surface_net_long_wave_radiation_flux"}, "MSNLWRF", -300.0, 50.0),
    note("mtnswrf", "", 235039, kAsIs, kRate, {"avg_tnswrf", "mean_top_net_short_wave_radiation_flux"}, "MTNSWRF", 0.0, 1400.0),
    note("mtnlwrf", "", 235040, kAsIs, kRate, {"avg_tnlwrf", "mean_top_net_long_wave_radiation_flux"}, "MTNLWRF", -350.0, -80.0),
    note("mtdwswrf", "", 235053, kAsIs, kRate, {"avg_tdswrf", "mean_top_downward_short_wave_radiation_flux"}, "MTDWSWRF", 0.0, 1400.0),
    note("msdrswrf", "", 235058, kAsIs, kRate, {"avg_sdirswrf", "mean_surface_direct_short_wave_radiation_flux"}, "MSDRSWRF", 0.0, 1100.0),
    note("msdwswrfcs", "", 235068, kAsIs, kRate, {"avg_sdswrfcs", "mean_surface_downward_short_wave_radiation_flux_clear_sky"}, "MSDWSWRFCS", 0.0, 1200.0),
    note("msdrswrfcs", "", 235059, kAsIs, kRate, {"avg_sdirswrfcs", "mean_surface_direct_short_wave_radiation_flux_clear_sky"}, "MSDRSWRFCS", 0.0, 1100.0),
    note("msshf", "", 235033, kAsIs, kRate, {"avg_ishf", "mean_surface_sensible_heat_flux"}, "MSSHF", -500.0, 300.0),
    note("mslhf", "", 235034, kAsIs, kRate, {"avg_slhtf", "mean_surface_latent_heat_flux"}, "MSLHF", -800.0, 200.0),
    note("mtpr", "", 235055, kAsIs, kRate, {"avg_tprate", "mean_total_precipitation_rate"}, "MTPR", 0.0, 0.01),
    note("mcpr", "", 235030, kAsIs, kRate, {"avg_cpr", "mean_convective_precipitation_rate"}, "MCPR", 0.0, 0.01),
    note("mlspr", "", 235029, kAsIs, kRate, {"avg_lsprate", "mean_large_scale_precipitation_rate"}, "MLSPR", 0.0, 0.01),
    note("msr", "", 235031, kAsIs, kRate, {"avg_tsrwe", "mean_snowfall_rate"}, "MSR", 0.0, 0.005),
    note("mer", "", 235043, kAsIs, kRate, {"avg_ie", "mean_evaporation_rate"}, "MER", -0.001, 0.0005),
    note("mror", "", 235048, kAsIs, kRate, {"avg_rorwe", "mean_runoff_rate"}, "MROR", 0.0, 0.005),
    // Pressure levels (z is above, with the surface's geopotential).
    note("t", "", 130, kT, kInst, {"temperature"}, "T", 180.0, 320.0, "air_temperature", kPl),
    note("u", "", 131, kSpeed, kInst, {"u_component_of_wind"}, "U", -80.0, 80.0, "eastward_wind", kPl),
    note("v", "", 132, kSpeed, kInst, {"v_component_of_wind"}, "V", -80.0, 80.0, "northward_wind", kPl),
    note("w", "", 135, kAsIs, kInst, {"vertical_velocity"}, "W", -5.0, 5.0, "lagrangian_tendency_of_air_pressure", kPl),
    note("q", "", 133, kAsIs, kInst, {"specific_humidity"}, "Q", 0.0, 0.03, "specific_humidity", kPl),
    note("r", "", 157, kAsIs, kInst, {"relative_humidity"}, "R", 0.0, 100.0, "relative_humidity", kPl),
    note("vo", "", 138, kAsIs, kInst, {"vorticity"}, "VO", -0.0005, 0.0005, "atmosphere_relative_vorticity", kPl),
    note("d", "", 155, kAsIs, kInst, {"divergence"}, "D", -0.0005, 0.0005, "divergence_of_wind", kPl),
    note("pv", "", 60, kAsIs, kInst, {"potential_vorticity"}, "PV", -1.0e-5, 1.0e-5, "ertel_potential_vorticity", kPl),
    note("cc", "", 248, kFraction, kInst, {"fraction_of_cloud_cover"}, "CC", 0.0, 1.0, "", kPl),
    note("o3", "", 203, kAsIs, kInst, {"ozone_mass_mixing_ratio"}, "O3", 0.0, 2.0e-5, "mass_fraction_of_ozone_in_air", kPl),
    note("clwc", "", 246, kAsIs, kInst, {"specific_cloud_liquid_water_content"}, "CLWC", 0.0, 0.001, "", kPl),
    note("ciwc", "", 247, kAsIs, kInst, {"specific_cloud_ice_water_content"}, "CIWC", 0.0, 0.001, "", kPl),
    note("crwc", "", 75, kAsIs, kInst, {"specific_rain_water_content"}, "CRWC", 0.0, 0.001, "", kPl),
    note("cswc", "", 76, kAsIs, kInst, {"specific_snow_water_content"}, "CSWC", 0.0, 0.001, "", kPl),
};
// clang-format on

// The catalog: Isobar's notes with ECMWF's identity and units for each, built at first use.
std::vector<VariableSpec> buildCatalog() {
    const ParameterDatabase& db = ecmwfParameters();
    std::vector<VariableSpec> out;
    out.reserve(kNotes.size());
    for (const Note& n : kNotes) {
        const EcmwfParameter* p = db.byParamId(n.paramId);
        if (p == nullptr) {
            throw Error("ECMWF's parameter database in ecCodes' definitions at " + db.root().string() +
                        " has no paramId " + std::to_string(n.paramId) + " (" + std::string(n.shortName) +
                        "); Isobar needs the definitions of ecCodes 2.28 or later (libeccodes-data)");
        }
        VariableSpec s{};
        s.shortName = n.shortName;
        s.column = n.column;
        s.fileUnits = p->units;
        s.quantity = n.quantity;
        s.tableUnits = tableUnitsOf(n.quantity, p->units);
        s.longName = p->name;
        s.conversion = conversionOf(n.quantity);
        s.aliases = n.aliases;
        s.accumulated = n.timing == Timing::Accumulated;
        s.paramId = n.paramId;
        s.gribName = p->shortName;
        s.ncarName = n.ncarName;
        s.typicalMin = n.typicalMin;
        s.typicalMax = n.typicalMax;
        s.timing = n.timing;
        s.standardName =
            !n.standardName.empty() || p->cfName == "unknown" ? std::string(n.standardName) : p->cfName;
        s.pressureLevels = n.pressureLevels;
        out.push_back(std::move(s));
    }
    return out;
}

const std::vector<VariableSpec>& catalog() {
    static const std::vector<VariableSpec> c = buildCatalog();
    return c;
}

// Words of ECMWF's names of parameters in K that are differences of temperatures, not temperatures.
bool namesADifference(std::string_view name) {
    const std::string n = lowerCase(name);
    for (const char* word : {"difference", "anomal", "tendency", "index", "spread", "standard deviation",
                             "variance", "increment", "heating", "range", "lapse", "gradient"}) {
        if (n.find(word) != std::string::npos) {
            return true;
        }
    }
    return false;
}

} // namespace

std::span<const VariableSpec> variableCatalog() {
    return catalog();
}

std::size_t variableCount() {
    return kNotes.size();
}

std::vector<Variable> allVariables() {
    std::vector<Variable> out;
    for (std::size_t i = 0; i < kNotes.size(); ++i) {
        out.emplace_back(i);
    }
    return out;
}

const VariableSpec& spec(Variable v) {
    return catalog().at(v.index());
}

std::string catalogShortNames() {
    std::string out;
    for (const Note& n : kNotes) {
        out += (out.empty() ? "" : ", ") + std::string(n.shortName);
    }
    return out;
}

std::optional<Variable> findParamId(long paramId) {
    for (std::size_t i = 0; i < kNotes.size(); ++i) {
        if (kNotes[i].paramId == paramId) {
            return Variable(i);
        }
    }
    return std::nullopt;
}

Quantity quantityOf(const EcmwfParameter& p) {
    const std::string units = canonicalUnits(p.units);
    if (units == "k" && !namesADifference(p.name)) {
        return Quantity::Temperature;
    }
    if (lowerCase(p.units) == "m of water equivalent") {
        return Quantity::WaterDepth;
    }
    if (units == canonicalUnits("m s**-1")) {
        return Quantity::Speed;
    }
    if (units == canonicalUnits("(0 - 1)")) {
        return Quantity::Fraction;
    }
    return Quantity::AsStored;
}

std::string tableUnitsOf(Quantity q, std::string_view fileUnits) {
    switch (q) {
    case Quantity::Temperature:
        return "degC";
    case Quantity::WaterDepth:
        return "mm";
    case Quantity::Speed:
    case Quantity::Fraction:
    case Quantity::AsStored:
        break;
    }
    return std::string(fileUnits);
}

Conversion conversionOf(Quantity q) {
    switch (q) {
    case Quantity::Temperature:
        return Conversion::KelvinToCelsius;
    case Quantity::WaterDepth:
        return Conversion::MetresToMillimetres;
    case Quantity::Speed:
    case Quantity::Fraction:
    case Quantity::AsStored:
        break;
    }
    return Conversion::None;
}

long ParameterMatch::paramId() const {
    if (parameter != nullptr) {
        return parameter->paramId;
    }
    return variable ? spec(*variable).paramId : 0;
}

namespace {

// A match of parameter `p` (and Isobar's entry for it, if any) by `rule`.
ParameterMatch matchOf(const EcmwfParameter* p, std::optional<Variable> v, std::string rule, bool loose) {
    if (!v && p != nullptr) {
        v = findParamId(p->paramId);
    }
    if (p == nullptr && v) {
        p = ecmwfParameters().byParamId(spec(*v).paramId);
    }
    return ParameterMatch{v, p, std::move(rule), loose};
}

// Of ECMWF's parameters that share a name, the one whose units are the file's, if only one is.
const EcmwfParameter* onlyOne(std::vector<const EcmwfParameter*> candidates, std::string_view units) {
    if (candidates.size() > 1 && !units.empty()) {
        const std::string u = canonicalUnits(units);
        std::erase_if(candidates, [&](const EcmwfParameter* p) { return canonicalUnits(p->units) != u; });
    }
    return candidates.size() == 1 ? candidates.front() : nullptr;
}

// What the variable's name says: Isobar's names (the CDS's, NCAR's, request names), then ECMWF's
// netCDF name or shortName where only one parameter has it (or one of those has the long_name).
std::optional<ParameterMatch> matchByName(const VariableClues& clues) {
    const std::string n = lowerCase(clues.name);
    if (n.empty()) {
        return std::nullopt;
    }
    const std::string rule = "name " + std::string(clues.name);
    for (std::size_t i = 0; i < kNotes.size(); ++i) {
        if (n == kNotes[i].shortName) {
            return matchOf(nullptr, Variable(i), rule, false);
        }
    }
    for (std::size_t i = 0; i < kNotes.size(); ++i) {
        for (std::string_view alias : kNotes[i].aliases) {
            if (!alias.empty() && n == alias) {
                return matchOf(nullptr, Variable(i), rule, false);
            }
        }
    }
    const ParameterDatabase& db = ecmwfParameters();
    auto candidates = db.byVariableName(clues.name);
    if (candidates.empty() && n != clues.name) {
        candidates = db.byVariableName(n);
    }
    if (candidates.size() > 1 && !clues.longName.empty()) {
        std::vector<const EcmwfParameter*> named;
        for (const EcmwfParameter* p : candidates) {
            if (lowerCase(p->name) == lowerCase(clues.longName)) {
                named.push_back(p);
            }
        }
        candidates = named.empty() ? candidates : named;
    }
    if (const EcmwfParameter* p = onlyOne(candidates, clues.units)) {
        return matchOf(p, std::nullopt, rule, false);
    }
    return std::nullopt;
}

std::string described(long paramId) {
    const EcmwfParameter* p = ecmwfParameters().byParamId(paramId);
    return p == nullptr ? "paramId " + std::to_string(paramId)
                        : p->shortName + " (paramId " + std::to_string(paramId) + ", " + p->name + ")";
}

} // namespace

std::optional<ParameterMatch> matchParameter(const VariableClues& clues) {
    const ParameterDatabase& db = ecmwfParameters();
    if (clues.paramId) {
        const long id = *clues.paramId;
        const EcmwfParameter* p = db.byParamId(id);
        const auto v = findParamId(id);
        if (p != nullptr || v) {
            if (const auto byName = matchByName(clues); byName && byName->paramId() != id) {
                throw ParameterClash("variable " + std::string(clues.name) + " carries GRIB_paramId " +
                                     std::to_string(id) + ", which ECMWF's parameter database says is " +
                                     described(id) + ", but its name is that of " +
                                     described(byName->paramId()) + "; refusing to choose");
            }
            return matchOf(p, v, "GRIB_paramId " + std::to_string(id), false);
        }
        // A paramId ECMWF does not define (a centre's own): the other clues decide.
    }
    if (auto byName = matchByName(clues)) {
        return byName;
    }
    if (!clues.longName.empty()) {
        const std::string ln = lowerCase(clues.longName);
        auto candidates = db.byName(clues.longName);
        for (std::size_t i = 0; i < kNotes.size(); ++i) {
            for (std::string_view alias : kNotes[i].aliases) {
                const EcmwfParameter* p = db.byParamId(kNotes[i].paramId);
                if (alias == ln && p != nullptr &&
                    std::find(candidates.begin(), candidates.end(), p) == candidates.end()) {
                    candidates.push_back(p);
                }
            }
        }
        if (const EcmwfParameter* p = onlyOne(candidates, clues.units)) {
            return matchOf(p, std::nullopt, "long_name '" + std::string(clues.longName) + "'", true);
        }
    }
    if (!clues.standardName.empty()) {
        const std::string standard = lowerCase(clues.standardName);
        auto candidates = db.byCfName(standard);
        for (std::size_t i = 0; i < kNotes.size(); ++i) {
            const EcmwfParameter* p = db.byParamId(kNotes[i].paramId);
            if (standard == kNotes[i].standardName && p != nullptr &&
                std::find(candidates.begin(), candidates.end(), p) == candidates.end()) {
                candidates.push_back(p);
            }
        }
        // air_temperature: t2m or t? Only where one parameter has it does the standard name say.
        if (candidates.size() == 1) {
            return matchOf(candidates.front(), std::nullopt,
                           "standard_name " + std::string(clues.standardName), true);
        }
    }
    return std::nullopt;
}

std::optional<Variable> findVariable(const VariableClues& clues) {
    const auto m = matchParameter(clues);
    return m ? m->variable : std::nullopt;
}

namespace {

bool isUnitChar(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '%' || c == '~' || c == '(' || c == ')';
}

} // namespace

std::string canonicalUnits(std::string_view units) {
    std::string u = lowerCase(units);
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
