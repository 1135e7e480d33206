// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/TableMetadata.h"

#include "db/AutovacuumPause.h"
#include "db/Ledger.h"
#include "db/WeatherSchema.h"

#include <chrono>
#include <cmath>
#include <thread>

namespace isobar {

namespace {

// Every bookkeeping table there, as this version makes them: the common case, one round trip
// instead of the eight statements below (each a round trip, and each CREATE ... IF NOT EXISTS a
// lock and a notice).
bool metadataSchemaComplete(Connection& conn) {
    return conn.query(
                   "SELECT to_regclass('isobar.table_grid') IS NOT NULL AND "
                   "to_regclass('isobar.table_columns') IS NOT NULL AND to_regclass('isobar.ledger') IS NOT "
                   "NULL AND to_regclass('isobar.ledger_unlogged') IS NOT NULL AND "
                   "to_regclass('isobar.paused_autovacuum') IS NOT NULL AND (SELECT count(*) FROM "
                   "pg_attribute WHERE attrelid = to_regclass('isobar.table_grid') AND attname IN "
                   "('variables', 'vertical') AND NOT attisdropped) = 2 AND " +
                   ledgerTablesCompleteSql())
               .text(0, 0) == "t";
}

} // namespace

void ensureMetadataSchema(Connection& conn) {
    if (metadataSchemaComplete(conn)) {
        return;
    }
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
            if (conn.query("SELECT count(*) FROM pg_attribute WHERE attrelid = 'isobar.table_grid'::regclass "
                           "AND attname = 'vertical' AND NOT attisdropped")
                    .integer(0, 0) == 0) {
                conn.exec("ALTER TABLE isobar.table_grid ADD COLUMN IF NOT EXISTS vertical text NOT NULL "
                          "DEFAULT 'surface'");
            }
            // What each value column holds, for scripts and the GUI (COMMENT ON COLUMN says the same
            // for people).
            conn.exec("CREATE TABLE IF NOT EXISTS isobar.table_columns ("
                      "relid oid NOT NULL, position int NOT NULL, column_name text NOT NULL, "
                      "variable text NOT NULL, param_id int, long_name text NOT NULL, units text NOT NULL, "
                      "conversion text NOT NULL, accumulated boolean NOT NULL, in_catalog boolean NOT NULL, "
                      "description text NOT NULL, PRIMARY KEY (relid, position))");
            ensureLedgerTables(conn);
            ensureAutovacuumPauseTable(conn);
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
    // A backend looks names up in its catalog caches, which take in other sessions' commits only
    // when it locks a relation, never on an advisory lock: a run that looked for the table before
    // waiting here would still not find the one the run it waited for created and committed, and
    // take it for new (and empty its ledger). The first lock on a relation in this transaction
    // makes it read what was committed meanwhile.
    conn.exec("LOCK TABLE isobar.table_grid IN ACCESS SHARE MODE");
}

void checkTableGrid(Connection& conn, const TableName& table, const TableGrid& wanted) {
    const std::string qualified = table.quoted(conn);
    Result recorded =
        conn.query("SELECT grid_step, grid, product, table_name, variables, vertical FROM isobar.table_grid "
                   "WHERE relid = $1::regclass FOR UPDATE",
                   {qualified});
    const std::string step = std::to_string(wanted.step);
    if (recorded.rows() == 1) {
        const double oldStep = std::stod(recorded.text(0, 0));
        const bool sameName = recorded.text(0, 3) == table.display();
        const std::string vertical(describe(wanted.vertical));
        const bool differs = std::fabs(oldStep - wanted.step) > 1e-9 ||
                             recorded.text(0, 2) != wanted.product || recorded.text(0, 5) != vertical;
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
            if (recorded.text(0, 5) != vertical) {
                throw Error(
                    "table " + table.display() + " holds " + recorded.text(0, 5) +
                    " data, but these files are on " + vertical +
                    ": a table is surface or pressure-level data, not both; load them into another table");
            }
            if (std::fabs(oldStep - wanted.step) <= 1e-9) {
                // The same grid, another product: hourly rows beside monthly means, or ERA5 beside
                // ERA5-Land.
                const bool monthlyTable = recorded.text(0, 2).find("monthly means") != std::string::npos;
                const bool monthlyFiles = wanted.product.find("monthly means") != std::string::npos;
                throw Error("table " + table.display() + " holds " + recorded.text(0, 2) +
                            ", but these files are " + wanted.product + ": load them into another table" +
                            (monthlyTable && !monthlyFiles
                                 ? std::string(", or, if they are monthly means that do not say so (a legacy "
                                               "netCDF file), load them with --product monthly")
                                 : std::string()));
            }
            throw Error(
                "table " + table.display() + " holds " + recorded.text(0, 2) + " rows on the " +
                recorded.text(0, 1) + ", but these files are " + wanted.product + " on the " + wanted.grid +
                "; location_ids of different grids cannot share a table: load them into another table");
        }
        conn.query(
            "UPDATE isobar.table_grid SET table_name = $2, grid_step = $3, grid = $4, product = $5, "
            "variables = $6, vertical = $7, recorded_at = now() WHERE relid = $1::regclass",
            {qualified, table.display(), step, wanted.grid, wanted.product, wanted.variables, vertical});
        return;
    }
    // Loaders serialise on lockTablePreparation; one that does not (an older Isobar) may have
    // recorded the table meanwhile: its record is then checked like any other.
    const Result inserted = conn.query(
        "INSERT INTO isobar.table_grid (relid, table_name, grid_step, grid, product, variables, vertical) "
        "VALUES ($1::regclass, $2, $3, $4, $5, $6, $7) ON CONFLICT (relid) DO NOTHING RETURNING relid",
        {qualified, table.display(), step, wanted.grid, wanted.product, wanted.variables,
         std::string(describe(wanted.vertical))});
    if (inserted.rows() == 0) {
        checkTableGrid(conn, table, wanted);
    }
}

