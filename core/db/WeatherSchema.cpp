// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/WeatherSchema.h"

#include "domain/Variable.h"

#include <map>
#include <optional>

namespace isobar {

std::vector<ColumnSpec> weatherColumns(const TableLayout& layout) {
    std::vector<ColumnSpec> c{{"time", "timestamp with time zone", true}};
    if (layout.vertical == Vertical::PressureLevels) {
        c.push_back({"pressure_level", "real", true});
    }
    c.push_back({"location_id", "integer", false});
    c.push_back({"latitude", "real", false});
    c.push_back({"longitude", "real", false});
    for (const ValueColumn& v : layout.columns) {
        c.push_back({v.column, "real", false});
    }
    return c;
}

TableLayout seedLayout() {
    TableLayout layout;
    for (Variable v : kSeedVariables) {
        layout.columns.push_back(ValueColumn::of(v));
    }
    return layout;
}

std::string createWeatherTableSql(const Connection& conn, const TableName& table, const TableLayout& layout,
                                  bool unlogged, bool partitioned) {
    std::string sql = std::string("CREATE ") + (unlogged ? "UNLOGGED " : "") + "TABLE IF NOT EXISTS " +
                      table.quoted(conn) + " (";
    bool first = true;
    for (const auto& c : weatherColumns(layout)) {
        sql += (first ? "" : ", ") + conn.quoteIdentifier(c.name) + " " + c.type +
               (c.notNull ? " NOT NULL" : "");
        first = false;
    }
    return sql + ")" + (partitioned ? " PARTITION BY RANGE (" + conn.quoteIdentifier("time") + ")" : "");
}

std::string weatherColumnList(const Connection& conn, const TableLayout& layout) {
    std::string list = "(";
    bool first = true;
    for (const auto& c : weatherColumns(layout)) {
        list += (first ? "" : ", ") + conn.quoteIdentifier(c.name);
        first = false;
    }
    return list + ")";
}

namespace {

struct FoundColumn {
    std::string name;
    std::string type;
    bool notNull = false;
    bool hasDefault = false;
};

// The table's columns in their order; empty when it does not exist.
std::optional<std::vector<FoundColumn>> columnsOf(Connection& conn, const TableName& table) {
    const Result exists = conn.query("SELECT to_regclass($1)::oid", {table.quoted(conn)});
    if (exists.isNull(0, 0)) {
        return std::nullopt;
    }
    const Result cols =
        conn.query("SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, "
                   "a.atthasdef OR a.attidentity <> '' OR a.attgenerated <> '' "
                   "FROM pg_attribute a WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped "
                   "ORDER BY a.attnum",
                   {exists.text(0, 0)});
    std::vector<FoundColumn> out;
    out.reserve(static_cast<std::size_t>(cols.rows()));
    for (int r = 0; r < cols.rows(); ++r) {
        out.push_back(
            FoundColumn{cols.text(r, 0), cols.text(r, 1), cols.text(r, 2) == "t", cols.text(r, 3) == "t"});
    }
    return out;
}

} // namespace

std::optional<TableLayout> layoutFromColumns(Connection& conn, const TableName& table) {
    const auto columns = columnsOf(conn, table);
    if (!columns) {
        return std::nullopt;
    }
    TableLayout layout;
    for (const FoundColumn& c : *columns) {
        if (c.name == "pressure_level") {
            layout.vertical = Vertical::PressureLevels;
        }
        for (Variable v : allVariables()) {
            if (spec(v).column == c.name) {
                layout.columns.push_back(ValueColumn::of(v));
            }
        }
    }
    return layout;
}

bool ensureWeatherTable(Connection& conn, const TableName& table, const TableLayout& layout,
                        const std::string& createSql) {
    // to_regclass resolves the name with the search path exactly as the COPY will.
    auto columns = columnsOf(conn, table);
    bool created = false;
    if (!columns) {
        // The CREATE and the look at who made the table in one transaction: the caller's, or one
        // of its own.
        const bool ownTransaction = !conn.inTransaction();
        if (ownTransaction) {
            conn.exec("BEGIN");
        }
        try {
            conn.exec(createSql.empty() ? createWeatherTableSql(conn, table, layout) : createSql);
            // Created by this transaction, not found by IF NOT EXISTS: another loader may have
            // created it between our look and CREATE, and a table it has loaded rows into is not new.
            created = conn.query("SELECT c.xmin = pg_current_xact_id()::xid FROM pg_class c WHERE c.oid = "
                                 "to_regclass($1)",
                                 {table.quoted(conn)})
                          .text(0, 0) == "t";
        } catch (...) {
            if (ownTransaction) {
                conn.exec("ROLLBACK");
            }
            throw;
        }
        if (ownTransaction) {
            conn.exec("COMMIT");
        }
        // Checked like any other.
        columns = columnsOf(conn, table);
    }
    std::map<std::string, FoundColumn> found;
    for (const FoundColumn& c : *columns) {
        found[c.name] = c;
    }
    std::string diff;
    const auto add = [&diff](const std::string& line) {
        diff += "\n  " + line;
    };
    for (const auto& c : weatherColumns(layout)) {
        const auto it = found.find(c.name);
        if (it == found.end()) {
            add("missing column " + c.name + " " + c.type);
            continue;
        }
        if (it->second.type != c.type) {
            add("column " + c.name + " is " + it->second.type + ", expected " + c.type);
        }
        found.erase(it);
    }
    for (const auto& [name, f] : found) {
        if (f.notNull && !f.hasDefault) {
            add("extra column " + name + " " + f.type +
                " is NOT NULL without a default, so rows cannot be inserted");
        }
    }
    if (!diff.empty()) {
        throw Error("table " + table.display() + " exists but does not have the weather schema:" + diff);
    }
    return created;
}

} // namespace isobar
