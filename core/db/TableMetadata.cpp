#include "db/TableMetadata.h"

#include "db/Ledger.h"

#include <chrono>
#include <cmath>
#include <thread>

namespace isobar {

void ensureMetadataSchema(Connection& conn) {
    for (int attempt = 0;; ++attempt) {
        try {
            conn.exec("CREATE SCHEMA IF NOT EXISTS isobar");
            conn.exec(
                "CREATE TABLE IF NOT EXISTS isobar.table_grid ("
                "relid oid PRIMARY KEY, table_name text NOT NULL, grid_step float8 NOT NULL, "
                "grid text NOT NULL, product text NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now())");
            // Added after the first release of the table: loads of only some variables. Checked
            // first, since ALTER TABLE locks the table even when the column is there.
            if (conn.query("SELECT count(*) FROM pg_attribute WHERE attrelid = 'isobar.table_grid'::regclass "
                           "AND "
                           "attname = 'variables' AND NOT attisdropped")
                    .integer(0, 0) == 0) {
                conn.exec("ALTER TABLE isobar.table_grid ADD COLUMN IF NOT EXISTS variables text NOT NULL "
                          "DEFAULT ''");
            }
            ensureLedgerTables(conn);
            return;
        } catch (const DbError& e) {
            // Two loaders creating the same object at once: one wins, the other sees a unique
            // violation; the object exists either way.
            const bool race = e.sqlState() == "23505" || e.sqlState() == "42P06" || e.sqlState() == "42P07";
            if (!race || attempt >= 3) {
                if (e.sqlState() == "42501") {
                    throw Error(
                        std::string("Isobar keeps its bookkeeping in a schema 'isobar', which this role may "
                                    "not create: ") +
                        e.what() + "; ask for CREATE on the database, or create the schema for this role");
                }
                throw;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
}

void lockTablePreparation(Connection& conn, const TableName& table) {
    // Keyed by schema and name, not OID: the table may not exist yet. The schema is the one the
    // name resolves to when the table exists (roles' search paths differ), else the one it will
    // be created in.
    conn.query("SELECT pg_advisory_xact_lock(hashtextextended('isobar prepare ' || coalesce((SELECT "
               "n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = "
               "to_regclass($3)), nullif($1, ''), current_schema()) || '.' || $2, 0))",
               {table.schema, table.name, table.quoted(conn)});
}

void checkTableGrid(Connection& conn, const TableName& table, const TableGrid& wanted) {
    const std::string qualified = table.quoted(conn);
    Result recorded =
        conn.query("SELECT grid_step, grid, product, table_name, variables FROM isobar.table_grid "
                   "WHERE relid = $1::regclass FOR UPDATE",
                   {qualified});
    const std::string step = std::to_string(wanted.step);
    if (recorded.rows() == 1) {
        const double oldStep = std::stod(recorded.text(0, 0));
        const bool sameName = recorded.text(0, 3) == table.display();
        const bool differs = std::fabs(oldStep - wanted.step) > 1e-9 || recorded.text(0, 2) != wanted.product;
        const bool otherVariables = recorded.text(0, 4) != wanted.variables;
        if (!differs && !otherVariables && sameName) {
            return;
        }
        // A record is binding only while the table holds rows: an emptied table, or a new table that
        // got the OID of a dropped one, takes the new grid.
        const bool hasRows = conn.query("SELECT EXISTS (SELECT 1 FROM " + qualified + ")").text(0, 0) == "t";
        if (otherVariables && !differs && hasRows) {
            const auto describe = [](const std::string& v) {
                return v.empty() ? std::string("every variable of its files") : "only " + v;
            };
            throw Error("table " + table.display() + " was loaded with " + describe(recorded.text(0, 4)) +
                        ", and this load has " + describe(wanted.variables) +
                        ": the same (time, location) would get a second row; load these into another table, "
                        "or replace the table's contents (--replace)");
        }
        if (differs && hasRows) {
            throw Error(
                "table " + table.display() + " holds " + recorded.text(0, 2) + " rows on the " +
                recorded.text(0, 1) + ", but these files are " + wanted.product + " on the " + wanted.grid +
                "; location_ids of different grids cannot share a table: load them into another table");
        }
        conn.query("UPDATE isobar.table_grid SET table_name = $2, grid_step = $3, grid = $4, product = $5, "
                   "variables = $6, recorded_at = now() WHERE relid = $1::regclass",
                   {qualified, table.display(), step, wanted.grid, wanted.product, wanted.variables});
        return;
    }
    // Loaders serialise on lockTablePreparation; one that does not (an older Isobar) may have
    // recorded the table meanwhile: its record is then checked like any other.
    const Result inserted =
        conn.query("INSERT INTO isobar.table_grid (relid, table_name, grid_step, grid, product, variables) "
                   "VALUES ($1::regclass, $2, $3, $4, $5, $6) ON CONFLICT (relid) DO NOTHING RETURNING relid",
                   {qualified, table.display(), step, wanted.grid, wanted.product, wanted.variables});
    if (inserted.rows() == 0) {
        checkTableGrid(conn, table, wanted);
    }
}

} // namespace isobar