namespace {

bool relationExists(Connection& conn, const char* name) {
    return !conn.query("SELECT to_regclass($1)::oid", {name}).isNull(0, 0);
}

} // namespace

std::optional<TableLayout> tableLayout(Connection& conn, const TableName& table) {
    auto fromColumns = layoutFromColumns(conn, table);
    if (!fromColumns || !relationExists(conn, "isobar.table_grid")) {
        return fromColumns;
    }
    const std::string qualified = table.quoted(conn);
    if (relationExists(conn, "isobar.table_columns")) {
        const Result r =
            conn.query("SELECT variable, column_name, long_name, units, in_catalog, accumulated, "
                       "coalesce(param_id, 0) "
                       "FROM isobar.table_columns WHERE relid = $1::regclass ORDER BY position",
                       {qualified});
        if (r.rows() > 0) {
            TableLayout layout{fromColumns->vertical, {}};
            for (int i = 0; i < r.rows(); ++i) {
                const auto known = r.text(i, 4) == "t" ? findVariable(r.text(i, 0)) : std::nullopt;
                ValueColumn c = known ? ValueColumn::of(*known)
                                      : ValueColumn::unknown(r.text(i, 0), r.text(i, 2), r.text(i, 3));
                c.column = r.text(i, 1);
                if (!known) {
                    c.paramId = std::stol(r.text(i, 6));
                    c.accumulated = r.text(i, 5) == "t";
                }
                layout.columns.push_back(std::move(c));
            }
            return layout;
        }
    }
    // An earlier Isobar recorded only which of the seed's columns a partial load filled.
    const Result grid =
        conn.query("SELECT variables FROM isobar.table_grid WHERE relid = $1::regclass", {qualified});
    if (grid.rows() == 1 && !grid.text(0, 0).empty()) {
        const std::string keys = "," + grid.text(0, 0) + ",";
        std::erase_if(fromColumns->columns, [&](const ValueColumn& c) {
            return keys.find("," + c.key + ",") == std::string::npos;
        });
    }
    return fromColumns;
}

bool hasLayoutRecord(Connection& conn, const TableName& table) {
    return conn.query("SELECT EXISTS (SELECT 1 FROM isobar.table_columns WHERE relid = $1::regclass)",
                      {table.quoted(conn)})
               .text(0, 0) == "t";
}

void recordTableLayout(Connection& conn, const TableName& table, const TableLayout& layout) {
    // A statement for all the columns, not one each: a load of 50 variables made 100 round trips
    // here, each the network's latency on a remote server. The values are quoted by libpq.
    const std::string qualified = table.quoted(conn);
    const std::string relid = conn.quoteLiteral(qualified) + "::regclass";
    std::string sql = "DELETE FROM isobar.table_columns WHERE relid = " + relid + ";";
    if (!layout.columns.empty()) {
        sql +=
            "INSERT INTO isobar.table_columns (relid, position, column_name, variable, param_id, long_name, "
            "units, conversion, accumulated, in_catalog, description) VALUES ";
        for (std::size_t i = 0; i < layout.columns.size(); ++i) {
            const ValueColumn& c = layout.columns[i];
            sql += (i > 0 ? ", (" : "(") + relid + ", " + std::to_string(i + 1) + ", " +
                   conn.quoteLiteral(c.column) + ", " + conn.quoteLiteral(c.key) + ", " +
                   (c.paramId != 0 ? std::to_string(c.paramId) : std::string("NULL")) + ", " +
                   conn.quoteLiteral(c.longName) + ", " + conn.quoteLiteral(c.units) + ", " +
                   conn.quoteLiteral(describe(c.conversion)) + ", " + (c.accumulated ? "true" : "false") +
                   ", " + (c.variable ? "true" : "false") + ", " + conn.quoteLiteral(c.describe()) + ")";
        }
    }
    conn.exec(sql);
    // Comments need the table's owner: a role that may only insert keeps the record above. The
    // savepoint is taken in the same round trip; a refused comment stops the rest, as it did.
    std::string comments = "SAVEPOINT isobar_comments;";
    for (const ValueColumn& c : layout.columns) {
        comments += "COMMENT ON COLUMN " + qualified + "." + conn.quoteIdentifier(c.column) + " IS " +
                    conn.quoteLiteral(c.describe()) + ";";
    }
    if (layout.vertical == Vertical::PressureLevels) {
        comments += "COMMENT ON COLUMN " + qualified + "." + conn.quoteIdentifier("pressure_level") +
                    " IS 'Pressure level, hPa';";
    }
    try {
        conn.exec(comments + "RELEASE SAVEPOINT isobar_comments");
    } catch (const DbError& e) {
        conn.exec("ROLLBACK TO SAVEPOINT isobar_comments");
        if (e.sqlState() != "42501") {
            throw;
        }
    }
}

} // namespace isobar
