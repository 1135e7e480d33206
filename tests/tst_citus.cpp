// SPDX-License-Identifier: GPL-3.0-or-later

// Citus: a coordinator and two worker nodes made by the test. A distributed load is exact and keeps
// its connections to the nodes between units; a worker node stopped and started again mid-load is
// retried to an exact table; a node without room for the load's connections is refused before
// anything is created. Which failures are retried is decided from the error's SQLSTATE and text.

#include "TestCluster.h"
#include "TestUtil.h"
#include "db/CitusCluster.h"
#include "db/TableType.h"
#include "db/TransientError.h"

#include <QFile>
#include <QtTest>

#include <array>
#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>

using namespace isobar;
using test::CliRun;
using test::runCli;

namespace {

std::filesystem::path serverLibDir() {
    return LocalCluster::findServerBinDir().parent_path() / "lib";
}

// Citus first: it must be the first preloaded library; TimescaleDB stays loadable when installed.
LocalClusterOptions citusNode() {
    LocalClusterOptions options;
    std::error_code ec;
    const bool timescale = std::filesystem::exists(serverLibDir() / "timescaledb.so", ec);
    options.settings.emplace("shared_preload_libraries", timescale ? "'citus,timescaledb'" : "'citus'");
    // Few shards keep the nodes' connections within the test clusters' max_connections (40):
    // a COPY opens one per shard on each node.
    options.settings.emplace("citus.shard_count", "8");
    return options;
}

// count(*) and a digest of every row, in one order, to compare two tables.
QString digest(Connection& conn, const std::string& table) {
    return test::scalar(conn,
                        "SELECT count(*) || '|' || md5(string_agg(t::text, ',' ORDER BY time, location_id)) "
                        "FROM " +
                            table + " t");
}

// Records the load's events; `onCommit` runs (serialized with the other events) at each
// committed unit.
class CitusSink final : public LoadSink {
public:
    void warning(const std::string& w) override { warnings.push_back(w); }
    void unitCommitted(const UnitEvent& e) override {
        ++committed;
        if (onCommit) {
            onCommit(e);
        }
    }
    std::function<void(const UnitEvent&)> onCommit;
    std::vector<std::string> warnings;
    int committed = 0;
};

QString joined(const std::vector<std::string>& lines) {
    QString all;
    for (const auto& l : lines) {
        all += QString::fromStdString(l) + "\n";
    }
    return all;
}

} // namespace

// The server tests need Citus installed for the test servers' PostgreSQL (CI has it not).
#define SKIP_WITHOUT_CITUS()                                                                                 \
    do {                                                                                                     \
        if (!coordinator_) {                                                                                 \
            QSKIP(qPrintable("Citus is not installed for this PostgreSQL: no citus.so in " +                 \
                             QString::fromStdString(serverLibDir().string())));                              \
        }                                                                                                    \
    } while (false)

