#pragma once

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
// server reads. Each is timed into a fresh table; rounds alternate which goes first, and the best
// round of each counts.
struct IngestBenchmarkOptions {
    std::string conninfo;
    std::vector<std::filesystem::path> files;
    OpenOptions open;
    std::vector<int> workers{1, 2};
    std::vector<TableType> tableTypes{TableType::Regular, TableType::Unlogged};
    int rounds = 2;
    Transport transport = Transport::Stream; // for (a)
};

struct IngestBenchmarkRow {
    TableType tableType = TableType::Regular;
    int workers = 1;
    std::uint64_t rows = 0;
    double isobarSeconds = 0;  // best round
    double ceilingSeconds = 0; // best round
    // The same prepared files streamed by a bare libpq client (COPY FROM STDIN): what the client
    // COPY protocol itself costs against the server reading files, without any NetCDF work.
    double streamSeconds = 0;
    double isobarRate() const { return isobarSeconds > 0 ? static_cast<double>(rows) / isobarSeconds : 0; }
    double ceilingRate() const { return ceilingSeconds > 0 ? static_cast<double>(rows) / ceilingSeconds : 0; }
    double streamRate() const { return streamSeconds > 0 ? static_cast<double>(rows) / streamSeconds : 0; }
    double ratio() const { return ceilingRate() > 0 ? isobarRate() / ceilingRate() : 0; }
};

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
// machine, and the role needs superuser or pg_read_server_files). `progress` hears each step.
std::vector<IngestBenchmarkRow> benchmarkIngest(const IngestBenchmarkOptions& options,
                                                const std::function<void(const std::string&)>& progress,
                                                const std::stop_token& stop = {});

std::string formatIngestBenchmark(const std::vector<IngestBenchmarkRow>& rows);

} // namespace isobar
