#include "db/Ledger.h"

namespace isobar {

void ensureLedgerTables(Connection& conn) {
    for (const char* persistence : {"", "UNLOGGED "}) {
        conn.exec(std::string("CREATE ") + persistence + "TABLE IF NOT EXISTS isobar.ledger" +
                  (*persistence != '\0' ? "_unlogged" : "") +
                  " (relid oid NOT NULL, unit_key text NOT NULL, rows bigint NOT NULL, "
                  "committed_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (relid, unit_key))");
    }
}

namespace {

// A PostgreSQL array literal of `items`, each element quoted.
template <typename T, typename Text>
std::string arrayLiteral(const std::vector<T>& items, Text text) {
    std::string out = "{";
    for (const T& item : items) {
        out += out.size() > 1 ? ",\"" : "\"";
        for (char c : text(item)) {
            if (c == '"' || c == '\\') {
                out += '\\';
            }
            out += c;
        }
        out += '"';
    }
    return out + "}";
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

std::set<std::string> committedUnits(Connection& conn, const LedgerTarget& target,
                                     const std::vector<std::string>& keys) {
    std::set<std::string> committed;
    if (keys.empty()) {
        return committed;
    }
    const Result r = conn.query(
        "SELECT unit_key FROM " + target.table + " WHERE relid = $1::oid AND unit_key = ANY ($2::text[])",
        {target.relid, arrayLiteral(keys, [](const std::string& k) -> const std::string& { return k; })});
    for (int i = 0; i < r.rows(); ++i) {
        committed.insert(r.text(i, 0));
    }
    return committed;
}

void clearLedger(Connection& conn, const LedgerTarget& target) {
    const std::string relid = conn.quoteLiteral(target.relid) + "::oid";
    conn.exec("DELETE FROM isobar.ledger WHERE relid = " + relid +
              "; DELETE FROM isobar.ledger_unlogged WHERE relid = " + relid); // one round trip
}

void holdLedgerForClaims(Connection& conn, const LedgerTarget& target) {
    conn.query(std::string("SELECT pg_advisory_xact_lock_shared(") + kMoveLockKey + ")", {target.relid});
}

std::set<std::string> claimUnits(Connection& conn, const LedgerTarget& target,
                                 const std::vector<std::pair<std::string, std::uint64_t>>& units) {
    // The statements here take their snapshots after holdLedgerForClaims waited (READ COMMITTED),
    // so they see the table's persistence and the rows as a move left them: every run of the
    // table claims in the same ledger, where the primary key serialises them.
    const LedgerTarget now = LedgerTarget::of(
        target.relid,
        conn.query("SELECT relpersistence = 'u' FROM pg_class WHERE oid = $1::oid", {target.relid})
                .text(0, 0) == "t");
    // The other ledger is looked at too, in case the persistence changed outside Isobar.
    const Result r = conn.query(
        "INSERT INTO " + now.table +
            " (relid, unit_key, rows) SELECT $1::oid, u.k, u.r FROM unnest($2::text[], $3::bigint[]) AS u(k, "
            "r) WHERE NOT EXISTS (SELECT 1 FROM " +
            otherLedger(now) +
            " o WHERE o.relid = $1::oid AND o.unit_key = u.k) ON CONFLICT DO NOTHING "
            "RETURNING unit_key",
        {target.relid, arrayLiteral(units, [](const auto& u) -> const std::string& { return u.first; }),
         arrayLiteral(units, [](const auto& u) { return std::to_string(u.second); })});
    std::set<std::string> claimed;
    for (int i = 0; i < r.rows(); ++i) {
        claimed.insert(r.text(i, 0));
    }
    return claimed;
}

bool claimUnit(Connection& conn, const LedgerTarget& target, const std::string& key, std::uint64_t rows) {
    holdLedgerForClaims(conn, target);
    return claimUnits(conn, target, {{key, rows}}).size() == 1;
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