class TestCitus : public QObject {
    Q_OBJECT

private slots:
    // Lost or restarting worker nodes are retried; a disk that failed, a full disk or bad rows
    // are not, wherever they happened.
    void transientFailures_data() {
        QTest::addColumn<QString>("sqlState");
        QTest::addColumn<QString>("message");
        QTest::addColumn<bool>("transient");
        QTest::newRow("lost connection") << "08006"
                                         << "server closed the connection unexpectedly" << true;
        QTest::newRow("node connection wrapped")
            << "08006"
            << "connection to the remote node postgres@/tmp/w1:5432 failed with the following error: "
               "FATAL:  the database system is starting up"
            << true;
        QTest::newRow("admin shutdown") << "57P01"
                                        << "terminating connection due to administrator command" << true;
        QTest::newRow("COPY to a lost shard")
            << "58030"
            << "COPY to isobar failed: failed to COPY to shard 102008 on /tmp/w1:5432; failed to send 86 "
               "bytes"
            << true;
        QTest::newRow("COPY end on a lost node")
            << "58030"
            << "failed to complete COPY on /tmp/w2:5432; server closed the connection unexpectedly" << true;
        QTest::newRow("essential connection") << "XX000"
                                              << "failure on connection marked as essential: w1:5432" << true;
        QTest::newRow("prepare lost")
            << "XX000"
            << "failed to prepare transaction 'citus_0_123_4_5' on host w1:5432" << true;
        QTest::newRow("node shut down, relayed")
            << "XX000"
            << "terminating connection due to immediate shutdown command" << true;
        QTest::newRow("local disk I/O error")
            << "58030"
            << "could not write to file \"base/16384/t3_1234\": Input/output error" << false;
        QTest::newRow("node's disk I/O error, relayed")
            << "58030"
            << "could not extend file \"base/16384/102008\": Input/output error; context: while executing "
               "command on /tmp/w1:5432"
            << false;
        QTest::newRow("disk full") << "53100"
                                   << "could not extend file: No space left on device" << false;
        QTest::newRow("node's disk full, relayed")
            << "53100"
            << "could not extend file: No space left on device; context: while executing command on w1"
            << false;
        QTest::newRow("bad rows") << "22P04"
                                  << "row field count is 3, expected 10" << false;
        QTest::newRow("internal error") << "XX000"
                                        << "cache lookup failed for relation 1234" << false;
        QTest::newRow("constraint") << "23514"
                                    << "failure on connection marked as essential" << false;
    }
    void transientFailures() {
        QFETCH(QString, sqlState);
        QFETCH(QString, message);
        QFETCH(bool, transient);
        QCOMPARE(isTransient(sqlState.toStdString(), message.toStdString()), transient);
    }

    void initTestCase() {
        std::error_code ec;
        if (!std::filesystem::exists(serverLibDir() / "citus.so", ec)) {
            return; // the server tests skip, saying why
        }
        coordinator_ = std::make_unique<test::TestCluster>(citusNode());
        for (auto& w : workers_) {
            w = std::make_unique<test::TestCluster>(citusNode());
            Connection conn = w->connect();
            conn.exec("CREATE EXTENSION citus");
        }
        Connection conn = coordinator_->connect();
        conn.exec("CREATE EXTENSION citus");
        conn.query(
            "SELECT citus_set_coordinator_host($1, $2)",
            {coordinator_->cluster().socketDir().string(), std::to_string(coordinator_->cluster().port())});
        for (auto& w : workers_) {
            conn.query("SELECT citus_add_node($1, $2)",
                       {w->cluster().socketDir().string(), std::to_string(w->cluster().port())});
        }
        // A day over a small region, loaded once into a regular table on the coordinator: what
        // every distributed load must hold, row for row.
        file_ = coordinator_->workDir() + "/citus.nc";
        const CliRun sample = runCli({"synth", "--out", file_, "--hours", "24", "--region", "10,0,0,20"});
        QVERIFY2(sample.exitCode == 0, qPrintable(sample.err));
        LoadRequest request = requestFor("reference");
        request.tableOptions.type = TableType::Regular;
        test::RecordingSink sink;
        const LoadSummary reference = runLoad(request, {}, sink);
        QVERIFY2(reference.status == LoadStatus::Completed,
                 reference.error ? reference.error->message.c_str() : "not completed");
        reference_ = digest(conn, "reference");
        QVERIFY(reference_.startsWith(QString::number(reference.rows) + "|"));
    }
    void cleanupTestCase() {
        for (auto& w : workers_) {
            w.reset();
        }
        coordinator_.reset();
    }

