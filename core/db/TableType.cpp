// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/TableType.h"

#include "db/Compression.h"
#include "db/TableMetadata.h"
#include "db/WeatherSchema.h"
#include "domain/Timestamp.h"
#include "util/Error.h"

#include <algorithm>
#include <chrono>
#include <set>

namespace isobar {

namespace {

constexpr std::int64_t kMicrosPerDay = 86'400'000'000LL;

struct Civil {
    std::int64_t year;
    unsigned month;
    unsigned day;
};

Civil civilOf(PgTimestamp t) {
    // formatTimestamp gives "YYYY-MM-DD ..." for any valid timestamp.
    const std::string s = formatTimestamp(t);
    return Civil{std::stoll(s.substr(0, 4)), static_cast<unsigned>(std::stoi(s.substr(5, 2))),
                 static_cast<unsigned>(std::stoi(s.substr(8, 2)))};
}

PgTimestamp atMidnight(std::int64_t year, unsigned month, unsigned day) {
    return pgTimestampFromUnixMicros(daysFromCivil(year, month, day) * kMicrosPerDay);
}

// [start, end) of the partition `t` falls into.
std::pair<PgTimestamp, PgTimestamp> partitionOf(PgTimestamp t, PartitionInterval interval) {
    const Civil c = civilOf(t);
    switch (interval) {
    case PartitionInterval::Day: {
        const PgTimestamp start = atMidnight(c.year, c.month, c.day);
        return {start, PgTimestamp{start.micros + kMicrosPerDay}};
    }
    case PartitionInterval::Week: {
        // ISO weeks start on Monday; 1970-01-01 was a Thursday.
        const std::int64_t days = daysFromCivil(c.year, c.month, c.day);
        const std::int64_t monday = days - ((days + 3) % 7 + 7) % 7;
        const PgTimestamp start = pgTimestampFromUnixMicros(monday * kMicrosPerDay);
        return {start, PgTimestamp{start.micros + 7 * kMicrosPerDay}};
    }
    case PartitionInterval::Month: {
        const PgTimestamp start = atMidnight(c.year, c.month, 1);
        return {start, c.month == 12 ? atMidnight(c.year + 1, 1, 1) : atMidnight(c.year, c.month + 1, 1)};
    }
    case PartitionInterval::Year:
        return {atMidnight(c.year, 1, 1), atMidnight(c.year + 1, 1, 1)};
    }
    return {t, t};
}

void requireUsable(const ExtensionStatus& s, TableType type, const char* extension) {
    if (!s.usable) {
        throw Error("--table-type " + std::string(tableTypeName(type)) + " needs " + extension + ", but " +
                    s.reason + "; or choose another --table-type");
    }
}

// --compress is TimescaleDB's: other tables are not compressed.
void refuseCompression(const TableOptions& options, TableType type) {
    if (options.compressAfter && type != TableType::Hypertable) {
        throw Error("--compress compresses a hypertable's chunks, but the table is " +
                    std::string(tableTypeName(type)) + "; leave --compress out, or load into a hypertable");
    }
}

} // namespace

std::string preloadListWith(const std::string& current, const std::string& library) {
    std::vector<std::string> names;
    std::string item;
    for (std::size_t i = 0; i <= current.size(); ++i) {
        if (i == current.size() || current[i] == ',') {
            const auto first = item.find_first_not_of(" \t\"");
            const auto last = item.find_last_not_of(" \t\"");
            if (first != std::string::npos) {
                std::string name = item.substr(first, last - first + 1);
                if (name != library) {
                    names.push_back(std::move(name));
                }
            }
            item.clear();
        } else {
            item += current[i];
        }
    }
    names.insert(library == "citus" ? names.begin() : names.end(), library);
    std::string list;
    for (const auto& n : names) {
        list += (list.empty() ? "" : ",") + n;
    }
    return list;
}

namespace {

// The facts an extension's status is judged from. `available`: {default version, installed
// version}, nullopt when the server has no such extension; `preload`: shared_preload_libraries,
// nullopt when the role may not read it.
struct ExtensionFacts {
    std::optional<std::pair<std::string, std::string>> available;
    std::optional<std::string> preload;
    int serverMajor = 0;
};

ExtensionStatus judgeExtension(const std::string& name, const std::string& howToGet,
                               const ExtensionFacts& facts) {
    ExtensionStatus s;
    if (!facts.available) {
        s.reason = "it is not installed on this server (PostgreSQL " + std::to_string(facts.serverMajor) +
                   "): " + howToGet;
        return s;
    }
    s.availableVersion = facts.available->first;
    s.installedVersion = facts.available->second;
    if (!facts.preload) {
        s.reason = "version " + s.availableVersion +
                   " is installed, but this role may not read shared_preload_libraries to tell whether it "
                   "is loaded (a superuser, or GRANT pg_read_all_settings)";
        return s;
    }
    const std::string& loaded = *facts.preload;
    if (loaded.find(name) == std::string::npos) {
        s.reason = "version " + s.availableVersion + " is installed but not in shared_preload_libraries" +
                   (loaded.empty() ? "" : " (" + loaded + ")") +
                   ": add it there (ALTER SYSTEM SET shared_preload_libraries = '" +
                   preloadListWith(loaded, name) + "') and restart the server";
        return s;
    }
    s.usable = true;
    return s;
}

// probeServer() asked pg_available_extensions for these two (and every extension created).
ExtensionStatus extensionStatus(const ServerInfo& info, const std::string& name,
                                const std::string& howToGet) {
    ExtensionFacts facts;
    facts.serverMajor = info.versionNumber / 10000;
    if (const ExtensionInfo* e = info.extension(name)) {
        facts.available.emplace(e->defaultVersion, e->installedVersion);
    }
    // The probe reads pg_settings too: a setting the role may not read is not among them.
    if (const ServerSetting* preload = info.find("shared_preload_libraries")) {
        facts.preload = preload->value;
    }
    return judgeExtension(name, howToGet, facts);
}

const char* const kTimescaledbHowToGet =
    "install TimescaleDB for this PostgreSQL version (https://docs.timescale.com: it is not in Debian's "
    "archive), add it to shared_preload_libraries and restart";
const char* const kCitusHowToGet =
    "install Citus for this PostgreSQL version (https://docs.citusdata.com: it is not in Debian's "
    "archive), add it to shared_preload_libraries, restart, and point --dsn at the coordinator";

} // namespace

ExtensionStatus extensionStatus(Connection& conn, const std::string& name, const std::string& howToGet) {
    ExtensionFacts facts;
    facts.serverMajor = conn.serverVersion() / 10000;
    const Result r = conn.query("SELECT coalesce(default_version, ''), coalesce(installed_version, '') FROM "
                                "pg_available_extensions WHERE name = $1",
                                {name});
    if (r.rows() > 0) {
        facts.available.emplace(r.text(0, 0), r.text(0, 1));
        // Through pg_settings, which any role may read: current_setting() of this superuser-only
        // setting fails for a role without pg_read_all_settings (no row then: it cannot be told).
        const Result preload =
            conn.query("SELECT setting FROM pg_settings WHERE name = 'shared_preload_libraries'");
        if (preload.rows() > 0) {
            facts.preload = preload.text(0, 0);
        }
    }
    return judgeExtension(name, howToGet, facts);
}

std::optional<TableType> parseTableType(std::string_view name) {
    for (TableType t : {TableType::Regular, TableType::Unlogged, TableType::Partitioned,
                        TableType::Hypertable, TableType::Distributed}) {
        if (tableTypeName(t) == name) {
            return t;
        }
    }
    return std::nullopt;
}

std::string_view tableTypeName(TableType type) {
    switch (type) {
    case TableType::Regular:
        return "regular";
    case TableType::Unlogged:
        return "unlogged";
    case TableType::Partitioned:
        return "partitioned";
    case TableType::Hypertable:
        return "hypertable";
    case TableType::Distributed:
        return "distributed";
    }
    return "regular";
}

std::optional<PartitionInterval> parsePartitionInterval(std::string_view name) {
    for (PartitionInterval i : {PartitionInterval::Day, PartitionInterval::Week, PartitionInterval::Month,
                                PartitionInterval::Year}) {
        if (partitionIntervalName(i) == name) {
            return i;
        }
    }
    return std::nullopt;
}

std::string_view partitionIntervalName(PartitionInterval interval) {
    switch (interval) {
    case PartitionInterval::Day:
        return "day";
    case PartitionInterval::Week:
        return "week";
    case PartitionInterval::Month:
        return "month";
    case PartitionInterval::Year:
        return "year";
    }
    return "month";
}

std::optional<CompressPath> parseCompressPath(std::string_view name) {
    for (CompressPath path : {CompressPath::Auto, CompressPath::Direct, CompressPath::AfterLoad}) {
        if (compressPathName(path) == name) {
            return path;
        }
    }
    return std::nullopt;
}

std::string_view compressPathName(CompressPath path) {
    switch (path) {
    case CompressPath::Auto:
        return "auto";
    case CompressPath::Direct:
        return "direct";
    case CompressPath::AfterLoad:
        return "after-load";
    }
    return "auto";
}

ExtensionStatus timescaledbStatus(Connection& conn) {
    return extensionStatus(conn, "timescaledb", kTimescaledbHowToGet);
}

ExtensionStatus citusStatus(Connection& conn) {
    return extensionStatus(conn, "citus", kCitusHowToGet);
}

ExtensionStatus timescaledbStatus(const ServerInfo& info) {
    return extensionStatus(info, "timescaledb", kTimescaledbHowToGet);
}

ExtensionStatus citusStatus(const ServerInfo& info) {
    return extensionStatus(info, "citus", kCitusHowToGet);
}

TableType existingTableType(Connection& conn, const TableName& table) {
    const std::string qualified = table.quoted(conn);
    const Result r =
        conn.query("SELECT relkind, relpersistence FROM pg_class WHERE oid = $1::regclass", {qualified});
    if (r.text(0, 0) == "p") {
        return TableType::Partitioned;
    }
    if (r.text(0, 1) == "u") {
        return TableType::Unlogged;
    }
    const bool timescale =
        conn.query("SELECT count(*) FROM pg_extension WHERE extname = 'timescaledb'").text(0, 0) != "0";
    if (timescale && conn.query("SELECT count(*) FROM _timescaledb_catalog.hypertable h JOIN pg_class c ON "
                                "c.relname = h.table_name "
                                "JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = h.schema_name "
                                "WHERE c.oid = $1::regclass",
                                {qualified})
                             .text(0, 0) != "0") {
        return TableType::Hypertable;
    }
    const bool citus =
        conn.query("SELECT count(*) FROM pg_extension WHERE extname = 'citus'").text(0, 0) != "0";
    if (citus &&
        conn.query("SELECT count(*) FROM pg_dist_partition WHERE logicalrelid = $1::regclass", {qualified})
                .text(0, 0) != "0") {
        return TableType::Distributed;
    }
    return TableType::Regular;
}

TableType ensureTargetTable(Connection& conn, const TableName& table, const TableLayout& layout,
                            const TableOptions& options, bool& created) {
    const TableType wanted = options.type.value_or(TableType::Regular);
    if (options.compressAfter) {
        std::vector<std::string> names;
        for (const auto& c : weatherColumns(layout)) {
            names.push_back(c.name);
        }
        checkCompressionColumns(options, names);
    }
    const bool exists = !conn.query("SELECT to_regclass($1)::oid", {table.quoted(conn)}).isNull(0, 0);
    if (exists) {
        created = false;
        ensureWeatherTable(conn, table, layout); // the column check
        const TableType actual = existingTableType(conn, table);
        if (options.type && actual != *options.type) {
            throw Error(
                "table " + table.display() + " exists as a " + std::string(tableTypeName(actual)) +
                " table, not a " + std::string(tableTypeName(*options.type)) +
                " one; choose another table name, or leave --table-type out to load into it as it is");
        }
        refuseCompression(options, actual);
        return actual;
    }
    refuseCompression(options, wanted);
    switch (wanted) {
    case TableType::Hypertable:
        requireUsable(timescaledbStatus(conn), wanted, "TimescaleDB");
        conn.exec("CREATE EXTENSION IF NOT EXISTS timescaledb");
        break;
    case TableType::Distributed:
        requireUsable(citusStatus(conn), wanted, "Citus");
        conn.exec("CREATE EXTENSION IF NOT EXISTS citus");
        break;
    default:
        break;
    }
    created = ensureWeatherTable(conn, table, layout,
                                 createWeatherTableSql(conn, table, layout, wanted == TableType::Unlogged,
                                                       wanted == TableType::Partitioned));
    const std::string qualified = table.quoted(conn);
    if (wanted == TableType::Hypertable) {
        // Without its default index on time: it is built once after the load, which is much
        // faster than keeping it during COPY (PERFORMANCE.md: 8.0 s load + index vs 12.9 s).
        conn.query("SELECT create_hypertable($1::regclass, 'time', chunk_time_interval => $2::interval, "
                   "create_default_indexes => false, if_not_exists => true)",
                   {qualified, options.chunkInterval});
    } else if (wanted == TableType::Distributed) {
        conn.query("SELECT create_distributed_table($1::regclass, 'location_id')", {qualified});
    }
    return wanted;
}

std::vector<TimeIndex> timeIndexes(Connection& conn, const TableName& table) {
    const Result r =
        conn.query("SELECT a.amname, x.indexrelid, i.relname FROM pg_index x JOIN pg_class i ON i.oid = "
                   "x.indexrelid JOIN "
                   "pg_am a ON a.oid = i.relam JOIN pg_attribute t ON t.attrelid = x.indrelid AND t.attnum = "
                   "x.indkey[0] "
                   "WHERE t.attname = 'time' AND i.relkind = 'i' AND x.indrelid IN (SELECT relid FROM "
                   "pg_partition_tree($1::regclass) UNION SELECT inhrelid FROM pg_inherits WHERE inhparent = "
                   "$1::regclass "
                   "UNION SELECT $1::regclass)",
                   {table.quoted(conn)});
    std::vector<TimeIndex> out;
    out.reserve(static_cast<std::size_t>(r.rows()));
    for (int i = 0; i < r.rows(); ++i) {
        out.push_back(TimeIndex{r.text(i, 0), r.text(i, 1), r.text(i, 2)});
    }
    return out;
}

TimeLookup prepareTimeLookup(Connection& conn, const TableName& table, TableType type) {
    TimeLookup lookup;
    const std::string name = (table.name + "_isobar_replace").substr(0, 63);
    const std::string qualified =
        (table.schema.empty() ? std::string() : conn.quoteIdentifier(table.schema) + ".") +
        conn.quoteIdentifier(name);
    if (const std::vector<TimeIndex> indexes = timeIndexes(conn, table); !indexes.empty()) {
        for (const TimeIndex& index : indexes) {
            // Rows loaded since the last summary are in ranges every lookup of a BRIN index reads.
            if (index.method == "brin") {
                conn.query("SELECT brin_summarize_new_values($1::oid::regclass)", {index.oid});
            }
            if (index.name == name) {
                lookup.index = qualified; // left by a replacing load that was killed: this one drops it
            }
        }
        return lookup;
    }
    // A hypertable's chunks are found by time already; a distributed table's shards are not
    // indexed by Isobar (each replaced unit reads its shards' rows of that time).
    if (type != TableType::Regular && type != TableType::Unlogged && type != TableType::Partitioned) {
        return lookup;
    }
    // One read of the table for the whole run instead of one per replaced unit. Not kept: an index
    // costs every row of later loads (a BRIN index on time made a 4-hour load of a new table 28 %
    // slower here), so the load drops it when it ends (dropTimeLookup).
    const auto t0 = std::chrono::steady_clock::now();
    lookup.index = qualified;
    conn.exec("CREATE INDEX IF NOT EXISTS " + conn.quoteIdentifier(name) + " ON " + table.quoted(conn) +
              " USING brin (" + conn.quoteIdentifier("time") + ")");
    lookup.buildSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return lookup;
}

void dropTimeLookup(Connection& conn, const TimeLookup& lookup) {
    if (!lookup.index.empty()) {
        conn.exec("DROP INDEX IF EXISTS " + lookup.index);
    }
}

namespace {

struct PartitionSql {
    std::string name;  // quoted
    std::string start; // literals
    std::string end;
};

// One partition at a time under a savepoint: 3 round trips each (a year of days: ~1,100).
void createPartitionsOneByOne(Connection& conn, const TableName& table,
                              const std::vector<PartitionSql>& parts) {
    for (const PartitionSql& p : parts) {
        conn.exec("SAVEPOINT isobar_partition");
        try {
            conn.exec("CREATE TABLE IF NOT EXISTS " + p.name + " PARTITION OF " + table.quoted(conn) +
                      " FOR VALUES FROM (" + p.start + ") TO (" + p.end + ")");
            conn.exec("RELEASE SAVEPOINT isobar_partition");
        } catch (const DbError& e) {
            conn.exec("ROLLBACK TO SAVEPOINT isobar_partition");
            // 42P17: an existing partition (made by the user) already covers part of the range; rows
            // outside every partition are refused by the server, naming the unit.
            if (e.sqlState() != "42P17") {
                throw;
            }
        }
    }
}

} // namespace

void createPartitions(Connection& conn, const TableName& table, PartitionInterval interval,
                      const std::vector<PgTimestamp>& times) {
    std::set<std::pair<std::int64_t, std::int64_t>> ranges;
    for (PgTimestamp t : times) {
        const auto [start, end] = partitionOf(t, interval);
        ranges.insert({start.micros, end.micros});
    }
    std::vector<PartitionSql> parts;
    for (const auto& [start, end] : ranges) {
        std::string suffix = formatTimestamp(PgTimestamp{start}).substr(0, 10); // "2024-01-01"
        suffix.erase(std::remove(suffix.begin(), suffix.end(), '-'), suffix.end());
        parts.push_back({TableName{table.schema, table.name + "_p" + suffix}.quoted(conn),
                         conn.quoteLiteral(formatTimestamp(PgTimestamp{start})),
                         conn.quoteLiteral(formatTimestamp(PgTimestamp{end}))});
    }
    if (parts.empty()) {
        return;
    }
    // All of them in one statement, each in a subtransaction of its own as above, so that the
    // round trips do not grow with the partitions (a year of days through a link of 2 ms round
    // trip: 3.6 s one by one, 0.6 s so). In PL/pgSQL, which a database has unless it was dropped.
    std::string rows;
    for (const PartitionSql& p : parts) {
        rows += (rows.empty() ? "(" : ", (") + conn.quoteLiteral(p.name) + ", " + conn.quoteLiteral(p.start) +
                ", " + conn.quoteLiteral(p.end) + ")";
    }
    const std::string tag = "$isobar_partitions$";
    const std::string body = "DECLARE r record; BEGIN FOR r IN SELECT * FROM (VALUES " + rows +
                             ") v(part, lo, hi) LOOP BEGIN EXECUTE 'CREATE TABLE IF NOT EXISTS ' || r.part "
                             "|| ' PARTITION OF ' || " +
                             conn.quoteLiteral(table.quoted(conn)) +
                             " || ' FOR VALUES FROM (' || r.lo || ') TO (' || r.hi || ')'; "
                             "EXCEPTION WHEN invalid_object_definition THEN NULL; END; END LOOP; END";
    try {
        if (body.find(tag) != std::string::npos) { // a table named so: one by one
            createPartitionsOneByOne(conn, table, parts);
            return;
        }
        try {
            conn.exec("SAVEPOINT isobar_partitions; DO " + tag + body + tag +
                      "; RELEASE SAVEPOINT isobar_partitions");
        } catch (const DbError& e) {
            conn.exec("ROLLBACK TO SAVEPOINT isobar_partitions");
            if (e.sqlState() != "42704") { // 42704: language "plpgsql" does not exist
                throw;
            }
            createPartitionsOneByOne(conn, table, parts);
        }
    } catch (const DbError& e) {
        // 53200: each new partition is locked until the preparation commits; the server's lock
        // table holds max_locks_per_transaction x (max_connections + max_prepared_transactions)
        // (6,400 by default), so some 17 years of daily partitions in one load do not fit.
        if (e.sqlState() != "53200") {
            throw;
        }
        throw DbError(std::to_string(parts.size()) + " " + std::string(partitionIntervalName(interval)) +
                          " partitions in one load need more locks than the server's lock table holds "
                          "(max_locks_per_transaction = " +
                          conn.query("SELECT current_setting('max_locks_per_transaction')").text(0, 0) +
                          "): load fewer files at a time, choose a longer --partition-interval, or raise "
                          "max_locks_per_transaction and restart the server (" +
                          e.what() + ")",
                      e.sqlState());
    }
}

bool buildTimeIndex(Connection& conn, const TableName& table) {
    const std::string name = table.name + "_time_idx";
    const bool existed =
        !conn.query("SELECT to_regclass($1)::oid",
                    {(table.schema.empty() ? std::string() : conn.quoteIdentifier(table.schema) + ".") +
                     conn.quoteIdentifier(name)})
             .isNull(0, 0);
    conn.exec("CREATE INDEX IF NOT EXISTS " + conn.quoteIdentifier(name) + " ON " + table.quoted(conn) +
              " (" + conn.quoteIdentifier("time") + " DESC)");
    return !existed;
}

} // namespace isobar
