// SPDX-License-Identifier: GPL-3.0-or-later

// The resume ledger itself, against a real PostgreSQL: an earlier version's ledger is completed
// (and recognised as incomplete), and a unit of many hours of one point (valid_time to
// valid_until) stays inside one UTC month. Expected values are literals and the server's own
// catalogue, never what the code under test computes.

#include "TestCluster.h"
#include "TestUtil.h"
#include "copy/BinaryCopyBuffer.h"
#include "db/Ledger.h"
#include "db/TableAudit.h"
#include "db/TableMetadata.h"
#include "db/TableReadBack.h"
#include "domain/Grid.h"

#include <QDateTime>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <tuple>

using namespace isobar;

namespace {

constexpr const char* kLedgers[] = {"isobar.ledger", "isobar.ledger_unlogged"};

bool complete(Connection& conn) {
    return test::scalar(conn, "SELECT " + ledgerTablesCompleteSql()) == "t";
}

// A ledger's columns in their order, as the catalogue has them.
QString columnsOf(Connection& conn, const std::string& ledger) {
    return test::scalar(conn, "SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_attribute WHERE "
                              "attrelid = '" +
                                  ledger + "'::regclass AND attnum > 0 AND NOT attisdropped");
}

// Inserts a ranged row; returns the server's error, empty when it went in.
QString insertRange(Connection& conn, const std::string& key, const std::string& from,
                    const std::string& until) {
    try {
        conn.exec("INSERT INTO isobar.ledger (relid, unit_key, rows, valid_time, valid_until) VALUES "
                  "(4242, '" +
                  key + "', 1, '" + from + "', " + (until.empty() ? "NULL" : "'" + until + "'") + ")");
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

PgTimestamp at(const char* text) {
    return *parseTimestamp(text);
}

// One row of (time, location_id, latitude, longitude, v) on the binary COPY wire, as the format
// defines it (PostgreSQL's documentation of COPY BINARY): NaN as NULL.
void tupleOf(BinaryCopyBuffer& out, const char* time, std::int32_t location, float v) {
    out.reserve(64);
    out.beginTuple(5);
    out.addTimestamptz(at(time));
    out.addInt32(location);
    out.addFloat4(52.5F);
    out.addFloat4(13.25F);
    if (std::isnan(v)) {
        out.addNull();
    } else {
        out.addFloat4(v);
    }
}

// One cell (row 10, column 20) at `from`, through `until` when given.
UnitPlace cellPlace(const char* from, const char* until = nullptr) {
    UnitPlace p;
    p.time = at(from);
    if (until != nullptr) {
        p.until = at(until);
    }
    p.north = p.south = 10;
    p.west = p.east = 20;
    return p;
}

// A CDS time-series CSV of t2m at (52.5, 13.25), hourly through January 2024 but for the 11th.
QString januaryCsv() {
    QString text = "valid_time,t2m,latitude,longitude\n";
    for (QDateTime t(QDate(2024, 1, 1), QTime(0, 0), Qt::UTC); t.date().month() == 1; t = t.addSecs(3600)) {
        if (t.date().day() != 11) {
            text += t.toString("yyyy-MM-dd HH:mm:ss") + "," + QString::number(270.0 + t.time().hour() * 0.1) +
                    ",52.5,13.25\n";
        }
    }
    return text;
}

std::set<std::string> keysOf(const std::vector<UnitRecord>& records) {
    std::set<std::string> keys;
    for (const UnitRecord& r : records) {
        keys.insert(r.key);
    }
    return keys;
}

} // namespace

class TestLedger : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }
    void cleanupTestCase() { cluster_.reset(); }

    // A ledger of the previous version (no valid_until, so neither its index nor its CHECK) is
    // seen as incomplete, and completed: both ledgers again have the same columns in the same order
    // (rows move between them with SELECT *).
    void anEarlierLedgerIsCompleted() {
        Connection conn = cluster_->connect();
        ensureMetadataSchema(conn);
        QVERIFY(complete(conn));
        const QString columns = columnsOf(conn, kLedgers[0]);
        QVERIFY2(columns.endsWith(",columns,valid_until"), qPrintable(columns));
        QCOMPARE(columnsOf(conn, kLedgers[1]), columns);

        for (const char* ledger : kLedgers) {
            conn.exec(std::string("ALTER TABLE ") + ledger + " DROP COLUMN valid_until");
        }
        QCOMPARE(
            test::scalar(conn, "SELECT count(*) FROM pg_constraint WHERE conname LIKE '%range_in_month'"),
            QString("0"));
        QVERIFY(!complete(conn));
        ensureMetadataSchema(conn);
        QVERIFY(complete(conn));
        QCOMPARE(columnsOf(conn, kLedgers[0]), columns);
        QCOMPARE(columnsOf(conn, kLedgers[1]), columns);

        // Each piece is looked for: only the CHECK of one ledger missing, then only an index.
        conn.exec("ALTER TABLE isobar.ledger_unlogged DROP CONSTRAINT ledger_unlogged_range_in_month");
        QVERIFY(!complete(conn));
        ensureMetadataSchema(conn);
        QVERIFY(complete(conn));
        conn.exec("DROP INDEX isobar.ledger_range");
        QVERIFY(!complete(conn));
        ensureMetadataSchema(conn);
        QVERIFY(complete(conn));
    }

