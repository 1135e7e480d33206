// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"
#include "domain/Columns.h"
#include "domain/GridField.h"

#include <optional>
#include <string>
#include <vector>

namespace isobar {

// What the server would read to answer a bounded query, from its plan (EXPLAIN, nothing run): the
// relations it scans whole and their size on disk. A map or a point series of a big table without
// an index that serves its filter scans all of it; the caller asks the user before doing that.
struct ReadCost {
    bool cheap = true;
    std::uint64_t scannedBytes = 0; // of the relations read by sequential scans
    std::string reason; // "drawing it reads all 1.2 GB of public.weather: it has no index on time ..."
};

// One variable of a weather table at one time step: the request for readTableField().
struct TableFieldRequest {
    TableName table;
    ValueColumn column; // the table column, with its units (tableLayout())
    PgTimestamp time;
    std::optional<double> level;     // hPa, for a pressure-level table
    GlobalGrid grid;                 // the table's (isobar's record of it, TableGrid::step)
    std::optional<GeoBounds> bounds; // only the rows inside (the box a run loaded); none: all
};

// The most a read may scan sequentially and still be cheap: about a second on a server of today.
inline constexpr std::uint64_t kCheapScanBytes = 256ULL << 20;

// The plan's cost of readTableField(request), and the same for readPointSeries(): not cheap when
// it scans more than `cheapScanBytes` sequentially.
ReadCost tableFieldCost(Connection& conn, const TableFieldRequest& request,
                        std::uint64_t cheapScanBytes = kCheapScanBytes);
ReadCost pointSeriesCost(Connection& conn, const TableName& table, const ValueColumn& column,
                         LocationId location, std::optional<double> level, PgTimestamp from, PgTimestamp to,
                         std::uint64_t cheapScanBytes = kCheapScanBytes);

// The rows of `request.time` (and level) as a field on the box their location_ids span (rows or
// columns the rows skip are left out). Throws isobar::Error when there are no such rows.
GridField readTableField(Connection& conn, const TableFieldRequest& request);

// One location's values over [from, to], in time order.
std::vector<SeriesPoint> readPointSeries(Connection& conn, const TableName& table, const ValueColumn& column,
                                         LocationId location, std::optional<double> level, PgTimestamp from,
                                         PgTimestamp to);

} // namespace isobar
