#include "Commands.h"
#include "db/LocalCluster.h"
#include "ingest/IngestBenchmark.h"
#include "ingest/Loader.h"
#include "ingest/ReadBenchmark.h"
#include "report/RunReport.h"
#include "util/Error.h"

#include <iostream>
#include <sstream>

namespace isobar::cli {

namespace {

const char* kBenchHelp = R"(usage: isobar-cli bench read [--passes N] FILE...
       isobar-cli bench ingest [--dsn CONNINFO] [--workers 1,2] [--table-types regular,unlogged,hypertable]
                               [--rounds N] FILE...
       isobar-cli bench sustained [--hours N] [--workers N] [--dsn CONNINFO] [FILE...]
       isobar-cli bench durability --yes [--dsn CONNINFO] [--workers 1,2] [--table-types regular,unlogged]
                               [--rounds N] FILE...

bench read: the client side of a load on one core, stage by stage - reading with netcdf-c
(including HDF5 decompression) or ecCodes (GRIB unpacking), decoding with unit conversion, binary COPY encoding with location
ids - per million rows and per global hour of the 0.25 degree grid (1,038,240 rows); the best of
N passes, each on freshly opened files.

bench ingest: the speed target, side by side on the same rows: (a) `isobar-cli load` of the
files with N workers, timed as a whole process from start to exit (as /usr/bin/time sees it), with
its load phase beside it, against (b) the server's own limit, N concurrent server-side COPY ... FROM
'file' (FORMAT binary) of the identical rows encoded beforehand, and (c) a bare libpq client
streaming those rows. Each into a fresh table after a CHECKPOINT, rounds rotating which goes first,
the median round of each; ratios a/b (the target), a'/b, c/b and a'/c. The server must run on this
machine (default: the embedded cluster) and the role may read server files. A hypertable
(--table-types hypertable, where TimescaleDB is installed) ends the same for all three: copied
into without its index on time, which is then built, in the time.

bench sustained: a long load at a steady rate, or not: `isobar-cli load` of the files (default:
--hours synthetic global hours, 100 = 103.8 million rows, written first) with N workers into a fresh
table, timed as a whole process, then the server's own COPY of the same rows. Prints both with
their ratio, the per-interval rate (median, p5, min over the middle 90% of the load), the
checkpoints during it and the worst 10 s after one; the curve is the load's run report (its path is
printed; `isobar-cli report` renders it as HTML with the chart, or CSV). Needs disk for the rows
encoded once more (some 86 bytes a row: 9 GB for 100 hours).

bench durability: what trading durability for speed is worth on this server: isobar's load with
--durability safe against --durability fast, side by side, rounds alternating which goes first.
The fast runs turn fsync and full_page_writes off server-wide for their duration (restored after
each, as a load does), hence --yes.

options:
)";

template <typename T, typename F>
std::vector<T> parseList(const std::string& text, const std::string& option, F parseOne) {
    std::vector<T> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        const auto v = parseOne(item);
        if (!v) {
            throw UsageError{"--" + option + ": '" + item + "' is not understood"};
        }
        out.push_back(*v);
    }
    if (out.empty()) {
        throw UsageError{"--" + option + " needs at least one value"};
    }
    return out;
}

} // namespace

