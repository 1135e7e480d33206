// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Compression.h"
#include "db/Durability.h"
#include "db/ServerProbe.h"
#include "db/SettingsAdvice.h"
#include "domain/GridField.h"
#include "monitor/RateReading.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace isobar {

// A failure as a value: what the user needs to act on it, whatever thread it happened on.
struct LoadError {
    std::string file;     // the file being read or sent when it happened (empty: not file-specific)
    std::string variable; // the variable, when one is concerned
    std::string unit;     // the work unit, when one is concerned
    int worker = -1;      // the worker, when one is concerned
    std::string sqlState; // the server's SQLSTATE, when the server reported it
    std::string message;  // one line (or a few) naming what is wrong
    // The load was refused because the table already holds some of its rows with other values:
    // the same load with --overlap skip or replace goes ahead (the GUI asks which).
    bool overlap = false;
};

// What a run found of its rows already in the table from other loads (OverlapCheck), and what it
// did about them: the same values skipped, other values kept (--overlap skip), earlier units
// replaced (ERA5T by final ERA5, or --overlap replace), with the earlier rows those deleted.
struct OverlapCounts {
    std::uint64_t sameRows = 0; // the same values from other files (within resumedRows)
    std::size_t sameUnits = 0;
    std::uint64_t keptRows = 0; // other values, the table's kept (within resumedRows)
    std::size_t keptUnits = 0;
    std::size_t era5tReplacedUnits = 0;   // committed
    std::uint64_t era5tReplacedHours = 0; // their valid times, when the run completed
    std::size_t overlapReplacedUnits = 0; // committed
    std::uint64_t replacedRows = 0;       // earlier rows deleted by the committed replacements
    // What was decided, in words (also given to the sink as notes as the run starts).
    std::vector<std::string> decisions;

    bool any() const { return sameUnits + keptUnits + era5tReplacedUnits + overlapReplacedUnits > 0; }
    // The outcome in a line or a few, for summaries: "replaced 48 hour(s) of ERA5T by final ERA5
    // (240 unit(s); 1,234,567 earlier rows deleted)", ...
    std::vector<std::string> describe() const;
};

enum class LoadStatus { Completed, Cancelled, Failed };

struct LoadStart {
    std::vector<std::string> files;
    std::vector<std::string> fileLayouts; // per file: "CDS legacy (grib_to_netcdf), netCDF3 64-bit offset"
    std::vector<std::string> variables;   // "t2m -> temperature_2m"
    std::string product;                  // "ERA5 hourly"
    std::string timeRule;                 // what decided hourly or monthly means (Dataset::timeRule)
    std::string grid;                     // "0.25 deg global grid (721 x 1440 points)"
    std::string tableType;                // "regular", ...
    std::string target;                   // connection target, without password
    std::string table;
    std::uint64_t plannedRows = 0; // rows of the whole dataset
    std::uint64_t resumedRows = 0; // of those, already committed by an earlier run (skipped)
    std::size_t units = 0;         // work units of the whole dataset
    std::size_t resumedUnits = 0;  // of those, already committed
    int workers = 1;               // the workers the load starts with
    bool autoWorkers = false;      // --workers auto: the count follows the measured rate, up to maxWorkers
    int maxWorkers = 1;
    // What the load will write, and the room there is for it (see StorageForecast).
    std::vector<std::string> forecast;
    // Where the dataset's rows lie (grid, box, times, levels): what a map of the table reads.
    LoadedExtent extent;
};

// One unit committed (or found committed by a concurrent run).
struct UnitEvent {
    std::string key;
    int worker = 0;
    std::uint64_t rows = 0;
    int attempts = 1; // > 1 when transient failures were retried
    bool alreadyCommitted = false;
};

// Where a run's time went, from its own clocks: the stages before the first row and after the
// last (wall seconds), and what the workers did in between (seconds summed over the workers).
struct LoadPhases {
    struct Phase {
        std::string name;
        double seconds = 0;
    };
    std::vector<Phase> run;     // "open files", "check server", ..., "load", "finish table"
    std::vector<Phase> workers; // "wait for work", "decode", "encode", "send", "COPY end", "ledger", "commit"
    std::size_t transactions = 0; // committed by the workers, each with one or more units

    // The run's stages from the workers' start to their end, and what makes the table ready after
    // them (an index, SET LOGGED, compression): together, its COPY phase.
    static constexpr const char* kLoad = "load";
    static constexpr const char* kFinishTable = "finish table";

    // "open files 0.01 s, check server 0.03 s, ..." for a log line.
    static std::string describe(const std::vector<Phase>& phases);
};

struct LoadSummary {
    LoadStatus status = LoadStatus::Failed;
    std::uint64_t rows = 0;        // rows committed by this run
    std::uint64_t resumedRows = 0; // rows an earlier run had committed (skipped)
    std::uint64_t skippedRows = 0; // rows whose every value was missing, skipped by request
    // What the run did about rows the table already held from other loads.
    OverlapCounts overlap;
    std::uint64_t bytes = 0; // COPY bytes sent
    std::size_t unitsCommitted = 0;
    std::size_t unitsResumed = 0;
    std::size_t retries = 0; // transient failures retried
    double seconds = 0.0;
    LoadPhases phases;
    int workers = 1;
    bool tableCreated = false;
    std::optional<LoadError> error; // set when status == Failed
    // What the run changed for speed and how restoring it went (a problem there fails the run
    // even when every row was loaded: the server is not as it was).
    DurabilityOutcome durability;
    // How a completed load was checked, on the load's own connection (empty when the run did not
    // complete: the report asks the server itself then).
    std::string verification;
    std::optional<std::uint64_t> ledgerRows;       // the rows the ledger accounts for in the table
    std::optional<std::uint64_t> countedRows;      // count(*) of the table, when it was counted
    std::optional<CompressionOutcome> compression; // --compress on a hypertable: sizes before and after
};

// Where a load's events go. The CLI prints them, the GUI adapter turns them into Qt signals, the
// tests record them. Calls never overlap (the engine serializes them), but they come from the
// engine's threads: implementations must not block for long.
class LoadSink {
public:
    virtual ~LoadSink() = default;
    // The server as the load found it, before anything changed, and what is risky or slow about it.
    virtual void settingsChecked(const ServerInfo&, const std::vector<SettingWarning>&) {}
    virtual void started(const LoadStart&) {}
    virtual void warning(const std::string&) {}
    // Facts about the input worth knowing (layout, merged expver, gaps, ...), not problems.
    virtual void note(const std::string&) {}
    virtual void rateMeasured(const RateReading&) {}
    virtual void serverMeasured(const ServerReading&) {}
    // --workers auto added or removed a worker.
    virtual void workersChanged(const WorkerChange&) {}
    virtual void unitCommitted(const UnitEvent&) {}
    virtual void finished(const LoadSummary&) {}
    virtual void failed(const LoadError&) {}
};

} // namespace isobar