    // Every row exactly once, and each worker's connections to a node opened once for the whole
    // load, not again for each of its transactions.
    void distributedLoadIsExact() {
        SKIP_WITHOUT_CITUS();
        LoadRequest request = requestFor("spread");
        CitusSink sink;
        const auto sessionsBefore = nodeSessions();
        const LoadSummary summary = runLoad(request, {}, sink);
        QVERIFY2(summary.status == LoadStatus::Completed,
                 summary.error ? summary.error->message.c_str() : "not completed");
        Connection conn = coordinator_->connect();
        QCOMPARE(typeOf(conn, "spread"), QString("distributed"));
        QCOMPARE(digest(conn, "spread"), reference_);
        QCOMPARE(test::scalar(conn,
                              "SELECT count(DISTINCT nodeport || nodename) FROM pg_dist_shard_placement "
                              "JOIN pg_dist_shard USING (shardid) WHERE logicalrelid = 'spread'::regclass"),
                 QString("2"));
        // One transaction per unit here (rowsPerTransaction 1): without the cached connections each
        // of them would open a connection per shard on each node again.
        QVERIFY2(summary.phases.transactions >= 40, qPrintable(QString::number(summary.phases.transactions)));
        const auto sessionsAfter = nodeSessions();
        for (std::size_t n = 0; n < workers_.size(); ++n) {
            const std::uint64_t opened = sessionsAfter[n] - sessionsBefore[n];
            // Kept for the load: the workers' connections (one per shard, 4 on the node) and those
            // of the check, the table's creation, the final count and Citus's own - not a few for
            // every transaction, as when each transaction opens them again.
            QVERIFY2(opened * 10 < summary.phases.transactions,
                     qPrintable(QString("node %1: %2 sessions for %3 transactions")
                                    .arg(n)
                                    .arg(opened)
                                    .arg(summary.phases.transactions)));
        }
    }

    // A worker node stops (immediate shutdown) after the first unit commits and starts again
    // seconds later: the units in flight are retried until it is back, the table is exact.
    void workerRestartIsRetried() {
        SKIP_WITHOUT_CITUS();
        LoadRequest request = requestFor("restarted");
        request.retries = 40;
        CitusSink sink;
        std::jthread restarter;
        std::atomic<bool> stopped{false};
        sink.onCommit = [&](const UnitEvent&) {
            if (stopped.exchange(true)) {
                return;
            }
            workers_[0]->cluster().stopImmediately();
            restarter = std::jthread([this] {
                std::this_thread::sleep_for(std::chrono::seconds(5));
                workers_[0]->cluster().start();
            });
        };
        const LoadSummary summary = runLoad(request, {}, sink);
        if (restarter.joinable()) {
            restarter.join();
        }
        QVERIFY(stopped);
        QVERIFY2(summary.status == LoadStatus::Completed,
                 qPrintable((summary.error ? QString::fromStdString(summary.error->message) : QString()) +
                            "\n" + joined(sink.warnings)));
        QVERIFY2(summary.retries > 0, qPrintable(joined(sink.warnings)));
        QVERIFY2(test::anyLineContains(sink.warnings, {"retry 1 of 40", "s retry budget left"}),
                 qPrintable(joined(sink.warnings)));
        Connection conn = coordinator_->connect();
        // Transactions the coordinator committed while a node had not confirmed its part are
        // finished by Citus's recovery (its maintenance daemon does it within a minute).
        conn.query("SELECT recover_prepared_transactions()");
        QCOMPARE(digest(conn, "restarted"), reference_);
    }

    // A node whose connections cannot hold the load's is refused before anything is created,
    // naming the node, its free connections, what the load needs and the largest count that fits.
    void tooFewConnectionsRefused() {
        SKIP_WITHOUT_CITUS();
        test::TestCluster& small = *workers_[1];
        {
            Connection conn = small.connect();
            conn.exec("ALTER SYSTEM SET max_connections = 12");
        }
        small.cluster().stop();
        small.cluster().start();
        LoadRequest request = requestFor("crowded");
        request.workers = 4;
        CitusSink sink;
        const LoadSummary summary = runLoad(request, {}, sink);
        QCOMPARE(summary.status, LoadStatus::Failed);
        QVERIFY(summary.error);
        const QString node = QString::fromStdString(small.cluster().socketDir().string() + ":" +
                                                    std::to_string(small.cluster().port()));
        VERIFY_MESSAGE(QString::fromStdString(summary.error->message), node, "free connections",
                       "max_connections=12", "4 worker(s) open up to 17 there", "use --workers 2 or fewer",
                       "ALTER SYSTEM SET max_connections");
        Connection conn = coordinator_->connect();
        QCOMPARE(test::scalar(conn, "SELECT to_regclass('crowded') IS NULL"), QString("t"));
        // What the check says fits does fit.
        request.workers = 2;
        const LoadSummary fits = runLoad(request, {}, sink);
        QVERIFY2(fits.status == LoadStatus::Completed,
                 fits.error ? fits.error->message.c_str() : "not completed");
        QCOMPARE(digest(conn, "crowded"), reference_);
    }