    // valid_until is the unit's last hour, in the month of its first (in UTC, whatever the
    // session's time zone), never before it; NULL is a unit of one time step.
    void aRangeStaysInItsMonth() {
        Connection conn = cluster_->connect();
        ensureMetadataSchema(conn);
        conn.exec("SET TIME ZONE 'Pacific/Auckland'"); // 13 hours ahead in January
        QCOMPARE(insertRange(conn, "january", "2024-01-01 00:00:00+00", "2024-01-31 23:00:00+00"), QString());
        QCOMPARE(insertRange(conn, "leap february", "2024-02-01 00:00:00+00", "2024-02-29 23:00:00+00"),
                 QString());
        QCOMPARE(insertRange(conn, "one hour", "2024-03-01 00:00:00+00", ""), QString());
        QCOMPARE(insertRange(conn, "same hour", "2024-03-02 00:00:00+00", "2024-03-02 00:00:00+00"),
                 QString());
        for (const auto& [key, from, until] :
             {std::tuple{"into february", "2024-01-31 00:00:00+00", "2024-02-01 00:00:00+00"},
              std::tuple{"backwards", "2024-01-10 00:00:00+00", "2024-01-09 23:00:00+00"},
              std::tuple{"a year on", "2023-01-01 00:00:00+00", "2024-01-01 00:00:00+00"}}) {
            const QString error = insertRange(conn, key, from, until);
            QVERIFY2(error.contains("ledger_range_in_month"), qPrintable(QString(key) + ": " + error));
        }
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM isobar.ledger WHERE relid = 4242"), QString("4"));
        conn.exec("DELETE FROM isobar.ledger WHERE relid = 4242");
    }

    // Units of many hours against units of one: they overlap where the hours and the cells meet,
    // contain where the hours and cells are inside, and are the same extent only with the same
    // last hour too.
    void placesOfManyHours() {
        const UnitPlace month = cellPlace("2024-01-01", "2024-01-31 23:00");
        const UnitPlace hour = cellPlace("2024-01-15 06:00");
        QVERIFY(month.overlaps(hour) && hour.overlaps(month));
        QVERIFY(month.contains(hour) && !hour.contains(month));
        QVERIFY(!month.sameExtent(cellPlace("2024-01-01")));
        QVERIFY(month.sameExtent(cellPlace("2024-01-01", "2024-01-31 23:00")));
        QCOMPARE(hour.last(), hour.time);
        QCOMPARE(month.last(), at("2024-01-31 23:00"));
        // Touching ends overlap; an hour after does not.
        QVERIFY(month.overlaps(cellPlace("2024-01-31 23:00", "2024-01-31 23:00")));
        QVERIFY(!month.overlaps(cellPlace("2024-02-01")));
        QVERIFY(cellPlace("2024-01-10", "2024-01-20").overlaps(cellPlace("2024-01-20", "2024-01-25")));
        QVERIFY(!cellPlace("2024-01-10", "2024-01-20").contains(cellPlace("2024-01-20", "2024-01-25")));
        // Another cell or level never.
        UnitPlace elsewhere = hour;
        elsewhere.west = elsewhere.east = 21;
        QVERIFY(!month.overlaps(elsewhere));
        UnitPlace aloft = hour;
        aloft.level = 500.0;
        QVERIFY(!month.overlaps(aloft));
    }

