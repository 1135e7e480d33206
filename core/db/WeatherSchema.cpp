#include "db/WeatherSchema.h"

#include "domain/Variable.h"

#include <map>

namespace isobar {

const std::vector<ColumnSpec>& weatherColumns() {
    static const std::vector<ColumnSpec> columns = [] {
        std::vector<ColumnSpec> c{
            {"time", "timestamp with time zone", true},
            {"location_id", "integer", false},
            {"latitude", "real", false},
            {"longitude", "real", false},
        };
        for (const VariableSpec& v : variableCatalog()) {
            c.push_back({v.column, "real", false});
        }
        return c;
    }();
    return columns;
}

std::string createWeatherTableSql(const Connection& conn, const TableName& table, bool unlogged,
                                  bool partitioned) {
    std::string sql = std::string("CREATE ") + (unlogged ? "UNLOGGED " : "") + "TABLE IF NOT EXISTS " +
                      table.quoted(conn) + " (";
    bool first = true;
    for (const auto& c : weatherColumns()) {
        sql += (first ? "" : ", ") + conn.quoteIdentifier(c.name) + " " + std::string(c.type) +
               (c.notNull ? " NOT NULL" : "");
        first = false;
    }
    return sql + ")" + (partitioned ? " PARTITION BY RANGE (" + conn.quoteIdentifier("time") + ")" : "");
}

std::string weatherColumnList(const Connection& conn) {
    std::string list = "(";
    bool first = true;
    for (const auto& c : weatherColumns()) {
        list += (first ? "" : ", ") + conn.quoteIdentifier(c.name);
        first = false;
    }
    return list + ")";
}

bool ensureWeatherTable(Connection& conn, const TableName& table, const std::string& createSql) {
    const std::string qualified = table.quoted(conn);
    // to_regclass resolves the name with the search path exactly as the COPY will.
    Result exists = conn.query("SELECT to_regclass($1)::oid", {qualified});
    bool created = false;
    if (exists.isNull(0, 0)) {
        conn.exec(createSql.empty() ? createWeatherTableSql(conn, table) : createSql);
        created = true;
        // Checked like any other: another loader may have created it between our look and CREATE.
        exists = conn.query("SELECT to_regclass($1)::oid", {qualified});
    }
    const std::string oid = exists.text(0, 0);
    Result cols =
        conn.query("SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, "
                   "a.atthasdef OR a.attidentity <> '' OR a.attgenerated <> '' "
                   "FROM pg_attribute a WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped "
                   "ORDER BY a.attnum",
                   {oid});
    struct Found {
        std::string type;
        bool notNull = false;
        bool hasDefault = false;
    };
    std::map<std::string, Found> found;
    for (int r = 0; r < cols.rows(); ++r) {
        found[cols.text(r, 0)] = Found{cols.text(r, 1), cols.text(r, 2) == "t", cols.text(r, 3) == "t"};
    }
    std::string diff;
    const auto add = [&diff](const std::string& line) {
        diff += "\n  " + line;
    };
    for (const auto& c : weatherColumns()) {
        const auto it = found.find(std::string(c.name));
        if (it == found.end()) {
            add("missing column " + std::string(c.name) + " " + std::string(c.type));
            continue;
        }
        if (it->second.type != c.type) {
            add("column " + std::string(c.name) + " is " + it->second.type + ", expected " +
                std::string(c.type));
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
