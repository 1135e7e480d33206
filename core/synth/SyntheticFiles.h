// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "domain/Timestamp.h"
#include "domain/Variable.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace isobar {

// A box on the 0.25 degree grid. Latitudes in -90..90 (either order); longitudes as the user writes
// them: 0..360, -180..180, or west > east for a box that crosses the date line (170,-170) or, in
// 0..360 numbers, the prime meridian (350,10).
struct SyntheticRegion {
    double latitude0 = 90.0;
    double latitude1 = -90.0;
    double longitude0 = 0.0;
    double longitude1 = 359.75;

    // Parses "LAT0,LAT1,LON0,LON1"; throws isobar::Error saying what is wrong.
    static SyntheticRegion parse(std::string_view text);
};

// The shapes real downloads come in (see Era5File for how each is read).
enum class SyntheticLayout : std::uint8_t {
    CdsLegacy,   // grib_to_netcdf: netCDF3 64-bit offset, int16 packed, time in hours since 1900
    Cds2024,     // cfgrib: netCDF4 zlib, float32 NaN fill, valid_time in seconds since 1970, expver per step
    Cds2024Zip,  // the ZIP the new CDS sends for mixed requests: a member per GRIB step type (instant, accum,
                 // ...)
    CdsExpver,   // ERA5 + ERA5T: netCDF3 int16 with an expver dimension (1, 5) and one overlapping hour
    Ncar,        // NCAR RDA ds633.0: one netCDF4 file per variable in a directory, VAR_2T ...; TP and SF
                 // as forecasts (forecast_initial_time x forecast_hour)
    CdsLegacyPl, // pressure levels, grib_to_netcdf: as CdsLegacy with a level dimension (int32 millibars,
                 // ascending)
    Cds2024Pl,   // pressure levels, cfgrib: as Cds2024 with a pressure_level dimension (double hPa,
                 // descending)
    CdsGrib,     // GRIB edition 1 as the legacy CDS delivers it: a message per variable and hour, 16-bit
                 // packing, each padded with NULs to a multiple of 120 bytes; accumulations, mean rates and
                 // extremes as forecasts from 06/18 UTC (steps 1-12)
    CdsGrib2,    // as CdsGrib in GRIB edition 2, unpadded
    CdsGribPl,   // pressure levels in GRIB1 (isobaricInhPa), a message per variable, hour and level
};

std::optional<SyntheticLayout> parseSyntheticLayout(std::string_view name);
std::string_view syntheticLayoutName(SyntheticLayout layout);
// "cds-legacy, cds-2024, ...": every layout's name, for messages and help.
std::string syntheticLayoutNames();
bool isPressureLevelLayout(SyntheticLayout layout);

// What a layout writes when the options do not say: the seed's six at single levels; t u v z q r on
// 1000, 850 and 500 hPa at pressure levels.
std::vector<Variable> defaultSyntheticVariables(SyntheticLayout layout);
std::vector<double> defaultSyntheticLevels(SyntheticLayout layout);
// Every catalog variable the layout can hold, in catalog order: the single-level ones (z among them,
// as the surface geopotential) or the pressure-level ones; for ncar, those NCAR RDA has a name for.
std::vector<Variable> allSyntheticVariables(SyntheticLayout layout);

struct SyntheticOptions {
    std::filesystem::path out; // a file; a directory for SyntheticLayout::Ncar
    int hours = 1;
    SyntheticRegion region;
    std::uint64_t seed = 1;
    PgTimestamp start = pgTimestampFromUnixMicros(1'704'067'200LL * 1'000'000); // 2024-01-01 00:00 UTC
    SyntheticLayout layout = SyntheticLayout::CdsLegacy;
    // Catalog variables to write; empty: defaultSyntheticVariables(layout).
    std::vector<Variable> variables;
    // Pressure levels in hPa (1..1000), pressure-level layouts only; empty: defaultSyntheticLevels(layout).
    // Written in the layout's order whatever the order here (ascending legacy, descending 2024).
    std::vector<double> levels;
};

// What a sample holds: the variables and levels of the options, defaults filled in, in the order
// the files hold them. Throws isobar::Error for what writeSynthetic refuses (see there).
struct SyntheticContents {
    std::vector<Variable> variables;
    std::vector<double> levels; // hPa; empty at single levels
};
SyntheticContents syntheticContents(const SyntheticOptions& options);

struct SyntheticInfo {
    std::size_t latitudes = 0;
    std::size_t longitudes = 0;
    std::size_t hours = 0;
    PgTimestamp start; // the first hour written (ncar rounds out to whole forecasts)
    std::vector<std::filesystem::path> files;
    std::vector<Variable> variables; // as written, in the files' order
    std::vector<double> levels;      // hPa, in file order; empty at single levels
    std::uint64_t rows() const {
        return static_cast<std::uint64_t>(latitudes) * longitudes * hours *
               std::max<std::size_t>(levels.size(), 1);
    }
};

// Writes a SYNTHETIC file (or files) in the layout of a real ERA5 download. Values are plausible
// (t2m falls with latitude and follows the sun, winds follow the trade-wind/westerly belts,
// precipitation is mostly zero, snow falls where it is below freezing; radiation follows the sun,
// temperature falls and geopotential rises with height), within each catalog entry's typical range,
// and the same for the same seed in every layout. The global attributes say plainly that the data
// are synthetic.
//
// Refuses (isobar::Error) pressure-level variables in single-level layouts and the reverse, levels
// outside 1..1000 hPa or in a single-level layout, repeated variables or levels, and, for ncar,
// variables NCAR RDA has no name for. Files are written under temporary names and renamed when
// complete; a stop request between hours removes what was written and throws isobar::Cancelled.
SyntheticInfo writeSynthetic(const SyntheticOptions& options, const std::stop_token& stop = {});

} // namespace isobar
