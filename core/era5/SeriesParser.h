// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// Era5File::open for the point series of the CDS time-series datasets
// (reanalysis-era5-single-levels-timeseries, reanalysis-era5-land-timeseries): the CSV read here
// whole, and what the CSV and the netCDF series (NetcdfParser) share - which product the point is
// of, where it lies on that product's grid, and how its accumulations are read. Not a public API.

#include "era5/Era5File.h"

#include <filesystem>
#include <string>

namespace isobar {

// Which product a point series is of, and why ("its name says reanalysis-era5-land-timeseries").
struct SeriesProduct {
    bool era5Land = false;
    std::string why;
};

// The product of a point series: --product; else what the file's own name (an archive member's
// "reanalysis-era5-land-timeseries-...", the archive's; not its folders') or its attributes
// (`provenance`, lower case) say; else the grid its point is on (ERA5's 0.25 deg first, as the two
// grids share many points).
SeriesProduct seriesProduct(const OpenOptions& options, const std::string& fileName,
                            const std::string& provenance, double latitude, double longitude);

class SeriesParser {
public:
    SeriesParser(Era5File& file, const OpenOptions& options)
        : f_(file)
        , options_(options) {}

    // A CSV of the time-series datasets, by its first bytes.
    static bool looksLikeCsv(const std::filesystem::path& path);

    void parseCsv();

    // For both shapes, once the file's variables and steps are known: the point on the product's
    // grid (its float noise rounded away), the product, the time rule, the notes.
    void placePoint(double latitude, double longitude, const std::string& provenance);

private:
    [[noreturn]] void fail(const std::string& why) const { throw Error(f_.name_ + ": " + why); }

    Era5File& f_;
    const OpenOptions& options_;
};

} // namespace isobar