    // A unit's key says what its rows are: its hours (an ISO 8601 interval when many, the hour of
    // one exactly as before), the level and the rectangle's coordinates on the grid.
    void keysOfManyHours() {
        const GlobalGrid grid; // 0.25 degree: row 10 is latitude -87.5, column 20 longitude -174.75
        QCOMPARE(cellPlace("2024-01-15 06:00").key(grid),
                 std::string("2024-01-15T06:00:00Z lat -87.5..-87.5 lon -174.75..-174.75 on 0.25"));
        QCOMPARE(cellPlace("2024-01-15 06:00", "2024-01-15 06:00").key(grid),
                 cellPlace("2024-01-15 06:00").key(grid));
        UnitPlace month = cellPlace("2024-02-01", "2024-02-29 23:00");
        month.level = 850.0;
        QCOMPARE(month.key(grid), std::string("2024-02-01T00:00:00Z/2024-02-29T23:00:00Z 850 hPa lat "
                                              "-87.5..-87.5 lon -174.75..-174.75 on 0.25"));
    }

    // What a load of some hours may overlap: a unit of many hours is found from any span that
    // meets one of its hours (and only once), units of one step by their own; units without a
    // place always (they are given one before anything is compared).
    void recordedUnitsByTheHoursTheySpan() {
        Connection conn = cluster_->connect();
        ensureMetadataSchema(conn);
        const LedgerTarget target = LedgerTarget::of("4343", false);
        std::vector<UnitRecord> records(4);
        records[0].key = "range";
        records[0].place = cellPlace("2024-01-10", "2024-01-20 23:00");
        records[1].key = "jan 5";
        records[1].place = cellPlace("2024-01-05");
        records[2].key = "jan 25";
        records[2].place = cellPlace("2024-01-25");
        records[3].key = "unplaced"; // no place: an earlier version's
        for (UnitRecord& r : records) {
            r.rows = 1;
        }
        QCOMPARE(claimUnits(conn, target, records).claimed.size(), std::size_t{4});
        QCOMPARE(test::scalar(conn, "SELECT valid_until FROM isobar.ledger WHERE relid = 4343 AND unit_key = "
                                    "'range'"),
                 QString("2024-01-20 23:00:00+00"));

        const auto found = [&conn, &target](const std::vector<std::pair<const char*, const char*>>& spans) {
            std::vector<TimeSpan> s;
            s.reserve(spans.size());
            for (const auto& [from, until] : spans) {
                s.push_back(TimeSpan{at(from), at(until)});
            }
            std::vector<std::string> unplaced;
            const std::vector<UnitRecord> r = recordedUnitsAt(conn, target, s, &unplaced);
            if (unplaced != std::vector<std::string>{"unplaced"}) {
                return std::pair{std::set<std::string>{"unplaced missing"}, r};
            }
            return std::pair{keysOf(r), r};
        };
        using Keys = std::set<std::string>;
        const auto [inside, read] = found({{"2024-01-15 06:00", "2024-01-15 06:00"}});
        QCOMPARE(inside, Keys{"range"});
        QCOMPARE(read.front().place.until, std::optional<PgTimestamp>{at("2024-01-20 23:00")});
        QCOMPARE(found({{"2024-01-21", "2024-01-24 23:00"}}).first, Keys{});
        QCOMPARE(found({{"2024-01-01", "2024-01-09 23:00"}}).first, Keys{"jan 5"});
        QCOMPARE(found({{"2024-01-20 23:00", "2024-02-02"}}).first, (Keys{"jan 25", "range"}));
        QCOMPARE(found({{"2023-12-01", "2024-01-10"}}).first, (Keys{"jan 5", "range"}));
        const auto [twice, records2] = found({{"2024-01-11", "2024-01-12"}, {"2024-01-18", "2024-01-19"}});
        QCOMPARE(twice, Keys{"range"});
        QCOMPARE(records2.size(), std::size_t{1});
        conn.exec("DELETE FROM isobar.ledger WHERE relid = 4343");
    }

