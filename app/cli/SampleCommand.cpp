#include "Commands.h"
#include "era5/SampleWriter.h"
#include "era5/TimeUnits.h"
#include "util/Error.h"
#include "util/Format.h"

#include <chrono>
#include <iostream>

namespace isobar::cli {

namespace {

const char* kSampleHelp = R"(usage: isobar-cli sample --out FILE --hours N [--layout NAME] [options]

Writes a SYNTHETIC NetCDF file in the layout of a real ERA5 download - by default a classic one from
the Copernicus CDS (netCDF3 64-bit offset, int16 packed t2m u10 v10 tcc tp sf on the 0.25 degree
grid, time in hours since 1900); --layout picks another. The values are made up by a formula -
plausible, deterministic per seed and the same in every layout, NOT real ERA5 data - and the
files' global attributes say so. Use it to try Isobar and to benchmark.

options:
)";

// "2024-01-01", "2024-01-01T06", "2024-01-01T06:00" (UTC, whole hours).
PgTimestamp parseStart(const std::string& text) {
    try {
        std::string s = text;
        for (char& c : s) {
            if (c == 'T') {
                c = ' ';
            }
        }
        if (s.size() == 13) {
            s += ":00";
        }
        const TimeUnits u = TimeUnits::parse("hours since " + s, "proleptic_gregorian");
        if (u.reference().micros % (3600LL * kMicrosPerSecond) != 0) {
            throw Error("not a whole hour");
        }
        return u.reference();
    } catch (const Error&) {
        throw UsageError{"--start '" + text + "' is not a date-time like 2024-01-01T00 (UTC, whole hours)"};
    }
}

} // namespace

int runSampleCommand(const std::vector<std::string>& args, std::stop_token stop) {
    const std::vector<OptionSpec> specs = {
        {"out", "FILE", "file to write (required)"},
        {"hours", "N", "number of hourly time steps (required)"},
        {"region", "LAT0,LAT1,LON0,LON1", "box on the 0.25 grid (default: the globe, 721 x 1440 points)"},
        {"start", "DATE", "first time step, UTC (default 2024-01-01T00)"},
        {"seed", "N", "seed of the synthetic values (default 1)"},
        {"layout", "NAME",
         "cds-legacy (default), cds-2024, cds-2024-zip, cds-expver, or ncar (--out is then a directory)"},
        {"help", "", "show this help"},
    };
    const ParsedArgs parsed("sample", specs, args);
    if (parsed.flag("help")) {
        std::cout << kSampleHelp << describeOptions(specs);
        return kExitOk;
    }
    if (!parsed.positional().empty()) {
        throw UsageError{"sample takes no positional arguments (got '" + parsed.positional().front() + "')"};
    }
    SampleOptions options;
    const auto out = parsed.value("out");
    if (!out) {
        throw UsageError{"sample needs --out FILE"};
    }
    if (!parsed.value("hours")) {
        throw UsageError{"sample needs --hours N"};
    }
    options.out = *out;
    options.hours = static_cast<int>(parsed.integer("hours", 1, 1, 24 * 366));
    options.seed = static_cast<std::uint64_t>(parsed.integer("seed", 1, 0, 1LL << 53));
    if (const auto region = parsed.value("region")) {
        try {
            options.region = SampleRegion::parse(*region);
        } catch (const Error& e) {
            throw UsageError{e.what()};
        }
    }
    if (const auto start = parsed.value("start")) {
        options.start = parseStart(*start);
    }
    if (const auto layout = parsed.value("layout")) {
        const auto parsedLayout = parseSampleLayout(*layout);
        if (!parsedLayout) {
            throw UsageError{"--layout takes cds-legacy, cds-2024, cds-2024-zip, cds-expver or ncar, not '" +
                             *layout + "'"};
        }
        options.layout = *parsedLayout;
    }
    const auto t0 = std::chrono::steady_clock::now();
    stoppable() = true;
    const SampleInfo info = writeSample(options, stop);
    stoppable() = false;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (const auto& file : info.files) {
        std::cout << "wrote " << file.string() << "\n";
    }
    std::cout << "SYNTHETIC ERA5-like sample in the " << sampleLayoutName(options.layout)
              << " layout: " << info.hours << " hour(s) x " << info.latitudes << " latitudes x "
              << info.longitudes << " longitudes = " << info.rows() << " rows, 6 variables, starting "
              << formatTimestamp(info.start) << " (" << formatDuration(seconds) << ")\n";
    return kExitOk;
}

} // namespace isobar::cli
