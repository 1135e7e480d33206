// SPDX-License-Identifier: GPL-3.0-or-later

#include "bench/ClassicBenchReports.h"

#include "db/TableType.h"

namespace isobar {

namespace {

BenchValue ratio(double a, double b) {
    return a > 0 && b > 0 ? BenchValue(a / b) : BenchValue{};
}

BenchValue rateOf(std::uint64_t rows, double seconds) {
    return seconds > 0 ? BenchValue(static_cast<double>(rows) / seconds) : BenchValue{};
}

} // namespace

void addReadTables(BenchReport& report, const ReadBenchmarkResult& r) {
    BenchTable t{"read", "The client side of a load, on one core", {}, {}, {}};
    t.columns = {{"stage", "stage", ""},
                 {"seconds", "seconds (best pass)", "seconds"},
                 {"per_million_rows_s", "per million rows", "seconds"},
                 {"rows_per_s", "rows/s", "rate"}};
    for (const auto& [name, s] : {std::pair<const char*, double>{"read (netcdf-c / ecCodes)", r.readSeconds},
                                  {"decode", r.decodeSeconds},
                                  {"encode (binary COPY)", r.encodeSeconds},
                                  {"all", r.readSeconds + r.decodeSeconds + r.encodeSeconds}}) {
        t.rows.push_back({std::string(name), s, r.perMillionRows(s), rateOf(r.rows, s)});
    }
    t.notes = {std::to_string(r.rows) + " rows in " + std::to_string(r.steps) + " step(s), best of " +
               std::to_string(r.passes) + " pass(es); " + std::to_string(r.bytes) + " COPY bytes produced."};
    report.tables.push_back(std::move(t));
}

void addIngestTables(BenchReport& report, const std::vector<IngestBenchmarkRow>& rows) {
    BenchTable t{"ingest", "Isobar against the server's own COPY", {}, {}, {}};
    t.columns = {{"table_type", "table type", ""},
                 {"streams", "streams", "int"},
                 {"rows", "rows", "int"},
                 {"isobar_rows_per_s", "(a) isobar", "rate"},
                 {"load_rows_per_s", "(a') load phase", "rate"},
                 {"copy_rows_per_s", "(a'') COPY phase", "rate"},
                 {"server_rows_per_s", "(b) server COPY", "rate"},
                 {"client_rows_per_s", "(c) bare client", "rate"},
                 {"a_b", "a/b", "ratio"},
                 {"a1_b", "a'/b", "ratio"},
                 {"c_b", "c/b", "ratio"},
                 {"a2_c", "a''/c", "ratio"},
                 {"note", "note", ""}};
    BenchPlot plot{BenchPlot::Kind::Bars,
                   "Whole process against the server's COPY",
                   "table type, streams",
                   "rows/s",
                   "rate",
                   {},
                   {{"(a) isobar", {}}, {"(b) server COPY", {}}, {"(c) bare client", {}}}};
    for (const auto& r : rows) {
        const std::string type(benchTableTypeName(r.tableType));
        if (!r.skipped.empty()) {
            t.rows.push_back({type,
                              double(r.workers),
                              double(r.rows),
                              {},
                              {},
                              {},
                              {},
                              {},
                              {},
                              {},
                              {},
                              {},
                              "not measured: " + r.skipped});
            continue;
        }
        const double a = r.rate(r.isobarWall);
        const double load = r.rate(r.isobarLoad);
        const double copy = r.rate(r.isobarCopy);
        const double b = r.rate(r.ceiling);
        const double c = r.rate(r.stream);
        t.rows.push_back({type, double(r.workers), double(r.rows), a, load, copy, b, c, ratio(a, b),
                          ratio(load, b), ratio(c, b), ratio(copy, c), r.byRound()});
        plot.categories.push_back(type + ", " + std::to_string(r.workers));
        plot.series[0].values.emplace_back(a);
        plot.series[1].values.emplace_back(b);
        plot.series[2].values.emplace_back(c);
    }
    t.notes = {
        "rows/s of the median round. (a) isobar-cli load of the files, the whole process; (a') its "
        "load phase; (a'') its COPY phase, from the workers' start to the table ready (a hypertable's index "
        "built); "
        "(b) server-side COPY FROM file of the same rows; (c) the same rows streamed by a bare libpq "
        "client, timed from its first COPY (its connections open, its table made). The note: each round's "
        "ratios, spared the drift between rounds."};
    report.tables.push_back(std::move(t));
    if (!plot.categories.empty()) {
        report.plots.push_back(std::move(plot));
    }
}

void addDurabilityTables(BenchReport& report, const std::vector<DurabilityBenchmarkRow>& rows) {
    BenchTable t{"durability", "Durability traded for speed", {}, {}, {}};
    t.columns = {{"table_type", "table type", ""},
                 {"workers", "workers", "int"},
                 {"rows", "rows", "int"},
                 {"safe_rows_per_s", "safe rows/s", "rate"},
                 {"fast_rows_per_s", "fast rows/s", "rate"},
                 {"fast_safe", "fast/safe", "ratio"},
                 {"safe_durable_rows_per_s", "until durable: safe", "rate"},
                 {"fast_durable_rows_per_s", "until durable: fast", "rate"},
                 {"fast_safe_durable", "fast/safe until durable", "ratio"}};
    for (const auto& r : rows) {
        t.rows.push_back({std::string(tableTypeName(r.tableType)), double(r.workers), double(r.rows),
                          rateOf(r.rows, r.safeSeconds), rateOf(r.rows, r.fastSeconds),
                          ratio(r.safeSeconds, r.fastSeconds), rateOf(r.rows, r.safeWallSeconds),
                          rateOf(r.rows, r.fastWallSeconds), ratio(r.safeWallSeconds, r.fastWallSeconds)});
    }
    t.notes = {
        "best round of each. safe: fsync, full_page_writes, synchronous_commit on; fast: all three off for "
        "the run. 'until durable' adds checking the server, applying and restoring the settings and the "
        "CHECKPOINT that makes the rows durable."};
    report.tables.push_back(std::move(t));
}

void addSustainedTables(BenchReport& report, const SustainedBenchmark& b) {
    BenchTable t{"sustained", "A long load", {}, {}, {}};
    t.columns = {{"what", "what", ""}, {"seconds", "seconds", "seconds"}, {"rows_per_s", "rows/s", "rate"}};
    t.rows = {
        {std::string("isobar-cli load, whole process"), b.wallSeconds, rateOf(b.rows, b.wallSeconds)},
        {std::string("its load phase"), b.loadSeconds, rateOf(b.rows, b.loadSeconds)},
        {std::string("server COPY of the same rows"), b.ceilingSeconds, rateOf(b.rows, b.ceilingSeconds)}};
    BenchTable s{"sustained_rate", "The per-interval rate", {}, {}, {}};
    s.columns = {{"median_rows_per_s", "median", "rate"},
                 {"p5_rows_per_s", "p5", "rate"},
                 {"min_rows_per_s", "min", "rate"},
                 {"checkpoints", "checkpoints", "int"},
                 {"worst_after_checkpoint", "worst 10 s after one / median", "ratio"},
                 {"whole_vs_server", "whole process / server COPY", "ratio"}};
    s.rows = {{b.medianRate, b.p5Rate, b.minRate, double(b.checkpoints),
               b.checkpoints > 0 ? BenchValue(b.worstAfterCheckpoint) : BenchValue{},
               ratio(b.ceilingSeconds, b.wallSeconds)}};
    t.notes = {"the median of " + std::to_string(b.rounds.size()) +
               " round(s), alternating which of the two goes first"};
    s.notes = {std::to_string(b.rows) + " rows, " + std::to_string(b.workers) +
               " worker(s), regular table; over the middle 90% of the load of round " +
               std::to_string(b.curveRound + 1) +
               " (the median whole process). The curve: " + b.report.string()};
    BenchTable r{"sustained_rounds", "Each round", {}, {}, {}};
    r.columns = {{"round", "round", "int"},
                 {"first", "first", ""},
                 {"isobar_seconds", "isobar-cli load, whole process", "seconds"},
                 {"load_seconds", "its load phase", "seconds"},
                 {"server_seconds", "server COPY", "seconds"},
                 {"whole_vs_server", "whole process / server COPY", "ratio"},
                 {"report", "run report", ""}};
    for (std::size_t i = 0; i < b.rounds.size(); ++i) {
        const SustainedRound& round = b.rounds[i];
        r.rows.push_back({double(i + 1), std::string(round.isobarFirst ? "isobar" : "server"),
                          round.wallSeconds, round.loadSeconds, round.ceilingSeconds,
                          ratio(round.ceilingSeconds, round.wallSeconds), round.report.string()});
    }
    report.tables.push_back(std::move(t));
    report.tables.push_back(std::move(s));
    report.tables.push_back(std::move(r));
}

} // namespace isobar
