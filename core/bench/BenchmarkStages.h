// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// The stages the benchmarks of core/bench share (preparing data, timing the engine, dropping tables). Not a
// public API.

#include "bench/IngestBenchmark.h"
#include "bench/WarehouseBenchmarks.h"
#include "db/Connection.h"
#include "era5/Dataset.h"
#include "ingest/Loader.h"
#include "plan/LoadPlan.h"
#include "util/Json.h"
#include "util/TempDir.h"

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <vector>

namespace isobar::bench {

// Throws isobar::Error unless the server runs on this machine and the role may read its files.
void checkServerCanReadFiles(Connection& conn);

// Writes the file's dirty pages to the disk now: gigabytes of them would otherwise be written back
// while the first round runs, and slow it (first rounds took 1.3-1.6x the later ones). Throws
// isobar::Error naming the file when it cannot.
void syncToDisk(const std::filesystem::path& path);

// The rows of the plan encoded exactly as the engine sends them, unit i into file i % n, written
// to the disk before they are returned.
std::vector<std::filesystem::path> writeCopyFiles(const Dataset& dataset, const LoadPlan& plan, int n,
                                                  const std::filesystem::path& dir,
                                                  const std::stop_token& stop);

// Drops every benchmark table (isobar_bench_* in the current schema), and their ledger and grid
// records.
void dropTables(Connection& conn);

// Drops the benchmark tables when it goes, however the bench ends (a cancel, a lost connection):
// on a connection of its own, since the bench's may be in the middle of a COPY.
class DroppedAtEnd {
public:
    explicit DroppedAtEnd(std::string conninfo)
        : conninfo_(std::move(conninfo)) {}
    DroppedAtEnd(const DroppedAtEnd&) = delete;
    DroppedAtEnd& operator=(const DroppedAtEnd&) = delete;
    ~DroppedAtEnd();
    // The tables were dropped already: nothing left to do.
    void dismiss() noexcept { conninfo_.clear(); }

private:
    std::string conninfo_;
};

// Before the first timed round: the server's own COPY of the prepared files once, untimed, into a
// table dropped after. On a virtual machine, memory that has held nothing for a while is several
// times dearer to fill than memory an earlier run freed (here a new 4 GB file took 6.6 s of system
// time, the next one 0.7 s), and the first run after the files were written paid for the page
// cache its table and WAL grew into, whoever ran first: round 1 was the lowest of every sustained
// bench, always with the load first.
// `conn` drops the table after.
void warmUp(const std::string& conninfo, Connection& conn, const TableLayout& layout,
            const std::vector<std::filesystem::path>& files,
            const std::function<void(const std::string&)>& progress);

// (b): the server's own COPY of the prepared files, one stream each, into a fresh table.
double timeCeiling(const std::string& conninfo, const BenchTableType& type, const TableLayout& layout,
                   const std::vector<std::filesystem::path>& files);

struct IsobarTiming {
    double loadSeconds = 0; // what the load reports: reading, COPY, finishing the table
    // Its COPY phase (the run's "load" and "finish table" stages): from the workers' start to the
    // table ready, as a bare client's COPYs are timed; 0 when the report does not say.
    double copySeconds = 0;
    double wallSeconds = 0; // all of it: the whole process, or all of runLoad in-process
    JsonValue report;       // the run report the process wrote (null in-process)
};

// (a): Isobar's load after a CHECKPOINT, as a process of its own (options.program) or in this
// process (durability changes, or no program).
IsobarTiming timeIsobar(const IngestBenchmarkOptions& options, const BenchTableType& type, int workers,
                        const std::stop_token& stop, const std::filesystem::path& reportPath,
                        const DurabilityRequest& durability = {});

// --- What the warehouse benches (methods, matrix, query) share -------------------------------

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t0);

// The rows of a bench: the user's files, or synthetic hours written into `dir` first.
struct PreparedData {
    std::vector<std::filesystem::path> files;
    OpenOptions open;
    std::string description; // "4 synthetic global hours" or "2 file(s)"
};
PreparedData prepareData(const BenchData& data, const std::filesystem::path& dir, const std::string& name,
                         const BenchProgress& progress, const std::stop_token& stop);

