// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "bench/BenchReport.h"
#include "db/TableType.h"
#include "era5/Era5File.h"

#include <filesystem>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

namespace isobar {

// The published experiments, on the user's server and files: how to load (bench methods), what
// each table type costs to write, keep, read and trim (bench matrix), and how fast it answers
// (bench query). Each bench makes its own tables (named isobar_bench_*), drops them when it ends
// however it ends, and returns a BenchReport.

// Where the rows come from: the files, or synthetic global hours (the 0.25 degree grid, the six
// seed variables, written to a temporary NetCDF file first).
struct BenchData {
    std::vector<std::filesystem::path> files;
    OpenOptions open;
    int syntheticHours = 0; // used when files is empty
};

// One table type of a bench: the type, and for hypertables whether the rows are compressed:
// the chunks after the load ("hypertable-compressed") or the rows as COPY receives them
// ("hypertable-direct", TimescaleDB's direct compress, 2.21 and later).
struct BenchTableType {
    TableType type = TableType::Regular;
    bool compressed = false;
    bool direct = false; // with compressed: direct compress of COPY
};
std::optional<BenchTableType> parseBenchTableType(std::string_view name);
std::string benchTableTypeName(const BenchTableType& t);

enum class LoadMethod : std::uint8_t {
    Insert,      // one parameterized single-row INSERT per row, all in one transaction (a sample)
    MultiInsert, // INSERT ... VALUES (...), (...) of `batchRows` rows per statement
    CopyText,    // COPY FROM STDIN (FORMAT text), rows formatted on the client
    CopyCsvFile, // a CSV file written, then server-side COPY FROM it (timed with and without writing)
    CopyBinary,  // Isobar's engine: binary COPY FROM STDIN
    ServerLimit, // server-side binary COPY of the same rows from prepared files: the ceiling
};
std::optional<LoadMethod> parseLoadMethod(std::string_view name);
std::string_view loadMethodName(LoadMethod method);
std::vector<LoadMethod> allLoadMethods();

struct MethodsBenchmarkOptions {
    std::string conninfo;
    BenchData data;
    std::vector<LoadMethod> methods = allLoadMethods();
    // hypertable-direct: every COPY method copies with direct compress of COPY (the INSERT
    // methods are not measured there); hypertable-compressed is not a methods type.
    std::vector<BenchTableType> tableTypes{{TableType::Regular, false, false}};
    std::vector<int> workers{1};
    // "safe" and/or "fast" (fsync, full_page_writes, synchronous_commit off server-wide during the
    // fast cells, restored after each): fast needs consent.
    std::vector<std::string> durability{"safe"};
    bool consent = false;
    int rounds = 3;                    // the median round counts
    std::uint64_t insertRows = 20'000; // the single-row INSERT's sample
    std::uint64_t batchRows = 1000;    // multi-row INSERT
};
// Throws isobar::Error for what makes the whole bench impossible (no server, bad options); a
// method that cannot run here (the server-file methods on a remote server, hypertables without
// TimescaleDB) is a row that says why. Cancelled (with the tables dropped) on `stop`.
BenchReport benchmarkMethods(const MethodsBenchmarkOptions& options, const BenchProgress& progress,
                             const std::stop_token& stop = {});

struct MatrixBenchmarkOptions {
    std::string conninfo;
    // Data sizes in synthetic global hours; or, when data.files is given, those files as one size.
    std::vector<int> hours{1, 10};
    BenchData data;
    std::vector<BenchTableType> tableTypes; // default: every type this server can make
    int workers = 2;                        // N: write and read with 1 and N
    int seriesLocations = 8;                // locations whose whole series are read (mean time each)
};
BenchReport benchmarkMatrix(const MatrixBenchmarkOptions& options, const BenchProgress& progress,
                            const std::stop_token& stop = {});

struct QueryBenchmarkOptions {
    std::string conninfo;
    BenchData data; // default: 48 synthetic hours, so the queries over days have two
    std::vector<BenchTableType> tableTypes;
    int repeats = 5; // warm runs of each query (after the cold one)
    // Restarts the server before each table type's cold runs, so its buffers are empty (the
    // embedded cluster can; empty: not restarted, and the report says so).
    std::function<void()> restartServer;
};
BenchReport benchmarkQueries(const QueryBenchmarkOptions& options, const BenchProgress& progress,
                             const std::stop_token& stop = {});

// Every table type a bench knows, in order: regular, unlogged, partitioned, hypertable,
// hypertable-compressed, distributed (the default of matrix and query: those the server cannot make
// are rows that say why).
std::vector<BenchTableType> allBenchTableTypes();
// Those of them this server can make (hypertables where TimescaleDB can be used, distributed tables
// on a Citus coordinator); `skipped` gets the others with why.
std::vector<BenchTableType>
availableBenchTableTypes(Connection& conn, std::vector<std::pair<std::string, std::string>>* skipped);

} // namespace isobar
