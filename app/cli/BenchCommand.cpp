// SPDX-License-Identifier: GPL-3.0-or-later

#include "BenchCli.h"
#include "Commands.h"
#include "bench/BenchReport.h"
#include "bench/ClassicBenchReports.h"
#include "bench/IngestBenchmark.h"
#include "bench/ReadBenchmark.h"
#include "bench/WarehouseBenchmarks.h"
#include "db/LocalCluster.h"
#include "ingest/Loader.h"
#include "report/RunReport.h"
#include "util/Error.h"
#include "util/Format.h"
#include "util/Text.h"

#include <chrono>
#include <iostream>
#include <sstream>

namespace isobar::cli {

namespace {

const char* kBenchHelp =
    R"(usage: isobar-cli bench methods [--dsn CONNINFO] [--synthetic-hours N | FILE...] [--methods M,N]
                               [--table-types T,U] [--workers 1,2] [--durability safe,fast --yes]
                               [--rounds N] [--insert-rows N] [--batch-rows N] [--report PATH]
       isobar-cli bench matrix [--dsn CONNINFO] [--hours 1,10,50 | FILE...] [--table-types T,U]
                               [--workers N] [--series N] [--report PATH]
       isobar-cli bench query [--dsn CONNINFO] [--synthetic-hours N | FILE...] [--table-types T,U]
                               [--repeats N] [--no-restart] [--report PATH]
       isobar-cli bench read [--passes N] FILE...
       isobar-cli bench ingest [--dsn CONNINFO] [--workers 1,2] [--table-types regular,unlogged,hypertable]
                               [--rounds N] FILE...
       isobar-cli bench sustained [--hours N] [--workers N] [--rounds N] [--dsn CONNINFO] [FILE...]
       isobar-cli bench durability --yes [--dsn CONNINFO] [--workers 1,2] [--table-types regular,unlogged]
                               [--rounds N] FILE...

bench methods: the published loading comparison, each method over libpq into a fresh table, the
rows counted by count(*) afterwards: insert (one parameterized single-row INSERT per row in one
transaction, on a sample of --insert-rows rows), multi-insert (INSERT ... VALUES of --batch-rows
rows), copy-text (COPY FROM STDIN, text format, rows formatted on the client), copy-csv-file (a CSV
file per worker, then server-side COPY FROM it: timed with and without writing it), copy-binary
(Isobar's engine) and server-limit (server-side binary COPY of the same rows: the ceiling). For
each: rows, seconds, rows/s, ratio to server-limit, client CPU seconds and WAL bytes written; the
median of the rounds. --durability fast turns fsync and full_page_writes off server-wide during
its runs (restored after each), hence --yes.

bench matrix: for each data size (synthetic global hours) and table type (regular, unlogged,
partitioned, hypertable, hypertable-compressed (after the load), hypertable-direct (as COPY
receives the rows: TimescaleDB 2.21+), distributed; by default all, and those this
server cannot make are rows that say why): write
time with 1 and N workers, size on disk (heap, indexes, TOAST; before compression), read-back time
(a full scan and whole series of --series locations, with 1 and N readers) and the removal of the
oldest day (DELETE + VACUUM, DETACH + DROP partition, drop_chunks).

bench query: weather queries per table type (one location's daily max temperature over the whole
range; 8 locations for 1 hour; mean temperature per latitude band per hour over a day; the last 5
hourly values of every location in a region), cold (the first run after loading; on the embedded
cluster after a server restart unless --no-restart) and warm (--repeats runs: mean and p95), and
retention: one day removed by DELETE vs DETACH + DROP partition vs drop_chunks, sizes before and after.
Default data: 48 synthetic global hours.

Every bench writes its report as JSON, CSV and HTML into the report directory's bench/ folder
(where the desktop app's Benchmarks tab lists them) and, with --report, to PATH too (.json, .csv,
.html or .md by the extension); methods, matrix and query print their tables as Markdown.

bench read: the client side of a load on one core, stage by stage - reading with netcdf-c
(including HDF5 decompression) or ecCodes (GRIB unpacking), decoding with unit conversion, binary COPY encoding with location
ids - per million rows and per global hour of the 0.25 degree grid (1,038,240 rows); the best of
N passes, each on freshly opened files.

bench ingest: the speed target, side by side on the same rows: (a) `isobar-cli load` of the
files with N workers, timed as a whole process from start to exit (as /usr/bin/time sees it), with
its load phase (a') and its COPY phase (a'': from its workers' start to the table ready) beside it,
against (b) the server's own limit, N concurrent server-side COPY ... FROM 'file' (FORMAT binary) of
the identical rows encoded beforehand, and (c) a bare libpq client streaming those rows; (b) and
(c) are timed from their first COPY, their connections open and their table made. Each into a
fresh table after a CHECKPOINT, rounds rotating which goes first, the median round of each; ratios
a/b (the target), a'/b, c/b and a''/c. The server must run on this machine (default: the
embedded cluster) and the role may read server files. A hypertable (--table-types hypertable,
where TimescaleDB is installed) ends the same for all three: copied into without its index on
time, which is then built, in the time. The rounds follow one untimed server COPY of the rows (on a
virtual machine the first run after the files were written was the slowest, whoever ran it).

bench sustained: a long load at a steady rate, or not: `isobar-cli load` of the files (default:
--hours synthetic global hours, 100 = 103.8 million rows, written first) with N workers into a fresh
table, timed as a whole process, against the server's own COPY of the same rows, --rounds times
(default 3) alternating which goes first. Prints the median of each with their ratio and each
round's ratio, the per-interval rate (median, p5, min over the middle 90% of the load), the
checkpoints during it and the worst 10 s after one, of the round with the median whole process;
the curves are the loads' run reports (the median round's path is printed; `isobar-cli report`
renders one as HTML with the chart, or CSV). The rounds follow one untimed server COPY of the rows,
as in bench ingest. Needs disk for the rows encoded once more (some 86 bytes a row: 9 GB for 100
hours).

bench durability: what trading durability for speed is worth on this server: isobar's load with
--durability safe against --durability fast, side by side, rounds alternating which goes first.
The fast runs turn fsync and full_page_writes off server-wide for their duration (restored after
each, as a load does), hence --yes.

options:
)";

} // namespace

