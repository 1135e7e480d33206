// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Durability.h"
#include "db/ServerProbe.h"
#include "db/SettingsAdvice.h"
#include "ingest/LoadEvents.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace isobar {

// Everything worth keeping about one run of a load, also a failed or cancelled one. Written as
// JSON (all of it), CSV (the rate series) or HTML (a summary, the rate and disk charts,
// self-contained); the JSON can be read back to render the others, compare runs, or list the history.
struct RunReport {
    struct File {
        std::string name;
        std::string layout;
        std::string format;
    };
    struct Sample {
        double elapsed = 0;
        std::uint64_t rows = 0;
        std::uint64_t committedRows = 0;
        double intervalRate = 0;
        double overallRate = 0;
        std::size_t queueDepth = 0;
        std::vector<std::uint64_t> workerRows;

        // One sample standing for two neighbours when a long series is thinned: the later one,
        // with the higher interval rate of the two (peaks stay visible).
        static Sample merged(const Sample& earlier, const Sample& later);
    };
    // The monitor's view of the server at one moment; -1 where it could not be seen (see
    // ServerReading).
    struct Server {
        double elapsed = 0;
        std::uint64_t checkpointsTimed = 0;
        std::uint64_t checkpointsRequested = 0;
        std::uint64_t walBytes = 0;
        double tableBytes = -1;
        double bytesPerRow = -1;
        double freeBytes = -1;
        double walFreeBytes = -1;
        double walDirBytes = -1;
        double secondsToFull = -1;
        std::int64_t archiveBacklog = -1;
        std::uint64_t archiveFailures = 0;
        int workers = 0;
        // Of the standby furthest behind at that moment (the standbys themselves: `standbys`).
        double standbyReplayLag = -1; // seconds
        double standbyReplayBytes = -1;

        static Server of(const ServerReading& s);
        // One sample standing for two neighbours when a long series is thinned: the later one's
        // counters and sizes, the worse of the two for what warns (free space, pg_wal, lag).
        static Server merged(const Server& earlier, const Server& later);
    };
    // A standby as the run saw it: its last state, the most it fell behind.
    struct Standby {
        std::string name;
        std::string state;
        double maxReplayLag = -1; // seconds; -1: the server gave no figure
        double maxReplayBytes = -1;
    };
    // A checkpoint that began during the run (seen by the monitor within a second) and the rate
    // around it: rows sent per second over the window before it and the window after it, -1 where
    // the run had less than a second of it.
    struct Checkpoint {
        double elapsed = 0;
        bool requested = false; // asked for (WAL reached max_wal_size, a CHECKPOINT); else timed
        double rateBefore = -1;
        double rateAfter = -1;
    };
    // What the summary says of the disk; -1 where the run never saw it.
    struct StorageFigures {
        double peakWalDirBytes = -1;
        double lowestFreeBytes = -1; // of the data directory's filesystem or pg_wal's, the lower
        double finalBytesPerRow = -1;
        double finalTableBytes = -1;
    };

    std::string tool;      // "isobar 0.1.0"
    std::string startedAt; // UTC, ISO 8601
    std::string finishedAt;
    std::string status; // completed, cancelled, failed
    std::vector<File> files;
    std::vector<std::string> variables;
    std::string product;
    std::string timeRule; // what decided hourly or monthly means ("hourly: GRIB_stepType instant (t2m)")
    std::string grid;
    LoadedExtent extent; // where the rows lie (empty in reports of versions before it)
    std::string target;  // connection target, never with a password
    std::string table;
    std::string tableType;
    int workers = 0;
    bool autoWorkers = false; // --workers auto: the count followed the rate, up to maxWorkers
    int maxWorkers = 0;
    std::vector<WorkerChange> workerChanges;
    // What the load expected to write and the room there was for it, as it started.
    std::vector<std::string> forecast;
    std::string serverVersion;
    std::vector<ServerSetting> settings;
    std::vector<std::string> extensions;
    // The server as the load found it: what is risky or slow (see adviseSettings()).
    std::vector<SettingWarning> settingWarnings;
    // Durability traded for speed: what was asked, what changed, how restoring it went.
    std::string durabilityRequested; // "fsync=off, full_page_writes=off, synchronous_commit=off"
    DurabilityOutcome durability;

    std::uint64_t plannedRows = 0;
    std::uint64_t rows = 0;        // committed by this run
    std::uint64_t resumedRows = 0; // committed before (skipped)
    std::uint64_t skippedRows = 0; // all-missing units
    std::uint64_t bytes = 0;
    std::size_t units = 0;
    std::size_t unitsCommitted = 0;
    std::size_t unitsResumed = 0;
    // Rows the table already held from other loads, and what the run did about them.
    OverlapCounts overlap;
    std::size_t retries = 0;
    double seconds = 0;
    double meanRate = 0;            // rows committed / seconds
    double medianSustainedRate = 0; // over 1-second windows in the middle 90% of the run
    double minSustainedRate = 0;
    // Where the time went (the run's own clocks): stages of the run, the verification after it,
    // and what the workers did (summed over them); transactions the workers committed.
    LoadPhases phases;
    std::vector<Sample> samples; // at most kMaxSamples, peaks kept when thinned
    std::vector<Server> server;  // at most kMaxSamples, the worst kept when thinned
    std::vector<Standby> standbys;
    std::vector<std::uint64_t> workerRows; // per worker, rows sent
    std::uint64_t checkpoints = 0;         // during the run
    std::uint64_t walBytes = 0;            // during the run

    std::optional<std::string> error;
    std::string errorSqlState;
    std::string errorUnit;
    std::vector<std::string> warnings;
    std::vector<std::string> notes;

    // The table counted after the run (or why not), against what the ledger says it holds.
    std::optional<std::uint64_t> countedRows;
    std::optional<std::uint64_t> ledgerRows;
    std::string verification;
    // --compress on a hypertable: the settings, the chunks and the sizes before and after.
    std::optional<CompressionOutcome> compression;

    static constexpr std::size_t kMaxSamples = 10'000;

    // Rates over 1-second windows of the sample series (median, minimum), from `samples`.
    void computeSustainedRates();
    // From the server series.
    StorageFigures storageFigures() const;
    // From the server and rate series; `window` seconds each side.
    std::vector<Checkpoint> checkpointEffects(double window = 10.0) const;
};

std::string renderReportJson(const RunReport& report);
RunReport parseReportJson(const std::string& json); // throws isobar::Error
std::string renderReportCsv(const RunReport& report);
std::string renderReportHtml(const RunReport& report);

// Writes the report in the format its extension names (.json, .csv, .html); throws isobar::Error.
void writeReport(const RunReport& report, const std::filesystem::path& path);
RunReport readReport(const std::filesystem::path& path);

// Where every run's JSON report goes: $ISOBAR_REPORT_DIR if set, else
// stateDirectory()/reports.
std::filesystem::path defaultReportDirectory();
// Writes a run's own JSON report as defaultReportDirectory()/run-<start>-<table>.json, or -2,
// -3... when a report of a run of the same table started in the same second is there (or is
// being written by another process at this moment: the name is reserved before it is written).
// Returns the path; throws isobar::Error naming it.
std::filesystem::path writeRunReport(const RunReport& report);

} // namespace isobar