// Runs fn(0) ... fn(n - 1) on n threads at once and waits for all; the first failure is thrown
// (as isobar::Error, naming `what`) once all have ended. Cancelled wins over other failures.
void runParallel(int n, const std::string& what, const std::function<void(int)>& fn);

// A fresh benchmark table `name` of the type, with the layout's columns, and for partitioned tables
// the daily partitions `times` fall into. Inside its own transaction on `conn`.
void createBenchTable(Connection& conn, const std::string& name, TableType type, const TableLayout& layout,
                      const std::vector<PgTimestamp>& times);

// The WAL position now (pg_current_wal_insert_lsn), and the bytes written since one.
std::string walPosition(Connection& conn);
double walBytesSince(Connection& conn, const std::string& position);
// This process's CPU seconds so far (user + system, every thread).
double processCpuSeconds();

std::uint64_t countRows(Connection& conn, const std::string& table);

// Size on disk of a table with everything under it (partitions, chunks, compressed chunks).
struct TableSizes {
    double heap = 0;
    double indexes = 0;
    double toast = 0;
    double total = 0;
};
TableSizes tableSizes(Connection& conn, const std::string& table, TableType type);

// Removing the oldest day of a table as its type allows: DELETE (regular, unlogged, distributed),
// dropping its daily partitions (partitioned) or drop_chunks (hypertable); then a VACUUM where
// rows were deleted. The day is the first UTC day the table holds.
struct DayRemoval {
    std::string method;       // "DELETE", "DROP partition", "drop_chunks"
    std::uint64_t rows = 0;   // rows the day held
    double seconds = 0;       // the removal
    double vacuumSeconds = 0; // the VACUUM after a DELETE (0 otherwise)
    TableSizes before;
    TableSizes after; // after the VACUUM
};
DayRemoval removeOldestDay(Connection& conn, const std::string& table, TableType type);

// Isobar's own load (the engine, in this process) of the files into `table`.
struct EngineLoad {
    double seconds = 0; // all of runLoad
    // Its load and finishing phases only: reading, COPY, commits, the table's finishing (a
    // hypertable's index), without opening the files, checking the server and preparing the table.
    double copySeconds = 0;
    std::uint64_t rows = 0;
};
EngineLoad loadWithEngine(const std::string& conninfo, const PreparedData& data, const std::string& table,
                          const BenchTableType& type, int workers, const DurabilityRequest& durability,
                          const std::stop_token& stop);

// Runs `sql` (a COPY ... TO STDOUT) and reads everything it sends; returns the bytes.
std::uint64_t readCopyOut(Connection& conn, const std::string& sql);

// `count` locations of the table (at its first time), spread by a hash so they are not neighbours.
std::vector<std::string> sampleLocations(Connection& conn, const std::string& table, int count);

// The nearest-rank percentile of the values.
double percentileOf(std::vector<double> values, double fraction);

// Isobar's load in this process, quietly: throws Cancelled, or isobar::Error with the load's own
// message when it did not complete or could not restore the durability settings.
LoadSummary runLoadOrThrow(const LoadRequest& request, const std::stop_token& stop);

// The frame of a warehouse bench (methods, matrix, query): its connection, its tables dropped
// before it starts and however it ends, its report begun with the environment, and the table types
// this server cannot make.
class BenchFrame {
    DroppedAtEnd dropped_; // first made, last gone: after `conn` is closed

public:
    BenchFrame(const std::string& conninfo, const std::string& kind);
    // Drops the bench's tables while it still holds the lock (so another bench that starts just
    // after keeps its own); on a connection of its own when the bench's is broken.
    ~BenchFrame();
    BenchFrame(const BenchFrame&) = delete;
    BenchFrame& operator=(const BenchFrame&) = delete;

    Connection conn;
    BenchReport report;

    // Opens the connection again (after a server restart), with the bench's lock.
    void reconnect();
    // Why the table type cannot be measured on this server; empty when it can.
    std::string whyNot(const BenchTableType& type) const;
    // Runs the bench's measurements: a cancel or a failure ends them, and the report says so and
    // keeps what was measured before.
    void measure(const std::function<void()>& body);
    // The report, with how long the bench took.
    BenchReport finish();

private:
    void lock();

    std::string conninfo_;
    Clock::time_point t0_ = Clock::now();
    std::vector<std::pair<std::string, std::string>> unavailable_;
};

} // namespace isobar::bench
