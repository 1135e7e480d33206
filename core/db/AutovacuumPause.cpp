// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/AutovacuumPause.h"

#include "db/Ledger.h"

namespace isobar {

void ensureAutovacuumPauseTable(Connection& conn) {
    conn.exec("CREATE TABLE IF NOT EXISTS isobar.paused_autovacuum (relid oid PRIMARY KEY, table_name text "
              "NOT NULL, paused_at timestamptz NOT NULL DEFAULT now())");
}

bool pausesAutovacuum(TableType type) {
    return type == TableType::Regular || type == TableType::Unlogged;
}

void pauseAutovacuum(Connection& conn, const TableName& table) {
    const std::string qualified = table.quoted(conn);
    conn.exec("ALTER TABLE " + qualified + " SET (autovacuum_enabled = false)");
    conn.query(
        "INSERT INTO isobar.paused_autovacuum (relid, table_name) VALUES ($1::regclass, $2) ON CONFLICT "
        "(relid) DO UPDATE SET table_name = EXCLUDED.table_name, paused_at = now()",
        {qualified, table.display()});
}

bool resumeAutovacuum(Connection& conn, const TableName& table) {
    const std::string qualified = table.quoted(conn);
    conn.exec(kBeginReadCommitted);
    try {
        // Two runs of the table ending together: the second finds the record gone.
        const Result r =
            conn.query("SELECT 1 FROM isobar.paused_autovacuum WHERE relid = to_regclass($1)::oid FOR UPDATE",
                       {qualified});
        if (r.rows() == 0) {
            conn.exec("COMMIT");
            return false;
        }
        conn.exec("SET LOCAL lock_timeout = '10s'");
        conn.exec("ALTER TABLE " + qualified + " RESET (autovacuum_enabled)");
        conn.query("DELETE FROM isobar.paused_autovacuum WHERE relid = to_regclass($1)::oid", {qualified});
        conn.exec("COMMIT");
        return true;
    } catch (...) {
        try {
            conn.exec("ROLLBACK");
        } catch (const std::exception&) {
        }
        throw;
    }
}

AutovacuumResumer::AutovacuumResumer(std::string conninfo, TableName table, Said said)
    : conninfo_(std::move(conninfo))
    , table_(std::move(table))
    , said_(std::move(said)) {}

AutovacuumResumer::~AutovacuumResumer() {
    if (conninfo_.empty()) {
        return;
    }
    try {
        Connection conn = Connection::open(conninfo_);
        resumeOn(conn);
    } catch (const std::exception& e) {
        stillPaused(e.what());
    }
}

void AutovacuumResumer::resumeOn(Connection& conn) {
    if (conninfo_.empty()) {
        return;
    }
    conninfo_.clear(); // once, whatever happens
    try {
        if (resumeAutovacuum(conn, table_)) {
            said_(false,
                  "autovacuum of " + table_.display() + " is on again (it waited for the end of the load)");
        }
    } catch (const std::exception& e) {
        stillPaused(e.what());
    }
}

void AutovacuumResumer::stillPaused(const std::string& why) {
    said_(true, "autovacuum of " + table_.display() + " is still paused (" + why +
                    "): the next load of it that completes turns it on, or ALTER TABLE " + table_.display() +
                    " RESET (autovacuum_enabled)");
}

bool autovacuumPausedByLoad(Connection& conn, const std::string& oid) {
    if (conn.query("SELECT to_regclass('isobar.paused_autovacuum')").isNull(0, 0)) {
        return false;
    }
    return conn.query("SELECT 1 FROM isobar.paused_autovacuum WHERE relid = $1::oid", {oid}).rows() == 1;
}

} // namespace isobar
