// SPDX-License-Identifier: GPL-3.0-or-later

#include "Commands.h"
#include "MapPicture.h"
#include "domain/Timestamp.h"
#include "era5/Dataset.h"
#include "era5/FieldReader.h"
#include "era5/Inspection.h"
#include "util/Error.h"

#include <charconv>
#include <iostream>

namespace isobar::cli {

namespace {

const char* kInspectHelp = R"(usage: isobar-cli inspect [--scan] [--json] FILE...
       isobar-cli inspect --map PNG [--variable V] [--time T] [--level HPA] [--width PX] FILE...

Describes each file as Isobar reads it (NetCDF classic, 64-bit offset or netCDF-4, GRIB editions
1 and 2, the point series of the CDS time-series datasets as CSV or netCDF, the CDS's ZIP archives
of them) - format, detected layout, grid and box, time range,
variables with their packing, units and the conversion a load applies, variables it ignores - and
the dataset the files form together: the product, time steps, and the rows a load would write.
A file that cannot be loaded is reported with the reason; the others are still described.

With --map, writes a PNG picture of one variable at one time step (and pressure level) instead:
a heat map on the files' grid with a colour scale, the units and the missing values in grey,
decoded exactly as a load decodes it (the values it would store, in table units), under the
coastlines, lakes and borders of the Debian package gmt-gshhg-low and a labelled graticule. It
needs no display. The default variable is the files' only one, the default time their first step, the
default level their first.

options:
)";

} // namespace

std::vector<OptionSpec> inputOptionSpecs() {
    return {
        {"off-grid", "refuse|nearest", "points off the grid: refuse (default), or use the nearest cell's id"},
        {"grid", "DEG",
         "the global grid whose location_ids rows get (default: ERA5's 0.25, also for coarser downloads "
         "of its points; ERA5-Land's 0.1; else the file's own spacing)"},
        {"product", "WHAT",
         "what the files hold: auto (ERA5-Land by its 0.1 grid or name; monthly means where the files "
         "say so), era5, era5-land, hourly, monthly, era5-hourly, era5-monthly, era5-land-hourly, "
         "era5-land-monthly"},
    };
}

OpenOptions openOptionsFrom(const ParsedArgs& args) {
    OpenOptions options;
    const std::string offGrid = args.value("off-grid", "refuse");
    if (offGrid == "nearest") {
        options.offGrid = OffGridPolicy::Nearest;
    } else if (offGrid != "refuse") {
        throw UsageError{"--off-grid takes refuse or nearest, not '" + offGrid + "'"};
    }
    if (const auto grid = args.value("grid")) {
        try {
            std::size_t used = 0;
            options.gridSpacing = std::stod(*grid, &used);
            if (used != grid->size() || !(*options.gridSpacing > 0.0)) {
                throw std::invalid_argument("bad");
            }
        } catch (const std::exception&) {
            throw UsageError{"--grid takes a spacing in degrees such as 0.25, not '" + *grid + "'"};
        }
    }
    const std::string product = args.value("product", "auto");
    const auto choice = parseProduct(product);
    if (!choice) {
        throw UsageError{"--product takes " + std::string(kProductWords) + ", not '" + product + "'"};
    }
    options.product = choice->product;
    options.means = choice->means;
    return options;
}

TransportKind transportFrom(const ParsedArgs& args) {
    const std::string t = args.value("transport", "stream");
    if (t == "stream") {
        return TransportKind::Stream;
    }
    if (t == "file") {
        return TransportKind::ServerFile;
    }
    throw UsageError{"--transport takes stream or file, not '" + t + "'"};
}

