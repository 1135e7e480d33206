// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"
#include "db/ServerProbe.h"
#include "db/SettingsAdvice.h"
#include "db/TableType.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace isobar {

// Below this much free space the server is one WAL segment and a few extensions from ENOSPC: a load
// stops before it gets there (and a failure with less than this free is blamed on the disk).
inline constexpr double kDiskReserveBytes = 64.0 * 1024 * 1024;

// One filesystem the server writes to, as this machine sees it.
struct ServerFilesystem {
    std::filesystem::path path; // the directory looked at
    double freeBytes = -1;      // what a process of the server's account may still write
    double totalBytes = -1;
};

// Where the server keeps what a load writes, and the room left there. Seen only for a server on
// this machine whose directories this process may look at (the embedded cluster, a local server
// run by the same user or by root); for any other the reason why not.
struct ServerStorage {
    std::string unseen;    // empty when the filesystems below were seen
    ServerFilesystem data; // where the table's files go: the data directory or its tablespace
    // pg_wal, when it is on another filesystem than `data` (a symlink to another disk).
    std::optional<ServerFilesystem> wal;
    double walDirBytes = -1; // the size of pg_wal (pg_ls_waldir: superuser or pg_monitor)

    bool seen() const { return unseen.empty(); }
};

// `table` may be missing (a new table goes to the database's default tablespace).
ServerStorage probeStorage(Connection& conn, const ServerInfo& info, const TableName& table);
// The size of pg_wal; -1 when the role may not list it (superuser or pg_monitor).
double walDirBytes(Connection& conn);
// Free space again on the filesystems `probeStorage` found (nothing asked of the server).
void refreshFreeSpace(ServerStorage& storage);

// The target's size with its partitions or chunks, indexes and TOAST; -1 when it does not exist or
// cannot be read (a distributed table's shards are counted by Citus).
double tableBytes(Connection& conn, const TableName& table);
// The same for a table whose type is known (once a second while a load runs: one query).
double tableBytes(Connection& conn, const TableName& table, TableType type);

// What keeps WAL on the server's disk during a load besides its checkpoints.
struct WalRetention {
    bool archiving = false;     // archive_mode on (or always)
    std::string archiveCommand; // as the role may see it
    std::uint64_t archived = 0; // pg_stat_archiver
    std::uint64_t failed = 0;
    std::string lastFailedWal;
    bool failing = false;            // the last attempt failed (a failure after the last success)
    std::int64_t readySegments = -1; // segments waiting for the archiver; -1 when not seen
    struct Slot {
        std::string name;
        std::string type; // physical, logical
        bool active = false;
        double retainedBytes = -1; // WAL kept for it
        std::string walStatus;     // reserved, extended, unreserved, lost
    };
    std::vector<Slot> replicationSlots;
    struct Standby {
        std::string name; // application_name, else the address
        std::string state;
        double writeLag = -1; // seconds; -1 when the server has no figure (idle, or too old)
        double flushLag = -1;
        double replayLag = -1;
        double replayBytes = -1; // WAL sent but not yet replayed there
    };
    std::vector<Standby> standbys;
};
// Empty parts where the role may not read them (pg_stat_replication's details need pg_monitor).
WalRetention probeWalRetention(Connection& conn);

// What would back WAL up during a load, as warnings: a failing archiver, inactive slots that
// retain WAL, standbys and their lag.
std::vector<SettingWarning> walRetentionWarnings(const WalRetention& wal);

// What a load of `rows` rows writes to the server's disks.
struct StorageForecast {
    std::uint64_t rows = 0;
    double bytesPerRow = 0;      // the table's, from its columns or measured on the table itself
    std::string perRowFrom;      // "measured: 940 MB for 12.3M rows" or "from the 10 columns"
    double tableBytes = 0;       // rows x bytesPerRow
    double indexBytes = 0;       // indexes built after the load (a hypertable's on time)
    double walBytes = 0;         // WAL the load writes
    double walKeptBytes = 0;     // of that, what stays in pg_wal at worst (all of it when retained)
    std::string walKeptWhy;      // "an inactive replication slot keeps all of it", "max_wal_size 4 GB"
    double compressedBytes = -1; // a hypertable compressed after the load: the size afterwards
    // Bytes needed on the data filesystem, and on pg_wal's when that is another one.
    double dataNeeded = 0;
    double walNeeded = 0;
};

// How a table stores a row of its columns (pressure level or not, values, some NULL or none).
struct RowShape {
    int valueColumns = 0;
    bool pressureLevels = false;
    int nullColumns = 0; // value columns NULL in every row (not in the files): no data, a null bitmap
};
// Heap bytes per row of that shape, pages included (fillfactor 100, no dead rows).
double heapBytesPerRow(const RowShape& shape);

struct ForecastInput {
    std::uint64_t rows = 0;
    RowShape shape;
    TableType type = TableType::Regular;
    bool compressAfter = false;
    bool setLoggedAfter = false;
    // The table as it is (for bytes per row measured on it); -1 / 0 when new or empty.
    double existingBytes = -1;
    double existingRows = 0;
};
StorageForecast forecastLoad(const ForecastInput& input, const ServerInfo& info, const WalRetention& wal,
                             const ServerStorage& storage);

} // namespace isobar
