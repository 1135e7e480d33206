// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"
#include "db/TableType.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace isobar {

// How a hypertable's chunks are compressed: the columns whose values each compressed batch holds
// one of, and the order of the rows inside a batch.
struct CompressionChoice {
    std::string segmentBy; // "" : none
    std::string orderBy;   // "location_id, time"
    std::string why;       // how it was chosen, in words said to the user
};

// What the load knows of its rows that decides the choice.
struct CompressionHint {
    std::optional<double> stepSeconds; // between the dataset's times; nullopt: a single time
    std::size_t levels = 0;            // pressure levels of a pressure-level table (0: single level)
};

// A compressed batch holds at most 1000 rows, all of one segment. Segments smaller than that cost
// more in batch headers and per-column metadata than they save: a 4-hour chunk of 4-row segments
// came out 3.3x bigger than uncompressed. Measured on hourly rows (TimescaleDB 2.28.3), size after
// compression as a share of before, segmented by location_id vs ordered by location_id, time:
// 1-day chunks (24 rows per location) 0.74 vs 0.32, 7 days (168) 0.35 vs 0.26, 30 days (720) 0.27
// vs 0.25, 92 days (2208) 0.24 vs 0.25. Segments pay once they fill a batch.
constexpr double kMinSegmentRows = 1000;

// The settings for `table`: the user's (--compress-segmentby / --compress-orderby), else those the
// table already has, else the ones that suit time-major ERA5 rows - ordered by location and time,
// segmented by location only where a chunk holds kMinSegmentRows rows of each location (never for
// `direct` compress of COPY, which sees a location's rows of a few times at once).
CompressionChoice chooseCompression(Connection& conn, const TableName& table, const TableOptions& options,
                                    const CompressionHint& hint, bool direct = false);

// Enables compression on the hypertable with `choice`: when it has none yet, or `always` (the user
// asked for other settings). Throws DbError (chunks already compressed otherwise, say).
void setCompression(Connection& conn, const TableName& table, const CompressionChoice& choice, bool always);

// Refuses, before anything is loaded, a --compress-segmentby / --compress-orderby that names a
// column the table does not have or is not a column list; `columns` are the table's.
void checkCompressionColumns(const TableOptions& options, const std::vector<std::string>& columns);

// Whether the server's TimescaleDB compresses rows as COPY receives them (2.21 and later, the
// setting timescaledb.enable_direct_compress_copy), and if not, why.
struct DirectCompress {
    bool available = false;
    std::string version;       // the extension's in this database ("2.28.3"); empty: not created
    bool experimental = false; // the extension's own description of the setting calls it experimental
    std::string why;           // when not available: what is missing, and which version would do
};
DirectCompress directCompressSupport(Connection& conn);

// Whether TimescaleDB `version` ("2.28.3") has direct compress of COPY (2.21 and later).
bool hasDirectCompress(const std::string& version);

// Which path a --compress load into a new hypertable takes on a server whose TimescaleDB is
// `timescaledb`, in a line for the user ("Compressed as COPY receives the rows: TimescaleDB 2.28.3
// has direct compress"); said before anything is loaded, where only versions are known.
std::string describeCompressPath(const ExtensionStatus& timescaledb, CompressPath path);

// How a load's chunks are compressed, decided and prepared before its first row.
struct CompressionStart {
    bool direct = false;
    std::string why;            // the path and why, in words said to the user
    CompressionChoice settings; // direct: set on the hypertable before the first row
    // direct: run on every worker's connection before its first COPY
    std::vector<std::string> sessionSettings;
    // direct: the rows a worker's transaction takes at most, unless the user chose
    // (--rows-per-transaction); 0: the load's default.
    std::uint64_t rowsPerTransaction = 0;
};

// The worker sessions' settings of a direct-compress load. The rows arrive time-major (a unit is
// a time of the grid, locations in order); the server sorts each run of `sortLimit` rows into the
// table's compress_orderby before it cuts them into batches of 1000.
std::vector<std::string> directCompressSettings(int sortLimit);
constexpr int kDirectCompressSortLimit = 100'000;

// Direct compress of COPY slows down as its transaction grows (TimescaleDB 2.28.3, 2 streams of
// 12.5M rows: one transaction each 26-28 s, six transactions each 17-18 s, whether one COPY or six
// per transaction). A load of 24 global hours with 2 workers took 19.7-19.9 s in transactions of
// 10M rows (the default), 16.2-17.7 s of 4M, 15.2-16.0 s of 1M, 15.1-15.3 s of 500k and 250k.
constexpr std::uint64_t kDirectCompressRowsPerTransaction = 1'000'000;

// For a hypertable loaded with --compress: where options.compressPath and the server allow it
// (and the table's settings suit rows that arrive in time order), enables compression on the
// table with settings for direct compress and returns the sessions' settings; otherwise says why
// the chunks are compressed after the load. Throws Error for CompressPath::Direct where the server
// cannot, DbError when the settings cannot be set.
CompressionStart startCompression(Connection& conn, const TableName& table, const TableOptions& options,
                                  const CompressionHint& hint);

// What compressing the hypertable during and after a load did.
struct CompressionOutcome {
    CompressionChoice settings;
    bool direct = false;           // the rows were compressed as COPY received them
    std::string path;              // which path and why ("direct compress of COPY (TimescaleDB 2.28.3)")
    std::size_t chunks = 0;        // compressed (or recompressed) by this run
    std::size_t chunksLeft = 0;    // left uncompressed: the run was cancelled
    std::int64_t bytesBefore = -1; // the hypertable's total size (heap, indexes, TOAST) before; direct: -1
    std::int64_t bytesAfter = -1;  // and after
    bool beforeEstimated = false;  // bytesBefore is what the rows would take in a heap (direct compress)
    double seconds = 0;

    bool grew() const { return bytesBefore >= 0 && bytesAfter > bytesBefore; }
    // "1.2 GiB before compression, 107 MiB after (0.09x), 3 chunks in 4.1 s"; direct: "written
    // compressed by COPY: 77 MiB (0.23x of the rows uncompressed), 0 chunk(s) compressed after"
    std::string describe() const;
};

struct CompressionRun {
    std::string conninfo; // the chunks are compressed on connections of their own, `parallel` at once
    int parallel = 1;
    CompressionHint hint;
    std::optional<CompressionStart> started;      // the load's path, when decided before its first row
    std::function<void(const std::string&)> note; // progress: a line per chunk
    std::stop_token stop;                         // between chunks: the compressed ones stay so
};

// Enables compression on the hypertable with chooseCompression()'s settings (when it has none, or
// the user gave others) and compresses every chunk that has uncompressed rows: after a direct
// compress load, those a resumed or older run left, or the server wrote uncompressed. Throws DbError.
CompressionOutcome compressHypertable(Connection& conn, const TableName& table, const TableOptions& options,
                                      const CompressionRun& run);

} // namespace isobar
