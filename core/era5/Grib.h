// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// GRIB files through ecCodes, ECMWF's own GRIB library: the message headers Isobar reads, and the
// values of one message on demand. Era5File builds on this (see GribParser.cpp).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <list>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace isobar {

// ecCodes loads its definition tables into one shared context on first use and is not safe to
// call from several threads for every use: every codes_* call in Isobar holds this lock, as
// netcdf-c calls hold netcdfMutex(). Like those, GRIB calls happen in the reader stage only
// (fetch); unpacking to table units, merging and COPY encoding run outside it on the caller's
// buffers.
std::mutex& gribMutex();

// True when the file starts with a GRIB message ("GRIB"), whatever its name (a GRIB download saved
// as .nc, say).
bool looksLikeGrib(const std::filesystem::path& path);

// What Isobar reads of one GRIB message: where it is and its header. Values are decoded on demand.
struct GribMessage {
    std::uint64_t offset = 0; // in the file
    std::uint64_t length = 0;
    long edition = 0;
    long paramId = 0;
    std::string shortName; // ecCodes' ("2t", "tp", "unknown")
    std::string name;      // "2 metre temperature"
    std::string units;     // "K", "m", "(0 - 1)"
    std::string cfName;    // "air_temperature", or "unknown"
    std::string typeOfLevel;
    double level = 0.0;
    long dataDate = 0;  // YYYYMMDD of the analysis or forecast start
    long dataTime = 0;  // HHMM
    long startStep = 0; // hours
    long endStep = 0;   // hours
    std::string stepRange;
    std::string stepType; // instant, accum, avg, max, min, avgua, avgad, avgas, ...
    std::string gridType; // regular_ll, reduced_gg, sh, rotated_ll, ...
    long ni = 0;
    long nj = 0;
    double latitudeOfFirst = 0.0;
    double longitudeOfFirst = 0.0;
    double latitudeOfLast = 0.0;
    double longitudeOfLast = 0.0;
    std::optional<double> iIncrement; // degrees, when the message gives it
    std::optional<double> jIncrement;
    bool iScansNegatively = false;
    bool jScansPositively = false;
    bool jPointsAreConsecutive = false;
    std::string marsClass; // "ea" (ERA5), "l5" (ERA5-Land), ...
    std::string stream;    // "oper", "moda", "mnth", "enda", ...
    std::string dataType;  // "an", "fc", "pf", "cf", "em", "es"
    std::string expver;    // "0001", "0005"
    long number = 0;       // ensemble member (0: none, or the control)
    long values = 0;       // numberOfDataPoints, missing ones included
    std::string packing;   // packingType: grid_simple, grid_ccsds, ...
    long bitsPerValue = 0;
    bool stepsInHours = true; // ecCodes could express the steps in hours
    bool alternativeRowScanning = false;
};

// Every message of a file, in file order.
struct GribScan {
    std::vector<GribMessage> messages;
    std::uint64_t fileSize = 0;
    std::uint64_t paddingBytes = 0; // NULs between and after messages (legacy CDS pads to 120 bytes)
};

// Reads the header of every message. Throws isobar::Error naming `displayName` and saying what is
// wrong: unreadable, not GRIB, a message cut short (where), bytes that are neither GRIB nor padding
// (where), a message ecCodes cannot read.
GribScan scanGrib(const std::filesystem::path& path, const std::string& displayName);
// The same for GRIB bytes in memory (all of a file, or a ZIP member); messages call them
// `displayName`.
GribScan scanGrib(std::span<const std::byte> bytes, const std::string& displayName);

// Decodes one message's values (in the message's scanning order) into `out` as float, missing
// points (bitmap) as NaN. Must be called with gribMutex() held. Throws isobar::Error naming the file.
void decodeGribValues(const std::filesystem::path& path, const std::string& displayName,
                      const GribMessage& message, std::vector<float>& out);

// The decoded values of the most recently read GRIB messages, of every file: a unit reads a band of
// rows of each variable, so the bands after the first of a time step find the message decoded
// already. One for the process, bounded in bytes by what the largest open file needs (about two
// and a half of its time steps, at most 512 MB). Must be used with gribMutex() held.
class GribValueCache {
public:
    // The values of message `index` of the file `owner` stands for, decoding it when not cached.
    const std::vector<float>& values(const void* owner, const std::filesystem::path& path,
                                     const std::string& displayName, const GribMessage& message,
                                     std::size_t index);
    // Lets the cache hold `bytes` (capped), for a file opened now.
    void reserve(std::size_t bytes);
    // Drops the messages of a file that is closed.
    void forget(const void* owner);

private:
    struct Entry {
        const void* owner;
        std::size_t index;
        std::vector<float> values;
    };
    std::size_t maxBytes_ = 0;
    std::size_t bytes_ = 0;
    std::list<Entry> entries_; // most recently used first
};

GribValueCache& gribValueCache();

} // namespace isobar