namespace {

int writeMap(const ParsedArgs& args, const std::vector<std::filesystem::path>& paths) {
    for (const char* other : {"scan", "json"}) {
        if (args.flag(other)) {
            throw UsageError{std::string("--map writes a picture: it does not take --") + other};
        }
    }
    int width = 1200;
    if (const auto w = args.value("width")) {
        const auto [end, ec] = std::from_chars(w->data(), w->data() + w->size(), width);
        if (ec != std::errc{} || end != w->data() + w->size() || width < 200 || width > 8000) {
            throw UsageError{"--width takes a width in pixels from 200 to 8000, not '" + *w + "'"};
        }
    }
    std::optional<PgTimestamp> time;
    if (const auto t = args.value("time")) {
        time = parseTimestamp(*t);
        if (!time) {
            throw UsageError{
                "--time takes a UTC time such as 2024-01-01 06:00 or 2024-01-01T06:00:00Z, not '" + *t + "'"};
        }
    }
    std::optional<double> level;
    if (const auto l = args.value("level")) {
        double hPa = 0;
        const auto [end, ec] = std::from_chars(l->data(), l->data() + l->size(), hPa);
        if (ec != std::errc{} || end != l->data() + l->size() || !(hPa > 0)) {
            throw UsageError{"--level takes a pressure level in hPa such as 500, not '" + *l + "'"};
        }
        level = hPa;
    }
    FieldReader reader(paths, openOptionsFrom(args));
    if (const std::string series = describePointSeries(reader.dataset()); !series.empty()) {
        throw Error("no map: the files are time series of the CDS time-series datasets, " + series +
                    "; a map would show a cell per point (inspect without --map describes them)");
    }
    std::string variable = args.value("variable", "");
    if (variable.empty()) {
        const auto& variables = reader.dataset().variables();
        if (variables.size() != 1) {
            throw UsageError{"the files hold " + std::to_string(variables.size()) + " variables (" +
                             keysOf(variables) + "): say which to map with --variable"};
        }
        variable = variables.front().key;
    }
    if (reader.times().empty()) {
        throw Error("the files hold no time step to map");
    }
    const GridField field = reader.read(variable, time.value_or(reader.times().front()), level);
    const std::filesystem::path out = *args.value("map");
    writeMapPicture(field, out, width);
    std::cout << "wrote " << out.string() << ": " << field.column;
    if (field.key != field.column) {
        std::cout << " (" << field.key << ")";
    }
    std::cout << " at " << formatTimestamp(field.time);
    if (field.level) {
        std::cout << ", " << *field.level << " hPa";
    }
    std::cout << "; " << field.rows() << " x " << field.cols() << " points";
    if (const auto range = field.range()) {
        std::cout << ", " << range->first << " .. " << range->second << " " << field.units;
    }
    std::cout << ", " << field.missingCount() << " missing\n";
    return kExitOk;
}

} // namespace

int runInspectCommand(const std::vector<std::string>& args) {
    auto specs = inputOptionSpecs();
    specs.insert(specs.begin(),
                 {{"scan", "", "read every value and count the missing ones"},
                  {"json", "", "print JSON (for scripts and the desktop app)"},
                  {"map", "PNG", "write a map of one variable at one time step to PNG instead"},
                  {"variable", "V", "with --map: the variable (t2m, its file name or its column)"},
                  {"time", "T", "with --map: the time step, UTC (default: the first)"},
                  {"level", "HPA", "with --map: the pressure level (default: the first)"},
                  {"width", "PX", "with --map: the picture's width in pixels (default 1200)"}});
    specs.push_back({"help", "", "show this help"});
    const ParsedArgs parsed("inspect", specs, args);
    if (parsed.flag("help")) {
        std::cout << kInspectHelp << describeOptions(specs);
        return kExitOk;
    }
    if (parsed.positional().empty()) {
        throw UsageError{"inspect needs at least one FILE"};
    }
    std::vector<std::filesystem::path> paths(parsed.positional().begin(), parsed.positional().end());
    if (parsed.value("map")) {
        return writeMap(parsed, paths);
    }
    for (const char* mapOnly : {"variable", "time", "level", "width"}) {
        if (parsed.value(mapOnly)) {
            throw UsageError{std::string("--") + mapOnly + " goes with --map"};
        }
    }
    const Inspection inspection = inspect(paths, openOptionsFrom(parsed), parsed.flag("scan"));
    std::cout << (parsed.flag("json") ? renderInspectionJson(inspection) : renderInspectionText(inspection));
    return inspection.ok() ? kExitOk : kExitFailed;
}

} // namespace isobar::cli
