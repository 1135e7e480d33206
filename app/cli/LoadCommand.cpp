// SPDX-License-Identifier: GPL-3.0-or-later

#include "Commands.h"
#include "db/LocalCluster.h"
#include "domain/Variable.h"
#include "ingest/Loader.h"
#include "report/ReportRecorder.h"
#include "util/Error.h"
#include "util/Format.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <vector>

namespace isobar::cli {

namespace {

const char* kLoadHelp = R"(usage: isobar-cli load [--dsn CONNINFO] [--table NAME] [options] FILE|DIR...

Loads ERA5 NetCDF and GRIB files into a PostgreSQL table with the weather schema, creating the table if it
is missing, with a column per variable of the files (the seed's six under the seed's names, the
others by short name; a pressure-level table also has pressure_level). The files form one dataset
keyed by (time, pressure level, grid point): the variables of one time step may come from
different files (one per variable from NCAR, the instant and accumulated members of a CDS ZIP
archive, GRIB and NetCDF files side by side), and a directory stands for the NetCDF and GRIB
files in it. The point series of the CDS time-series datasets (CSV, netCDF, ZIP) load too: files
of one point join on valid_time, a folder of points gives one row per point and hour.
`isobar-cli inspect` shows what a load would do.

Rows go in with binary COPY over N parallel connections, in work units (a band of latitude rows of
one time step, a few hundred thousand rows), each committed together with its row in the resume
ledger (schema isobar); a worker puts consecutive units into one COPY and transaction, up to
--rows-per-transaction rows or 10 s. Running the same command again loads exactly the units that
are not yet in the table: after a failure, a kill, a lost connection or Ctrl-C, nothing is lost and
nothing is loaded twice. Lost connections and server restarts are retried. After the load, every
COPY's row count as the server reports it has been checked (--verify full also counts the table).
Without --dsn the embedded cluster is used (started if needed; see `isobar-cli cluster`).

options:
)";

// "10s", "500ms", "2m", "0" (off).
std::chrono::milliseconds parsePeriod(const std::string& text) {
    std::size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        throw UsageError{"--reporting-period takes a duration such as 10s, 500ms or 1m, not '" + text + "'"};
    }
    const std::string unit = text.substr(used);
    double ms = 0;
    if (unit == "ms") {
        ms = value;
    } else if (unit == "s" || unit.empty()) {
        ms = value * 1000;
    } else if (unit == "m" || unit == "min") {
        ms = value * 60000;
    } else {
        throw UsageError{"--reporting-period takes a duration such as 10s, 500ms or 1m, not '" + text + "'"};
    }
    if (ms < 0) {
        throw UsageError{"--reporting-period cannot be negative"};
    }
    return std::chrono::milliseconds(static_cast<long long>(ms));
}

// Prints what happens: progress lines at the reporting period, and the line every Isobar load
// ends with. The engine never calls it from two threads at once.
class CliLoadSink final : public LoadSink {
public:
    explicit CliLoadSink(std::chrono::milliseconds period)
        : period_(static_cast<double>(period.count()) / 1000.0) {}

