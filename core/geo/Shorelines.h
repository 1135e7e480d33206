// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace isobar::geo {

// What a map draws over a field: coastlines, the shores of lakes, national borders. They come from
// GSHHG (the Global Self-consistent Hierarchical High-resolution Geography, Wessel and Smith) as
// Debian packages it for GMT: gmt-gshhg-low holds the crude, low and intermediate resolutions,
// gmt-gshhg-high the high and full ones, each a netCDF file of 16-bit offsets in bins of the globe.

enum class ShoreKind {
    Coast,  // land against ocean (with Antarctica's ice front)
    Lake,   // lakes, islands in lakes, ponds on those islands
    Border, // national borders
};

// GSHHG's five resolutions, coarsest first.
enum class Resolution { Crude, Low, Intermediate, High, Full };

struct LonLat {
    double lon = 0.0;
    double lat = 0.0;
};

struct Shoreline {
    ShoreKind kind = ShoreKind::Coast;
    std::vector<LonLat> points; // a polyline, in the box's longitudes (see Box)
};

// A part of the globe: latitudes south..north, longitudes west..east with west < east; east may
// pass 180 or 360 and west may be negative (a box across the date line is west 170, east 190, or
// west -190, east -170, as the map's longitudes run). Lines come back in the same longitudes.
struct Box {
    double south = -90.0;
    double north = 90.0;
    double west = -180.0;
    double east = 180.0;
};

// The finest resolution worth drawing when a pixel spans `degreesPerPixel` (a detail well under a
// pixel is not seen; the files grow ~5 times per step).
Resolution resolutionFor(double degreesPerPixel);
char resolutionLetter(Resolution resolution);         // 'c', 'l', 'i', 'h', 'f': GSHHG's file names
const char* resolutionPackage(Resolution resolution); // "gmt-gshhg-low" or "gmt-gshhg-high"

// Where the GSHHG files are: $ISOBAR_GSHHG_DIR when set (tests point it elsewhere), else
// /usr/share/gmt-gshhg, where Debian's packages put them.
std::filesystem::path gshhgDirectory();

struct Shorelines {
    std::vector<Shoreline> lines;
    Resolution resolution = Resolution::Crude; // what was drawn (may be coarser than asked)
    // Empty when the lines were found; else what is missing, for the user: "coastlines need the
    // Debian package gmt-gshhg-low (not installed: /usr/share/gmt-gshhg/binned_GSHHS_c.nc)".
    std::string missing;
};

// The coastlines, lake shores and national borders crossing `box`, at `wanted` resolution or the
// nearest coarser one installed (a finer one when no coarser is). Lines are GSHHG's segments, each
// inside one bin; a segment that leaves the box stays whole (the painter clips it). Files are read
// once per process and kept (crude to intermediate: ~6 MB). Thread-safe. Throws isobar::Error
// naming the file when a file is there but damaged.
Shorelines shorelines(const Box& box, Resolution wanted);

} // namespace isobar::geo
