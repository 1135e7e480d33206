// bench sustained: a long load as a whole process against the server's COPY of the same rows, and
// the curve of its run report.

#include "bench/BenchmarkSteps.h"
#include "bench/IngestBenchmark.h"
#include "db/TableMetadata.h"
#include "era5/SampleWriter.h"
#include "util/Error.h"
#include "util/Format.h"
#include "util/Json.h"
#include "util/TempDir.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
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
    Connection conn = Connection::open(options.conninfo);
    checkServerCanReadFiles(conn);
    ensureMetadataSchema(conn);
    dropTables(conn);
    TempDir dir("isobar-bench", 0711); // the server reads the files by name
    if (options.files.empty()) {
        SampleOptions sample;
        sample.out = dir.path() / "sustained.nc";
        sample.hours = hours;
        progress("writing " + std::to_string(hours) + " synthetic global hour(s) into " +
                 sample.out.string());
        writeSample(sample, stop);
        options.files = {sample.out};
    }
    const Dataset dataset = Dataset::open(options.files, options.open);
    const LoadPlan plan = LoadPlan::build(dataset);
    const TableLayout layout{dataset.vertical(), dataset.columns()};
    SustainedBenchmark b;
    b.rows = plan.totalRows();
    b.workers = workers;
    std::filesystem::create_directories(reportDir);
    b.report = reportDir / ("sustained-" + formatUtcNow("%Y-%m-%dT%H-%M-%SZ") + ".json");
    progress("loading " + std::to_string(b.rows) + " rows with isobar-cli load, " + std::to_string(workers) +
             " worker(s)");
    const IsobarTiming t = timeIsobar(options, TableType::Regular, workers, stop, b.report);
    b.wallSeconds = t.wallSeconds;
    b.loadSeconds = t.loadSeconds;
    readCurve(t.report, b);
    dropTables(conn);
    progress("encoding the same rows into " + std::to_string(workers) + " file(s) for the server's own COPY");
    const auto files = writeCopyFiles(dataset, plan, workers, dir.path(), stop);
    progress("the server's own COPY of the same rows");
    {
        Connection admin = Connection::open(options.conninfo);
        admin.exec("CHECKPOINT");
    }
    b.ceilingSeconds = timeCeiling(options.conninfo, TableType::Regular, layout, files);
    dropTables(conn);
    return b;
}

std::string formatSustainedBenchmark(const SustainedBenchmark& b) {
    const auto rate = [&b](double s) {
        return s > 0 ? static_cast<double>(b.rows) / s : 0.0;
    };
    char text[1200];
    std::snprintf(
        text, sizeof text,
        "%llu rows, %d worker(s), regular table\n"
        "  isobar-cli load, whole process  %10s  %12.0f rows/s\n"
        "  its load phase                  %10s  %12.0f rows/s\n"
        "  server COPY of the same rows    %10s  %12.0f rows/s\n"
        "  whole process / server COPY     %10.2f\n"
        "per-interval rate over the middle 90%% of the load: median %.0f, p5 %.0f, min %.0f rows/s\n"
        "checkpoints during the load: %llu; %s\n"
        "the curve: %s (isobar-cli report renders it as HTML or CSV)\n",
        static_cast<unsigned long long>(b.rows), b.workers, formatDuration(b.wallSeconds).c_str(),
        rate(b.wallSeconds), formatDuration(b.loadSeconds).c_str(), rate(b.loadSeconds),
        formatDuration(b.ceilingSeconds).c_str(), rate(b.ceilingSeconds),
        b.ceilingSeconds > 0 && b.wallSeconds > 0 ? b.ceilingSeconds / b.wallSeconds : 0.0, b.medianRate,
        b.p5Rate, b.minRate, static_cast<unsigned long long>(b.checkpoints),
        b.checkpoints == 0 ? "no sag to measure"
                           : ("the worst 10 s after one ran at " +
                              std::to_string(std::lround(b.worstAfterCheckpoint * 100)) + "% of the median")
                                 .c_str(),
        b.report.string().c_str());
    return text;
}

} // namespace isobar
