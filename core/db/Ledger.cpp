// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/Ledger.h"

#include <cmath>
#include <cstdio>
#include <regex>

namespace isobar {

// The columns a ledger row has besides relid, unit_key, rows and committed_at (added after the
// first release; in this order in both ledgers, which moveLedgerRows copies with SELECT *, so a
// new one goes at the end). valid_until: the last hour of a unit of many hours of one point (NULL:
// one time step, valid_time's).
static constexpr const char* kRecordColumns =
    "valid_time timestamptz, level float8, north int, south int, west int, east int, sparse boolean, "
    "files text, bytes bigint, files_print bigint, legacy_print bigint, values_print bigint, expver text, "
    "product text, columns text, valid_until timestamptz";

namespace {

// The names in kRecordColumns.
std::vector<std::string> recordColumnNames() {
    std::vector<std::string> names;
    const std::string columns = kRecordColumns;
    for (std::size_t from = 0; from < columns.size();) {
        const std::size_t comma = std::min(columns.find(", ", from), columns.size());
        names.push_back(columns.substr(from, columns.find(' ', from) - from));
        from = comma + 2;
    }
    return names;
}

} // namespace

void ensureLedgerTables(Connection& conn) {
    for (const char* persistence : {"", "UNLOGGED "}) {
        const std::string table = std::string("isobar.ledger") + (*persistence != '\0' ? "_unlogged" : "");
        conn.exec(std::string("CREATE ") + persistence + "TABLE IF NOT EXISTS " + table +
                  " (relid oid NOT NULL, unit_key text NOT NULL, rows bigint NOT NULL, "
                  "committed_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (relid, unit_key))");
        std::string add;
        std::string columns = kRecordColumns;
        for (std::size_t from = 0; from < columns.size();) {
            const std::size_t comma = std::min(columns.find(", ", from), columns.size());
            add += (add.empty() ? " ADD COLUMN IF NOT EXISTS " : ", ADD COLUMN IF NOT EXISTS ") +
                   columns.substr(from, comma - from);
            from = comma + 2;
        }
        conn.exec("ALTER TABLE " + table + add);
        // What a load of some hours may overlap, found by time (a warehouse's ledger has millions
        // of rows).
        const std::string name = table.substr(7);
        conn.exec("CREATE INDEX IF NOT EXISTS " + name + "_time ON " + table + " (relid, valid_time)");
        // Units of many hours, found by the hours they span: they start at most a month before
        // (the CHECK below), so (relid, valid_time) bounds the search from both sides.
        conn.exec("CREATE INDEX IF NOT EXISTS " + name + "_range ON " + table +
                  " (relid, valid_time) WHERE valid_until IS NOT NULL");
        // A unit of many hours never crosses a UTC month. NOT VALID: the rows of earlier versions
        // (valid_until NULL) pass anyway, and the scan of a warehouse's ledger under an exclusive
        // lock is saved; every row written from now on is checked.
        if (conn.query("SELECT count(*) FROM pg_constraint WHERE conrelid = $1::regclass AND conname = $2",
                       {table, name + "_range_in_month"})
                .integer(0, 0) == 0) {
            conn.exec("ALTER TABLE " + table + " ADD CONSTRAINT " + name +
                      "_range_in_month CHECK (valid_until IS NULL OR (valid_until >= valid_time AND "
                      "date_trunc('month', valid_until AT TIME ZONE 'UTC') = date_trunc('month', valid_time "
                      "AT TIME ZONE 'UTC'))) NOT VALID");
        }
    }
}

std::string ledgerTablesCompleteSql() {
    // Every column (an earlier version's ledger has only some), index and constraint, in both.
    std::string names;
    const std::vector<std::string> columns = recordColumnNames();
    for (const std::string& column : columns) {
        names += (names.empty() ? "'" : ", '") + column + "'";
    }
    return "(SELECT count(*) FROM pg_attribute WHERE attrelid IN (to_regclass('isobar.ledger'), "
           "to_regclass('isobar.ledger_unlogged')) AND attname IN (" +
           names + ") AND NOT attisdropped) = " + std::to_string(2 * columns.size()) +
           " AND to_regclass('isobar.ledger_time') IS NOT NULL AND "
           "to_regclass('isobar.ledger_unlogged_time') IS NOT NULL AND "
           "to_regclass('isobar.ledger_range') IS NOT NULL AND "
           "to_regclass('isobar.ledger_unlogged_range') IS NOT NULL AND "
           "(SELECT count(*) FROM pg_constraint WHERE conrelid IN (to_regclass('isobar.ledger'), "
           "to_regclass('isobar.ledger_unlogged')) AND conname IN ('ledger_range_in_month', "
           "'ledger_unlogged_range_in_month')) = 2";
}

namespace {

// A uint64 print as the bigint the ledger keeps (0: NULL, not known).
std::string printText(std::uint64_t print) {
    return print == 0 ? "NULL" : std::to_string(static_cast<std::int64_t>(print));
}

std::uint64_t printOf(const std::string& text) {
    return text.empty() ? 0 : static_cast<std::uint64_t>(std::stoll(text));
}

// A PostgreSQL array literal of texts, each quoted, "NULL" as a NULL element when `nulls`.
std::string quotedArray(const std::vector<std::string>& items, bool nulls = false) {
    std::string out = "{";
    for (const std::string& item : items) {
        if (out.size() > 1) {
            out += ',';
        }
        if (nulls && item == "NULL") {
            out += "NULL";
            continue;
        }
        out += '"';
        for (char c : item) {
            if (c == '"' || c == '\\') {
                out += '\\';
            }
            out += c;
        }
        out += '"';
    }
    return out + "}";
}

std::string timeText(PgTimestamp t) {
    return formatTimestamp(t);
}

// A place as the ledger's array elements: valid_time, level, north, south, west, east, sparse,
// valid_until.
std::vector<std::string> placeFields(const UnitPlace& p, bool placed) {
    return {placed ? timeText(p.time) : "NULL",
            p.level ? std::to_string(*p.level) : "NULL",
            std::to_string(p.north),
            std::to_string(p.south),
            std::to_string(p.west),
            std::to_string(p.east),
            p.sparse ? "t" : "f",
            placed && p.until ? timeText(*p.until) : "NULL"};
}

// The distinct relids of a table whose primary key begins with relid, one index probe each
// (a skip scan by hand): the tables the records name, however many rows each has.
std::string distinctRelids(const std::string& table) {
    return "SELECT '" + table + "' AS t, relid FROM (WITH RECURSIVE r(relid) AS (SELECT min(relid) FROM " +
           table + " UNION ALL SELECT (SELECT min(x.relid) FROM " + table +
           " x WHERE x.relid > r.relid) FROM r WHERE r.relid IS NOT NULL) SELECT relid FROM r) d";
}

const char* otherLedger(const LedgerTarget& target) {
    return target.unlogged ? "isobar.ledger" : "isobar.ledger_unlogged";
}

// The lock's key: one per target table, apart from the table-preparation lock's keys.
constexpr const char* kMoveLockKey = "hashtextextended('isobar ledger move ' || $1, 0)";

} // namespace

void forgetDroppedTables(Connection& conn) {
    // Which tables are gone, in one query; a DELETE of "every row whose table is gone" would read
    // the whole ledger on every load (3 million rows: 1.4 s).
    std::string sql;
    for (const char* table :
         {"isobar.ledger", "isobar.ledger_unlogged", "isobar.table_columns", "isobar.paused_autovacuum"}) {
        sql += (sql.empty() ? "SELECT t, relid FROM (" : " UNION ALL ") + distinctRelids(table);
    }
    sql += ") g WHERE relid IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = g.relid) "
           "ORDER BY t, relid";
    const Result dropped = conn.query(sql);
    // Their rows, by the relids written out, so that the planner takes the primary key.
    std::string deletes;
    for (int i = 0; i < dropped.rows(); ++i) {
        const std::string table = dropped.text(i, 0);
        std::string relids = dropped.text(i, 1);
        while (i + 1 < dropped.rows() && dropped.text(i + 1, 0) == table) {
            relids += "," + dropped.text(++i, 1);
        }
        deletes += "DELETE FROM " + table + " WHERE relid = ANY ('{" + relids + "}'::oid[]);";
    }
    if (!deletes.empty()) {
        conn.exec(deletes);
    }
}

LedgerTarget ledgerFor(Connection& conn, const TableName& table) {
    const Result r =
        conn.query("SELECT c.oid, c.relpersistence = 'u' FROM pg_class c WHERE c.oid = $1::regclass",
                   {table.quoted(conn)});
    return LedgerTarget::of(r.text(0, 0), r.text(0, 1) == "t");
}

void adoptStrayLedgerRows(Connection& conn, const LedgerTarget& target) {
    if (conn.query(std::string("SELECT EXISTS (SELECT 1 FROM ") + otherLedger(target) +
                       " WHERE relid = $1::oid)",
                   {target.relid})
            .text(0, 0) == "t") {
        lockLedgerMove(conn, target.relid);
        moveLedgerRows(conn, target);
    }
}

void lockLedgerMove(Connection& conn, const std::string& relid) {
    conn.query(std::string("SELECT pg_advisory_xact_lock(") + kMoveLockKey + ")", {relid});
}

void moveLedgerRows(Connection& conn, const LedgerTarget& to) {
    conn.query("INSERT INTO " + to.table + " SELECT * FROM " + otherLedger(to) +
                   " WHERE relid = $1::oid ON CONFLICT DO NOTHING",
               {to.relid});
    conn.query(std::string("DELETE FROM ") + otherLedger(to) + " WHERE relid = $1::oid", {to.relid});
}

void clearLedger(Connection& conn, const LedgerTarget& target) {
    const std::string relid = conn.quoteLiteral(target.relid) + "::oid";
    conn.exec("DELETE FROM isobar.ledger WHERE relid = " + relid +
              "; DELETE FROM isobar.ledger_unlogged WHERE relid = " + relid); // one round trip
}

void holdLedgerForClaims(Connection& conn, const LedgerTarget& target) {
    conn.query(std::string("SELECT pg_advisory_xact_lock_shared(") + kMoveLockKey + ")", {target.relid});
}

std::string rangeLockKey(const std::string& relid, const UnitPlace& place) {
    char key[96];
    const std::string month = formatTimestamp(monthStart(place.time)).substr(0, 7);
    std::snprintf(key, sizeof key, "%s %s %d %d %s", relid.c_str(),
                  place.level ? std::to_string(*place.level).c_str() : "-", place.north, place.west,
                  month.c_str());
    return key;
}

namespace {

// The rows of one ledger a claim `u` (of the unnest in claimUnits) overlaps under another key: its
// units of many hours starting in the claim's month (they never cross one) up to its last hour and
// ending at or after its first; and, of a claim of many hours, the units of one step at its hours.
// (A claim of one hour meets a unit of one step under another key only where that is of another
// box, which a load of a box does not lock; skipping that lookup keeps a load by the hour at its
// speed, as does skipping the first where the table has no unit of many hours.) Each by its index.
std::string overlapsIn(const std::string& ledger) {
    const std::string same =
        "l.relid = $1::oid AND l.unit_key <> u.k AND l.level IS NOT DISTINCT FROM u.lv AND "
        "l.south <= u.n AND u.s <= l.north AND l.west <= u.e AND u.w <= l.east AND ";
    return "SELECT l.unit_key FROM " + ledger + " l WHERE " + same +
           "l.valid_until IS NOT NULL AND l.valid_time BETWEEN (date_trunc('month', u.t AT TIME ZONE 'UTC') "
           "AT "
           "TIME ZONE 'UTC') AND coalesce(u.tu, u.t) AND l.valid_until >= u.t UNION ALL SELECT l.unit_key "
           "FROM " +
           ledger + " l WHERE " + same +
           "u.tu IS NOT NULL AND l.valid_until IS NULL AND l.valid_time BETWEEN u.t AND u.tu";
}

} // namespace

Claims claimUnits(Connection& conn, const LedgerTarget& target, const std::vector<UnitRecord>& units) {
    // Claims of one point lock its (level, point, month) first, in one order for every run (a
    // sorted map), so that of two runs claiming overlapping hours under other keys the second
    // waits for the first to end, and then sees its rows (below). Units of many hours take the lock
    // exclusively, units of one hour shared: two loads by the hour have the same keys (the primary
    // key orders them) and do not wait for each other, or a run's workers for each other.
    std::map<std::string, bool> ranges; // key, exclusively
    for (const UnitRecord& u : units) {
        if (u.place.cells() == 1 && (u.place.time.micros != 0 || u.place.north != 0 || u.place.east != 0)) {
            ranges[rangeLockKey(target.relid, u.place)] |= u.place.until.has_value();
        }
    }
    std::vector<std::string> lockKeys;
    std::vector<std::string> exclusive;
    for (const auto& [key, e] : ranges) {
        lockKeys.push_back(key);
        exclusive.emplace_back(e ? "t" : "f");
    }
    // The statements here take their snapshots after holdLedgerForClaims and the range locks
    // waited (READ COMMITTED), so they see the table's persistence and the rows as a move left
    // them: every run of the table claims in the same ledger, where the primary key serialises
    // them. No JIT for the claim (to the transaction's end): its estimated cost reaches
    // jit_above_cost at a few thousand units, and compiling it took 60 % of a load by the hour.
    const LedgerTarget now = LedgerTarget::of(
        target.relid,
        conn.query(
                "SELECT relpersistence = 'u', (SELECT count(CASE WHEN e THEN pg_advisory_xact_lock(hashtext("
                "'isobar ledger range'), hashtext(k))::text ELSE pg_advisory_xact_lock_shared(hashtext("
                "'isobar ledger range'), hashtext(k))::text END) FROM unnest($2::text[], $3::boolean[]) AS "
                "a(k, e)), set_config('jit', 'off', true) FROM pg_class WHERE oid = $1::oid",
                {target.relid, quotedArray(lockKeys), quotedArray(exclusive)})
                .text(0, 0) == "t");
    // The other ledger is looked at too, in case the persistence changed outside Isobar.
    std::vector<std::vector<std::string>> c(19);
    for (const UnitRecord& u : units) {
        const UnitPlace& p = u.place;
        const bool placed = p.time.micros != 0 || p.north != 0 || p.east != 0;
        std::vector<std::string> row{u.key, std::to_string(u.rows)};
        for (std::string& f : placeFields(p, placed)) {
            row.push_back(std::move(f));
        }
        row.insert(row.end(),
                   {u.files, std::to_string(u.bytes), printText(u.filesPrint), printText(u.legacyPrint),
                    printText(u.valuesPrint), u.expver.empty() ? "NULL" : u.expver, u.product, u.columns,
                    placed && p.cells() == 1 ? "t" : "f"});
        for (std::size_t i = 0; i < row.size(); ++i) {
            c.at(i).push_back(row[i]); // as many arrays as the statement has
        }
    }
    std::vector<std::optional<std::string>> params{target.relid};
    for (const auto& column : c) {
        params.push_back(quotedArray(column, true));
    }
    // A claim of one point that overlaps a unit of another key is not recorded: its rows and
    // that unit's would both be in the table.
    const Result r = conn.query(
        "WITH u AS (SELECT * FROM unnest($2::text[], $3::bigint[], $4::timestamptz[], $5::float8[], "
        "$6::int[], "
        "$7::int[], $8::int[], $9::int[], $10::boolean[], $11::timestamptz[], $12::text[], $13::bigint[], "
        "$14::bigint[], $15::bigint[], $16::bigint[], $17::text[], $18::text[], $19::text[], $20::boolean[]) "
        "AS u(k, r, t, lv, n, s, w, e, sp, tu, f, b, fp, lp, vp, ev, pr, co, g)), o AS (SELECT u.k, "
        "x.unit_key "
        "AS other FROM u CROSS JOIN LATERAL (" +
            overlapsIn("isobar.ledger") + " UNION ALL " + overlapsIn("isobar.ledger_unlogged") +
            " LIMIT 1) x WHERE u.g AND (u.tu IS NOT NULL OR EXISTS (SELECT 1 FROM isobar.ledger r WHERE "
            "r.relid "
            "= $1::oid AND r.valid_until IS NOT NULL UNION ALL SELECT 1 FROM isobar.ledger_unlogged r WHERE "
            "r.relid = $1::oid AND r.valid_until IS NOT NULL))), i AS (INSERT INTO " +
            now.table +
            " (relid, unit_key, rows, valid_time, level, north, south, west, east, sparse, valid_until, "
            "files, bytes, files_print, legacy_print, values_print, expver, product, columns) SELECT "
            "$1::oid, k, r, t, lv, n, s, w, e, sp, tu, f, b, fp, lp, vp, ev, pr, co FROM u WHERE NOT EXISTS "
            "(SELECT 1 FROM " +
            otherLedger(now) +
            " o WHERE o.relid = $1::oid AND o.unit_key = u.k) AND NOT EXISTS (SELECT 1 FROM o WHERE o.k = "
            "u.k) ON CONFLICT DO NOTHING RETURNING unit_key) SELECT unit_key, NULL FROM i UNION ALL SELECT "
            "k, "
            "other FROM o",
        params);
    Claims claims;
    for (int i = 0; i < r.rows(); ++i) {
        if (r.isNull(i, 1)) {
            claims.claimed.insert(r.text(i, 0));
        } else {
            claims.overlapped.emplace(r.text(i, 0), r.text(i, 1));
        }
    }
    return claims;
}

bool claimUnit(Connection& conn, const LedgerTarget& target, const std::string& key, std::uint64_t rows) {
    holdLedgerForClaims(conn, target);
    UnitRecord unit;
    unit.key = key;
    unit.rows = rows;
    return claimUnits(conn, target, {unit}).claimed.size() == 1;
}

std::size_t forgetUnits(Connection& conn, const LedgerTarget& target, const std::vector<std::string>& keys) {
    if (keys.empty()) {
        return 0;
    }
    return static_cast<std::size_t>(
        conn.query(
                "WITH a AS (DELETE FROM isobar.ledger WHERE relid = $1::oid AND unit_key = ANY ($2::text[]) "
                "RETURNING 1), b AS (DELETE FROM isobar.ledger_unlogged WHERE relid = $1::oid AND unit_key = "
                "ANY ($2::text[]) RETURNING 1) SELECT (SELECT count(*) FROM a) + (SELECT count(*) FROM b)",
                {target.relid, quotedArray(keys)})
            .integer(0, 0));
}

std::vector<UnitRecord> recordedUnitsAt(Connection& conn, const LedgerTarget& target,
                                        const std::vector<TimeSpan>& spans,
                                        std::vector<std::string>* unplaced) {
    std::vector<UnitRecord> out;
    if (spans.empty()) {
        return out;
    }
    std::vector<std::string> from;
    std::vector<std::string> until;
    std::vector<std::string> month;
    for (const TimeSpan& s : spans) {
        from.push_back(timeText(s.from));
        until.push_back(timeText(s.until));
        month.push_back(timeText(monthStart(s.from)));
    }
    // Units of one time step by their time; units of many hours, which start at most a month
    // before a span (they stay in one), by where they start and end: an index range per span and
    // ledger, however many hours the span has. UNION: a unit of many hours may meet two spans.
    const std::string fields =
        "SELECT l.unit_key, l.rows, (extract(epoch FROM l.valid_time) * 1000000)::bigint - 946684800000000, "
        "l.level, l.north, l.south, l.west, l.east, coalesce(l.sparse, false), coalesce(l.files, ''), "
        "coalesce(l.bytes, 0), l.files_print, l.legacy_print, l.values_print, coalesce(l.expver, ''), "
        "coalesce(l.product, ''), coalesce(l.columns, ''), to_char(l.committed_at AT TIME ZONE 'UTC', "
        "'YYYY-MM-DD HH24:MI') || ' UTC', (extract(epoch FROM l.valid_until) * 1000000)::bigint - "
        "946684800000000 FROM ";
    const std::string spansSql = "unnest($2::timestamptz[], $3::timestamptz[], $4::timestamptz[]) s(f, u, m)";
    std::string sql;
    for (const std::string ledger : {"isobar.ledger", "isobar.ledger_unlogged"}) {
        sql +=
            std::string(sql.empty() ? "" : " UNION ") + fields + spansSql + " JOIN " + ledger +
            " l ON l.relid = $1::oid AND l.valid_until IS NULL AND l.valid_time BETWEEN s.f AND s.u UNION " +
            fields + spansSql + " JOIN " + ledger +
            " l ON l.relid = $1::oid AND l.valid_until IS NOT NULL AND l.valid_time BETWEEN s.m AND s.u "
            "AND l.valid_until >= s.f UNION " +
            fields + ledger + " l WHERE l.relid = $1::oid AND l.valid_time IS NULL";
    }
    const Result r = conn.query(sql + " ORDER BY 1",
                                {target.relid, quotedArray(from), quotedArray(until), quotedArray(month)});
    for (int i = 0; i < r.rows(); ++i) {
        if (r.isNull(i, 2)) { // no place yet: an earlier version's unit
            if (unplaced != nullptr) {
                unplaced->push_back(r.text(i, 0));
            }
            continue;
        }
        UnitRecord u;
        u.key = r.text(i, 0);
        u.rows = static_cast<std::uint64_t>(r.integer(i, 1));
        u.place.time = PgTimestamp{r.integer(i, 2)};
        if (!r.text(i, 3).empty()) {
            u.place.level = std::stod(r.text(i, 3));
        }
        u.place.north = static_cast<std::int32_t>(r.integer(i, 4));
        u.place.south = static_cast<std::int32_t>(r.integer(i, 5));
        u.place.west = static_cast<std::int32_t>(r.integer(i, 6));
        u.place.east = static_cast<std::int32_t>(r.integer(i, 7));
        u.place.sparse = r.text(i, 8) == "t";
        u.files = r.text(i, 9);
        u.bytes = static_cast<std::uint64_t>(r.integer(i, 10));
        u.filesPrint = printOf(r.text(i, 11));
        u.legacyPrint = printOf(r.text(i, 12));
        u.valuesPrint = printOf(r.text(i, 13));
        u.expver = r.text(i, 14);
        u.product = r.text(i, 15);
        u.columns = r.text(i, 16);
        u.committedAt = r.text(i, 17);
        if (!r.isNull(i, 18)) {
            u.place.until = PgTimestamp{r.integer(i, 18)};
        }
        out.push_back(std::move(u));
    }
    return out;
}

std::optional<std::pair<UnitPlace, std::uint64_t>> parseLegacyKey(const std::string& key,
                                                                  const GlobalGrid& grid) {
    static const std::regex legacy(
        R"(^(\S+?)(?: (\S+) hPa)? rows (\d+)-(\d+) of ([-0-9.e+]+?)\.\.([-0-9.e+]+) x )"
        R"(([-0-9.e+]+?)\.\.([-0-9.e+]+) on (\S+) \[([0-9a-f]{16})\]$)");
    std::smatch m;
    if (!std::regex_match(key, m, legacy) || m[9].str() != grid.spacingText()) {
        return std::nullopt;
    }
    const auto time = parseTimestamp(m[1].str());
    if (!time) {
        return std::nullopt;
    }
    try {
        UnitPlace place;
        place.time = *time;
        if (m[2].matched) {
            place.level = std::stod(m[2].str());
        }
        // The band's rows counted from the box's northern row (the box was dense: the grid's rows).
        const std::int32_t northRow = grid.latitudeIndex(std::stod(m[5].str()));
        place.north = northRow - std::stoi(m[3].str());
        place.south = northRow - std::stoi(m[4].str());
        place.west = grid.longitudeIndex(std::stod(m[7].str()));
        place.east = grid.longitudeIndex(std::stod(m[8].str()));
        if (place.east < place.west) { // across the date line: compared whole, as its bounds
            place.west = 0;
            place.east = grid.longitudes() - 1;
            place.sparse = true;
        }
        return std::make_pair(place, static_cast<std::uint64_t>(std::stoull(m[10].str(), nullptr, 16)));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::size_t migrateLegacyUnits(Connection& conn, const LedgerTarget& target, const GlobalGrid& grid) {
    const Result r =
        conn.query("SELECT unit_key FROM isobar.ledger WHERE relid = $1::oid AND valid_time IS NULL "
                   "UNION ALL SELECT unit_key FROM isobar.ledger_unlogged WHERE relid = $1::oid AND "
                   "valid_time IS NULL",
                   {target.relid});
    std::vector<std::string> keys;
    keys.reserve(static_cast<std::size_t>(r.rows()));
    for (int i = 0; i < r.rows(); ++i) {
        keys.push_back(r.text(i, 0));
    }
    return migrateLegacyUnits(conn, target, grid, keys);
}

std::size_t migrateLegacyUnits(Connection& conn, const LedgerTarget& target, const GlobalGrid& grid,
                               const std::vector<std::string>& keys) {
    // In batches: a warehouse of an earlier version has millions of units, and each batch's
    // arrays are one statement's parameters.
    constexpr std::size_t kBatch = 50'000;
    std::size_t placed = 0;
    std::vector<std::vector<std::string>> c(10);
    const auto update = [&] {
        if (c[0].empty()) {
            return;
        }
        std::vector<std::optional<std::string>> params{target.relid};
        for (auto& column : c) {
            params.push_back(quotedArray(column, true));
            column.clear();
        }
        for (const char* ledger : {"isobar.ledger", "isobar.ledger_unlogged"}) {
            conn.query(
                std::string("UPDATE ") + ledger +
                    " x SET valid_time = u.t, level = u.lv, north = u.n, south = u.s, west = u.w, east = "
                    "u.e, sparse = u.sp, valid_until = u.vu, legacy_print = u.p FROM unnest($2::text[], "
                    "$3::timestamptz[], $4::float8[], $5::int[], $6::int[], $7::int[], $8::int[], "
                    "$9::boolean[], $10::timestamptz[], $11::bigint[]) AS u(k, t, lv, n, s, w, e, sp, vu, p) "
                    "WHERE x.relid = $1::oid AND x.unit_key = u.k",
                params);
        }
    };
    for (const std::string& key : keys) {
        const auto parsed = parseLegacyKey(key, grid);
        if (!parsed) {
            continue; // not a key of this grid (or not Isobar's): never overlaps anything
        }
        std::vector<std::string> row{key};
        for (std::string& f : placeFields(parsed->first, true)) {
            row.push_back(std::move(f));
        }
        row.push_back(printText(parsed->second));
        for (std::size_t k = 0; k < row.size(); ++k) {
            c.at(k).push_back(row[k]); // as many arrays as the statement has
        }
        if (++placed % kBatch == 0) {
            update();
        }
    }
    update();
    return placed;
}

std::string placeCondition(Connection& conn, const UnitPlace& place, const GlobalGrid& grid,
                           bool levelColumn) {
    const std::int64_t n = grid.longitudes();
    std::string sql = place.until
                          ? "time BETWEEN " + conn.quoteLiteral(timeText(place.time)) + "::timestamptz AND " +
                                conn.quoteLiteral(timeText(*place.until)) + "::timestamptz"
                          : "time = " + conn.quoteLiteral(timeText(place.time)) + "::timestamptz";
    if (levelColumn && place.level) {
        char level[48];
        std::snprintf(level, sizeof level, "%.9g", *place.level);
        sql += std::string(" AND pressure_level = ") + level + "::float4";
    }
    sql += " AND location_id BETWEEN " + std::to_string(place.south * n + place.west + 1) + " AND " +
           std::to_string(place.north * n + place.east + 1);
    if (place.west > 0 || place.east < n - 1) {
        sql += " AND (location_id - 1) % " + std::to_string(n) + " BETWEEN " + std::to_string(place.west) +
               " AND " + std::to_string(place.east);
    }
    return sql;
}

std::uint64_t recordedRows(Connection& conn, const LedgerTarget& target) {
    return static_cast<std::uint64_t>(
        conn.query("SELECT (SELECT coalesce(sum(rows), 0) FROM isobar.ledger WHERE relid = $1::oid) + "
                   "(SELECT coalesce(sum(rows), 0) FROM isobar.ledger_unlogged WHERE relid = $1::oid)",
                   {target.relid})
            .integer(0, 0));
}

LedgerSum recordedRows(Connection& conn, const LedgerTarget& target, std::uint64_t maxUnits) {
    const Result r =
        conn.query("SELECT count(*), coalesce(sum(rows), 0) FROM (SELECT rows FROM isobar.ledger "
                   "WHERE relid = $1::oid UNION ALL SELECT rows FROM isobar.ledger_unlogged WHERE "
                   "relid = $1::oid LIMIT $2::bigint + 1) u",
                   {target.relid, std::to_string(maxUnits)});
    return LedgerSum{static_cast<std::uint64_t>(r.integer(0, 1)),
                     static_cast<std::uint64_t>(r.integer(0, 0)) <= maxUnits};
}

} // namespace isobar
