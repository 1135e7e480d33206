#pragma once

#include "db/Connection.h"
#include "era5/Era5File.h"
#include "ingest/LoadEvents.h"

#include <filesystem>
#include <stop_token>
#include <string>
#include <vector>

namespace isobar {

// What to do with a band in which every value of every variable is missing (a file of fill
// values, an ERA5T request made before the data existed, ...).
enum class AllMissingPolicy : std::uint8_t { Skip, Load };

struct LoadRequest {
    std::string conninfo;
    TableName table{"", "weather"};
    std::vector<std::filesystem::path> files;
    OpenOptions open;
    AllMissingPolicy allMissing = AllMissingPolicy::Skip;
    // Rows of latitude read and encoded at a time; 0 picks about 32k rows per band.
    std::size_t bandRows = 0;
    // Empty the table (TRUNCATE) in the same transaction before loading, so that the load replaces
    // its contents atomically: no reader ever sees a half-loaded table. TRUNCATE locks the table
    // exclusively, so readers wait until the reload commits (or rolls back, leaving the old rows).
    bool replace = false;
};

// Loads ERA5 files, merged into one dataset, into the weather table with binary COPY in one
// transaction, on the calling thread: either every row is committed, or none is (a failure or a
// cancel rolls back). The parallel engine with per-unit transactions and a resume ledger builds on
// this.
//
// Never throws: failures come back in the summary (and through sink.failed()).
LoadSummary runLoad(const LoadRequest& request, const std::stop_token& stop, LoadSink& sink);

} // namespace isobar
