// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"
#include "db/TableType.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>

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
// segmented by location only where a chunk holds kMinSegmentRows rows of each location.
CompressionChoice chooseCompression(Connection& conn, const TableName& table, const TableOptions& options,
                                    const CompressionHint& hint);

// Refuses, before anything is loaded, a --compress-segmentby / --compress-orderby that names a
// column the table does not have or is not a column list; `columns` are the table's.
void checkCompressionColumns(const TableOptions& options, const std::vector<std::string>& columns);

// What compressing the hypertable after a load did.
struct CompressionOutcome {
    CompressionChoice settings;
    std::size_t chunks = 0;        // compressed (or recompressed) by this run
    std::size_t chunksLeft = 0;    // left uncompressed: the run was cancelled
    std::int64_t bytesBefore = -1; // the hypertable's total size (heap, indexes, TOAST) before
    std::int64_t bytesAfter = -1;  // and after
    double seconds = 0;

    bool grew() const { return bytesBefore >= 0 && bytesAfter > bytesBefore; }
    // "1.2 GiB before compression, 107 MiB after (0.09x), 3 chunks in 4.1 s"
    std::string describe() const;
};

struct CompressionRun {
    std::string conninfo; // the chunks are compressed on connections of their own, `parallel` at once
    int parallel = 1;
    CompressionHint hint;
    std::function<void(const std::string&)> note; // progress: a line per chunk
    std::stop_token stop;                         // between chunks: the compressed ones stay so
};

// Enables compression on the hypertable with chooseCompression()'s settings (when it has none, or
// the user gave others) and compresses every chunk that has uncompressed rows. Throws DbError.
CompressionOutcome compressHypertable(Connection& conn, const TableName& table, const TableOptions& options,
                                      const CompressionRun& run);

} // namespace isobar
