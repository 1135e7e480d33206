// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "bench/WarehouseBenchmarks.h"
#include "db/TableType.h"
#include "era5/Era5File.h"
#include "ingest/Loader.h"

#include <filesystem>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

namespace isobar {

// The speed target, measured side by side in one run on the same rows: (a) Isobar's load end to end
// from the NetCDF files with N workers, against (b) the server's own limit, N concurrent server-side
// `COPY ... FROM 'file' (FORMAT binary)` of the identical rows, encoded beforehand into files the
// server reads, and (c) a bare libpq client streaming those files. Each is timed into a fresh table
// after a CHECKPOINT; rounds rotate which goes first, and the median round of each counts. (a) is
// timed as a user times it, the whole `isobar-cli load` process from start to exit, when `program`
// is given; its load phase (what the load itself reports) is kept beside it.
struct IngestBenchmarkOptions {
    std::string conninfo;
    std::vector<std::filesystem::path> files;
    OpenOptions open;
    std::vector<int> workers{1, 2};
    // hypertable-compressed and hypertable-direct: the ceiling is the server's COPY into a
    // hypertable compressed the same way (after the COPY, or by direct compress of COPY).
    std::vector<BenchTableType> tableTypes{{TableType::Regular, false, false},
                                           {TableType::Unlogged, false, false}};
    int rounds = 3;
    TransportKind transport = TransportKind::Stream; // for (a)
    // The isobar-cli to run for (a) as a whole process, and the options it is given besides the
    // load's own: how it reaches the same server (--dsn, or the embedded cluster's --data-dir and
    // --port) and reads the files as `open` says (--grid, --product, --off-grid). Empty: (a) runs
    // in this process.
    std::filesystem::path program;
    std::vector<std::string> programArgs;
};

struct IngestBenchmarkRow {
    BenchTableType tableType;
    int workers = 1;
    std::uint64_t rows = 0;
    // Seconds of each round.
    std::vector<double> isobarWall; // the whole process (or all of runLoad, in-process)
    std::vector<double> isobarLoad; // the load phase it reports
    std::vector<double> isobarCopy; // its COPY phase: the workers, from their start to their last commit
    std::vector<double> ceiling;
    // The same prepared files streamed by a bare libpq client (COPY FROM STDIN): what the client
    // COPY protocol itself costs against the server reading files, without any NetCDF work.
    std::vector<double> stream;
    // Why the row was not measured (a hypertable without TimescaleDB); empty when it was.
    std::string skipped;
    // Rows/s of the median round.
    double rate(const std::vector<double>& seconds) const;
    // "a/b by round 0.80 0.77 0.83 (median 0.80); a''/c by round ...": each round's ratio of the
    // rates. A round's three ran one after the other, so its ratio is spared the machine's drift
    // between rounds, which the medians of each are not (the same server COPY took 2.06 s and
    // 3.11 s in alternate rounds on a shared 2-core machine).
    std::string byRound() const;
};

// The middle value (the mean of the two middle ones for an even count); 0 for none.
double median(std::vector<double> values);

// What trading durability for speed is worth: isobar's load with --durability safe against
// --durability fast (fsync, full_page_writes, synchronous_commit off for the run), side by side,
// rounds alternating which goes first. Changes the server's settings for the fast runs (and puts
// them back after each), so the caller must have the user's consent.
struct DurabilityBenchmarkRow {
    TableType tableType = TableType::Regular;
    int workers = 1;
    std::uint64_t rows = 0;
    double safeSeconds = 0; // the load (best round)
    double fastSeconds = 0;
    double safeWallSeconds = 0; // until durable: also checking the server, applying, restoring, CHECKPOINT
    double fastWallSeconds = 0;
};
std::vector<DurabilityBenchmarkRow>
benchmarkDurability(const IngestBenchmarkOptions& options,
                    const std::function<void(const std::string&)>& progress,
                    const std::stop_token& stop = {});
std::string formatDurabilityBenchmark(const std::vector<DurabilityBenchmarkRow>& rows);

// Throws isobar::Error when the server cannot read files written here (it must run on this
// machine, and the role needs superuser or pg_read_server_files). A hypertable row where
// TimescaleDB cannot be used is not measured and says why. `progress` hears each stage.
std::vector<IngestBenchmarkRow> benchmarkIngest(const IngestBenchmarkOptions& options,
                                                const std::function<void(const std::string&)>& progress,
                                                const std::stop_token& stop = {});

std::string formatIngestBenchmark(const std::vector<IngestBenchmarkRow>& rows);

// A long load at a steady rate, or not: `isobar-cli load` of the files (options.program; the
// rows of `hours` synthetic global hours when options.files is empty) into a fresh table with
// `workers` workers, timed as a whole process, its rate curve and checkpoints read from the run
// report it writes, against the server's own COPY of the same rows (N concurrent COPY FROM file),
// options.rounds times, alternating which of the two goes first.
struct SustainedRound {
    bool isobarFirst = true;
    double wallSeconds = 0; // the whole isobar-cli load process
    double loadSeconds = 0; // its load phase
    double ceilingSeconds = 0;
    std::filesystem::path report; // the run report of the load (JSON; render it with isobar-cli report)
};
struct SustainedBenchmark {
    std::uint64_t rows = 0;
    int workers = 1;
    std::vector<SustainedRound> rounds;
    // The median round of each (the ratio is of the medians, as in bench ingest).
    double wallSeconds = 0;
    double loadSeconds = 0;
    double ceilingSeconds = 0;
    // The curve of the round whose whole process took the median time: the per-interval rates of
    // its run report's series (rows/s), over the middle 90% of the run.
    std::size_t curveRound = 0;
    double medianRate = 0;
    double p5Rate = 0;
    double minRate = 0;
    std::uint64_t checkpoints = 0;
    // The median rate in the 10 s after each checkpoint began, against the whole run's median:
    // the worst of them (1: no sag; 0 when there was no checkpoint).
    double worstAfterCheckpoint = 0;
    std::filesystem::path report; // that round's run report
};
SustainedBenchmark benchmarkSustained(IngestBenchmarkOptions options, int hours, int workers,
                                      const std::filesystem::path& reportDir,
                                      const std::function<void(const std::string&)>& progress,
                                      const std::stop_token& stop = {});
std::string formatSustainedBenchmark(const SustainedBenchmark& b);

} // namespace isobar
