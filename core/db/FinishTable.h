// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Compression.h"
#include "db/Connection.h"
#include "db/Ledger.h"
#include "db/TableType.h"

#include <functional>
#include <optional>
#include <stop_token>
#include <string>

namespace isobar {

// What finishing a table after a load may use: connections for compressing chunks in parallel,
// what the rows are like, and the run's stop.
struct FinishRun {
    std::string conninfo;
    int parallel = 1;
    CompressionHint hint;
    std::optional<CompressionStart> compression; // --compress: the path taken before the first row
    std::stop_token stop;
};

struct FinishOutcome {
    bool indexBuilt = false;                       // the hypertable's time index was made now
    std::optional<CompressionOutcome> compression; // --compress: what it did
    bool setLogged = false;
};

// After a completed load: the hypertable's time index (built once, not maintained during COPY),
// compression, SET LOGGED with the ledger moved along. Each step says what it did through `note`.
FinishOutcome finishTable(Connection& conn, const TableName& table, TableType type,
                          const TableOptions& options, const LedgerTarget& ledger, const FinishRun& run,
                          const std::function<void(const std::string&)>& note);

} // namespace isobar
