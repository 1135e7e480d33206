// SPDX-License-Identifier: GPL-3.0-or-later

// Writes the synthetic seed files of .ci/fuzz.sh: every layout the synthetic writer knows, on a
// small box (a seed of a few kilobytes mutates quickly), at single and pressure levels, with the
// default variables and with every variable the layout can hold.
//
//   fuzz_seeds DIR      writes DIR/<layout>-<variant>.{nc,grib,zip} (ncar: a folder of files)

#include "synth/SyntheticFiles.h"
#include "util/Error.h"

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> layoutNames() {
    // The writer's own list, so a new layout becomes a seed without a change here.
    std::vector<std::string> names;
    const std::string all = isobar::syntheticLayoutNames();
    std::size_t from = 0;
    while (from < all.size()) {
        std::size_t comma = all.find(',', from);
        if (comma == std::string::npos) {
            comma = all.size();
        }
        std::string name = all.substr(from, comma - from);
        name.erase(0, name.find_first_not_of(' '));
        if (!name.empty()) {
            names.push_back(name);
        }
        from = comma + 1;
    }
    return names;
}

std::string extensionOf(isobar::SyntheticLayout layout) {
    using isobar::SyntheticLayout;
    switch (layout) {
    case SyntheticLayout::CdsGrib:
    case SyntheticLayout::CdsGrib2:
    case SyntheticLayout::CdsGribPl:
        return ".grib";
    case SyntheticLayout::Cds2024Zip:
        return ".zip";
    case SyntheticLayout::Ncar:
        return ""; // a folder of files
    default:
        return ".nc";
    }
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: fuzz_seeds DIR\n");
        return 2;
    }
    const std::filesystem::path dir = argv[1];
    try {
        std::filesystem::create_directories(dir);
        int written = 0;
        for (const std::string& name : layoutNames()) {
            const auto layout = isobar::parseSyntheticLayout(name);
            if (!layout) {
                throw isobar::Error("the synthetic writer lists a layout it does not parse: " + name);
            }
            for (const bool all : {false, true}) {
                isobar::SyntheticOptions options;
                options.layout = *layout;
                // Forecasts and accumulations need more than one hour; every variable at one hour
                // and point keeps the netCDF-4 files (a few kB of HDF5 per variable) small.
                options.hours = all ? 1 : 3;
                options.region = isobar::SyntheticRegion::parse(all ? "45,45,10,10" : "45,44.5,10,10.5");
                if (all) {
                    options.variables = isobar::allSyntheticVariables(*layout);
                }
                options.out = dir / (name + (all ? "-all" : "-default") + extensionOf(*layout));
                try {
                    written += static_cast<int>(isobar::writeSynthetic(options).files.size());
                } catch (const isobar::Error& e) {
                    if (!all) {
                        throw;
                    }
                    // Every variable of the catalog is more than some layouts can write (GRIB1 has
                    // no code for some parameters): the default variables are seed enough there.
                    std::fprintf(stderr, "fuzz_seeds: no %s seed with every variable: %s\n", name.c_str(),
                                 e.what());
                }
            }
        }
        // A CSV of the CDS time-series datasets: exponent notation, an empty cell, CRLF line ends.
        {
            std::ofstream csv(dir / "series-default.csv", std::ios::binary);
            csv << "valid_time,u10,t2m,tp,latitude,longitude\r\n"
                   "2024-02-28 23:00:00,1.5,271.25,1.2500000e-05,52.5,13.25\r\n"
                   "2024-02-29 00:00:00,-2.25E+00,270.5,,52.5,13.25\r\n"
                   "2024-02-29 01:00:00,0.0,269.75,0.0,52.5,13.25\r\n";
            ++written;
        }
        std::printf("fuzz_seeds: %d synthetic files in %s\n", written, dir.c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz_seeds: %s\n", e.what());
        return 1;
    }
    return 0;
}
