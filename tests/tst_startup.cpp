// SPDX-License-Identifier: GPL-3.0-or-later

// What a load does before its first row, against a real server: the connections it opens ahead
// while the table is prepared (named from their first moment, each taken once, a failed one left to
// its taker, none opened twice); its bookkeeping schema, completed where an older release left it
// short; a table's column record and comments, also in a table of another owner; a warehouse's
// ledger read by what the run loads, not whole.

#include "Fixtures.h"
#include "TestCluster.h"
#include "TestUtil.h"
#include "db/TableMetadata.h"
#include "db/WarmConnections.h"
#include "ingest/Loader.h"

#include <QtTest>

#include <chrono>
#include <string>
#include <thread>

using namespace isobar;
using test::waitFor;

class TestStartup : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        cluster_ = std::make_unique<test::TestCluster>();
        file_ = cluster_->workDir() + "/startup.nc";
        test::writeFixture(
            file_, test::classicFixture(test::range(10.0, 5.0, 0.25), test::range(20.0, 25.0, 0.25), 3, 2));
    }
    void cleanupTestCase() { cluster_.reset(); }

    // The name given at connect time is the session's from its first moment, and wins over one in
    // the connection string.
    void connectionIsNamedAtConnect() {
        Connection conn = Connection::open(cluster_->conninfo() + " application_name=theirs", "isobar test");
        QCOMPARE(
            test::scalar(conn, "SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()"),
            QString("isobar test"));
        Connection plain = Connection::open(cluster_->conninfo() + " application_name=theirs");
        QCOMPARE(test::scalar(plain, "SELECT current_setting('application_name')"), QString("theirs"));
    }

    // Each connection opened ahead is taken once, open and named; a name never opened, or taken
    // already, gives nothing; one that could not open gives nothing either (its taker connects
    // itself and meets the failure there), and nothing is thrown.
    void warmConnectionsAreTakenOnce() {
        const std::string conninfo = cluster_->conninfo();
        WarmConnections warm({{"isobar warm a",
                               [conninfo] {
                                   return Connection::open(conninfo, "isobar warm a");
                               }},
                              {"isobar warm b",
                               [conninfo] {
                                   return Connection::open(conninfo, "isobar warm b");
                               }},
                              {"isobar warm bad", [conninfo] {
                                   return Connection::open(conninfo + " dbname=no_such_database",
                                                           "isobar warm bad");
                               }}});
        std::unique_ptr<Connection> a = warm.take("isobar warm a");
        QVERIFY(a != nullptr);
        QCOMPARE(test::scalar(*a, "SELECT current_setting('application_name')"), QString("isobar warm a"));
        QVERIFY(warm.take("isobar warm a") == nullptr);
        QVERIFY(warm.take("isobar warm c") == nullptr);
        QVERIFY(warm.take("isobar warm bad") == nullptr);
        // b is open meanwhile, not taken yet.
        Connection watch = cluster_->connect();
        QVERIFY(waitFor([&] { return sessions(watch, "isobar warm b") == 1; }, std::chrono::seconds(10)));
    }

    // What was opened ahead and not taken is closed with the object.
    void untakenConnectionsAreClosed() {
        const std::string conninfo = cluster_->conninfo();
        Connection watch = cluster_->connect();
        {
            WarmConnections warm({{"isobar warm idle", [conninfo] {
                                       return Connection::open(conninfo, "isobar warm idle");
                                   }}});
            QVERIFY(
                waitFor([&] { return sessions(watch, "isobar warm idle") == 1; }, std::chrono::seconds(10)));
        }
        QVERIFY(waitFor([&] { return sessions(watch, "isobar warm idle") == 0; }, std::chrono::seconds(10)));
    }

    // A load opens no connection twice: the control connection, one per worker and the monitor's,
    // the workers' and the monitor's opened while the table is prepared and then used.
    void loadOpensEachConnectionOnce() {
        Connection watch = cluster_->connect();
        const std::uint64_t before = sessionsOpened(watch);
        LoadRequest request = loadRequest("once");
        request.workers = 3;
        const LoadSummary summary = runLoad(request, {}, sink_);
        QCOMPARE(static_cast<int>(summary.status), static_cast<int>(LoadStatus::Completed));
        QCOMPARE(summary.rows, std::uint64_t{3 * 21 * 21});
        // Every session of the load ends before runLoad returns; their counts reach the statistics
        // as each backend exits. 1 control + 3 workers + 1 monitor.
        QVERIFY(waitFor([&] { return sessionsOpened(watch) - before >= 5; }, std::chrono::seconds(10)));
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        QCOMPARE(sessionsOpened(watch) - before, std::uint64_t{5});
    }

    // The bookkeeping schema as an older release left it (isobar.table_grid without a column added
    // since) is completed before a load, its rows kept; a complete one is found in one query.
    void olderBookkeepingIsCompleted() {
        Connection conn = cluster_->connect();
        ensureMetadataSchema(conn);
        conn.exec("ALTER TABLE isobar.table_grid DROP COLUMN vertical");
        const std::string grids = test::scalar(conn, "SELECT count(*) FROM isobar.table_grid").toStdString();
        QVERIFY(grids != "0"); // the loads before left their records
        LoadRequest request = loadRequest("after_upgrade");
        const LoadSummary summary = runLoad(request, {}, sink_);
        QCOMPARE(static_cast<int>(summary.status), static_cast<int>(LoadStatus::Completed));
        QCOMPARE(test::scalar(conn, "SELECT string_agg(DISTINCT vertical, ',') FROM isobar.table_grid"),
                 QString("surface"));
        QCOMPARE(test::count(conn, "SELECT count(*) FROM isobar.table_grid"), std::stoull(grids) + 1);
    }

    // A table of another owner that this role may insert into: the rows load and the record of
    // its columns is written in the preparation, while its comments (the owner's to set) stay as
    // they were.
    void tableOfAnotherOwnerKeepsItsComments() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE not_mine (time timestamptz NOT NULL, location_id int, latitude real, "
                  "longitude real, temperature_2m real, zonal_wind_10m real, meridional_wind_10m real, "
                  "total_cloud_cover real, total_precipitation real, snowfall real)");
        conn.exec("COMMENT ON COLUMN not_mine.temperature_2m IS 'the owner''s words'");
        conn.exec("CREATE ROLE inserter LOGIN");
        conn.exec("GRANT SELECT, INSERT ON not_mine TO inserter");
        conn.exec("GRANT CREATE ON DATABASE " +
                  conn.quoteIdentifier(test::scalar(conn, "SELECT current_database()").toStdString()) +
                  " TO inserter");
        ensureMetadataSchema(conn);
        conn.exec("GRANT ALL ON SCHEMA isobar TO inserter");
        conn.exec("GRANT ALL ON ALL TABLES IN SCHEMA isobar TO inserter");
        LoadRequest request = loadRequest("not_mine");
        request.conninfo = cluster_->conninfo() + " user=inserter";
        const LoadSummary summary = runLoad(request, {}, sink_);
        QVERIFY2(summary.status == LoadStatus::Completed,
                 summary.error ? summary.error->message.c_str() : "");
        QCOMPARE(test::count(conn, "SELECT count(*) FROM not_mine"), std::uint64_t{3 * 21 * 21});
        QCOMPARE(test::scalar(conn,
                              "SELECT string_agg(variable, ',' ORDER BY position) FROM isobar.table_columns "
                              "WHERE relid = 'not_mine'::regclass"),
                 QString("t2m,u10,v10,tcc,tp,sf"));
        QCOMPARE(test::scalar(conn, "SELECT col_description('not_mine'::regclass, 5)"),
                 QString("the owner's words"));
        QCOMPARE(
            test::scalar(conn, "SELECT count(*) FROM pg_description WHERE objoid = 'not_mine'::regclass"),
            QString("1"));
    }

    // A table whose ledger holds more units than a run sums unasked (a warehouse's has millions):
    // the run finds its own units among them, leaves the others alone, and says it did not sum
    // them; --verify full sums them and counts the table. The records of a dropped table go.
    void warehouseLedgerIsReadByThePlan() {
        LoadRequest request = loadRequest("warehouse");
        LoadSummary summary = runLoad(request, {}, sink_);
        QCOMPARE(static_cast<int>(summary.status), static_cast<int>(LoadStatus::Completed));
        QCOMPARE(*summary.ledgerRows, std::uint64_t{kRows});
        Connection conn = cluster_->connect();
        const std::uint64_t others = kSummedLedgerUnits + 1;
        conn.exec("INSERT INTO isobar.ledger (relid, unit_key, rows) SELECT 'warehouse'::regclass, "
                  "'an earlier unit ' || g, 1000 FROM generate_series(1, " +
                  std::to_string(others) + ") g");
        conn.exec("CREATE TABLE dropped_since (x int)");
        const std::string gone = test::scalar(conn, "SELECT 'dropped_since'::regclass::oid").toStdString();
        conn.exec("DROP TABLE dropped_since");
        conn.exec("INSERT INTO isobar.ledger (relid, unit_key, rows) VALUES (" + gone + ", 'a', 1), (" +
                  gone + ", 'b', 1)");
        conn.exec("INSERT INTO isobar.paused_autovacuum (relid, table_name) VALUES (" + gone +
                  ", 'dropped_since')");

        summary = runLoad(request, {}, sink_);
        QCOMPARE(static_cast<int>(summary.status), static_cast<int>(LoadStatus::Completed));
        QCOMPARE(summary.rows, std::uint64_t{0});
        QCOMPARE(summary.unitsResumed, std::size_t{15}); // 3 steps x 5 bands
        QVERIFY(!summary.ledgerRows.has_value());
        QVERIFY(!summary.countedRows.has_value());
        QVERIFY2(summary.verification.find("the ledger holds over 10000 units of the table (not summed)") !=
                     std::string::npos,
                 summary.verification.c_str());
        QCOMPARE(test::count(conn, "SELECT count(*) FROM isobar.ledger WHERE relid = 'warehouse'::regclass"),
                 others + 15);
        for (const char* records : {"isobar.ledger", "isobar.paused_autovacuum"}) {
            QCOMPARE(
                test::count(conn, std::string("SELECT count(*) FROM ") + records + " WHERE relid = " + gone),
                std::uint64_t{0});
        }

        request.verification = Verification::Full;
        summary = runLoad(request, {}, sink_);
        QCOMPARE(static_cast<int>(summary.status), static_cast<int>(LoadStatus::Completed));
        QCOMPARE(*summary.ledgerRows, kRows + others * 1000);
        QCOMPARE(*summary.countedRows, std::uint64_t{kRows});

        // Over 10,000 units of next to no rows (a point's hours) still make a small table, which
        // auto sums and counts.
        conn.exec("UPDATE isobar.ledger SET rows = 0 WHERE unit_key LIKE 'an earlier unit %'");
        request.verification = Verification::Auto;
        summary = runLoad(request, {}, sink_);
        QCOMPARE(*summary.ledgerRows, std::uint64_t{kRows});
        QCOMPARE(*summary.countedRows, std::uint64_t{kRows});
    }

private:
    class Sink final : public LoadSink {};

    LoadRequest loadRequest(const char* table) const {
        LoadRequest request;
        request.conninfo = cluster_->conninfo();
        request.table = TableName::parse(table);
        request.files = {file_.toStdString()};
        request.workers = 2;
        request.bandRows = 5;
        return request;
    }

    static int sessions(Connection& conn, const std::string& name) {
        return static_cast<int>(test::count(
            conn, "SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + name + "'"));
    }

    // Sessions ever opened to the cluster's database, as its statistics have them now.
    static std::uint64_t sessionsOpened(Connection& conn) {
        conn.exec("SELECT pg_stat_clear_snapshot()");
        return test::count(conn, "SELECT sessions FROM pg_stat_database WHERE datname = current_database()");
    }

    static constexpr std::uint64_t kRows = 3 * 21 * 21; // the file's
    std::unique_ptr<test::TestCluster> cluster_;
    QString file_;
    Sink sink_;
};

QTEST_GUILESS_MAIN(TestStartup)
#include "tst_startup.moc"
