#include "Commands.h"
#include "ingest/ReadBenchmark.h"
#include "util/Error.h"

#include <iostream>

namespace isobar::cli {

namespace {

const char* kBenchHelp = R"(usage: isobar-cli bench read [--passes N] FILE...

Measures the client side of a load on one core, stage by stage: reading with netcdf-c (including
HDF5 decompression), decoding with unit conversion, and binary COPY encoding with location ids. No
server is involved. Figures are per million rows and per global hour of the 0.25 degree grid
(1,038,240 rows); the best of N passes is reported (the first pass also pays for the disk).

options:
)";

} // namespace

int runBenchCommand(const std::vector<std::string>& args, std::stop_token stop) {
    auto specs = inputOptionSpecs();
    specs.insert(specs.begin(), {"passes", "N", "passes over the files; the best is reported (default 3)"});
    specs.push_back({"help", "", "show this help"});
    const ParsedArgs parsed("bench", specs, args);
    if (parsed.flag("help") || parsed.positional().empty()) {
        std::cout << kBenchHelp << describeOptions(specs);
        return parsed.flag("help") ? kExitOk : kExitUsage;
    }
    const std::string what = parsed.positional().front();
    if (what != "read") {
        throw UsageError{"unknown benchmark '" + what + "' (read)"};
    }
    std::vector<std::filesystem::path> files(parsed.positional().begin() + 1, parsed.positional().end());
    if (files.empty()) {
        throw UsageError{"bench read needs at least one FILE"};
    }
    const int passes = static_cast<int>(parsed.integer("passes", 3, 1, 100));
    stoppable() = true;
    const ReadBenchmarkResult result = benchmarkRead(files, openOptionsFrom(parsed), passes, stop);
    stoppable() = false;
    std::cout << formatReadBenchmark(result);
    return kExitOk;
}

} // namespace isobar::cli