    void started(const LoadStart& s) override {
        std::cerr << "loading " << s.files.size() << " file(s), " << s.plannedRows << " rows in " << s.units
                  << " unit(s), into " << s.table << " on " << s.target << " with " << s.workers
                  << " worker(s)"
                  << (s.autoWorkers ? " to start with, more or fewer as the rate says (up to " +
                                          std::to_string(s.maxWorkers) + ")"
                                    : std::string())
                  << "\n";
        if (s.resumedUnits > 0) {
            std::cerr << "resuming: " << s.resumedUnits << " unit(s), " << s.resumedRows
                      << " rows, were committed by an earlier run and are skipped\n";
        }
    }
    void settingsChecked(const ServerInfo&, const std::vector<SettingWarning>& warnings) override {
        std::size_t info = 0;
        for (const SettingWarning& w : warnings) {
            if (w.severity == Severity::Info) {
                ++info;
            } else if (w.severity != Severity::Error) { // errors come back as the failure
                std::cerr << "isobar-cli: warning: " << formatWarning(w, false) << "\n";
            }
        }
        if (info > 0) {
            std::cerr << "isobar-cli: note: " << info
                      << " more finding(s) about the server in `isobar-cli settings` and the run report\n";
        }
    }
    void warning(const std::string& message) override {
        std::cerr << "isobar-cli: warning: " << message << "\n";
    }
    void note(const std::string& message) override { std::cerr << "isobar-cli: note: " << message << "\n"; }
    void workersChanged(const WorkerChange& c) override {
        std::cerr << "isobar-cli: workers " << c.from << " -> " << c.to << " at "
                  << formatDuration(c.elapsed, DurationPrecision::WholeSeconds) << ": " << c.reason << "\n";
    }
    void serverMeasured(const ServerReading& s) override { server_ = s; }
    void rateMeasured(const RateReading& s) override {
        last_ = s;
        if (period_ <= 0 || s.elapsed < nextReport_) {
            return;
        }
        const double periodRate =
            (s.elapsed - lastReportAt_) > 0
                ? static_cast<double>(s.rows - lastReportRows_) / (s.elapsed - lastReportAt_)
                : 0.0;
        char line[256];
        std::snprintf(
            line, sizeof line,
            "at %s, row rate %.1f/sec (period), row rate %.1f/sec (overall), %llu rows, %.1f%%, ETA %s",
            formatDuration(s.elapsed, DurationPrecision::WholeSeconds).c_str(), periodRate, s.overallRate,
            static_cast<unsigned long long>(s.committedRows), s.percent,
            s.etaSeconds < 0 ? "unknown"
                             : formatDuration(s.etaSeconds, DurationPrecision::WholeSeconds).c_str());
        std::cout << line << std::endl;
        if (server_ && server_->elapsed > lastServerAt_) {
            std::string text = describeServer(*server_);
            const std::uint64_t timed =
                server_->checkpointsTimed - std::min(server_->checkpointsTimed, timed_);
            const std::uint64_t requested =
                server_->checkpointsRequested - std::min(server_->checkpointsRequested, requested_);
            if (timed + requested > 0) {
                // What a dip in the rate since the last line most often is.
                text += (text.empty() ? "" : "; ") + std::to_string(timed + requested) + " checkpoint(s) (" +
                        (requested > 0 ? std::to_string(requested) + " requested: WAL reached max_wal_size"
                                       : "") +
                        (requested > 0 && timed > 0 ? ", " : "") +
                        (timed > 0 ? std::to_string(timed) + " timed" : "") + ")";
            }
            if (!text.empty()) {
                std::cerr << "isobar-cli: server: " << text << "\n";
            }
            timed_ = server_->checkpointsTimed;
            requested_ = server_->checkpointsRequested;
            lastServerAt_ = server_->elapsed;
        }
        lastReportAt_ = s.elapsed;
        lastReportRows_ = s.rows;
        nextReport_ += period_;
    }
    void finished(const LoadSummary& s) override {
        if (s.status == LoadStatus::Cancelled && s.compression && s.compression->chunksLeft > 0) {
            std::cerr << "cancelled while compressing after " << formatDuration(s.seconds)
                      << ": every row is committed; " << s.compression->chunksLeft
                      << " chunk(s) are not compressed yet. Run the same command again to compress them.\n";
            return;
        }
        if (s.status == LoadStatus::Cancelled) {
            std::cerr << "cancelled after " << formatDuration(s.seconds) << ": " << s.unitsCommitted
                      << " unit(s), " << s.rows
                      << " rows, were committed and stay; the units in flight were rolled back. Run the same "
                         "command again to load the rest.\n";
            return;
        }
        if (s.rows == 0 && s.unitsResumed > 0 && s.unitsCommitted == 0) {
            std::cerr << "nothing to do: every unit of these files is already in the table\n";
        }
        if (s.retries > 0) {
            std::cerr << s.retries << " transient failure(s) were retried\n";
        }
        for (const std::string& line : s.overlap.describe()) {
            std::cerr << line << "\n";
        }
        spdlog::debug("time by stage: {}", LoadPhases::describe(s.phases.run));
        spdlog::debug("workers' time (summed): {}; {} transaction(s)", LoadPhases::describe(s.phases.workers),
                      s.phases.transactions);
        std::cout << formatCopySummary(s.rows, s.seconds, s.workers) << std::endl;
        if (s.compression) {
            std::cout << "compression: " << s.compression->describe() << std::endl;
        }
    }
    void failed(const LoadError& e) override {
        std::string message = e.message;
        if (!e.unit.empty()) {
            message = "unit " + e.unit + (e.worker > 0 ? " (worker " + std::to_string(e.worker) + ")" : "") +
                      ": " + message;
        }
        if (!e.file.empty() && message.find(e.file) == std::string::npos) {
            message = e.file + ": " + message;
        }
        const std::uint64_t committed = last_.committedRows;
        printError(message + "\n" +
                   (committed > 0
                        ? "the units committed before the failure stay (" + std::to_string(committed) +
                              " rows); fix the cause and run the same command again to load the rest"
                        : "no unit was committed"));
    }

private:
    // "412 GiB free, full in 3m at this rate; pg_wal 1.0 GiB; archiver 3 behind; standby replica1
    // replays 0.4 s behind": what a progress line's rate cannot say. Empty when nothing was seen.
    static std::string describeServer(const ServerReading& s) {
        std::vector<std::string> parts;
        if (!s.answered) {
            parts.emplace_back("not answering (down or restarting)");
        }
        const auto bytes = [](double b) {
            return formatBytes(static_cast<std::uint64_t>(b));
        };
        if (s.freeBytes >= 0) {
            parts.push_back(
                bytes(s.freeBytes) + " free" +
                (s.walFreeBytes >= 0 ? " (pg_wal's filesystem " + bytes(s.walFreeBytes) + ")" : "") +
                (s.secondsToFull >= 0
                     ? ", full in " + formatDuration(s.secondsToFull, DurationPrecision::WholeSeconds) +
                           " at this rate, before the load ends"
                     : ""));
        }
        if (s.walDirBytes >= 0) {
            parts.push_back("pg_wal " + bytes(s.walDirBytes));
        }
        if (s.tableBytes >= 0) {
            parts.push_back("table " + bytes(s.tableBytes) +
                            (s.bytesPerRow > 0 ? " (" + formatCompact(s.bytesPerRow) + " B/row)" : ""));
        }
        if (s.archiveBacklog > 0 || s.archiveFailures > 0) {
            parts.push_back(
                "archiver " + std::to_string(std::max<std::int64_t>(0, s.archiveBacklog)) +
                " segment(s) behind" +
                (s.archiveFailures > 0 ? ", " + std::to_string(s.archiveFailures) + " failure(s)" : ""));
        }
        for (const auto& standby : s.standbys) {
            parts.push_back(
                "standby " + standby.name + " " + standby.state +
                (standby.replayLag >= 0 ? ", replays " + formatDuration(standby.replayLag) + " behind" : ""));
        }
        std::string text;
        for (const auto& p : parts) {
            text += (text.empty() ? "" : "; ") + p;
        }
        return text;
    }

