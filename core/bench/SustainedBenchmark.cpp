// SPDX-License-Identifier: GPL-3.0-or-later

// bench sustained: a long load as a whole process against the server's COPY of the same rows, and
// the curve of its run report.

#include "bench/BenchmarkStages.h"
#include "bench/IngestBenchmark.h"
#include "db/TableMetadata.h"
#include "synth/SyntheticFiles.h"
#include "util/Error.h"
#include "util/Format.h"
#include "util/Json.h"
#include "util/TempDir.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace isobar {

using namespace bench;

namespace {

// The curve of a run report: its per-interval rates and when checkpoints began.
void readCurve(const JsonValue& report, SustainedBenchmark& b) {
    std::vector<std::pair<double, double>> samples; // (t, rate)
    for (const auto& s : report["samples"].array()) {
        samples.emplace_back(s["t"].number(), s["rate"].number());
    }
    std::vector<double> checkpointTimes;
    std::uint64_t last = 0; // the report counts checkpoints from the start of the run
    for (const auto& s : report["serverSamples"].array()) {
        const std::uint64_t n =
            s["checkpointsTimed"].unsignedInteger() + s["checkpointsRequested"].unsignedInteger();
        if (n > last) {
            checkpointTimes.push_back(s["t"].number());
            b.checkpoints += n - last;
        }
        last = n;
    }
    if (samples.empty()) {
        return;
    }
    const double end = samples.back().first;
    std::vector<double> middle;
    for (const auto& [t, rate] : samples) {
        if (t >= 0.05 * end && t <= 0.95 * end) {
            middle.push_back(rate);
        }
    }
    b.medianRate = median(middle);
    b.p5Rate = percentileOf(middle, 0.05);
    b.minRate = middle.empty() ? 0 : *std::min_element(middle.begin(), middle.end());
    for (double tc : checkpointTimes) {
        std::vector<double> after;
        for (const auto& [t, rate] : samples) {
            if (t >= tc && t < tc + 10) {
                after.push_back(rate);
            }
        }
        if (!after.empty() && b.medianRate > 0) {
            const double ratio = median(after) / b.medianRate;
            b.worstAfterCheckpoint =
                b.worstAfterCheckpoint == 0 ? ratio : std::min(b.worstAfterCheckpoint, ratio);
        }
    }
}

} // namespace

SustainedBenchmark benchmarkSustained(IngestBenchmarkOptions options, int hours, int workers,
                                      const std::filesystem::path& reportDir,
                                      const std::function<void(const std::string&)>& progress,
                                      const std::stop_token& stop) {
    if (options.program.empty()) {
        throw Error(
            "bench sustained times isobar-cli load as a process of its own: the program is not known");
    }
    if (options.rounds < 1) {
        throw Error("bench sustained needs at least one round");
    }
    Connection conn = Connection::open(options.conninfo);
    checkServerCanReadFiles(conn);
    ensureMetadataSchema(conn);
    dropTables(conn);
    TempDir dir("isobar-bench", 0711); // the server reads the files by name
    if (options.files.empty()) {
        SyntheticOptions sample;
        sample.out = dir.path() / "sustained.nc";
        sample.hours = hours;
        progress("writing " + std::to_string(hours) + " synthetic global hour(s) into " +
                 sample.out.string());
        writeSynthetic(sample, stop);
        // A first load right after a 1.2 GB file was written ran during its write-back, at 0.57 of
        // the server's COPY where the next ones ran at 0.72-0.82.
        syncToDisk(sample.out);
        options.files = {sample.out};
    }
    const Dataset dataset = Dataset::open(options.files, options.open);
    const LoadPlan plan = LoadPlan::build(dataset);
    const TableLayout layout{dataset.vertical(), dataset.columns()};
    SustainedBenchmark b;
    b.rows = plan.totalRows();
    b.workers = workers;
    std::filesystem::create_directories(reportDir);
    progress("encoding the rows into " + std::to_string(workers) + " file(s) for the server's own COPY");
    const auto files = writeCopyFiles(dataset, plan, workers, dir.path(), stop);
    warmUp(options.conninfo, conn, layout, files, progress);
    const std::string stamp = formatUtcNow("%Y-%m-%dT%H-%M-%SZ");
    std::vector<JsonValue> reports;
    for (int r = 0; r < options.rounds; ++r) {
        SustainedRound round;
        round.isobarFirst = r % 2 == 0; // neither always runs on the warmer server
        const std::string name = "round " + std::to_string(r + 1) + " of " + std::to_string(options.rounds);
        round.report = reportDir / ("sustained-" + stamp +
                                    (options.rounds > 1 ? "-round-" + std::to_string(r + 1) : "") + ".json");
        for (int which = 0; which < 2; ++which) {
            if (stop.stop_requested()) {
                throw Cancelled();
            }
            if ((which == 0) == round.isobarFirst) {
                progress(name + ": isobar-cli load of " + std::to_string(b.rows) + " rows, " +
                         std::to_string(workers) + " worker(s)");
                IsobarTiming t = timeIsobar(options, options.tableTypes.front(), workers, stop, round.report);
                round.wallSeconds = t.wallSeconds;
                round.loadSeconds = t.loadSeconds;
                reports.push_back(std::move(t.report));
            } else {
                progress(name + ": the server's own COPY of the same rows");
                round.ceilingSeconds =
                    timeCeiling(options.conninfo, options.tableTypes.front(), layout, files);
            }
            dropTables(conn);
        }
        char said[160];
        std::snprintf(said, sizeof said, "%s: whole process %s, server COPY %s: %.2f", name.c_str(),
                      formatDuration(round.wallSeconds).c_str(), formatDuration(round.ceilingSeconds).c_str(),
                      round.wallSeconds > 0 ? round.ceilingSeconds / round.wallSeconds : 0.0);
        progress(said);
        b.rounds.push_back(std::move(round));
    }
    std::vector<double> wall;
    std::vector<double> load;
    std::vector<double> ceiling;
    for (const SustainedRound& round : b.rounds) {
        wall.push_back(round.wallSeconds);
        load.push_back(round.loadSeconds);
        ceiling.push_back(round.ceilingSeconds);
    }
    b.wallSeconds = median(wall);
    b.loadSeconds = median(load);
    b.ceilingSeconds = median(ceiling);
    // The curve of a round that happened, not an average of curves: the median one (of an even
    // number, the faster of the middle two).
    std::vector<std::size_t> order(b.rounds.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&b](std::size_t x, std::size_t y) {
        return b.rounds[x].wallSeconds < b.rounds[y].wallSeconds;
    });
    b.curveRound = order[(order.size() - 1) / 2];
    readCurve(reports[b.curveRound], b);
    b.report = b.rounds[b.curveRound].report;
    return b;
}

