// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// Era5File::open for GRIB files: the messages grouped into the file's variables, valid times and
// pressure levels, on one grid. Split over GribParser.cpp (grid, variables, times, table,
// product) and GribParserChecks.cpp (refusals, message names). Not a public API.

#include "era5/Era5File.h"

#include <map>
#include <string>
#include <vector>

namespace isobar {

class GribParser {
public:
    GribParser(Era5File& file, const OpenOptions& options)
        : f_(file)
        , options_(options) {}

    void parse();

private:
    [[noreturn]] void fail(const std::string& why) const { throw Error(f_.name_ + ": " + why); }
    // dataDate (YYYYMMDD) and dataTime (HHMM) as a timestamp.
    static PgTimestamp baseTime(const GribMessage& m);
    // "message 3 (t2m, 2024-01-01 06 UTC + 11 h)": a message as messages name it
    // (GribParserChecks.cpp, with checkMessages).
    std::string describe(std::size_t message) const;

    // Refuses what Isobar does not load (grids other than regular lat/lon, ensembles, model
    // levels) and tells single-level messages from pressure-level ones.
    void checkMessages();
    void decideProduct();
    void readGrid();
    void findVariables();
    // The valid time a message's values are for (monthly means: their month's row).
    PgTimestamp validTime(const GribMessage& m) const;
    void placeMessages();
    // Two messages for one (variable, time, level): final ERA5 over ERA5T, identical ones once,
    // different ones refused.
    void resolveDuplicate(std::int32_t& slot, std::size_t message);
    // Each variable's gribTiming, from its messages.
    void describeTiming();
    void describeFile();

    Era5File& f_;
    const OpenOptions& options_;
    GribContent* grib_ = nullptr;
    std::vector<double> messageLevel_;         // per message: hPa, or NaN at single levels
    std::vector<std::size_t> messageVariable_; // per message: index into f_.variables_, or npos
    std::map<std::string, std::size_t> variableOf_;
    bool monthlyByHour_ = false;
    std::size_t replacedEra5t_ = 0;
    std::size_t identical_ = 0;
};

} // namespace isobar