std::vector<int> parseIntList(const std::string& text, const std::string& option, int min, int max) {
    return parseList<int>(
        text, option,
        [min, max](const std::string& s) -> std::optional<int> {
            try {
                std::size_t used = 0;
                const int n = std::stoi(s, &used);
                return used == s.size() && n >= min && n <= max ? std::optional<int>(n) : std::nullopt;
            } catch (const std::exception&) {
                return std::nullopt;
            }
        },
        "whole numbers " + std::to_string(min) + "-" + std::to_string(max));
}

std::vector<int> parseWorkerList(const std::string& text) {
    return parseIntList(text, "workers", 1, 64);
}

BenchReport BenchRun::begin(Connection* conn) const {
    BenchReport report;
    report.kind = kind;
    report.title = "isobar-cli bench " + kind;
    report.command = "isobar-cli bench " + join(args, " ");
    report.started = formatUtcNow("%Y-%m-%dT%H:%M:%SZ");
    if (conn != nullptr) {
        describeEnvironment(*conn, report);
    } else {
        report.machine = describeMachine();
    }
    return report;
}

void BenchRun::finish(BenchReport& report) const {
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (report.command.empty()) {
        report.command = "isobar-cli bench " + join(args, " ");
    }
    const auto path = writeBenchReport(report, benchReportDirectory(), extra);
    std::cerr << "bench report: " << path.string() << " (and .csv, .html beside it)"
              << (extra ? ", " + extra->string() : std::string()) << "\n";
}

