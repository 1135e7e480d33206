// SPDX-License-Identifier: GPL-3.0-or-later

#include "Commands.h"
#include "report/RunReport.h"
#include "util/Error.h"

#include <iostream>

namespace isobar::cli {

namespace {

const char* kReportHelp = R"(usage: isobar-cli report RUN.json [--html OUT] [--csv OUT] [--json OUT]

Renders a saved run report (every load writes one, see `load --report`) in another form: HTML (a
self-contained page with the summary and the rate chart), CSV (the rate series) or JSON. Without
an output option, prints a short summary.

options:
)";

} // namespace

int runReportCommand(const std::vector<std::string>& args) {
    const std::vector<OptionSpec> specs = {
        {"html", "OUT", "write the report as HTML"},
        {"csv", "OUT", "write the rate series as CSV"},
        {"json", "OUT", "write the report as JSON"},
        {"help", "", "show this help"},
    };
    const ParsedArgs parsed("report", specs, args);
    if (parsed.flag("help")) {
        std::cout << kReportHelp << describeOptions(specs);
        return kExitOk;
    }
    if (parsed.positional().size() != 1) {
        throw UsageError{"report needs exactly one RUN.json"};
    }
    const RunReport report = readReport(parsed.positional().front());
    bool wrote = false;
    for (const char* format : {"html", "csv", "json"}) {
        if (const auto out = parsed.value(format)) {
            std::filesystem::path path(*out);
            if (path.extension() != std::string(".") + format) {
                throw UsageError{"--" + std::string(format) + " OUT must end in ." + format};
            }
            writeReport(report, path);
            std::cout << "wrote " << path.string() << "\n";
            wrote = true;
        }
    }
    if (!wrote) {
        std::cout << report.status << ": " << report.rows << " rows into " << report.table << " in "
                  << report.seconds << " s (" << static_cast<long long>(report.meanRate)
                  << " rows/s), started " << report.startedAt << "\n";
        if (report.error) {
            std::cout << "error: " << *report.error << "\n";
        }
    }
    return kExitOk;
}

} // namespace isobar::cli
