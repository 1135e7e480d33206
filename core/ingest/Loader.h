#pragma once

#include "db/Connection.h"
#include "ingest/LoadEvents.h"

#include <filesystem>
#include <stop_token>
#include <string>
#include <vector>

namespace isobar {

struct LoadRequest {
    std::string conninfo;
    TableName table{"", "weather"};
    std::vector<std::filesystem::path> files;
    // Rows of latitude read and encoded at a time; 0 picks about 32k rows per band.
    std::size_t bandRows = 0;
    // Empty the table (TRUNCATE) in the same transaction before loading, so that the load replaces
    // its contents atomically: readers see the old rows until the new ones are committed.
    bool replace = false;
};

// Loads ERA5 files into the weather table with one binary COPY in one transaction, on the calling
// thread: either every row of every file is committed, or none is (a failure or a cancel rolls
// back). The parallel engine with per-unit transactions and a resume ledger builds on this.
//
// Never throws: failures come back in the summary (and through sink.failed()).
LoadSummary runLoad(const LoadRequest& request, const std::stop_token& stop, LoadSink& sink);

} // namespace isobar