    // Exactly once across files on a distributed table: a renamed copy adds nothing; a download
    // with other values is refused, then replaces the rows with --overlap replace (the earlier
    // rows deleted on the shards and the new ones copied in one transaction per unit).
    void overlapOnADistributedTable() {
        SKIP_WITHOUT_CITUS();
        LoadRequest request = requestFor("twice");
        CitusSink sink;
        QVERIFY(runLoad(request, {}, sink).status == LoadStatus::Completed);
        const QString copy = coordinator_->workDir() + "/citus copy.nc";
        QVERIFY(QFile::copy(file_, copy));
        request.files = {copy.toStdString()};
        const LoadSummary again = runLoad(request, {}, sink);
        QVERIFY2(again.status == LoadStatus::Completed, again.error ? again.error->message.c_str() : "");
        QCOMPARE(again.rows, std::uint64_t{0});
        Connection conn = coordinator_->connect();
        QCOMPARE(digest(conn, "twice"), reference_);

        const QString other = coordinator_->workDir() + "/citus-other.nc";
        const CliRun sample =
            runCli({"synth", "--out", other, "--hours", "24", "--region", "10,0,0,20", "--seed", "2"});
        QVERIFY2(sample.exitCode == 0, qPrintable(sample.err));
        LoadRequest otherReference = requestFor("other_reference");
        otherReference.files = {other.toStdString()};
        otherReference.tableOptions.type = TableType::Regular;
        QVERIFY(runLoad(otherReference, {}, sink).status == LoadStatus::Completed);
        request.files = {other.toStdString()};
        const LoadSummary refused = runLoad(request, {}, sink);
        QVERIFY(refused.status == LoadStatus::Failed && refused.error && refused.error->overlap);
        QCOMPARE(digest(conn, "twice"), reference_);
        request.overlap = OverlapPolicy::Replace;
        const LoadSummary replaced = runLoad(request, {}, sink);
        QVERIFY2(replaced.status == LoadStatus::Completed,
                 replaced.error ? replaced.error->message.c_str() : "");
        QVERIFY(replaced.overlap.overlapReplacedUnits > 0);
        QCOMPARE(digest(conn, "twice"), digest(conn, "other_reference"));
    }

private:
    LoadRequest requestFor(const std::string& table) const {
        LoadRequest request;
        request.conninfo = coordinator_->conninfo();
        request.table = TableName::parse(table);
        request.files = {file_.toStdString()};
        request.tableOptions.type = TableType::Distributed;
        request.workers = 2;
        request.bandRows = 2;           // many small units
        request.rowsPerTransaction = 1; // a transaction each
        return request;
    }
    // Sessions each worker node has started since it was made (pg_stat_database.sessions).
    std::vector<std::uint64_t> nodeSessions() const {
        std::vector<std::uint64_t> out;
        for (const auto& w : workers_) {
            Connection conn = w->connect();
            out.push_back(test::count(
                conn, "SELECT sessions FROM pg_stat_database WHERE datname = current_database()"));
        }
        return out;
    }
    static QString typeOf(Connection& conn, const std::string& table) {
        return QString::fromStdString(
            std::string(tableTypeName(existingTableType(conn, TableName::parse(table)))));
    }

    std::unique_ptr<test::TestCluster> coordinator_;
    std::array<std::unique_ptr<test::TestCluster>, 2> workers_;
    QString file_;
    QString reference_;
};

QTEST_GUILESS_MAIN(TestCitus)
#include "tst_citus.moc"