int runBenchCommand(const std::vector<std::string>& args, std::stop_token stop) {
    auto specs = inputOptionSpecs();
    const std::vector<OptionSpec> own = {
        {"passes", "N", "read: passes over the files; the best is reported (default 3)"},
        {"hours", "N", "sustained: synthetic global hours to load when no FILE is given (default 100)"},
        {"dsn", "CONNINFO", "ingest, durability: the server (default: the embedded cluster)"},
        {"workers", "N,M",
         "ingest, durability: stream counts to measure (default 1 and the number of cores)"},
        {"table-types", "T,U",
         "ingest, durability: regular and/or unlogged (default both); ingest also hypertable (where "
         "TimescaleDB is installed)"},
        {"rounds", "N",
         "ingest, durability: rounds per measurement (default 3; ingest: the median counts, durability: the "
         "best)"},
        {"yes", "", "durability: agree to fsync and full_page_writes off server-wide during the fast runs"},
        {"transport", "stream|file", "ingest: how isobar's load sends rows (default stream)"},
    };
    specs.insert(specs.begin(), own.begin(), own.end());
    for (const auto& more : embeddedClusterOptionSpecs()) {
        specs.push_back(more);
    }
    specs.push_back({"help", "", "show this help"});
    const ParsedArgs parsed("bench", specs, args);
    if (parsed.flag("help") || parsed.positional().empty()) {
        std::cout << kBenchHelp << describeOptions(specs);
        return parsed.flag("help") ? kExitOk : kExitUsage;
    }
    const std::string what = parsed.positional().front();
    std::vector<std::filesystem::path> files(parsed.positional().begin() + 1, parsed.positional().end());
    if (what != "read" && what != "ingest" && what != "durability" && what != "sustained") {
        throw UsageError{"unknown benchmark '" + what + "' (read, ingest, sustained or durability)"};
    }
    if (what == "durability" && !parsed.flag("yes")) {
        throw UsageError{
            "bench durability turns fsync and full_page_writes off server-wide during its fast runs "
            "(an OS crash meanwhile can corrupt the whole cluster); add --yes to accept this"};
    }
    if (files.empty() && what != "sustained") {
        throw UsageError{"bench " + what + " needs at least one FILE"};
    }
    stoppable() = true;
    if (what == "read") {
        const int passes = static_cast<int>(parsed.integer("passes", 3, 1, 100));
        const ReadBenchmarkResult result = benchmarkRead(files, openOptionsFrom(parsed), passes, stop);
        std::cout << formatReadBenchmark(result);
        return kExitOk;
    }
    IngestBenchmarkOptions options;
    options.files = files;
    options.open = openOptionsFrom(parsed);
    options.rounds = static_cast<int>(parsed.integer("rounds", 3, 1, 20));
    // (a) is this very program run as `isobar-cli load`, told what this command was told about
    // the server and the files.
    std::error_code ec;
    options.program = std::filesystem::read_symlink("/proc/self/exe", ec);
    for (const char* passed : {"dsn", "data-dir", "port", "grid", "product", "off-grid"}) {
        if (const auto v = parsed.value(passed)) {
            options.programArgs.insert(options.programArgs.end(), {std::string("--") + passed, *v});
        }
    }
    options.transport = transportFrom(parsed);
    const int cores = defaultWorkerCount();
    options.workers = parseList<int>(parsed.value("workers", cores > 1 ? "1," + std::to_string(cores) : "1"),
                                     "workers", [](const std::string& s) -> std::optional<int> {
                                         try {
                                             const int n = std::stoi(s);
                                             return n >= 1 && n <= 64 ? std::optional<int>(n) : std::nullopt;
                                         } catch (const std::exception&) {
                                             return std::nullopt;
                                         }
                                     });
    // A hypertable's ceiling is the server's COPY into a hypertable; the durability runs compare
    // the plain tables.
    const bool hypertables = what == "ingest";
    options.tableTypes = parseList<TableType>(
        parsed.value("table-types", "regular,unlogged"), "table-types", [hypertables](const std::string& s) {
            const auto t = parseTableType(s);
            return t && (*t == TableType::Regular || *t == TableType::Unlogged ||
                         (hypertables && *t == TableType::Hypertable))
                       ? t
                       : std::nullopt;
        });
    options.conninfo = targetFrom(parsed);
    restoreAbandonedOn(options.conninfo);
    const auto progress = [](const std::string& step) {
        std::cerr << "  " << step << std::endl;
    };
    if (what == "durability") {
        std::cout << formatDurabilityBenchmark(benchmarkDurability(options, progress, stop));
        return kExitOk;
    }
    if (what == "sustained") {
        const int hours = static_cast<int>(parsed.integer("hours", 100, 1, 100'000));
        const int workers = parsed.value("workers") ? options.workers.front() : cores;
        std::cout << formatSustainedBenchmark(
            benchmarkSustained(options, hours, workers, defaultReportDirectory(), progress, stop));
        return kExitOk;
    }
    std::cout << formatIngestBenchmark(benchmarkIngest(options, progress, stop));
    return kExitOk;
}

} // namespace isobar::cli
