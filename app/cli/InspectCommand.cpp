#include "Commands.h"
#include "era5/Inspection.h"
#include "util/Error.h"

#include <iostream>

namespace isobar::cli {

namespace {

const char* kInspectHelp = R"(usage: isobar-cli inspect [--scan] [--json] FILE...

Describes each file as Isobar reads it - format, detected layout, grid and box, time range,
variables with their packing, units and the conversion a load applies, variables it ignores - and
the dataset the files form together: the product, time steps, and the rows a load would write.
A file that cannot be loaded is reported with the reason; the others are still described.

options:
)";

} // namespace

std::vector<OptionSpec> inputOptionSpecs() {
    return {
        {"off-grid", "refuse|nearest", "points off the grid: refuse (default), or use the nearest cell's id"},
        {"grid", "DEG",
         "the global grid whose location_ids rows get (default: ERA5's 0.25, also for coarser downloads "
         "of its points; ERA5-Land's 0.1; else the file's own spacing)"},
        {"product", "auto|era5|era5-land", "what the files hold (auto: ERA5-Land on the 0.1 grid)"},
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
            options.gridStep = std::stod(*grid, &used);
            if (used != grid->size() || !(*options.gridStep > 0.0)) {
                throw std::invalid_argument("bad");
            }
        } catch (const std::exception&) {
            throw UsageError{"--grid takes a spacing in degrees such as 0.25, not '" + *grid + "'"};
        }
    }
    const std::string product = args.value("product", "auto");
    if (product == "era5") {
        options.product = ProductOverride::Era5;
    } else if (product == "era5-land") {
        options.product = ProductOverride::Era5Land;
    } else if (product != "auto") {
        throw UsageError{"--product takes auto, era5 or era5-land, not '" + product + "'"};
    }
    return options;
}

Transport transportFrom(const ParsedArgs& args) {
    const std::string t = args.value("transport", "stream");
    if (t == "stream") {
        return Transport::Stream;
    }
    if (t == "file") {
        return Transport::ServerFile;
    }
    throw UsageError{"--transport takes stream or file, not '" + t + "'"};
}

int runInspectCommand(const std::vector<std::string>& args) {
    auto specs = inputOptionSpecs();
    specs.insert(specs.begin(), {{"scan", "", "read every value and count the missing ones"},
                                 {"json", "", "print JSON (for scripts and the desktop app)"}});
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
    const Inspection inspection = inspect(paths, openOptionsFrom(parsed), parsed.flag("scan"));
    std::cout << (parsed.flag("json") ? renderInspectionJson(inspection) : renderInspectionText(inspection));
    return inspection.ok() ? kExitOk : kExitFailed;
}

} // namespace isobar::cli