int runBenchCommand(const std::vector<std::string>& args, std::stop_token stop) {
    auto specs = inputOptionSpecs();
    const std::vector<OptionSpec> own = {
        {"passes", "N", "read: passes over the files; the best is reported (default 3)"},
        {"hours", "N",
         "sustained: synthetic global hours to load when no FILE is given (default 100); matrix: the data "
         "sizes, a list (default 1,10)"},
        {"synthetic-hours", "N",
         "methods, query: synthetic global hours when no FILE is given (methods: 1, query: 48)"},
        {"methods", "M,N",
         "methods: insert, multi-insert, copy-text, copy-csv-file, copy-binary, server-limit (default all)"},
        {"durability", "safe,fast", "methods: durability of the runs (default safe; fast needs --yes)"},
        {"insert-rows", "N", "methods: rows of the single-row INSERT's sample (default 20000)"},
        {"batch-rows", "N", "methods: rows per multi-row INSERT (default 1000)"},
        {"series", "N", "matrix: locations whose whole series are read (default 8)"},
        {"repeats", "N", "query: warm runs of each query (default 5)"},
        {"no-restart", "", "query: do not restart the embedded cluster before the cold runs"},
        {"report", "PATH", "also write the bench report to PATH (.json, .csv, .html or .md)"},
        {"dsn", "CONNINFO", "the server (default: the embedded cluster)"},
        {"workers", "N,M",
         "ingest, durability, methods: stream counts to measure (default 1 and the number of cores; methods: "
         "1); "
         "matrix: N (default the number of cores)"},
        {"table-types", "T,U",
         "ingest, durability: regular and/or unlogged (default both); ingest also hypertable, "
         "hypertable-compressed (compressed after the COPY) and hypertable-direct (direct compress of COPY), "
         "where TimescaleDB is installed; sustained: one of those (default regular); methods: regular, "
         "unlogged, partitioned, hypertable, distributed "
         "(default regular); matrix, query: those and hypertable-compressed, hypertable-direct (default: "
         "all; those the server "
         "cannot make say why)"},
        {"rounds", "N",
         "ingest, sustained, durability, methods: rounds per measurement (default 3; ingest, sustained, "
         "methods: the median counts, durability: the best)"},
        {"yes", "",
         "durability, methods: agree to fsync and full_page_writes off server-wide during the fast runs"},
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
    static const std::vector<std::string> kinds{"methods", "matrix",     "query",    "read",
                                                "ingest",  "durability", "sustained"};
    if (std::find(kinds.begin(), kinds.end(), what) == kinds.end()) {
        throw UsageError{"unknown benchmark '" + what +
                         "' (methods, matrix, query, read, ingest, sustained or durability)"};
    }
    if (what == "durability" && !parsed.flag("yes")) {
        throw UsageError{
            "bench durability turns fsync and full_page_writes off server-wide during its fast runs "
            "(an OS crash meanwhile can corrupt the whole cluster); add --yes to accept this"};
    }
    if (files.empty() && (what == "read" || what == "ingest" || what == "durability")) {
        throw UsageError{"bench " + what + " needs at least one FILE"};
    }
    std::optional<std::filesystem::path> reportPath;
    if (const auto r = parsed.value("report")) {
        const std::string ext = std::filesystem::path(*r).extension().string();
        if (ext != ".json" && ext != ".csv" && ext != ".html" && ext != ".htm" && ext != ".md") {
            throw UsageError{"--report " + *r + ": the report is .json, .csv, .html or .md"};
        }
        reportPath = *r;
    }
    BenchRun run{what, args, reportPath};
    if (what == "methods" || what == "matrix" || what == "query") {
        return runWarehouseBench(parsed, files, run, stop);
    }
    stoppable() = true;
    if (what == "read") {
        const int passes = static_cast<int>(parsed.integer("passes", 3, 1, 100));
        const ReadBenchmarkResult result = benchmarkRead(files, openOptionsFrom(parsed), passes, stop);
        std::cout << formatReadBenchmark(result);
        BenchReport report = run.begin(nullptr);
        addReadTables(report, result);
        run.finish(report);
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
    options.workers =
        parseWorkerList(parsed.value("workers", cores > 1 ? "1," + std::to_string(cores) : "1"));
    // A hypertable's ceiling is the server's COPY into a hypertable; the durability runs compare
    // the plain tables.
    const bool hypertables = what == "ingest" || what == "sustained";
    options.tableTypes = parseList<BenchTableType>(
        parsed.value("table-types", what == "sustained" ? "regular" : "regular,unlogged"), "table-types",
        [hypertables](const std::string& s) {
            const auto t = parseBenchTableType(s);
            return t && (t->type == TableType::Regular || t->type == TableType::Unlogged ||
                         (hypertables && t->type == TableType::Hypertable))
                       ? t
                       : std::nullopt;
        },
        hypertables ? "regular, unlogged, hypertable, hypertable-compressed or hypertable-direct"
                    : "regular or unlogged");
    options.conninfo = targetFrom(parsed);
    restoreAbandonedOn(options.conninfo);
    const auto progress = [](const std::string& step) {
        std::cerr << "  " << step << std::endl;
    };
    BenchReport report = [&] {
        Connection conn = Connection::open(options.conninfo); // not kept open while the bench runs
        return run.begin(&conn);
    }();
    if (what == "durability") {
        const auto rows = benchmarkDurability(options, progress, stop);
        std::cout << formatDurabilityBenchmark(rows);
        addDurabilityTables(report, rows);
    } else if (what == "sustained") {
        const int hours = static_cast<int>(parsed.integer("hours", 100, 1, 100'000));
        const int workers = parsed.value("workers") ? options.workers.front() : cores;
        const SustainedBenchmark b =
            benchmarkSustained(options, hours, workers, defaultReportDirectory(), progress, stop);
        std::cout << formatSustainedBenchmark(b);
        addSustainedTables(report, b);
    } else {
        const auto rows = benchmarkIngest(options, progress, stop);
        std::cout << formatIngestBenchmark(rows);
        addIngestTables(report, rows);
    }
    run.finish(report);
    return kExitOk;
}

} // namespace isobar::cli
