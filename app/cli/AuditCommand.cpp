// SPDX-License-Identifier: GPL-3.0-or-later

#include "Commands.h"
#include "db/Connection.h"
#include "db/TableAudit.h"

#include <iostream>

namespace isobar::cli {

namespace {

const char* kAuditHelp = R"(usage: isobar-cli audit [--table NAME] [--dsn CONNINFO] [--full]

A table's health in one report: keys (time, pressure level, location_id) held more than once,
ledger units that hold the same rows, time steps missing between the first and the last (or
holding fewer rows than most), units still ERA5T (preliminary), the ledger's row count of each unit
against the table's, and value columns that are NULL in every row. Where it finds rows twice it
prints the SQL that removes them; Isobar never runs it.

Its cost is bounded: the ledger is read whole (one row per unit); the table's rows are all read up
to 20 million, else those of --sample-times time steps spread over the table (found through the
index on time or the partitions), and --sample-units units are counted. --full reads every row.

exit status: 0 nothing found, 3 problems found, 1 failed, 2 bad command line

options:
)";

} // namespace

int runAuditCommand(const std::vector<std::string>& args) {
    std::vector<OptionSpec> specs = {
        {"dsn", "CONNINFO", "libpq connection string or URI (default: the embedded cluster)"},
        {"table", "NAME", "the table to audit (default: weather)"},
        {"full", "", "read every row of the table, however large"},
        {"sample-times", "N",
         "time steps whose rows are read in a table of over 20 million rows (default 24)"},
        {"sample-units", "N", "ledger units whose rows are counted (default 100)"},
    };
    const auto cluster = embeddedClusterOptionSpecs();
    specs.insert(specs.end(), cluster.begin(), cluster.end());
    specs.push_back({"help", "", "show this help"});
    const ParsedArgs parsed("audit", specs, args);
    if (parsed.flag("help")) {
        std::cout << kAuditHelp << describeOptions(specs);
        return kExitOk;
    }
    if (!parsed.positional().empty()) {
        throw UsageError{"audit takes no files: it reads a table (--table)"};
    }
    AuditRequest request;
    try {
        request.table = TableName::parse(parsed.value("table", "weather"));
    } catch (const Error& e) {
        throw UsageError{e.what()};
    }
    request.full = parsed.flag("full");
    request.sampleTimes = static_cast<std::size_t>(parsed.integer("sample-times", 24, 1, 100'000));
    request.sampleUnits = static_cast<std::size_t>(parsed.integer("sample-units", 100, 0, 1'000'000));
    Connection conn = Connection::open(targetFrom(parsed), "isobar audit");
    const TableAudit audit = auditTable(conn, request);
    std::cout << describeAudit(audit);
    return audit.clean() ? kExitOk : kExitProblemsFound;
}

} // namespace isobar::cli
