#pragma once

// The steps the benchmarks share (IngestBenchmark.cpp, SustainedBenchmark.cpp). Not a public API.

#include "db/Connection.h"
#include "era5/Dataset.h"
#include "ingest/IngestBenchmark.h"
#include "plan/LoadPlan.h"
#include "util/Json.h"

#include <filesystem>
#include <stop_token>
#include <vector>

namespace isobar::bench {

// Throws isobar::Error unless the server runs on this machine and the role may read its files.
void checkServerCanReadFiles(Connection& conn);

// The rows of the plan encoded exactly as the engine sends them, unit i into file i % n, written
// to the disk before they are returned.
std::vector<std::filesystem::path> writeCopyFiles(const Dataset& dataset, const LoadPlan& plan, int n,
                                                  const std::filesystem::path& dir,
                                                  const std::stop_token& stop);

// Drops the benchmark's tables, and their ledger and grid records.
void dropTables(Connection& conn);

// (b): the server's own COPY of the prepared files, one stream each, into a fresh table.
double timeCeiling(const std::string& conninfo, TableType type, const TableLayout& layout,
                   const std::vector<std::filesystem::path>& files);

struct IsobarTiming {
    double loadSeconds = 0; // what the load reports: reading, COPY, finishing the table
    double wallSeconds = 0; // all of it: the whole process, or all of runLoad in-process
    JsonValue report;       // the run report the process wrote (null in-process)
};

// (a): Isobar's load after a CHECKPOINT, as a process of its own (options.program) or in this
// process (durability changes, or no program).
IsobarTiming timeIsobar(const IngestBenchmarkOptions& options, TableType type, int workers,
                        const std::stop_token& stop, const std::filesystem::path& reportPath,
                        const DurabilityRequest& durability = {});

} // namespace isobar::bench
