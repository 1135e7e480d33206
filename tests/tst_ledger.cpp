// SPDX-License-Identifier: GPL-3.0-or-later

// The resume ledger itself, against a real PostgreSQL: an earlier version's ledger is completed
// (and recognised as incomplete), and a unit of many hours of one point (valid_time to
// valid_until) stays inside one UTC month. Expected values are literals and the server's own
// catalogue, never what the code under test computes.

#include "TestCluster.h"
#include "TestUtil.h"
#include "db/Ledger.h"
#include "db/TableMetadata.h"
#include "domain/Grid.h"

#include <QtTest>

#include <set>

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
        QCOMPARE(claimUnits(conn, target, records).size(), std::size_t{4});
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

private:
    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestLedger)
#include "tst_ledger.moc"