    // The rows of a unit of many hours are its hours at its cells, and no others.
    void rowsOfAPlaceOfManyHours() {
        Connection conn = cluster_->connect();
        const GlobalGrid grid; // 0.25 degree, 1440 longitudes
        conn.exec(
            "CREATE TEMP TABLE t AS SELECT h AS time, l AS location_id FROM generate_series('2024-01-31 "
            "00:00+00'::timestamptz, '2024-02-02 00:00+00', '1 hour') h, generate_series(1, 4000) l");
        UnitPlace p = cellPlace("2024-02-01 00:00", "2024-02-01 11:00");
        p.north = p.south = 0; // the first two cells of row 0: location_ids 1 and 2 (row * 1440 + column + 1)
        p.west = 0;
        p.east = 1;
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM t WHERE " + placeCondition(conn, p, grid, false)),
                 QString("24"));
        p.until.reset();
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM t WHERE " + placeCondition(conn, p, grid, false)),
                 QString("2"));
    }

    // Rows read back are compared byte for byte, place by place; a row of NULL values counts as
    // no row, and a row the table has beyond the expected ones, or twice, is a difference.
    void readBackComparesRowByRow() {
        Connection conn = cluster_->connect();
        const GlobalGrid grid;
        conn.exec(
            "CREATE TABLE back (time timestamptz NOT NULL, location_id integer, latitude real, longitude "
            "real, v real)");
        conn.exec("INSERT INTO back VALUES ('2024-02-01 00:00+00', 2, 52.5, 13.25, 1.5), ('2024-02-01 "
                  "01:00+00', 2, 52.5, 13.25, -0.25), ('2024-02-01 02:00+00', 2, 52.5, 13.25, NULL), "
                  "('2024-02-01 00:00+00', 3, 52.5, 13.25, 7)");
        const RowsTable table{"back", "(time, location_id, latitude, longitude, v)", false};
        UnitPlace hours = cellPlace("2024-02-01 00:00", "2024-02-01 02:00");
        hours.north = hours.south = 0; // location_id 2: row 0, column 1
        hours.west = hours.east = 1;
        UnitPlace other = cellPlace("2024-02-01 00:00");
        other.north = other.south = 0; // location_id 3
        other.west = other.east = 2;
        const auto holds = [&](const std::vector<std::vector<std::tuple<const char*, int, float>>>& rows) {
            std::vector<std::string> expected;
            for (const auto& place : rows) {
                BinaryCopyBuffer b(1024);
                for (const auto& [time, location, v] : place) {
                    tupleOf(b, time, location, v);
                }
                expected.emplace_back(b.data(), b.size());
            }
            const std::vector<bool> same = tableHolds(conn, table, grid, {hours, other}, expected);
            return QString("%1%2").arg(same[0] ? "=" : "x").arg(same[1] ? "=" : "x");
        };
        const float nan = std::numeric_limits<float>::quiet_NaN();
        // The table's rows; without the all-NULL hour (a load that skips all-missing hours).
        QCOMPARE(holds({{{"2024-02-01 00:00", 2, 1.5F},
                         {"2024-02-01 01:00", 2, -0.25F},
                         {"2024-02-01 02:00", 2, nan}},
                        {{"2024-02-01 00:00", 3, 7.0F}}}),
                 QString("=="));
        QCOMPARE(holds({{{"2024-02-01 00:00", 2, 1.5F}, {"2024-02-01 01:00", 2, -0.25F}},
                        {{"2024-02-01 00:00", 3, 7.0F}}}),
                 QString("=="));
        // Another value; a row the table lacks; a row it lacks a value for; one more than expected.
        QCOMPARE(holds({{{"2024-02-01 00:00", 2, 1.5F}, {"2024-02-01 01:00", 2, -0.5F}},
                        {{"2024-02-01 00:00", 3, 7.0F}}}),
                 QString("x="));
        QCOMPARE(holds({{{"2024-02-01 00:00", 2, 1.5F},
                         {"2024-02-01 01:00", 2, -0.25F},
                         {"2024-02-01 02:00", 2, 0.0F}},
                        {{"2024-02-01 00:00", 3, 7.0F}}}),
                 QString("x="));
        QCOMPARE(holds({{{"2024-02-01 00:00", 2, 1.5F}}, {{"2024-02-01 00:00", 3, 7.0F}}}), QString("x="));
        conn.exec("INSERT INTO back VALUES ('2024-02-01 00:00+00', 3, 52.5, 13.25, 7)");
        QCOMPARE(holds({{{"2024-02-01 00:00", 2, 1.5F}, {"2024-02-01 01:00", 2, -0.25F}},
                        {{"2024-02-01 00:00", 3, 7.0F}}}),
                 QString("=x"));
        conn.exec("DROP TABLE back");
    }

    // The audit accounts for units of many hours hour by hour: a point loaded hour by hour, its
    // ledger then rewritten as two units of many hours (as such units are recorded), is audited
    // as the same 720 hours with the 24 of the 11th missing; a unit whose rows are gone, a second
    // unit over some of the same hours and preliminary ones are found in them.
    void auditCountsTheHoursOfRanges() {
        const QString csv = cluster_->workDir() + "/january.csv";
        std::ofstream(csv.toStdString()) << januaryCsv().toStdString();
        const test::CliRun run = test::runCli({"load", "--dsn", QString::fromStdString(cluster_->conninfo()),
                                               "--table", "ranged", "--series-units", "hour", csv});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        Connection conn = cluster_->connect();
        const std::string relid = "'ranged'::regclass";
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM isobar.ledger WHERE relid = " + relid),
                 QString("720"));
        // Two units: the 1st to the 10th, the 12th to the 31st, each as the hours' rows said.
        for (const auto& [key, from, until] :
             {std::tuple{"first", "2024-01-01 00:00+00", "2024-01-10 23:00+00"},
              std::tuple{"second", "2024-01-12 00:00+00", "2024-01-31 23:00+00"}}) {
            conn.exec(std::string("INSERT INTO isobar.ledger SELECT relid, '") + key +
                      "', sum(rows), now(), min(valid_time), level, north, south, west, east, sparse, files, "
                      "bytes, files_print, NULL, NULL, expver, product, columns, max(valid_time) FROM "
                      "isobar.ledger WHERE relid = " +
                      relid + " AND valid_time BETWEEN '" + from + "' AND '" + until +
                      "' GROUP BY relid, level, north, south, west, east, sparse, files, bytes, files_print, "
                      "expver, product, columns");
        }
        conn.exec("DELETE FROM isobar.ledger WHERE relid = " + relid + " AND valid_until IS NULL");
        QCOMPARE(
            test::scalar(conn, "SELECT string_agg(rows::text, ',' ORDER BY valid_time) FROM isobar.ledger "
                               "WHERE relid = " +
                                   relid),
            QString("240,480"));

        AuditRequest request;
        request.table = TableName::parse("ranged");
        TableAudit a = auditTable(conn, request);
        QVERIFY2(a.duplicateKeys == 0 && a.overlappingUnits == 0 && !a.rowsDiffer() && a.era5tUnits == 0,
                 describeAudit(a).c_str());
        QCOMPARE(a.timeSteps, std::uint64_t{31 * 24 - 24});
        QCOMPARE(a.timeStep, std::string("1 h"));
        QCOMPARE(a.missingSteps, std::uint64_t{24});
        QCOMPARE(a.unitsCounted, std::uint64_t{2});
        QCOMPARE(a.unitMismatches, std::uint64_t{0});
        // A sample of the hours: 24 of them, each one row, inside the units too.
        request.exactRows = 0;
        const TableAudit sampled = auditTable(conn, request);
        QCOMPARE(sampled.rowsRead, std::uint64_t{24});
        request.exactRows = AuditRequest{}.exactRows;

        conn.exec("DELETE FROM ranged WHERE time BETWEEN '2024-01-20 00:00+00' AND '2024-01-20 04:00+00'");
        conn.exec("INSERT INTO isobar.ledger SELECT relid, 'copy', 120, now(), '2024-01-05 00:00+00', level, "
                  "north, south, west, east, sparse, 'copy.csv', bytes, NULL, NULL, NULL, expver, product, "
                  "columns, '2024-01-09 23:00+00' FROM isobar.ledger WHERE relid = " +
                  relid + " AND unit_key = 'first'");
        conn.exec("UPDATE isobar.ledger SET expver = '0005' WHERE relid = " + relid +
                  " AND unit_key = 'second'");
        a = auditTable(conn, request);
        QCOMPARE(a.unitMismatches, std::uint64_t{1});
        QVERIFY2(a.mismatchExamples.front().find("second: the ledger says 480 rows, the table holds 475") !=
                     std::string::npos,
                 a.mismatchExamples.front().c_str());
        QVERIFY(a.rowsDiffer());
        QCOMPARE(a.overlappingUnits, std::uint64_t{1});
        QVERIFY2(a.overlapExamples.front().find("in part") != std::string::npos,
                 a.overlapExamples.front().c_str());
        QVERIFY2(a.cleanupSql.find("'copy'") == std::string::npos, a.cleanupSql.c_str()); // not the same rows
        QCOMPARE(a.era5tUnits, std::uint64_t{1});
        QCOMPARE(a.era5tHours, std::uint64_t{20 * 24});
        QCOMPARE(a.era5tRange, std::string("2024-01-12 00:00:00+00 to 2024-01-31 23:00:00+00"));
        // The copy's hours hold the point twice in the ledger's eyes: no step has fewer cells.
        QCOMPARE(a.incompleteSteps, std::uint64_t{0});
    }

private:
    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestLedger)
#include "tst_ledger.moc"
