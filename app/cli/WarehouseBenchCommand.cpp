// SPDX-License-Identifier: GPL-3.0-or-later

// bench methods, matrix and query: options, the run, the Markdown tables and the report.

#include "BenchCli.h"
#include "Commands.h"
#include "bench/WarehouseBenchmarks.h"
#include "db/LocalCluster.h"
#include "ingest/Loader.h"
#include "util/Error.h"
#include "util/Text.h"

#include <cmath>
#include <iomanip>
#include <iostream>

namespace isobar::cli {

namespace {

std::vector<BenchTableType> benchTableTypesFrom(const ParsedArgs& parsed) {
    if (!parsed.value("table-types")) {
        return {}; // every type this server can make
    }
    return parseList<BenchTableType>(
        *parsed.value("table-types"), "table-types",
        [](const std::string& s) { return parseBenchTableType(s); },
        "regular, unlogged, partitioned, hypertable, hypertable-compressed, hypertable-direct or "
        "distributed");
}

BenchData dataFrom(const ParsedArgs& parsed, const std::vector<std::filesystem::path>& files,
                   int defaultHours) {
    BenchData data;
    data.files = files;
    data.open = openOptionsFrom(parsed);
    if (parsed.value("synthetic-hours")) {
        if (!files.empty()) {
            throw UsageError{"--synthetic-hours makes the rows; it does not go with FILEs"};
        }
        data.syntheticHours = static_cast<int>(parsed.integer("synthetic-hours", defaultHours, 1, 10'000));
    } else if (files.empty()) {
        data.syntheticHours = defaultHours;
    }
    return data;
}

// A progress line on stderr for each step, with the share done.
BenchProgress progressLines() {
    return [](const std::string& step, double done) {
        std::cerr << "  ";
        if (done >= 0) {
            std::cerr << "[" << std::setw(3) << std::lround(done * 100) << "%] ";
        }
        std::cerr << step << std::endl;
    };
}

} // namespace

int runWarehouseBench(const ParsedArgs& parsed, const std::vector<std::filesystem::path>& files,
                      const BenchRun& run, std::stop_token stop) {
    const std::string& what = run.kind;
    for (const char* other : {"passes", "transport"}) {
        if (parsed.value(other)) {
            throw UsageError{std::string("--") + other + " is not an option of bench " + what};
        }
    }
    BenchReport report;
    const auto check = [&](const char* option, bool allowed) {
        if (parsed.value(option) && !allowed) {
            throw UsageError{std::string("--") + option + " is not an option of bench " + what};
        }
    };
    check("methods", what == "methods");
    check("durability", what == "methods");
    check("insert-rows", what == "methods");
    check("batch-rows", what == "methods");
    check("rounds", what == "methods");
    check("yes", what == "methods");
    check("series", what == "matrix");
    check("hours", what == "matrix");
    check("synthetic-hours", what != "matrix");
    check("repeats", what == "query");
    check("no-restart", what == "query");
    check("workers", what != "query");

    if (what == "methods") {
        MethodsBenchmarkOptions o;
        o.data = dataFrom(parsed, files, 1);
        if (parsed.value("methods")) {
            o.methods = parseList<LoadMethod>(
                *parsed.value("methods"), "methods", [](const std::string& s) { return parseLoadMethod(s); },
                "insert, multi-insert, copy-text, copy-csv-file, copy-binary or server-limit");
        }
        o.tableTypes = parseList<BenchTableType>(
            parsed.value("table-types", "regular"), "table-types",
            [](const std::string& s) {
                const auto t = parseBenchTableType(s);
                return t && (!t->compressed || t->direct) ? t : std::nullopt;
            },
            "regular, unlogged, partitioned, hypertable, hypertable-direct or distributed");
        o.workers = parseWorkerList(parsed.value("workers", "1"));
        o.durability = parseList<std::string>(
            parsed.value("durability", "safe"), "durability",
            [](const std::string& s) -> std::optional<std::string> {
                return s == "safe" || s == "fast" ? std::optional(s) : std::nullopt;
            },
            "safe or fast");
        o.consent = parsed.flag("yes");
        if (std::find(o.durability.begin(), o.durability.end(), "fast") != o.durability.end() && !o.consent) {
            throw UsageError{
                "--durability fast turns fsync and full_page_writes off server-wide during its runs "
                "(an OS crash meanwhile can corrupt the whole cluster); add --yes to accept this"};
        }
        o.rounds = static_cast<int>(parsed.integer("rounds", 3, 1, 20));
        o.insertRows = static_cast<std::uint64_t>(parsed.integer("insert-rows", 20'000, 1, 100'000'000));
        o.batchRows = static_cast<std::uint64_t>(parsed.integer("batch-rows", 1000, 1, 100'000));
        o.conninfo = targetFrom(parsed);
        restoreAbandonedOn(o.conninfo);
        stoppable() = true;
        report = benchmarkMethods(o, progressLines(), stop);
    } else if (what == "matrix") {
        MatrixBenchmarkOptions o;
        o.data.files = files;
        o.data.open = openOptionsFrom(parsed);
        if (parsed.value("hours") && !files.empty()) {
            throw UsageError{"--hours makes the rows; it does not go with FILEs"};
        }
        o.hours = parseIntList(parsed.value("hours", "1,10"), "hours", 1, 10'000);
        o.tableTypes = benchTableTypesFrom(parsed);
        o.workers = static_cast<int>(parsed.integer("workers", defaultWorkerCount(), 1, 64));
        o.seriesLocations = static_cast<int>(parsed.integer("series", 8, 1, 1000));
        o.conninfo = targetFrom(parsed);
        stoppable() = true;
        report = benchmarkMatrix(o, progressLines(), stop);
    } else {
        QueryBenchmarkOptions o;
        o.data = dataFrom(parsed, files, 48);
        o.tableTypes = benchTableTypesFrom(parsed);
        o.repeats = static_cast<int>(parsed.integer("repeats", 5, 1, 1000));
        o.conninfo = targetFrom(parsed);
        if (!parsed.value("dsn") && !parsed.flag("no-restart")) {
            // The embedded cluster is Isobar's own: its buffers are emptied for the cold runs.
            const LocalClusterOptions cluster = clusterOptionsFrom(parsed);
            o.restartServer = [cluster] {
                LocalCluster c(cluster);
                c.stop();
                c.start();
            };
        }
        stoppable() = true;
        report = benchmarkQueries(o, progressLines(), stop);
    }
    report.command = "isobar-cli bench " + join(run.args, " ");
    std::cout << renderBenchMarkdown(report);
    run.finish(report);
    if (report.status == "cancelled") {
        return kExitCancelled;
    }
    if (report.status != "completed") {
        printError("bench " + what + " " + report.status + ": " + report.problem);
        return kExitFailed;
    }
    return kExitOk;
}

} // namespace isobar::cli
