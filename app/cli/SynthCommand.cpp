// SPDX-License-Identifier: GPL-3.0-or-later

#include "Commands.h"
#include "domain/Variable.h"
#include "era5/TimeUnits.h"
#include "synth/SyntheticFiles.h"
#include "util/Error.h"
#include "util/Format.h"

#include <chrono>
#include <cmath>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace isobar::cli {

namespace {

const char* kSynthHelp = R"(usage: isobar-cli synth --out FILE --hours N [--layout NAME] [options]
       isobar-cli synth --out FILE --hours N [--variables V,W|all] [--levels P,Q] [options]

Writes a SYNTHETIC NetCDF or GRIB file in the layout of a real ERA5 download - by default a classic one from
the Copernicus CDS (netCDF3 64-bit offset, int16 packed t2m u10 v10 tcc tp sf on the 0.25 degree
grid, time in hours since 1900); --layout picks another. The values are made up by a formula -
plausible, deterministic per seed and the same in every layout, NOT real ERA5 data - and the
files' global attributes say so. Use it to try Isobar and to benchmark.

--variables writes other variables of the catalog (short names: t2m,d2m,sp,ssrd,u100,swvl1 ...;
"all": every one the layout can hold), each within its usual range. The pressure-level layouts
cds-legacy-pl, cds-2024-pl and cds-grib-pl write t u v z q r on 1000, 850 and 500 hPa unless
--variables and --levels say otherwise; the other layouts are at single levels. The GRIB layouts
(cds-grib: edition 1 padded to 120 bytes as the legacy CDS writes it; cds-grib2: edition 2) go
through ecCodes, a message per variable and hour, accumulations as forecasts from 06/18 UTC.

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

std::vector<std::string> commaList(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        if (!item.empty()) {
            items.push_back(item);
        }
    }
    return items;
}

// "t2m,d2m,ssrd" (any name a catalog variable goes by), or "all": what the layout can hold.
std::vector<Variable> parseVariables(const std::string& text, SyntheticLayout layout) {
    const std::vector<std::string> names = commaList(text);
    if (names.empty()) {
        throw UsageError{"--variables needs at least one name (e.g. --variables t2m,d2m,ssrd, or all)"};
    }
    if (names.size() == 1 && names.front() == "all") {
        return allSyntheticVariables(layout);
    }
    std::vector<Variable> variables;
    for (const std::string& name : names) {
        const auto v = findVariable(name);
        if (!v) {
            throw UsageError{"--variables: '" + name + "' is not in the variable catalog (" +
                             catalogShortNames() + ")"};
        }
        variables.push_back(*v);
    }
    return variables;
}

std::vector<double> parseLevels(const std::string& text) {
    const std::vector<std::string> items = commaList(text);
    if (items.empty()) {
        throw UsageError{"--levels needs at least one pressure level in hPa (e.g. --levels 1000,850,500)"};
    }
    std::vector<double> levels;
    for (const std::string& item : items) {
        std::size_t used = 0;
        double hPa = 0.0;
        try {
            hPa = std::stod(item, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != item.size() || !std::isfinite(hPa)) {
            throw UsageError{"--levels: '" + item +
                             "' is not a pressure level in hPa (e.g. --levels 1000,850,500)"};
        }
        levels.push_back(hPa);
    }
    return levels;
}

std::string levelList(const std::vector<double>& levels) {
    std::string out;
    for (double hPa : levels) {
        out += (out.empty() ? "" : " ") + formatCoordinate(hPa);
    }
    return out;
}

} // namespace

int runSynthCommand(const std::vector<std::string>& args, std::stop_token stop) {
    const std::vector<OptionSpec> specs = {
        {"out", "FILE", "file to write (required)"},
        {"hours", "N", "number of hourly time steps (required)"},
        {"region", "LAT0,LAT1,LON0,LON1", "box on the 0.25 grid (default: the globe, 721 x 1440 points)"},
        {"start", "DATE", "first time step, UTC (default 2024-01-01T00)"},
        {"seed", "N", "seed of the synthetic values (default 1)"},
        {"layout", "NAME",
         "cds-legacy (default), cds-2024, cds-2024-zip, cds-expver, ncar (--out is then a directory), "
         "cds-legacy-pl or cds-2024-pl (pressure levels)"},
        {"variables", "V,W|all",
         "catalog variables to write (default t2m,u10,v10,tcc,tp,sf; t,u,v,z,q,r on pressure levels)"},
        {"levels", "P,Q", "pressure levels in hPa, 1-1000, pressure-level layouts (default 1000,850,500)"},
        {"help", "", "show this help"},
    };
    const ParsedArgs parsed("synth", specs, args);
    if (parsed.flag("help")) {
        std::cout << kSynthHelp << describeOptions(specs);
        return kExitOk;
    }
    if (!parsed.positional().empty()) {
        throw UsageError{"synth takes no positional arguments (got '" + parsed.positional().front() + "')"};
    }
    SyntheticOptions options;
    const auto out = parsed.value("out");
    if (!out) {
        throw UsageError{"synth needs --out FILE"};
    }
    if (!parsed.value("hours")) {
        throw UsageError{"synth needs --hours N"};
    }
    options.out = *out;
    options.hours = static_cast<int>(parsed.integer("hours", 1, 1, 24 * 366));
    options.seed = static_cast<std::uint64_t>(parsed.integer("seed", 1, 0, 1LL << 53));
    if (const auto region = parsed.value("region")) {
        try {
            options.region = SyntheticRegion::parse(*region);
        } catch (const Error& e) {
            throw UsageError{e.what()};
        }
    }
    if (const auto start = parsed.value("start")) {
        options.start = parseStart(*start);
    }
    if (const auto layout = parsed.value("layout")) {
        const auto parsedLayout = parseSyntheticLayout(*layout);
        if (!parsedLayout) {
            throw UsageError{"--layout takes " + syntheticLayoutNames() + ", not '" + *layout + "'"};
        }
        options.layout = *parsedLayout;
    }
    if (const auto variables = parsed.value("variables")) {
        options.variables = parseVariables(*variables, options.layout);
    }
    if (const auto levels = parsed.value("levels")) {
        options.levels = parseLevels(*levels);
    }
    // Variables that do not fit the layout, levels out of range: refused before anything is written.
    try {
        syntheticContents(options);
    } catch (const Error& e) {
        throw UsageError{e.what()};
    }
    const auto t0 = std::chrono::steady_clock::now();
    stoppable() = true;
    const SyntheticInfo info = writeSynthetic(options, stop);
    stoppable() = false;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (const auto& file : info.files) {
        std::cout << "wrote " << file.string() << "\n";
    }
    std::cout << "SYNTHETIC ERA5-like file in the " << syntheticLayoutName(options.layout)
              << " layout: " << info.hours << " hour(s) x ";
    if (!info.levels.empty()) {
        std::cout << info.levels.size() << " level(s) (" << levelList(info.levels) << " hPa) x ";
    }
    std::cout << info.latitudes << " latitudes x " << info.longitudes << " longitudes = " << info.rows()
              << " rows, " << info.variables.size() << " variable(s)";
    // The names while they fit on the line.
    if (info.variables.size() <= 16) {
        std::string names;
        for (Variable v : info.variables) {
            names += (names.empty() ? "" : " ") + std::string(spec(v).shortName);
        }
        std::cout << " (" << names << ")";
    }
    std::cout << ", starting " << formatTimestamp(info.start) << " (" << formatDuration(seconds) << ")\n";
    return kExitOk;
}

} // namespace isobar::cli
