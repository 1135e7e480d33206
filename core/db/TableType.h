// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"
#include "db/Ledger.h"
#include "db/ServerProbe.h"
#include "domain/Columns.h"
#include "domain/Timestamp.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace isobar {

enum class TableType : std::uint8_t {
    Regular,
    Unlogged,    // no WAL: fast, emptied by a crash
    Partitioned, // native declarative range partitions by time
    Hypertable,  // TimescaleDB
    Distributed, // Citus, distributed on location_id
};

std::optional<TableType> parseTableType(std::string_view name);
std::string_view tableTypeName(TableType type);

enum class PartitionInterval : std::uint8_t { Day, Week, Month, Year };

// How --compress compresses a hypertable: Auto takes TimescaleDB's direct compress of COPY where
// the server has it and the table's settings suit it, else compresses the chunks after the load;
// Direct insists on the first (refused where the server lacks it), AfterLoad on the second.
enum class CompressPath : std::uint8_t { Auto, Direct, AfterLoad };
std::optional<CompressPath> parseCompressPath(std::string_view name);
std::string_view compressPathName(CompressPath path);
std::optional<PartitionInterval> parsePartitionInterval(std::string_view name);
std::string_view partitionIntervalName(PartitionInterval interval);

struct TableOptions {
    // What to create when the table is missing; when it exists, what it must be (nullopt: whatever
    // it is).
    std::optional<TableType> type;
    bool setLoggedAfter = false; // unlogged: ALTER TABLE SET LOGGED at the end
    PartitionInterval partitionInterval = PartitionInterval::Month;
    std::string chunkInterval = "1 day"; // hypertable chunk_time_interval
    bool compressAfter = false;          // hypertable: compress the chunks (--compress)
    CompressPath compressPath = CompressPath::Auto;
    // --compress-segmentby / --compress-orderby: column lists ("" segments by nothing); nullopt:
    // the table's own settings, or those chooseCompression() picks for the rows.
    std::optional<std::string> compressSegmentBy;
    std::optional<std::string> compressOrderBy;
};

// Whether an extension can be used on the server, and if not, why, in words a user can act on.
struct ExtensionStatus {
    bool usable = false;
    std::string installedVersion; // empty: not created in this database
    std::string availableVersion; // empty: not installed on the server
    std::string reason;           // when not usable
};
// shared_preload_libraries with `library` added to what is there ("pg_stat_statements,timescaledb"
// + citus: "citus,pg_stat_statements,timescaledb"): Citus goes first, as it must, others at the
// end; nothing already there is dropped.
std::string preloadListWith(const std::string& current, const std::string& library);

// `howToGet` is said when the extension is not installed on the server at all.
ExtensionStatus extensionStatus(Connection& conn, const std::string& name, const std::string& howToGet);
ExtensionStatus timescaledbStatus(Connection& conn);
ExtensionStatus citusStatus(Connection& conn);
// The same from what probeServer() read (its extensions and settings), without asking again.
ExtensionStatus timescaledbStatus(const ServerInfo& info);
ExtensionStatus citusStatus(const ServerInfo& info);

// The type an existing table has.
TableType existingTableType(Connection& conn, const TableName& table);

// Inside the preparing transaction: creates the table with `layout`'s columns as `options` say when
// missing (creating the extension first for hypertables and distributed tables), or checks that an
// existing one has them and is of the requested type. Throws isobar::Error naming what is wrong and
// how to fix it. Returns the table's type.
TableType ensureTargetTable(Connection& conn, const TableName& table, const TableLayout& layout,
                            const TableOptions& options, bool& created);

// Partitioned tables: creates the partitions that the given times fall into, ahead of the units
// that need them, in one round trip (existing partitions are kept, and where a partition of the
// user's covers part of a range, the range gets none). Inside a transaction.
void createPartitions(Connection& conn, const TableName& table, PartitionInterval interval,
                      const std::vector<PgTimestamp>& times);

// The index on time create_hypertable makes by default (the load builds it once, after COPY).
// Returns whether it was made now (false: it was there).
bool buildTimeIndex(Connection& conn, const TableName& table);

// An index whose first column is time, on a table, its partitions or its chunks.
struct TimeIndex {
    std::string method; // "brin", "btree", ...
    std::string oid;
    std::string name;
};
std::vector<TimeIndex> timeIndexes(Connection& conn, const TableName& table);

// How a load that replaces units finds their rows (by time, level and location_id): an index of
// the table whose first column is time, or one it makes for the run.
struct TimeLookup {
    std::string index;       // the index made for this run (qualified, quoted); empty: none made
    double buildSeconds = 0; // how long making it took
};
// Before a load deletes the rows of units it replaces, on a connection outside a transaction:
// brings the table's BRIN indexes on time up to date, or - for a regular, unlogged or partitioned
// table with no index on time - makes a BRIN index on time (one read of the table, where each
// replaced unit would read all of it), which dropTimeLookup() drops when the load ends.
TimeLookup prepareTimeLookup(Connection& conn, const TableName& table, TableType type);
void dropTimeLookup(Connection& conn, const TimeLookup& lookup);

} // namespace isobar
