// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/ServerCheck.h"
#include "db/ServerStorage.h"
#include "era5/Dataset.h"
#include "ingest/LoadEvents.h"
#include "ingest/Loader.h"

#include <string>
#include <vector>

namespace isobar {

// The disk a load needs against the disk the server has.
struct RoomCheck {
    StorageForecast forecast;
    ServerStorage storage;
    std::vector<std::string> lines; // for the start of the load: what it writes, what is free
};

struct RoomRequest {
    std::uint64_t rows = 0; // the rows this run loads (committed units excluded)
    TableType type = TableType::Regular;
    double bytesBefore = -1; // the table's size before the load prepared it (-1: it did not exist)
    double rowsBefore = 0;   // rows the ledger accounts for in it
};

// Forecasts what the load writes (table, indexes, WAL; a compressed hypertable's size) and looks at
// the free space of the server's filesystems where this machine can see them. Not enough room:
// throws isobar::Error naming both numbers, unless request.force; less than 20 % of the free space
// left after the load: a warning through `sink`.
RoomCheck checkRoom(Connection& conn, const LoadRequest& request, const ServerCheck& server,
                    const Dataset& dataset, const RoomRequest& room, LoadSink& sink);

// "42 MiB free on /var/lib/... (the server's data directory)" for messages; empty when not seen.
std::string describeFreeSpace(const ServerStorage& storage);

} // namespace isobar
