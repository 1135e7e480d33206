// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"
#include "db/Durability.h"
#include "db/TableType.h"
#include "era5/Era5File.h"
#include "ingest/LoadEvents.h"
#include "ingest/OverlapCheck.h"
#include "monitor/WorkerTuner.h"

#include <chrono>
#include <filesystem>
#include <stop_token>
#include <string>
#include <vector>

namespace isobar {

// What to do with a unit in which every value of every variable is missing (a file of fill
// values, an ERA5T request made before the data existed, ...).
enum class AllMissingPolicy : std::uint8_t { Skip, Load };

// How rows reach the server: streamed over the connection (COPY ... FROM STDIN), or - for a server
// on this machine that may read the client's files - written to files the server reads with
// COPY ... FROM 'file', which skips the socket (bench ingest measures what that is worth).
enum class TransportKind : std::uint8_t { Stream, ServerFile };

// How a run checks what it loaded. Every unit is checked in its transaction whatever is chosen:
// the server's row count of the unit's COPY must equal the rows sent, and the ledger row committed
// with it records that count. A count(*) of the whole table on top costs a scan of everything in
// it (seconds for tens of millions of rows, growing with the warehouse), so it is not the default
// for a large table.
enum class Verification : std::uint8_t {
    Auto,  // the units' counts, and count(*) when the ledger says the table is small
    Units, // the units' counts only
    Full,  // the units' counts and count(*) of the whole table, however long it takes
};

// The largest table (rows, as the ledger says) Verification::Auto still counts: well under a
// second to scan.
inline constexpr std::uint64_t kCountedTableRows = 1'000'000;
// The most units of a table whose rows a run sums from the ledger unasked (a few milliseconds). A
// table with more is summed only where its first units hold no more than kCountedTableRows rows
// (units of a few points: its count(*) is cheap) or a full check asks.
inline constexpr std::uint64_t kSummedLedgerUnits = 10'000;

struct LoadRequest {
    std::string conninfo;
    TableName table{"", "weather"};
    TableOptions tableOptions;
    std::vector<std::filesystem::path> files;
    OpenOptions open;
    // Only these variables, by any name they go by (short name, NetCDF name, long name,
    // standard_name, GRIB paramId); empty: every variable the files have, or an existing table's.
    std::vector<std::string> variables;
    AllMissingPolicy allMissing = AllMissingPolicy::Skip;
    int workers = 0; // 0: defaultWorkerCount(), or autoWorkerLimit() with autoWorkers
    // The count follows the measured rate (WorkerTuner): it starts at defaultWorkerCount() and
    // adds workers while each one makes the load faster, up to `workers` and what the server's
    // max_connections leaves.
    bool autoWorkers = false;
    WorkerTuner::Timing tuning; // how --workers auto measures (tests shorten it)
    // Start although the disk forecast says the load does not fit (it still stops before the
    // server's disk is full).
    bool force = false;
    std::uint64_t rowsPerUnit = 0; // 0: a few hundred thousand
    std::uint32_t bandRows = 0;    // > 0: latitude rows per unit instead (tests)
    // A point series' units: hours of a point inside a month (Hour: one per point and hour, as
    // Isobar loaded series before).
    SeriesUnits seriesUnits = SeriesUnits::Month;
    // Rows a worker puts into one transaction, in whole units (0: LoadPlan's default; 1: one unit
    // per transaction).
    std::uint64_t rowsPerTransaction = 0;
    TransportKind transport = TransportKind::Stream;
    std::uint64_t rowsPerServerFile = 0; // --transport file: rows per file (0: kRowsPerServerFile; tests)
    Verification verification = Verification::Auto;
    // Durability traded for speed for this run only (default: nothing changed). Server-wide
    // changes are journaled, applied and verified before the first row, and restored after the run
    // however it ends.
    DurabilityRequest durability;
    int retries = 30; // attempts per unit after transient failures (connection lost, restart)
    // How long a unit keeps being retried after its first transient failure (while attempts
    // remain): a server's or a Citus worker node's restart of a minute or two is waited out.
    std::chrono::seconds retryBudget{120};
    // Forget the target's ledger first, so every unit is loaded again (rows already in the table
    // stay: together with replace, a reload from scratch).
    bool restart = false;
    // Empty the table (TRUNCATE) and its ledger before loading. Committed before the units load,
    // so readers see the table refill.
    bool replace = false;
    // Rows the table already holds from another load with other values (not ERA5T given way to
    // final ERA5): refuse the load, keep the table's, or replace them (see OverlapCheck).
    OverlapPolicy overlap = OverlapPolicy::Refuse;
    // How often the sampler reports; 4-10 Hz is what the UI wants.
    std::chrono::milliseconds sampleInterval{200};
};

// A sensible number of COPY workers for this machine: its cores (the server needs them too),
// at least 1, at most 8.
int defaultWorkerCount();
// The most workers --workers auto tries unless told: twice the cores (a worker waits on the
// server part of the time), at least 2, at most 16.
int autoWorkerLimit();

// Loads ERA5 files, merged into one dataset, into the weather table: a reader stage feeds decoded
// units through a bounded queue to N COPY workers, each with its own connection, each unit in one
// transaction with its ledger row (consecutive units share one). A rerun skips committed units; a failure or
// cancel rolls back only the units in flight. Events go to `sink` (serialized).
//
// A completed load is verified as request.verification asks on the load's own connection, and the
// summary says how (see LoadSummary::verification).
//
// Never throws: failures come back in the summary (and through sink.failed()).
LoadSummary runLoad(const LoadRequest& request, const std::stop_token& stop, LoadSink& sink);

// The check request.verification asks for after a run: the units' own counts, and count(*) of the
// table against the rows its ledger accounts for where asked (or the table is small). Sets
// `ledgerRows` to the ledger's sum - left unset where the ledger holds over kSummedLedgerUnits units
// of the table and no count asks for it: summing a warehouse's ledger takes a second - and
// `counted` when the table was counted. Returns what was checked, in words.
std::string verifyLoad(Connection& conn, const LoadRequest& request, const LoadSummary& summary,
                       std::optional<std::uint64_t>& ledgerRows, std::optional<std::uint64_t>& counted);

} // namespace isobar
