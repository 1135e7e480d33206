// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/ServerStorage.h"

#include "util/Format.h"

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <system_error>

namespace isobar {

namespace {

// PostgreSQL's page and tuple layout (bufpage.h, htup_details.h), 64-bit builds.
constexpr double kPageBytes = 8192;
constexpr int kPageHeaderBytes = 24;
constexpr int kLinePointerBytes = 4;
constexpr int kTupleHeaderBytes = 23; // before the null bitmap
constexpr int kMaxAlign = 8;
constexpr int kMaxTuplesPerPage = 291;
// A btree index entry of one timestamp (IndexTupleData + key, line pointer), leaves 90 % full.
constexpr double kTimeIndexBytesPerRow = (8 + 8 + 4) / 0.9;
// WAL per row beyond the tuple's data: heap_multi_insert's per-tuple header, record headers.
constexpr int kWalTupleOverhead = 10;
// What TimescaleDB's compression leaves of ERA5 rows with the settings Isobar chooses (0.25-0.32
// of the size before, measured with TimescaleDB 2.28.3; see kMinSegmentRows): an assumption until
// the load has measured it, and the report gives the real size.
constexpr double kCompressedShare = 0.33;

int maxAligned(int n) {
    return (n + kMaxAlign - 1) / kMaxAlign * kMaxAlign;
}

// The tuple's length before alignment: header (with the bitmap when some column is NULL) and data
// (a NULL takes none).
int tupleBytes(const RowShape& shape) {
    const int columns = 4 + (shape.pressureLevels ? 1 : 0) + shape.valueColumns;
    const int header = maxAligned(kTupleHeaderBytes + (shape.nullColumns > 0 ? (columns + 7) / 8 : 0));
    const int data = 8 /* time */ + 4 * (columns - 1 - shape.nullColumns);
    return header + data;
}

std::optional<ServerFilesystem> lookAt(const std::filesystem::path& dir, std::string& why) {
    struct statvfs fs {};
    if (::statvfs(dir.c_str(), &fs) != 0) {
        why = "cannot look at " + dir.string() + " on this machine (" +
              std::error_code(errno, std::generic_category()).message() + ")";
        return std::nullopt;
    }
    ServerFilesystem f;
    f.path = dir;
    f.freeBytes = static_cast<double>(fs.f_bavail) * static_cast<double>(fs.f_frsize);
    f.totalBytes = static_cast<double>(fs.f_blocks) * static_cast<double>(fs.f_frsize);
    return f;
}

// The cluster in `dataDir` when this process may read its control file; nullopt when it may not.
std::optional<std::string> systemIdentifierIn(const std::filesystem::path& dataDir) {
    std::ifstream in(dataDir / "global" / "pg_control", std::ios::binary);
    std::uint64_t id = 0;
    if (!in || !in.read(reinterpret_cast<char*>(&id), sizeof id)) {
        return std::nullopt;
    }
    return std::to_string(id);
}

double number(const Result& r, int row, int column) {
    return r.isNull(row, column) ? -1.0 : std::stod(r.text(row, column));
}

} // namespace

ServerStorage probeStorage(Connection& conn, const ServerInfo& info, const TableName& table) {
    ServerStorage s;
    s.walDirBytes = walDirBytes(conn);
    if (info.dataDirectory.empty()) {
        s.unseen = "the role may not see where the server keeps its data (superuser or pg_read_all_settings)";
        return s;
    }
    // Asked again only of a ServerInfo that probeServer() did not make.
    const bool onThisMachine =
        info.onThisMachine ? *info.onThisMachine : probeServerFileAccess(conn).onThisMachine;
    if (!onThisMachine) {
        s.unseen = "the server is on another machine";
        return s;
    }
    const std::filesystem::path dataDir = info.dataDirectory;
    if (const auto id = systemIdentifierIn(dataDir);
        id && !info.systemIdentifier.empty() && *id != info.systemIdentifier) {
        s.unseen = dataDir.string() + " on this machine is another cluster's (is the server in a container?)";
        return s;
    }
    // The table's tablespace; a new table's is default_tablespace's, else the database's.
    const Result where = conn.query(
        "SELECT pg_tablespace_location(coalesce(nullif((SELECT reltablespace FROM pg_class WHERE oid = "
        "to_regclass($1)), 0), (SELECT oid FROM pg_tablespace WHERE spcname = "
        "nullif(current_setting('default_tablespace'), '')), (SELECT dattablespace FROM pg_database "
        "WHERE datname = current_database())))",
        {table.quoted(conn)});
    const std::string location = where.isNull(0, 0) ? std::string() : where.text(0, 0);
    const std::filesystem::path tableDir = location.empty() ? dataDir : std::filesystem::path(location);
    const auto data = lookAt(tableDir, s.unseen);
    if (!data) {
        return s;
    }
    s.data = *data;
    // pg_wal may be a link to another disk; inside the data directory only its owner (or root)
    // can tell: otherwise it counts as the data directory's.
    struct stat d {};
    struct stat w {};
    const std::filesystem::path walDir = dataDir / "pg_wal";
    if (::stat(tableDir.c_str(), &d) == 0 && ::stat(walDir.c_str(), &w) == 0 && d.st_dev != w.st_dev) {
        std::string why;
        s.wal = lookAt(walDir, why);
    }
    return s;
}

double walDirBytes(Connection& conn) {
    if (conn.query("SELECT has_function_privilege('pg_catalog.pg_ls_waldir()', 'EXECUTE')").text(0, 0) !=
        "t") {
        return -1;
    }
    return number(conn.query("SELECT sum(size) FROM pg_ls_waldir()"), 0, 0);
}

void refreshFreeSpace(ServerStorage& storage) {
    if (!storage.seen()) {
        return;
    }
    std::string why;
    if (const auto d = lookAt(storage.data.path, why)) {
        storage.data = *d;
    }
    if (storage.wal) {
        if (const auto w = lookAt(storage.wal->path, why)) {
            storage.wal = *w;
        }
    }
}

double tableBytes(Connection& conn, const TableName& table) {
    if (conn.query("SELECT to_regclass($1)", {table.quoted(conn)}).isNull(0, 0)) {
        return -1;
    }
    return tableBytes(conn, table, existingTableType(conn, table));
}

double tableBytes(Connection& conn, const TableName& table, TableType type) {
    const std::string name = table.quoted(conn);
    if (type == TableType::Distributed) {
        return number(conn.query("SELECT citus_total_relation_size(to_regclass($1))", {name}), 0, 0);
    }
    // Partitions and a hypertable's chunks both hang below the table in pg_inherits; NULL (-1)
    // when the table is gone.
    return number(conn.query("WITH RECURSIVE t(oid) AS (SELECT to_regclass($1)::oid UNION ALL SELECT "
                             "i.inhrelid FROM pg_inherits i JOIN t ON i.inhparent = t.oid) SELECT "
                             "sum(pg_total_relation_size(oid)) FROM t",
                             {name}),
                  0, 0);
}

WalRetention probeWalRetention(Connection& conn) {
    WalRetention r;
    const Result a = conn.query(
        "SELECT coalesce((SELECT setting FROM pg_settings WHERE name = 'archive_mode'), 'off') <> 'off', "
        "coalesce((SELECT setting FROM pg_settings WHERE name = 'archive_command'), ''), "
        "archived_count, failed_count, coalesce(last_failed_wal, ''), last_failed_time IS NOT NULL AND "
        "(last_archived_time IS NULL OR last_failed_time > last_archived_time) FROM pg_stat_archiver");
    r.archiving = a.text(0, 0) == "t";
    r.archiveCommand = a.text(0, 1);
    r.archived = static_cast<std::uint64_t>(std::stoull(a.text(0, 2)));
    r.failed = static_cast<std::uint64_t>(std::stoull(a.text(0, 3)));
    r.lastFailedWal = a.text(0, 4);
    r.failing = r.archiving && a.text(0, 5) == "t";
    if (r.archiving && conn.query("SELECT has_function_privilege('pg_catalog.pg_ls_archive_statusdir()', "
                                  "'EXECUTE')")
                               .text(0, 0) == "t") {
        r.readySegments = static_cast<std::int64_t>(number(
            conn.query("SELECT count(*) FROM pg_ls_archive_statusdir() WHERE name LIKE '%.ready'"), 0, 0));
    }
    const bool inRecovery = conn.query("SELECT pg_is_in_recovery()").text(0, 0) == "t";
    const Result slots = conn.query(
        std::string("SELECT slot_name, slot_type, active, ") +
        (inRecovery ? "NULL" : "pg_current_wal_lsn() - coalesce(restart_lsn, pg_current_wal_lsn())") +
        ", coalesce(wal_status, '') FROM pg_replication_slots ORDER BY slot_name");
    for (int i = 0; i < slots.rows(); ++i) {
        r.replicationSlots.push_back(WalRetention::Slot{slots.text(i, 0), slots.text(i, 1),
                                                        slots.text(i, 2) == "t", number(slots, i, 3),
                                                        slots.text(i, 4)});
    }
    const Result standbys = conn.query(
        std::string("SELECT coalesce(nullif(application_name, ''), host(client_addr), 'local'), "
                    "coalesce(state, ''), extract(epoch FROM write_lag), extract(epoch FROM flush_lag), "
                    "extract(epoch FROM replay_lag), ") +
        (inRecovery ? "NULL" : "pg_current_wal_lsn() - replay_lsn") + " FROM pg_stat_replication ORDER BY 1");
    for (int i = 0; i < standbys.rows(); ++i) {
        r.standbys.push_back(WalRetention::Standby{standbys.text(i, 0), standbys.text(i, 1),
                                                   number(standbys, i, 2), number(standbys, i, 3),
                                                   number(standbys, i, 4), number(standbys, i, 5)});
    }
    return r;
}

std::vector<SettingWarning> walRetentionWarnings(const WalRetention& wal) {
    std::vector<SettingWarning> out;
    const auto bytes = [](double b) {
        return formatBytes(static_cast<std::uint64_t>(std::max(0.0, b)));
    };
    if (wal.failing) {
        out.push_back({Severity::Danger, "archiver",
                       "the WAL archiver is failing (" + std::to_string(wal.failed) + " failures, last " +
                           wal.lastFailedWal + ", archive_command '" + wal.archiveCommand +
                           "'): the server keeps every WAL segment the load writes until archiving works "
                           "again, so pg_wal grows by about the table's size and can fill the disk",
                       ""});
    } else if (wal.readySegments > 16) {
        out.push_back({Severity::Slows, "archiver",
                       std::to_string(wal.readySegments) +
                           " WAL segments are waiting for the archiver: it is behind, and pg_wal grows while "
                           "it cannot keep up with the load",
                       ""});
    }
    for (const auto& slot : wal.replicationSlots) {
        if (!slot.active && slot.walStatus != "lost") {
            out.push_back({Severity::Danger, "slot " + slot.name,
                           "replication slot " + slot.name + " (" + slot.type +
                               ") is inactive and retains WAL (" + bytes(slot.retainedBytes) +
                               " now): every byte of WAL the load writes stays in pg_wal until its consumer "
                               "comes back or the slot is dropped, and can fill the disk",
                           "SELECT pg_drop_replication_slot('" + slot.name + "');"});
        }
    }
    for (const auto& s : wal.standbys) {
        std::string lag =
            "replay lag " + (s.replayLag >= 0 ? formatDuration(s.replayLag) : std::string("unknown"));
        if (s.replayBytes >= 0) {
            lag += ", " + bytes(s.replayBytes) + " behind";
        }
        out.push_back({s.replayLag > 60 ? Severity::Slows : Severity::Info, "standby " + s.name,
                       "standby " + s.name + " (" + s.state + ", " + lag +
                           ") receives all the WAL of the load: expect it to fall behind while the load "
                           "runs (its lag is watched during the load)",
                       ""});
    }
    return out;
}

double heapBytesPerRow(const RowShape& shape) {
    const int perTuple = maxAligned(tupleBytes(shape)) + kLinePointerBytes;
    const int perPage =
        std::min(kMaxTuplesPerPage, (static_cast<int>(kPageBytes) - kPageHeaderBytes) / perTuple);
    return kPageBytes / perPage;
}

StorageForecast forecastLoad(const ForecastInput& in, const ServerInfo& info, const WalRetention& wal,
                             const ServerStorage& storage) {
    StorageForecast f;
    f.rows = in.rows;
    const double rows = static_cast<double>(in.rows);
    if (in.existingBytes > 0 && in.existingRows >= 100000) {
        f.bytesPerRow = in.existingBytes / in.existingRows;
        f.perRowFrom = "measured on the table";
    } else {
        f.bytesPerRow = heapBytesPerRow(in.shape);
        f.perRowFrom = "from the table's columns";
    }
    f.tableBytes = rows * f.bytesPerRow;
    if (in.type == TableType::Hypertable) {
        f.indexBytes = rows * kTimeIndexBytesPerRow;
        if (in.compressAfter) {
            f.compressedBytes = (f.tableBytes + f.indexBytes) * kCompressedShare;
        }
    }
    const bool logged = in.type != TableType::Unlogged;
    // SET LOGGED rewrites the whole table, the rows it had before this load too.
    const double relogged = f.tableBytes + std::max(0.0, in.existingBytes);
    const double walPerRow = tupleBytes(in.shape) - kTupleHeaderBytes + kWalTupleOverhead;
    if (logged) {
        f.walBytes = rows * walPerRow + f.indexBytes;
    } else if (in.setLoggedAfter && info.value("wal_level") != "minimal") {
        f.walBytes = relogged; // SET LOGGED writes the whole table to WAL
    }
    // WAL leaves pg_wal at checkpoints, unless something holds on to it.
    std::vector<std::string> holders;
    if (wal.failing) {
        holders.push_back("the archiver is failing");
    }
    for (const auto& slot : wal.replicationSlots) {
        if (!slot.active && slot.walStatus != "lost") {
            holders.push_back("replication slot " + slot.name + " is inactive");
        }
    }
    if (!holders.empty()) {
        f.walKeptBytes = f.walBytes;
        f.walKeptWhy = "all of it stays: " + holders.front();
    } else {
        const double maxWal =
            std::max(settingBytes(info.value("max_wal_size"), 1024.0 * 1024.0).value_or(1e9),
                     settingBytes(info.value("wal_keep_size"), 1024.0 * 1024.0).value_or(0));
        const double already = std::max(0.0, storage.walDirBytes);
        f.walKeptBytes = std::clamp(std::min(f.walBytes, maxWal) - already, 0.0, f.walBytes);
        f.walKeptWhy = "checkpoints recycle it beyond max_wal_size";
    }
    f.dataNeeded = f.tableBytes + f.indexBytes + std::max(0.0, f.compressedBytes);
    if (!logged && in.setLoggedAfter) {
        f.dataNeeded += relogged; // the logged copy exists beside the unlogged one until commit
    }
    if (storage.wal) {
        f.walNeeded = f.walKeptBytes;
    } else {
        f.dataNeeded += f.walKeptBytes;
    }
    return f;
}

} // namespace isobar
