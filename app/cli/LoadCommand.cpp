#include "Commands.h"
#include "db/LocalCluster.h"
#include "ingest/Loader.h"
#include "util/Error.h"
#include "util/Format.h"

#include <spdlog/spdlog.h>

#include <iostream>

namespace isobar::cli {

namespace {

const char* kLoadHelp = R"(usage: isobar-cli load [--dsn CONNINFO] [--table NAME] [options] FILE|DIR...

Loads ERA5 NetCDF files into a PostgreSQL table with the weather schema, creating the table if it
is missing. The files form one dataset keyed by (time, grid point): the variables of one time step
may come from different files (one per variable from NCAR, the instant and accumulated members of
a CDS ZIP archive), and a directory stands for the NetCDF files in it. `isobar-cli inspect` shows
what a load would do. Rows go in with binary COPY in one transaction: either all rows of all files
are committed or, on any failure or Ctrl-C, none is. Without --dsn the embedded cluster is used
(started if needed; see `isobar-cli cluster`).

options:
)";

// Prints what happens; the final line is the one every Isobar load ends with.
class CliLoadSink final : public LoadSink {
public:
    void started(const LoadStart& s) override {
        std::cerr << "loading " << s.files.size() << " file(s), " << s.plannedRows << " rows, into "
                  << s.table << " on " << s.target << "\n";
    }
    void warning(const std::string& message) override {
        std::cerr << "isobar-cli: warning: " << message << "\n";
    }
    void note(const std::string& message) override { std::cerr << "isobar-cli: note: " << message << "\n"; }
    void finished(const LoadSummary& s) override {
        if (s.status == LoadStatus::Cancelled) {
            std::cerr << "cancelled after " << formatDuration(s.seconds)
                      << ": rolled back, no rows were committed\n";
            return;
        }
        std::cout << formatCopySummary(s.rows, s.seconds, s.workers) << std::endl;
    }
    void failed(const LoadError& e) override {
        std::string message = e.message;
        if (!e.file.empty() && message.rfind(e.file, 0) != 0) {
            message = e.file + ": " + message;
        }
        printError(message + "\nnothing was committed (the load runs in one transaction)");
    }
};

} // namespace

int runLoadCommand(const std::vector<std::string>& args, std::stop_token stop) {
    std::vector<OptionSpec> specs = {
        {"dsn", "CONNINFO", "libpq connection string or URI (default: the embedded cluster)"},
        {"table", "NAME", "target table, optionally schema-qualified (default: weather)"},
        {"replace", "", "empty the table first, in the same transaction (atomic reload; readers wait)"},
        {"all-missing", "skip|load", "bands whose every value is missing: skip (default) or load NULL rows"},
    };
    for (const auto& more : {inputOptionSpecs(), embeddedClusterOptionSpecs()}) {
        specs.insert(specs.end(), more.begin(), more.end());
    }
    specs.push_back({"help", "", "show this help"});
    const ParsedArgs parsed("load", specs, args);
    if (parsed.flag("help")) {
        std::cout << kLoadHelp << describeOptions(specs);
        return kExitOk;
    }
    if (parsed.positional().empty()) {
        throw UsageError{"load needs at least one FILE"};
    }
    LoadRequest request;
    try {
        request.table = TableName::parse(parsed.value("table", "weather"));
    } catch (const Error& e) {
        throw UsageError{std::string("--table: ") + e.what()};
    }
    request.replace = parsed.flag("replace");
    request.open = openOptionsFrom(parsed);
    const std::string allMissing = parsed.value("all-missing", "skip");
    if (allMissing == "load") {
        request.allMissing = AllMissingPolicy::Load;
    } else if (allMissing != "skip") {
        throw UsageError{"--all-missing takes skip or load, not '" + allMissing + "'"};
    }
    for (const auto& f : parsed.positional()) {
        request.files.emplace_back(f);
    }
    if (const auto dsn = parsed.value("dsn")) {
        if (parsed.value("data-dir") || parsed.value("port")) {
            throw UsageError{"--data-dir and --port choose the embedded cluster; they do not go with --dsn"};
        }
        request.conninfo = *dsn;
    } else {
        LocalCluster cluster(clusterOptionsFrom(parsed));
        const bool started = cluster.start();
        std::cerr << "using the embedded PostgreSQL " << cluster.majorVersion() << " cluster in "
                  << cluster.dataDir().string() << (started ? " (started)" : " (already running)") << "\n";
        request.conninfo = cluster.connectionString();
    }
    CliLoadSink sink;
    stoppable() = true;
    const LoadSummary summary = runLoad(request, stop, sink);
    stoppable() = false;
    switch (summary.status) {
    case LoadStatus::Completed:
        return kExitOk;
    case LoadStatus::Cancelled:
        return kExitCancelled;
    case LoadStatus::Failed:
        break;
    }
    return kExitFailed;
}

} // namespace isobar::cli
