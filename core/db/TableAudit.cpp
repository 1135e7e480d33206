// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/TableAudit.h"

#include "db/Ledger.h"
#include "db/TableMetadata.h"
#include "db/TableType.h"
#include "util/Error.h"
#include "util/Format.h"

#include <algorithm>
#include <map>
#include <set>

namespace isobar {

namespace {

constexpr std::size_t kExamples = 10;

// Both ledgers' rows of one table, as one relation.
std::string ledgerRows(const std::string& relid) {
    return "(SELECT * FROM isobar.ledger WHERE relid = " + relid +
           " UNION ALL SELECT * FROM isobar.ledger_unlogged "
           "WHERE relid = " +
           relid + ")";
}

void keep(std::vector<std::string>& examples, std::string line) {
    if (examples.size() < kExamples) {
        examples.push_back(std::move(line));
    }
}

std::string hoursText(std::int64_t micros) {
    const std::int64_t hours = micros / kMicrosPerHour;
    if (hours * kMicrosPerHour == micros && hours % 24 == 0) {
        return std::to_string(hours / 24) + " d";
    }
    if (hours * kMicrosPerHour == micros) {
        return std::to_string(hours) + " h";
    }
    return std::to_string(micros / kMicrosPerSecond) + " s";
}

// A (time, level) of the ledger: the cells its units cover there.
struct Step {
    std::int64_t time;
    std::string level; // its text, empty without levels
    std::uint64_t cells;
};

// Every (time, level) the ledger's units cover, in order: units of one time step grouped by the
// server, units of many hours (hourly, inside one month) swept here, each hour of each adding its
// cells, so that a point's 40 years count as 350,640 hours, not as 480 units.
std::vector<Step> ledgerSteps(Connection& conn, const std::string& ledger) {
    const std::string cells =
        "sum((north - south + 1)::bigint * (east - west + 1)) FILTER (WHERE NOT sparse)";
    const Result single = conn.query(
        "SELECT (extract(epoch FROM valid_time) * 1000000)::bigint - 946684800000000, coalesce(level::text, "
        "''), " +
        cells + " FROM " + ledger + " l WHERE valid_time IS NOT NULL AND valid_until IS NULL GROUP BY 1, 2");
    std::map<std::pair<std::int64_t, std::string>, std::uint64_t> at;
    for (int i = 0; i < single.rows(); ++i) {
        at[{single.integer(i, 0), single.text(i, 1)}] +=
            static_cast<std::uint64_t>(single.isNull(i, 2) ? 0 : single.integer(i, 2));
    }
    // Each range as +cells at its first hour and -cells an hour after its last, per level.
    const Result ranged = conn.query(
        "SELECT (extract(epoch FROM valid_time) * 1000000)::bigint - 946684800000000, (extract(epoch FROM "
        "valid_until) * 1000000)::bigint - 946684800000000 + 3600000000, coalesce(level::text, ''), " +
        cells + " FROM " + ledger + " l WHERE valid_until IS NOT NULL GROUP BY 1, 2, 3");
    // Per level and time: the change in cells covered and in units open (a unit of sparse places
    // covers no cells of the rectangle, but its hours are still the ledger's).
    std::map<std::string, std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>>> changes;
    for (int i = 0; i < ranged.rows(); ++i) {
        const std::int64_t n = ranged.isNull(i, 3) ? 0 : ranged.integer(i, 3);
        auto& c = changes[ranged.text(i, 2)];
        c[ranged.integer(i, 0)].first += n;
        ++c[ranged.integer(i, 0)].second;
        c[ranged.integer(i, 1)].first -= n;
        --c[ranged.integer(i, 1)].second;
    }
    for (const auto& [level, c] : changes) {
        std::int64_t cover = 0;
        std::int64_t open = 0;
        for (auto it = c.begin(); it != c.end(); ++it) {
            cover += it->second.first;
            open += it->second.second;
            const auto next = std::next(it);
            for (std::int64_t t = it->first; open > 0 && next != c.end() && t < next->first;
                 t += kMicrosPerHour) {
                at[{t, level}] += static_cast<std::uint64_t>(cover);
            }
        }
    }
    std::vector<Step> steps;
    steps.reserve(at.size());
    for (const auto& [key, n] : at) {
        steps.push_back(Step{key.first, key.second, n});
    }
    return steps;
}

// Holes and incomplete steps, from the ledger's steps.
void judgeTimes(const std::vector<Step>& steps, TableAudit& a) {
    std::vector<std::int64_t> times;
    std::map<std::int64_t, std::uint64_t> levelsAt;
    std::map<std::uint64_t, std::uint64_t> cellsSeen; // cells of a (time, level) -> how often
    for (const Step& s : steps) {
        if (times.empty() || times.back() != s.time) {
            times.push_back(s.time);
        }
        ++levelsAt[s.time];
        ++cellsSeen[s.cells];
    }
    a.timeSteps = times.size();
    // Fewer rows than most steps hold: a band missing (a load stopped with no rerun, a unit deleted).
    if (!cellsSeen.empty()) {
        const auto usual =
            std::max_element(cellsSeen.begin(), cellsSeen.end(), [](const auto& x, const auto& y) {
                return x.second < y.second;
            })->first;
        for (const Step& s : steps) {
            if (s.cells < usual && s.cells > 0) {
                ++a.incompleteSteps;
                keep(a.incompleteExamples, formatTimestamp(PgTimestamp{s.time}) +
                                               (s.level.empty() ? "" : " at " + s.level + " hPa") + ": " +
                                               formatThousands(s.cells) + " of the usual " +
                                               formatThousands(usual) + " grid points");
            }
        }
    }
    std::map<std::uint64_t, std::uint64_t> levelCounts;
    for (const auto& [t, n] : levelsAt) {
        ++levelCounts[n];
    }
    if (levelCounts.size() > 1) {
        const auto usual =
            std::max_element(levelCounts.begin(), levelCounts.end(), [](const auto& x, const auto& y) {
                return x.second < y.second;
            })->first;
        for (const auto& [t, n] : levelsAt) {
            if (n < usual) {
                ++a.incompleteSteps;
                keep(a.incompleteExamples, formatTimestamp(PgTimestamp{t}) + ": " + std::to_string(n) +
                                               " of the usual " + std::to_string(usual) + " pressure levels");
            }
        }
    }
    // Holes: only where the times are evenly spaced (hourly, 6-hourly, daily ...): monthly means
    // and chosen hours have no one step, and a gap there is not a hole.
    if (times.size() < 3) {
        return;
    }
    std::map<std::int64_t, std::uint64_t> gaps;
    for (std::size_t i = 1; i < times.size(); ++i) {
        ++gaps[times[i] - times[i - 1]];
    }
    const std::int64_t step = std::max_element(gaps.begin(), gaps.end(), [](const auto& x, const auto& y) {
                                  return x.second < y.second;
                              })->first;
    for (const auto& [gap, n] : gaps) {
        if (gap % step != 0) {
            return; // not evenly spaced
        }
    }
    a.timeStep = hoursText(step);
    for (std::size_t i = 1; i < times.size(); ++i) {
        const std::int64_t gap = times[i] - times[i - 1];
        if (gap > step) {
            const auto missing = static_cast<std::uint64_t>(gap / step - 1);
            a.missingSteps += missing;
            keep(a.missingRanges,
                 formatTimestamp(PgTimestamp{times[i - 1] + step}) +
                     (missing > 1 ? " to " + formatTimestamp(PgTimestamp{times[i] - step}) : "") + " (" +
                     std::to_string(missing) + " step(s))");
        }
    }
}

} // namespace

TableAudit auditTable(Connection& conn, const AuditRequest& request) {
    TableAudit a;
    a.table = request.table.display();
    conn.exec("SET TimeZone = 'UTC'"); // the times it reads back and prints, whatever the role's zone
    const std::string quoted = request.table.quoted(conn);
    const Result oid = conn.query("SELECT to_regclass($1)::oid", {quoted});
    if (oid.isNull(0, 0)) {
        throw Error("table " + a.table + " does not exist");
    }
    const std::string relid = oid.text(0, 0) + "::oid";
    const std::optional<TableLayout> layout = tableLayout(conn, request.table);
    if (!layout) {
        throw Error("table " + a.table + " is not a weather table (it has no time and location_id columns)");
    }
    const bool levels = layout->vertical == Vertical::PressureLevels;
    const std::string key = std::string("time, ") + (levels ? "pressure_level, " : "") + "location_id";
    ensureMetadataSchema(conn);
    const Result grid = conn.query("SELECT grid_step FROM isobar.table_grid WHERE relid = " + relid);
    const GlobalGrid g = grid.rows() > 0 ? GlobalGrid::withSpacing(std::stod(grid.text(0, 0))) : GlobalGrid();
    const LedgerTarget target = ledgerFor(conn, request.table);
    migrateLegacyUnits(conn, target, g);
    const std::string ledger = ledgerRows(relid);

    const Result totals =
        conn.query("SELECT count(*), coalesce(sum(rows), 0), count(*) FILTER (WHERE valid_time IS "
                   "NULL) FROM " +
                   ledger + " l");
    a.ledgerUnits = static_cast<std::uint64_t>(totals.integer(0, 0));
    a.ledgerRows = static_cast<std::uint64_t>(totals.integer(0, 1));
    a.unplacedUnits = static_cast<std::uint64_t>(totals.integer(0, 2));

    // Which rows are read: all of a table up to exactRows, else the rows of sampled time steps
    // (each found through the time index or the partitions).
    const double estimate = std::stod(conn.query("SELECT coalesce(sum(greatest(c.reltuples, 0)), 0) FROM "
                                                 "pg_class c WHERE c.oid IN (SELECT relid "
                                                 "FROM pg_partition_tree($1::regclass) UNION SELECT inhrelid "
                                                 "FROM pg_inherits WHERE inhparent = "
                                                 "$1::regclass UNION SELECT $1::regclass)",
                                                 {quoted})
                                          .text(0, 0));
    const std::vector<Step> steps = ledgerSteps(conn, ledger);
    const bool exact = request.full || std::max<double>(estimate, static_cast<double>(a.ledgerRows)) <=
                                           static_cast<double>(request.exactRows);
    std::string where;
    if (!exact) {
        a.tableRows = static_cast<std::uint64_t>(estimate);
        a.rowsEstimated = true;
        // Every n-th of the ledger's distinct times (those inside units of many hours included).
        std::vector<std::int64_t> times;
        for (const Step& st : steps) {
            if (times.empty() || times.back() != st.time) {
                times.push_back(st.time);
            }
        }
        const std::size_t want = std::max<std::size_t>(1, request.sampleTimes);
        const std::size_t every = std::max<std::size_t>(1, times.size() / want);
        std::string list;
        std::size_t sampled = 0;
        for (std::size_t k = 0; k < times.size() && sampled < want; k += every, ++sampled) {
            list += (list.empty() ? "" : ", ") + conn.quoteLiteral(formatTimestamp(PgTimestamp{times[k]}));
        }
        where = list.empty() ? " WHERE false" : " WHERE time IN (" + list + ")";
        a.method = std::to_string(sampled) + " time steps spread over the table";
    }

    // The rows read, in one pass: their keys held more than once, their count, and each value
    // column's values (none: a column NULL throughout).
    std::string counts;
    std::string sums;
    for (std::size_t c = 0; c < layout->columns.size(); ++c) {
        counts += ", count(" + conn.quoteIdentifier(layout->columns[c].column) + ") AS c" + std::to_string(c);
        sums += ", coalesce(sum(c" + std::to_string(c) + "), 0)";
    }
    const Result read =
        conn.query("SELECT count(*) FILTER (WHERE n > 1), coalesce(sum(n - 1) FILTER (WHERE n > 1), "
                   "0), coalesce(sum(n), 0)" +
                   sums + " FROM (SELECT count(*) AS n" + counts + " FROM " + quoted + where + " GROUP BY " +
                   key + ") d");
    a.duplicateKeys = static_cast<std::uint64_t>(read.integer(0, 0));
    a.extraRows = static_cast<std::uint64_t>(read.integer(0, 1));
    a.rowsRead = static_cast<std::uint64_t>(read.integer(0, 2));
    for (std::size_t c = 0; c < layout->columns.size() && a.rowsRead > 0; ++c) {
        if (read.integer(0, static_cast<int>(c) + 3) == 0) {
            a.nullColumns.push_back(layout->columns[c].column);
        }
    }
    if (exact) {
        a.tableRows = a.rowsRead;
        a.method = "every row (" + formatThousands(a.tableRows) + ")";
    } else {
        a.method += " (" + formatThousands(a.rowsRead) + " rows) of about " + formatThousands(a.tableRows) +
                    " (--full reads every row)";
        if (timeIndexes(conn, request.table).empty() &&
            conn.query("SELECT count(*) FROM pg_partition_tree($1::regclass)", {quoted}).integer(0, 0) <= 1) {
            a.method +=
                "; the table has no index on time and no partitions, so each of the audit's two reads of "
                "its rows scans all of it";
        }
    }
    std::set<std::string> dupTimes;
    if (a.duplicateKeys > 0) {
        const Result ex =
            conn.query("SELECT time::text, " + std::string(levels ? "pressure_level::text" : "''") +
                       ", location_id, count(*) FROM " + quoted + where + " GROUP BY " + key +
                       " HAVING count(*) > 1 ORDER BY " + key + " LIMIT 1000");
        for (int i = 0; i < ex.rows(); ++i) {
            dupTimes.insert(ex.text(i, 0));
            keep(a.duplicateExamples, ex.text(i, 0) + (levels ? " " + ex.text(i, 1) + " hPa" : "") +
                                          " location_id " + ex.text(i, 2) + ": " + ex.text(i, 3) + " rows");
        }
    }

    // Units of the ledger that claim the same rows: pairs that start at the same time (every unit: a
    // join on time through the index), and pairs of which one starts inside the other's hours
    // (which only a unit of many hours has). Any two units whose hours meet are one or the other.
    const std::string meet =
        " AND a.level IS NOT DISTINCT FROM b.level AND a.south <= b.north AND b.south <= "
        "a.north AND a.west <= b.east AND b.west <= a.east";
    const std::string pairFields =
        "SELECT a.unit_key AS ak, a.files AS af, a.committed_at AS ac, a.valid_time AS at, b.unit_key AS bk, "
        "b.files AS bf, b.committed_at AS bc, (a.south = b.south AND a.north = b.north AND a.west = b.west "
        "AND "
        "a.east = b.east AND a.valid_until IS NOT DISTINCT FROM b.valid_until) AS same FROM " +
        ledger + " a JOIN " + ledger + " b ON ";
    const std::string overlapPairs =
        " FROM (" + pairFields + "a.valid_time = b.valid_time AND a.unit_key < b.unit_key" + meet +
        " UNION ALL " + pairFields + "b.valid_time > a.valid_time AND b.valid_time <= a.valid_until" + meet +
        ") p";
    a.overlappingUnits =
        static_cast<std::uint64_t>(conn.query("SELECT count(*)" + overlapPairs).integer(0, 0));
    std::vector<std::string> laterUnits;
    if (a.overlappingUnits > 0) {
        const Result ex = conn.query("SELECT ak, coalesce(af, 'an earlier version''s load'), ac::text, bk, "
                                     "coalesce(bf, 'an earlier version''s load'), bc::text, at::text, same, "
                                     "ac > bc" +
                                     overlapPairs + " ORDER BY at LIMIT 1000");
        for (int i = 0; i < ex.rows(); ++i) {
            dupTimes.insert(ex.text(i, 6));
            keep(a.overlapExamples, ex.text(i, 0) + " (" + ex.text(i, 1) + ", " + ex.text(i, 2) + ") and " +
                                        ex.text(i, 3) + " (" + ex.text(i, 4) + ", " + ex.text(i, 5) + ")" +
                                        (ex.text(i, 7) == "t" ? "" : ", in part"));
            if (ex.text(i, 7) == "t") { // the same rows twice: the later unit's ledger row goes
                laterUnits.push_back(ex.text(i, ex.text(i, 8) == "t" ? 0 : 3));
            }
        }
    }

    judgeTimes(steps, a);

    const Result era5t = conn.query(
        "SELECT count(*), (SELECT count(DISTINCT h) FROM " + ledger +
        " e, generate_series(e.valid_time, coalesce(e.valid_until, e.valid_time), '1 hour') h WHERE "
        "e.expver IS NOT NULL AND e.expver !~ '^0*1$'), coalesce(min(valid_time)::text, ''), "
        "coalesce(max(coalesce(valid_until, valid_time))::text, ''), coalesce(string_agg(DISTINCT "
        "files, '; '), '') FROM " +
        ledger + " l WHERE expver IS NOT NULL AND expver !~ '^0*1$'");
    a.era5tUnits = static_cast<std::uint64_t>(era5t.integer(0, 0));
    a.era5tHours = static_cast<std::uint64_t>(era5t.integer(0, 1));
    if (a.era5tUnits > 0) {
        a.era5tRange = era5t.text(0, 2) + " to " + era5t.text(0, 3);
        a.era5tFiles.push_back(era5t.text(0, 4));
    }

    // Ledger rows against the table's rows, unit by unit (a sample of the units of a large ledger).
    const Result units =
        conn.query("SELECT unit_key, rows, valid_time::text, level, north, south, west, "
                   "east, coalesce(valid_until, valid_time)::text FROM (SELECT l.*, row_number() OVER "
                   "(ORDER BY valid_time, unit_key) AS k, count(*) OVER () AS n FROM " +
                       ledger +
                       " l WHERE valid_time IS NOT NULL AND NOT sparse) s WHERE (k - 1) % "
                       "greatest(1, n / $1::bigint) = 0 "
                       "LIMIT $1::bigint",
                   {std::to_string(std::max<std::size_t>(1, request.sampleUnits))});
    // Counted in one pass (a join on time): a table without an index on time is read once, not once a unit.
    const std::int64_t n = g.longitudes();
    std::string values;
    for (int i = 0; i < units.rows(); ++i) {
        const std::int64_t north = units.integer(i, 4);
        const std::int64_t south = units.integer(i, 5);
        const std::int64_t west = units.integer(i, 6);
        const std::int64_t east = units.integer(i, 7);
        values += (values.empty() ? "(" : ", (") + std::to_string(i) + ", " +
                  conn.quoteLiteral(units.text(i, 2)) + "::timestamptz, " +
                  conn.quoteLiteral(units.text(i, 8)) + "::timestamptz, " +
                  (units.isNull(i, 3) ? std::string("NULL") : units.text(i, 3)) + "::float4, " +
                  std::to_string(south * n + west + 1) + ", " + std::to_string(north * n + east + 1) + ", " +
                  std::to_string(west) + ", " + std::to_string(east) + ")";
    }
    if (!values.empty()) {
        const Result counted =
            conn.query("SELECT u.i, count(t.location_id) FROM (VALUES " + values +
                       ") AS u(i, tm, tu, lv, lo, hi, w, e) LEFT JOIN " + quoted +
                       " t ON t.time BETWEEN u.tm AND u.tu" + (levels ? " AND t.pressure_level = u.lv" : "") +
                       " AND t.location_id BETWEEN u.lo AND u.hi AND (t.location_id - 1) % " +
                       std::to_string(n) + " BETWEEN u.w AND u.e GROUP BY u.i ORDER BY u.i");
        for (int k = 0; k < counted.rows(); ++k) {
            const int i = static_cast<int>(counted.integer(k, 0));
            const auto rows = static_cast<std::uint64_t>(counted.integer(k, 1));
            const auto recorded = static_cast<std::uint64_t>(units.integer(i, 1));
            ++a.unitsCounted;
            if (rows != recorded) {
                ++a.unitMismatches;
                keep(a.mismatchExamples, units.text(i, 0) + ": the ledger says " + formatThousands(recorded) +
                                             " rows, the table holds " + formatThousands(rows));
            }
        }
    }

    // What removes the duplicates: every row beyond the first of its key (the partition's tableoid
    // with ctid names a row in a partitioned table or a hypertable), then the later ledger row of
    // each pair of units that hold the same rows.
    if (a.duplicateKeys > 0 || a.overlappingUnits > 0) {
        std::string times;
        for (const std::string& t : dupTimes) {
            times += (times.empty() ? "" : ", ") + conn.quoteLiteral(t);
        }
        const std::string within =
            dupTimes.empty() || dupTimes.size() >= 1000 ? "" : " WHERE time IN (" + times + ")";
        a.cleanupSql =
            "BEGIN;\n-- every row beyond the first of its (" + key + ")\nDELETE FROM " + quoted +
            " WHERE (tableoid, ctid) IN (SELECT tableoid, ctid FROM (SELECT tableoid, ctid, row_number() "
            "OVER (PARTITION BY " +
            key + " ORDER BY tableoid, ctid) AS n FROM " + quoted + within + ") d WHERE n > 1);\n";
        if (!laterUnits.empty()) {
            std::string keys;
            for (const std::string& k : laterUnits) {
                keys += (keys.empty() ? "" : ", ") + conn.quoteLiteral(k);
            }
            a.cleanupSql +=
                "-- the later of each pair of ledger units that hold the same rows\nDELETE FROM " +
                target.table + " WHERE relid = " + oid.text(0, 0) + " AND unit_key IN (" + keys + ");\n";
        }
        a.cleanupSql += "COMMIT;";
    }
    return a;
}

std::string describeAudit(const TableAudit& a) {
    std::string out = "audit of " + a.table + ": " + (a.clean() ? "nothing found" : "problems found") + "\n";
    out += "  read: " + a.method + "; the ledger: " + formatThousands(a.ledgerUnits) + " unit(s), " +
           formatThousands(a.ledgerRows) + " rows; the table: " + (a.rowsEstimated ? "about " : "") +
           formatThousands(a.tableRows) + " rows\n";
    const auto section = [&out](const std::string& title, bool ok, const std::string& detail,
                                const std::vector<std::string>& examples) {
        out += std::string(ok ? "  ok       " : "  PROBLEM  ") + title +
               (detail.empty() ? "" : ": " + detail) + "\n";
        for (const std::string& e : examples) {
            out += "             " + e + "\n";
        }
    };
    section("duplicate keys", a.duplicateKeys == 0,
            a.duplicateKeys == 0 ? "none in the rows read"
                                 : formatThousands(a.duplicateKeys) + " key(s) more than once, " +
                                       formatThousands(a.extraRows) + " row(s) too many in the rows read",
            a.duplicateExamples);
    section("units that hold the same rows", a.overlappingUnits == 0,
            a.overlappingUnits == 0 ? "none in the ledger"
                                    : formatThousands(a.overlappingUnits) + " pair(s) of ledger units",
            a.overlapExamples);
    section("holes", a.missingSteps == 0 && a.incompleteSteps == 0,
            (a.timeSteps < 3 ? formatThousands(a.timeSteps) + " time step(s)"
             : a.timeStep.empty()
                 ? formatThousands(a.timeSteps) + " time step(s), not evenly spaced: gaps not judged"
                 : formatThousands(a.timeSteps) + " time step(s) " + a.timeStep + " apart, " +
                       formatThousands(a.missingSteps) + " missing") +
                (a.incompleteSteps > 0
                     ? ", " + formatThousands(a.incompleteSteps) + " with fewer rows than most"
                     : ""),
            [&a] {
                std::vector<std::string> all = a.missingRanges;
                all.insert(all.end(), a.incompleteExamples.begin(), a.incompleteExamples.end());
                return all;
            }());
    section("ERA5T", a.era5tUnits == 0,
            a.era5tUnits == 0 ? "no unit is preliminary"
                              : formatThousands(a.era5tUnits) + " unit(s) in " +
                                    formatThousands(a.era5tHours) + " time step(s) still preliminary, " +
                                    a.era5tRange + " (loading final ERA5 for them replaces them)",
            a.era5tFiles);
    section("ledger against the table", a.unitMismatches == 0 && !a.rowsDiffer(),
            (a.rowsDiffer()
                 ? "the table holds " + formatThousands(a.tableRows) + " rows, its ledger accounts for " +
                       formatThousands(a.ledgerRows) + " (rows loaded by other means, or lost); "
                 : std::string()) +
                formatThousands(a.unitsCounted) + " unit(s) counted" +
                (a.unitMismatches > 0 ? ", " + formatThousands(a.unitMismatches) + " differ"
                                      : ", each as recorded") +
                (a.unplacedUnits > 0
                     ? "; " + formatThousands(a.unplacedUnits) + " ledger row(s) without a place"
                     : ""),
            a.mismatchExamples);
    std::string nulls;
    for (const std::string& c : a.nullColumns) {
        nulls += (nulls.empty() ? "" : ", ") + c;
    }
    section("columns", a.nullColumns.empty(),
            a.nullColumns.empty() ? "every value column has values" : "NULL in every row read: " + nulls, {});
    if (!a.cleanupSql.empty()) {
        out += "\nSQL that removes the duplicates (review it; Isobar never runs it):\n" + a.cleanupSql + "\n";
    }
    return out;
}

} // namespace isobar
