// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// Autovacuum of a table made for a load waits for the end of the load.
//
// A load commits as it goes (a transaction per worker every 10 s or 10 million rows), so the
// server's insert-driven autovacuum starts a VACUUM ANALYZE of the new table after its first
// commits and keeps at it while the rows go in: reading and writing the table, and writing WAL,
// beside the COPYs (100 global hours, 2 workers: 43.3 s with it paused against 44.7 s, medians of
// 5 interleaved runs). A server COPY of the same rows commits once and never meets it. So a
// regular or unlogged table that Isobar creates starts with autovacuum_enabled = false, recorded
// in isobar.paused_autovacuum in the same transaction, and the record is what turns it on again:
// after the load however it ends, or, when the process died, after the next load of the table
// completes. A table Isobar did not pause (the user's setting) is never touched.

#include "db/Connection.h"
#include "db/TableType.h"

#include <functional>
#include <string>

namespace isobar {

// Creates isobar.paused_autovacuum (part of the metadata schema).
void ensureAutovacuumPauseTable(Connection& conn);

// Whether a load of this type into a table it creates pauses the table's autovacuum: regular and
// unlogged tables (a partitioned table has no autovacuum of its own, a hypertable's chunks and a
// distributed table's shards are the extensions' tables).
bool pausesAutovacuum(TableType type);

// Pauses autovacuum of `table`, created in the caller's open transaction, and records it there.
void pauseAutovacuum(Connection& conn, const TableName& table);

// Turns autovacuum of `table` on again when a load paused it, in a transaction of its own on the
// idle connection `conn`; true when it did. Throws DbError when it cannot (lock_not_available
// after 10 s when a VACUUM or ALTER TABLE of the user's holds the table).
bool resumeAutovacuum(Connection& conn, const TableName& table);

// Whether a load paused autovacuum of the table with OID `oid` and has not turned it on again.
bool autovacuumPausedByLoad(Connection& conn, const std::string& oid);

// Turns autovacuum of a table its load paused on again: at the end of a completed load on the
// load's connection (resumeOn), else when it goes, on a connection of its own since the load's may
// be in any state: a load that fails or is cancelled leaves it on too. `said` hears a line for the
// user: a note when it turned it on, a warning naming the fix when it could not (the load's rows
// stand either way).
class AutovacuumResumer {
public:
    using Said = std::function<void(bool warning, const std::string& line)>;
    AutovacuumResumer(std::string conninfo, TableName table, Said said);
    AutovacuumResumer(const AutovacuumResumer&) = delete;
    AutovacuumResumer& operator=(const AutovacuumResumer&) = delete;
    ~AutovacuumResumer();
    void resumeOn(Connection& conn);

private:
    void stillPaused(const std::string& why);

    std::string conninfo_;
    TableName table_;
    Said said_;
};

} // namespace isobar
