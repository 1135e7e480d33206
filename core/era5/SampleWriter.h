#pragma once

#include "domain/Timestamp.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stop_token>
#include <string_view>
#include <vector>

namespace isobar {

// A box on the 0.25 degree grid. Latitudes in -90..90 (either order); longitudes as the user writes
// them: 0..360, -180..180, or west > east for a box that crosses the date line (170,-170) or, in
// 0..360 numbers, the prime meridian (350,10).
struct SampleRegion {
    double latitude0 = 90.0;
    double latitude1 = -90.0;
    double longitude0 = 0.0;
    double longitude1 = 359.75;

    // Parses "LAT0,LAT1,LON0,LON1"; throws isobar::Error saying what is wrong.
    static SampleRegion parse(std::string_view text);
};

// The shapes real downloads come in (see Era5File for how each is read).
enum class SampleLayout : std::uint8_t {
    CdsLegacy,  // grib_to_netcdf: netCDF3 64-bit offset, int16 packed, time in hours since 1900
    Cds2024,    // cfgrib: netCDF4 zlib, float32 NaN fill, valid_time in seconds since 1970, expver per step
    Cds2024Zip, // the ZIP the new CDS sends for mixed requests: instant and accumulated members
    CdsExpver,  // ERA5 + ERA5T: netCDF3 int16 with an expver dimension (1, 5) and one overlapping hour
    Ncar,       // NCAR RDA ds633.0: one netCDF4 file per variable in a directory, VAR_2T ...; TP and SF
                // as forecasts (forecast_initial_time x forecast_hour)
};

std::optional<SampleLayout> parseSampleLayout(std::string_view name);
std::string_view sampleLayoutName(SampleLayout layout);

struct SampleOptions {
    std::filesystem::path out; // a file; a directory for SampleLayout::Ncar
    int hours = 1;
    SampleRegion region;
    std::uint64_t seed = 1;
    PgTimestamp start = pgTimestampFromUnixMicros(1'704'067'200LL * 1'000'000); // 2024-01-01 00:00 UTC
    SampleLayout layout = SampleLayout::CdsLegacy;
};

struct SampleInfo {
    std::size_t latitudes = 0;
    std::size_t longitudes = 0;
    std::size_t hours = 0;
    PgTimestamp start; // the first hour written (ncar rounds out to whole forecasts)
    std::vector<std::filesystem::path> files;
    std::uint64_t rows() const { return static_cast<std::uint64_t>(latitudes) * longitudes * hours; }
};

// Writes a SYNTHETIC file (or files) in the layout of a real ERA5 download. Values are plausible
// (t2m falls with latitude and follows the sun, winds follow the trade-wind/westerly belts,
// precipitation is mostly zero, snow falls where it is below freezing) and the same for the same
// seed in every layout. The global attributes say plainly that the data are synthetic.
//
// Files are written under temporary names and renamed when complete; a stop request between hours
// removes what was written and throws isobar::Cancelled. Throws isobar::Error.
SampleInfo writeSample(const SampleOptions& options, const std::stop_token& stop = {});

} // namespace isobar
