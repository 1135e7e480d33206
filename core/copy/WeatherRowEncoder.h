#pragma once

#include "copy/BinaryCopyBuffer.h"
#include "era5/Grid.h"
#include "era5/Variable.h"

#include <array>
#include <cstdint>
#include <vector>

namespace isobar {

// What every row of a file's grid needs besides its values, computed once per file: the stored
// latitude, the normalized longitude and the seed location_id parts.
struct GridGeometry {
    std::vector<float> latitude;         // per latitude row, as the file stores it
    std::vector<std::int32_t> latIdBase; // lat_index * longitudes + 1
    std::vector<float> longitude;        // per longitude column, normalized to (-180, 180]
    std::vector<std::int32_t> lonIndex;  // lon_index
    // The latitude and longitude fields as they go on the wire (int32 length 4, float4 big-endian),
    // precomputed so the per-row work is copying, not converting.
    std::vector<std::uint64_t> latitudeField;
    std::vector<std::uint64_t> longitudeField;

    void prepareFields();

    // On the seed's 0.25 deg grid, for rows and columns on that grid.
    static GridGeometry fromAxes(const std::vector<double>& latitudes, const std::vector<double>& longitudes);
    // For a box of `grid` (rows north to south from northRow, columns east from westColumn) with the
    // real coordinates of its rows and columns (which differ from the grid's for off-grid points).
    static GridGeometry forBox(const GlobalGrid& grid, std::int32_t northRow, std::int32_t westColumn,
                               const std::vector<double>& latitudes, const std::vector<double>& longitudes);
};

// Upper bound of one encoded weather row: int16 field count, time (4+8), location_id (4+4) and
// eight float4 fields (4+4 each).
inline constexpr std::size_t kMaxWeatherRowBytes = 2 + 12 + 8 + 8 * 8;

// Values of one band: per variable, latCount * longitudes floats in table units (NaN = NULL), or
// nullptr when the column is NULL for the whole band (the variable is not in the files).
using BandValues = std::array<const float*, kVariableCount>;

// Appends the rows of latitude rows [latBegin, latBegin + latCount) at one time step, in the seed's
// column order, to `out`.
void encodeWeatherBand(const GridGeometry& grid, PgTimestamp time, std::size_t latBegin, std::size_t latCount,
                       const BandValues& values, BinaryCopyBuffer& out);

} // namespace isobar