    double period_;
    double nextReport_ = period_;
    double lastReportAt_ = 0;
    std::uint64_t lastReportRows_ = 0;
    RateReading last_;
    std::optional<ServerReading> server_;
    double lastServerAt_ = -1;
    std::uint64_t timed_ = 0; // checkpoints said so far
    std::uint64_t requested_ = 0;
};

// --workers N, auto or auto:MAX.
void workersFrom(const ParsedArgs& parsed, LoadRequest& request) {
    const std::string text = parsed.value("workers", "");
    if (text.rfind("auto", 0) != 0) {
        request.workers = static_cast<int>(parsed.integer("workers", 0, 1, 256));
        return;
    }
    request.autoWorkers = true;
    if (text == "auto") {
        return;
    }
    const std::string max = text.substr(4);
    int value = 0;
    const auto [end, ec] =
        std::from_chars(max.data() + (max.empty() ? 0 : 1), max.data() + max.size(), value);
    if (max.size() < 2 || max[0] != ':' || ec != std::errc{} || end != max.data() + max.size() || value < 1 ||
        value > 256) {
        throw UsageError{"--workers takes a count (1-256), auto or auto:MAX (such as auto:6), not '" + text +
                         "'"};
    }
    request.workers = value;
}

} // namespace

int runLoadCommand(const std::vector<std::string>& args, std::stop_token stop) {
    std::vector<OptionSpec> specs = {
        {"dsn", "CONNINFO", "libpq connection string or URI (default: the embedded cluster)"},
        {"table", "NAME", "target table, optionally schema-qualified (default: weather)"},
        {"workers", "N|auto[:MAX]",
         "parallel COPY connections (default: the number of cores, at most 8); auto: as many as make "
         "the load faster, measured while it runs, up to MAX (default twice the cores, at most 16) and "
         "what the server's max_connections leaves"},
        {"variables", "V,W",
         "load only these (short name, NetCDF or GRIB name, long name, standard_name or GRIB paramId); "
         "default: "
         "every variable of the files, or an existing table's own"},
        {"table-type", "TYPE",
         "for a new table: regular (default), unlogged, partitioned, hypertable, distributed"},
        {"set-logged-after", "", "unlogged: make the table LOGGED (crash-safe) once the load is complete"},
        {"partition-interval", "day|week|month|year", "partitioned: one partition per (default month)"},
        {"chunk-interval", "INTERVAL", "hypertable: chunk_time_interval (default '1 day')"},
        {"compress", "auto|direct|after-load",
         "hypertable: compress the rows. auto (the default): as COPY receives them where the server's "
         "TimescaleDB can (2.21+, direct compress), else the chunks once the load is complete; direct: "
         "only the first; after-load: only the second (in parallel; sizes before and after are reported)",
         true},
        {"compress-segmentby", "COLUMNS",
         "with --compress: timescaledb.compress_segmentby ('' for none; default: the table's own, else "
         "location_id where a chunk holds 1000+ rows of each location, else none)"},
        {"compress-orderby", "COLUMNS",
         "with --compress: timescaledb.compress_orderby (default: the table's own, else time when segmented "
         "by "
         "location_id, else location_id, time)"},
        {"reporting-period", "DURATION", "print a progress line this often (default 10s; 0: never)"},
        {"replace", "", "empty the table and forget its progress first (readers see it refill)"},
        {"restart", "", "forget which units are loaded and load all again (needs --yes)"},
        {"overlap", "refuse|skip|replace",
         "rows the table already holds from another load with other values (not ERA5T, which final ERA5 "
         "always replaces): refuse the load before anything is written (default), keep the table's rows "
         "(skip), or put these files' rows in their place (replace)"},
        {"yes", "", "confirm --restart, or a durability trade (--durability fast, --fsync off, ...)"},
        {"all-missing", "skip|load", "units whose every value is missing: skip (default) or load NULL rows"},
        {"force", "",
         "start although the disk forecast says the load does not fit (it still stops "
         "before the server's disk is full)"},
        {"retries", "N",
         "attempts per unit after a lost connection, a server or Citus worker node restart (default 30; see "
         "--retry-budget)"},
        {"retry-budget", "SECONDS",
         "how long a unit keeps being retried after its first such failure (default 120)"},
        {"transport", "stream|file",
         "how rows reach the server: stream (COPY FROM STDIN, default) or file "
         "(COPY FROM 'file', for a server on this machine)"},
        {"rows-per-unit", "N", "rows per work unit (default 250000)"},
        {"series-units", "hour|month",
         "a point series (the CDS time-series downloads): a work unit per point and run of consecutive "
         "hours inside a UTC month (default; a 40-year series: 480 units instead of 350,640), or per point "
         "and hour (as Isobar loaded series before); a table loaded either way resumes either way"},
        {"rows-per-transaction", "N",
         "a worker puts consecutive units into one transaction up to this many rows (default 10000000, or 10 "
         "s; 1: a "
         "transaction per unit)"},
        {"verify", "auto|units|full",
         "after the load: units (the server's row count of each unit's COPY, checked in its transaction; "
         "always done), full (also count(*) of the whole table against the ledger), auto (default: full "
         "for a table of at most a million rows)"},
        {"report", "PATH",
         "also write the run report here: .json, .csv or .html (a JSON one always goes to the "
         "report directory)"},
    };
    for (const auto& more : {durabilityOptionSpecs(), inputOptionSpecs(), embeddedClusterOptionSpecs()}) {
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
    if (const auto type = parsed.value("table-type")) {
        const auto parsedType = parseTableType(*type);
        if (!parsedType) {
            throw UsageError{
                "--table-type takes regular, unlogged, partitioned, hypertable or distributed, not '" +
                *type + "'"};
        }
        request.tableOptions.type = parsedType;
    }
    request.tableOptions.setLoggedAfter = parsed.flag("set-logged-after");
    if (const auto interval = parsed.value("partition-interval")) {
        const auto parsedInterval = parsePartitionInterval(*interval);
        if (!parsedInterval) {
            throw UsageError{"--partition-interval takes day, week, month or year, not '" + *interval + "'"};
        }
        request.tableOptions.partitionInterval = *parsedInterval;
    }
    request.tableOptions.chunkInterval = parsed.value("chunk-interval", "1 day");
    request.tableOptions.compressAfter = parsed.flag("compress");
    if (const auto how = parsed.value("compress"); how && !how->empty()) {
        const auto path = parseCompressPath(*how);
        if (!path) {
            throw UsageError{"--compress takes auto, direct or after-load (--compress=after-load), not '" +
                             *how + "'"};
        }
        request.tableOptions.compressPath = *path;
    }
    request.tableOptions.compressSegmentBy = parsed.value("compress-segmentby");
    request.tableOptions.compressOrderBy = parsed.value("compress-orderby");
    if (!request.tableOptions.compressAfter &&
        (request.tableOptions.compressSegmentBy || request.tableOptions.compressOrderBy)) {
        throw UsageError{"--compress-segmentby and --compress-orderby say how --compress compresses; add "
                         "--compress, or leave them out"};
    }
    request.replace = parsed.flag("replace");
    request.force = parsed.flag("force");
    request.restart = parsed.flag("restart");
    if (const auto overlap = parsed.value("overlap")) {
        try {
            request.overlap = parseOverlapPolicy(*overlap);
        } catch (const Error& e) {
            throw UsageError{e.what()};
        }
    }
    if (request.restart && !parsed.flag("yes")) {
        throw UsageError{
            "--restart forgets which units are already loaded, so all of them load again and rows "
            "already in the table would be there twice; add --yes if that is what you want (after "
            "deleting those rows), or use --replace to empty the table first"};
    }
    workersFrom(parsed, request);
    request.retries = static_cast<int>(parsed.integer("retries", 30, 0, 1000));
    request.retryBudget = std::chrono::seconds(parsed.integer("retry-budget", 120, 0, 86'400));
    request.transport = transportFrom(parsed);
    request.durability = durabilityFrom(parsed);
    if (const auto list = parsed.value("variables")) {
        std::stringstream in(*list);
        std::string item;
        // Matched against the files' variables when they are opened: any name a variable goes by.
        while (std::getline(in, item, ',')) {
            if (!item.empty()) {
                request.variables.push_back(item);
            }
        }
        if (request.variables.empty()) {
            throw UsageError{"--variables needs at least one name (e.g. --variables t2m,d2m,ssrd)"};
        }
    }
    request.rowsPerUnit = static_cast<std::uint64_t>(parsed.integer("rows-per-unit", 0, 1000, 100'000'000));
    if (const std::string units = parsed.value("series-units", "month"); units == "hour") {
        request.seriesUnits = SeriesUnits::Hour;
    } else if (units != "month") {
        throw UsageError{"--series-units takes hour or month, not '" + units + "'"};
    }
    request.rowsPerTransaction =
        static_cast<std::uint64_t>(parsed.integer("rows-per-transaction", 0, 1, 1'000'000'000));
    request.open = openOptionsFrom(parsed);
    const std::string allMissing = parsed.value("all-missing", "skip");
    if (allMissing == "load") {
        request.allMissing = AllMissingPolicy::Load;
    } else if (allMissing != "skip") {
        throw UsageError{"--all-missing takes skip or load, not '" + allMissing + "'"};
    }
    const std::string verify = parsed.value("verify", "auto");
    if (verify == "units") {
        request.verification = Verification::Units;
    } else if (verify == "full") {
        request.verification = Verification::Full;
    } else if (verify != "auto") {
        throw UsageError{"--verify takes auto, units or full, not '" + verify + "'"};
    }
    const auto period = parsePeriod(parsed.value("reporting-period", "10s"));
    for (const auto& f : parsed.positional()) {
        request.files.emplace_back(f);
    }
    request.conninfo = targetFrom(parsed);
    // Settings an earlier run left changed when it died go back before this run looks at them.
    restoreAbandonedOn(request.conninfo);
    const auto extraReport = parsed.value("report");
    CliLoadSink sink(period);
    ReportRecorder recorder(sink, request);
    stoppable() = true;
    const LoadSummary summary = runLoad(request, stop, recorder);
    stoppable() = false;
    // Every run leaves a report, also a failed or cancelled one.
    const RunReport report = recorder.finish(summary);
    const auto tell = [](const std::function<std::filesystem::path()>& write) {
        try {
            std::cerr << "report: " << write().string() << "\n";
        } catch (const Error& e) {
            std::cerr << "isobar-cli: warning: " << e.what() << "\n";
        }
    };
    tell([&] { return writeRunReport(report); });
    if (extraReport) {
        tell([&] {
            writeReport(report, *extraReport);
            return std::filesystem::path(*extraReport);
        });
    }
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
