#pragma once

#include "copy/PgTypes.h"

#include <cstdint>
#include <filesystem>
#include <stop_token>
#include <string_view>

namespace isobar {

// A box on the 0.25 degree grid. Latitudes in -90..90 (either order); longitudes as the user writes
// them: 0..360, -180..180, or west > east for a box that crosses the date line (170,-170).
struct SampleRegion {
    double latitude0 = 90.0;
    double latitude1 = -90.0;
    double longitude0 = 0.0;
    double longitude1 = 359.75;

    // Parses "LAT0,LAT1,LON0,LON1"; throws isobar::Error saying what is wrong.
    static SampleRegion parse(std::string_view text);
};

struct SampleOptions {
    std::filesystem::path out;
    int hours = 1;
    SampleRegion region;
    std::uint64_t seed = 1;
    PgTimestamp start = pgTimestampFromUnixMicros(1'704'067'200LL * 1'000'000); // 2024-01-01 00:00 UTC
};

struct SampleInfo {
    std::size_t latitudes = 0;
    std::size_t longitudes = 0;
    std::size_t hours = 0;
    std::uint64_t rows() const { return static_cast<std::uint64_t>(latitudes) * longitudes * hours; }
};

// Writes a SYNTHETIC file in the layout of a classic ERA5 download from the Copernicus CDS
// (grib_to_netcdf): netCDF3 64-bit offset; dimensions longitude, latitude, time (unlimited);
// latitude descending, longitude ascending on the 0.25 degree grid; time int32 "hours since
// 1900-01-01 00:00:00.0"; t2m u10 v10 tcc tp sf as int16 with scale_factor, add_offset, _FillValue
// and missing_value. Values are plausible (t2m falls with latitude and follows the sun, winds follow
// the trade-wind/westerly belts, precipitation is mostly zero) and the same for the same seed. The
// global attributes say plainly that the data are synthetic.
//
// The file is written under a temporary name and renamed when complete; a stop request between
// hours removes the partial file and throws isobar::Cancelled. Throws isobar::Error.
SampleInfo writeSample(const SampleOptions& options, const std::stop_token& stop = {});

} // namespace isobar