std::string formatSustainedBenchmark(const SustainedBenchmark& b) {
    const auto rate = [&b](double s) {
        return s > 0 ? static_cast<double>(b.rows) / s : 0.0;
    };
    const auto ratio = [](double ceiling, double wall) {
        return ceiling > 0 && wall > 0 ? ceiling / wall : 0.0;
    };
    char text[1200];
    std::snprintf(text, sizeof text,
                  "%llu rows, %d worker(s), regular table, %zu round(s) alternating which goes first "
                  "(the median of each)\n"
                  "  isobar-cli load, whole process  %10s  %12.0f rows/s\n"
                  "  its load phase                  %10s  %12.0f rows/s\n"
                  "  server COPY of the same rows    %10s  %12.0f rows/s\n"
                  "  whole process / server COPY     %10.2f\n",
                  static_cast<unsigned long long>(b.rows), b.workers, b.rounds.size(),
                  formatDuration(b.wallSeconds).c_str(), rate(b.wallSeconds),
                  formatDuration(b.loadSeconds).c_str(), rate(b.loadSeconds),
                  formatDuration(b.ceilingSeconds).c_str(), rate(b.ceilingSeconds),
                  ratio(b.ceilingSeconds, b.wallSeconds));
    std::string out = text;
    if (b.rounds.size() > 1) {
        out += "  each round, whole process / server COPY:";
        for (std::size_t i = 0; i < b.rounds.size(); ++i) {
            const SustainedRound& r = b.rounds[i];
            std::snprintf(text, sizeof text, "%s %zu: %.2f (%s first)", i == 0 ? "" : ",", i + 1,
                          ratio(r.ceilingSeconds, r.wallSeconds), r.isobarFirst ? "isobar" : "server");
            out += text;
        }
        out += "\n";
    }
    std::snprintf(
        text, sizeof text,
        "per-interval rate over the middle 90%% of the load%s: median %.0f, p5 %.0f, min %.0f rows/s\n"
        "checkpoints during the load: %llu; %s\n"
        "the curve: %s (isobar-cli report renders it as HTML or CSV)\n",
        b.rounds.size() > 1
            ? (" (round " + std::to_string(b.curveRound + 1) + ", the median whole process)").c_str()
            : "",
        b.medianRate, b.p5Rate, b.minRate, static_cast<unsigned long long>(b.checkpoints),
        b.checkpoints == 0 ? "no sag to measure"
                           : ("the worst 10 s after one ran at " +
                              std::to_string(std::lround(b.worstAfterCheckpoint * 100)) + "% of the median")
                                 .c_str(),
        b.report.string().c_str());
    out += text;
    return out;
}

} // namespace isobar
