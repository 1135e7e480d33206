// SPDX-License-Identifier: GPL-3.0-or-later

// The parallel load engine against a real server: exactly-once resume after kill -9, Ctrl-C, a
// server crash and a terminated backend; constraint violations naming the unit; concurrent runs;
// the unlogged ledger; the events it reports; --workers auto (the tuner, and workers that come and go).

#include "TestCluster.h"
#include "TestUtil.h"
#include "db/Compression.h"
#include "db/TableType.h"
#include "ingest/Loader.h"
#include "monitor/WorkerTuner.h"

#include <QtTest>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <set>
#include <signal.h>
#include <thread>

using namespace isobar;
using test::CliRun;
using test::runCli;
using test::waitFor;

namespace {

class RecordingSink final : public LoadSink {
public:
    void started(const LoadStart& s) override { start = s; }
    void rateMeasured(const RateReading& s) override { samples.push_back(s); }
    void serverMeasured(const ServerReading& s) override { server.push_back(s); }
    void unitCommitted(const UnitEvent& e) override { units.push_back(e); }
    void workersChanged(const WorkerChange& c) override { changes.push_back(c); }
    void finished(const LoadSummary& s) override { summary = s; }
    void failed(const LoadError& e) override { error = e; }

    std::optional<LoadStart> start;
    std::vector<RateReading> samples;
    std::vector<ServerReading> server;
    std::vector<UnitEvent> units;
    std::vector<WorkerChange> changes;
    std::optional<LoadSummary> summary;
    std::optional<LoadError> error;
};

} // namespace

class TestEngine : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        cluster_ = std::make_unique<test::TestCluster>();
        file_ = cluster_->workDir() + "/engine.nc";
        const CliRun sample = runCli({"synth", "--out", file_, "--hours", "24", "--region", "30,0,0,60"});
        QVERIFY2(sample.exitCode == 0, qPrintable(sample.err));
        // The reference: one clean load of the same file, with progress lines.
        const CliRun load = load_("reference", {"--reporting-period", "100ms"});
        QVERIFY2(load.exitCode == 0, qPrintable(load.err));
        const QRegularExpression progress(
            R"(^at \d+s, row rate \d+\.\d/sec \(period\), row rate \d+\.\d/sec \(overall\), \d+ rows, \d+\.\d%, ETA (\d+s|unknown)$)",
            QRegularExpression::MultilineOption);
        QVERIFY2(progress.match(load.out).hasMatch(), qPrintable(load.out));
        QVERIFY2(load.out.trimmed().endsWith("/sec)"), qPrintable(load.out));
        Connection conn = cluster_->connect();
        reference_ = digest(conn, "reference");
        QCOMPARE(reference_.split('|').front(), QString::number(kRows));
        // A new table's autovacuum waits for the end of the load, and is as the server's after it.
        QVERIFY2(load.err.contains("autovacuum of the new table reference waits for the end of the load"),
                 qPrintable(load.err));
        QVERIFY2(load.err.contains("autovacuum of reference is on again"), qPrintable(load.err));
        QCOMPARE(autovacuumState(conn, "reference"), QString("default"));
    }
    void cleanupTestCase() { cluster_.reset(); }

    // kill -9 mid-load: every committed unit is whole, and the rerun loads exactly the rest.
    void killThenResume() { interruptThenResume("killed", SIGKILL); }

    // The same into a hypertable whose rows TimescaleDB compresses as COPY receives them: a
    // killed worker's batches roll back with its transaction, and the rerun ends exactly at the
    // reference with every chunk compressed.
    void killDirectCompressThenResume() {
        if (!directCompress()) {
            QSKIP("TimescaleDB with direct compress of COPY (2.21+) is not on the test server");
        }
        interruptThenResume("killed_direct", SIGKILL, directCompressArgs());
        QCOMPARE(uncompressedChunks("killed_direct"), QString("0"));
    }

    // Ctrl-C mid-load: in-flight units roll back, committed ones stay, exit status 130.
    void interruptThenResume() { interruptThenResume("interrupted", SIGINT); }

    // The server crashes (immediate shutdown) and comes back mid-load: the workers retry, or the
    // run fails clearly; either way a rerun completes to exactly the reference.
    void serverCrashMidLoad() { serverCrashMidLoad("crashed", {}); }

    // The same into a hypertable compressed by direct compress of COPY: each worker's session
    // settings come back with its new connection.
    void serverCrashMidDirectCompress() {
        if (!directCompress()) {
            QSKIP("TimescaleDB with direct compress of COPY (2.21+) is not on the test server");
        }
        serverCrashMidLoad("crashed_direct", directCompressArgs());
        QCOMPARE(uncompressedChunks("crashed_direct"), QString("0"));
    }

    // One worker's backend is terminated: its unit is retried on a new connection, nothing twice.
    void terminatedBackendIsRetried() {
        QProcess load;
        startLoad(load, "terminated", {"--workers", "2"});
        Connection admin = cluster_->connect();
        QVERIFY(waitFor(
            [&] {
                return test::scalar(admin,
                                    "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE "
                                    "'isobar worker 1 pid %' AND query LIKE 'COPY%'") != "0";
            },
            std::chrono::seconds(60)));
        admin.exec(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'isobar "
            "worker 1 pid %'");
        QVERIFY(load.waitForFinished(120000));
        const QString err = QString::fromUtf8(load.readAllStandardError());
        QVERIFY2(load.exitCode() == 0, qPrintable(err));
        QVERIFY2(err.contains("transient failure(s) were retried"), qPrintable(err));
        QCOMPARE(digest(admin, "terminated"), reference_);
    }

    // A constraint the user added rejects a unit: the error names the unit and the constraint, the
    // units before it are whole, no unit is partly in the table.
    void constraintViolationNamesUnit() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE checked (LIKE reference)");
        conn.exec("ALTER TABLE checked ADD CONSTRAINT before_noon CHECK (time < '2024-01-01 12:00:00+00')");
        const CliRun run = load_("checked", {"--workers", "1"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("before_noon"), qPrintable(run.err));
        QVERIFY2(run.err.contains("unit 2024-01-01T12:00:00Z lat "), qPrintable(run.err));
        QVERIFY2(run.err.contains("23514"), qPrintable(run.err));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM checked"), ledgerRows(conn, "checked"));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM checked WHERE time >= '2024-01-01 12:00:00+00'"),
                 QString("0"));
    }

    // Two runs of the same load at once: each unit is loaded by one of them. Whether the table is
    // there already or neither run finds it, both prepare it (one waits for the other) and succeed.
    void concurrentRunsDoNotDuplicate_data() {
        QTest::addColumn<bool>("tableExists");
        QTest::newRow("existing table") << true;
        QTest::newRow("new table") << false;
    }

    void concurrentRunsDoNotDuplicate() {
        QFETCH(bool, tableExists);
        const QString table = tableExists ? "concurrent" : "concurrent_new";
        Connection conn = cluster_->connect();
        if (tableExists) {
            conn.exec("CREATE TABLE concurrent (LIKE reference)");
        }
        QProcess a;
        QProcess b;
        startLoad(a, table, {});
        startLoad(b, table, {});
        QVERIFY(a.waitForFinished(120000));
        QVERIFY(b.waitForFinished(120000));
        QVERIFY2(a.exitCode() == 0, a.readAllStandardError().constData());
        QVERIFY2(b.exitCode() == 0, b.readAllStandardError().constData());
        QCOMPARE(digest(conn, table), reference_);
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM isobar.table_grid WHERE table_name = '" +
                                        table.toStdString() + "'"),
                 QString("1"));
    }

    // An unlogged target keeps its progress in the unlogged ledger: a crash that empties the table
    // empties the ledger too.
    void unloggedTargetUsesUnloggedLedger() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE UNLOGGED TABLE unlogged_weather (LIKE reference)");
        const CliRun run = load_("unlogged_weather", {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(test::scalar(
                     conn, "SELECT count(*) FROM isobar.ledger WHERE relid = 'unlogged_weather'::regclass"),
                 QString("0"));
        QVERIFY(test::scalar(conn, "SELECT count(*) FROM isobar.ledger_unlogged WHERE relid = "
                                   "'unlogged_weather'::regclass") != "0");
        QCOMPARE(
            test::scalar(
                conn, "SELECT relpersistence FROM pg_class WHERE oid = 'isobar.ledger_unlogged'::regclass"),
            QString("u"));
        QCOMPARE(digest(conn, "unlogged_weather"), reference_);
    }

    // A rerun of a finished load loads nothing; --restart needs --yes and loads everything again;
    // --replace starts from an empty table.
    void rerunRestartReplace() {
        Connection conn = cluster_->connect();
        CliRun run = load_("reference", {});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.err.contains("already in the table"), qPrintable(run.err));
        QVERIFY2(run.out.contains("COPY 0,"), qPrintable(run.out));
        QCOMPARE(digest(conn, "reference"), reference_);

        conn.exec("CREATE TABLE restarted (LIKE reference)");
        QCOMPARE(load_("restarted", {}).exitCode, 0);
        run = load_("restarted", {"--restart"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("--yes"), qPrintable(run.err));
        run = load_("restarted", {"--restart", "--yes"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM restarted"), QString::number(2 * kRows));
        run = load_("restarted", {"--replace"});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(digest(conn, "restarted"), reference_);
    }

    // Units handed to the server as files (a server on this machine) load the same rows.
    void fileTransport() {
        const CliRun run = load_("by_file", {"--transport", "file", "--workers", "2"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.err.contains("units go to the server as files"), qPrintable(run.err));
        Connection conn = cluster_->connect();
        QCOMPARE(digest(conn, "by_file"), reference_);
    }

    // In-process, the file transport across its file boundaries: files of 30,000 rows end inside
    // units of 20,000, each worker's transaction takes turns through many of them, and every row
    // is there once.
    void fileTransportAcrossFiles() {
        LoadRequest request = inProcess("by_many_files");
        request.transport = TransportKind::ServerFile;
        request.rowsPerServerFile = 30000;
        RecordingSink sink;
        const LoadSummary summary = runLoad(request, {}, sink);
        QVERIFY2(summary.status == LoadStatus::Completed,
                 summary.error ? summary.error->message.c_str() : "");
        QCOMPARE(summary.rows, std::uint64_t{kRows});
        QVERIFY(summary.phases.transactions >= 2);
        Connection conn = cluster_->connect();
        QCOMPARE(digest(conn, "by_many_files"), reference_);
    }

    // Only a table the load creates has its autovacuum paused: an existing one keeps its own
    // setting, off or not, and a partitioned table (no autovacuum of its own) is made as before.
    void autovacuumOfAnExistingTableIsLeftAlone() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE users_off (LIKE reference) WITH (autovacuum_enabled = false)");
        conn.exec("CREATE TABLE users_default (LIKE reference)");
        for (const QString& table : {QString("users_off"), QString("users_default")}) {
            const CliRun run = load_(table, {});
            QVERIFY2(run.exitCode == 0, qPrintable(run.err));
            QVERIFY2(!run.err.contains("waits for the end of the load") && !run.err.contains("is on again"),
                     qPrintable(run.err));
            QCOMPARE(digest(conn, table), reference_);
        }
        QCOMPARE(autovacuumState(conn, "users_off"), QString("off"));
        QCOMPARE(autovacuumState(conn, "users_default"), QString("default"));
        const CliRun partitioned = load_("by_partition", {"--table-type", "partitioned"});
        QVERIFY2(partitioned.exitCode == 0, qPrintable(partitioned.err));
        QVERIFY2(!partitioned.err.contains("waits for the end of the load"), qPrintable(partitioned.err));
        QCOMPARE(autovacuumState(conn, "by_partition"), QString("default"));
    }

    // Worker k of N ends its first transaction after k/N of the usual rows, so the workers' commits
    // do not fall together: of the first two transactions (one per worker), one stops at half.
    void firstTransactionsAreStaggered() {
        LoadRequest request = inProcess("staggered");
        request.rowsPerTransaction = 100000;
        RecordingSink sink;
        const LoadSummary summary = runLoad(request, {}, sink);
        QVERIFY2(summary.status == LoadStatus::Completed,
                 summary.error ? summary.error->message.c_str() : "");
        Connection conn = cluster_->connect();
        QCOMPARE(digest(conn, "staggered"), reference_);
        // A transaction's ledger rows share its xid, assigned in the order the transactions began.
        const Result r = conn.query("SELECT sum(rows) FROM isobar.ledger WHERE relid = 'staggered'::regclass "
                                    "GROUP BY xmin::text::bigint ORDER BY xmin::text::bigint");
        QVERIFY2(r.rows() >= 4, qPrintable(QString::number(r.rows())));
        const long long a = r.integer(0, 0);
        const long long b = r.integer(1, 0);
        QVERIFY2(std::min(a, b) >= 50000 && std::min(a, b) < 100000 && std::max(a, b) >= 100000,
                 qPrintable(QString("%1 and %2 rows").arg(a).arg(b)));
    }

    // In-process: the events a UI draws from.
    void eventsDescribeTheRun() {
        LoadRequest request = inProcess("evented");
        request.sampleInterval = std::chrono::milliseconds(100);
        RecordingSink sink;
        const LoadSummary summary = runLoad(request, {}, sink);
        QVERIFY2(summary.status == LoadStatus::Completed,
                 summary.error ? summary.error->message.c_str() : "");
        QCOMPARE(summary.rows, std::uint64_t{kRows});
        QCOMPARE(summary.workers, 2);
        // Verified by the load itself, on its own connection: a small table is counted.
        QCOMPARE(summary.ledgerRows, std::optional<std::uint64_t>{kRows});
        QCOMPARE(summary.countedRows, std::optional<std::uint64_t>{kRows});
        QCOMPARE(QString::fromStdString(summary.verification),
                 QString("count(*) = %1, as the ledger says").arg(kRows));
        QCOMPARE(std::count_if(summary.phases.run.begin(), summary.phases.run.end(),
                               [](const LoadPhases::Phase& p) { return p.name == "verify"; }),
                 1);
        QVERIFY(sink.start.has_value());
        QCOMPARE(sink.start->plannedRows, std::uint64_t{kRows});
        QCOMPARE(sink.units.size(), sink.start->units);
        QCOMPARE(summary.unitsCommitted, sink.start->units);
        std::uint64_t unitRows = 0;
        for (const UnitEvent& u : sink.units) {
            unitRows += u.rows;
            QVERIFY(u.worker == 1 || u.worker == 2);
        }
        QCOMPARE(unitRows, std::uint64_t{kRows});
        QVERIFY(!sink.samples.empty());
        const RateReading& last = sink.samples.back();
        QCOMPARE(last.committedRows, std::uint64_t{kRows});
        QCOMPARE(last.percent, 100.0);
        QCOMPARE(last.workers.size(), size_t{2});
        QCOMPARE(last.workers[0].rows + last.workers[1].rows, last.rows);
        for (std::size_t i = 1; i < sink.samples.size(); ++i) {
            QVERIFY(sink.samples[i].rows >= sink.samples[i - 1].rows);
            QVERIFY(sink.samples[i].elapsed >= sink.samples[i - 1].elapsed);
        }
        QVERIFY(!sink.server.empty()); // the monitor connection answered at least once
    }

    // --workers auto against a simulated server whose rate for each worker count is known: the
    // tuner must settle on the count a demanding user would pick by trying them all.
    void tunerFindsTheFastestCount_data() {
        QTest::addColumn<QList<double>>("rates"); // rows/s at 1, 2, 3, ... workers
        QTest::addColumn<int>("start");
        QTest::addColumn<int>("best");
        QTest::newRow("climbs while a worker pays")
            << QList<double>{100e3, 190e3, 270e3, 280e3, 285e3} << 2 << 3;
        QTest::newRow("climbs to the bound") << QList<double>{100e3, 200e3, 300e3, 400e3} << 1 << 4;
        QTest::newRow("a flat server: fewest") << QList<double>{100e3, 101e3, 99e3, 98e3} << 2 << 1;
        QTest::newRow("more is slower: goes down") << QList<double>{300e3, 305e3, 250e3, 200e3} << 4 << 1;
        QTest::newRow("best in the middle, from the top")
            << QList<double>{150e3, 300e3, 305e3, 250e3} << 4 << 2;
        QTest::newRow("one slot: never moves") << QList<double>{100e3} << 1 << 1;
        // A 16-core server whose knee is at 13 streams (the published benchmark's 12-16), from the
        // start a 16-core client makes (8): every worker up to 13 adds 8 % or more, later ones 1 %.
        QList<double> knee;
        for (int n = 1; n <= 16; ++n) {
            knee << (n <= 13 ? n * 100e3 : 1300e3 * (1 + 0.01 * (n - 13)));
        }
        QTest::newRow("the knee of a 16-core server") << knee << 8 << 13;
    }
    void tunerFindsTheFastestCount() {
        QFETCH(QList<double>, rates);
        QFETCH(int, start);
        QFETCH(int, best);
        const int max = static_cast<int>(rates.size());
        WorkerTuner tuner({start, max, kQuickTiming});
        std::uint64_t rows = 0;
        std::vector<WorkerChange> changes;
        std::uint32_t noise = 12345; // +-2 %, the same every run
        for (double t = 0.2; t < 140.0; t += 0.2) {
            noise = noise * 1103515245U + 12345U;
            const double jitter = 1.0 + (static_cast<double>((noise >> 16) % 401) - 200.0) / 10000.0;
            rows += static_cast<std::uint64_t>(rates[tuner.workers() - 1] * jitter * 0.2);
            if (const auto c = tuner.observe(t, rows)) {
                QCOMPARE(c->from, changes.empty() ? start : changes.back().to);
                QVERIFY(c->to >= 1 && c->to <= max && std::abs(c->to - c->from) == 1);
                QVERIFY2(c->reason.find("rows/s at " + std::to_string(c->from)) != std::string::npos,
                         c->reason.c_str());
                changes.push_back(*c);
            }
            if (t >= 55.0 && t < 60.0) {
                QCOMPARE(tuner.workers(), best); // one round of probing is over within a minute
            }
        }
        QCOMPARE(tuner.workers(), best);
        // The second round (after the hold) finds the same: it tries a neighbour and comes back.
        if (max > 1) {
            QVERIFY(changes.size() >= 2);
            QVERIFY(changes.back().elapsed > 60.0);
        } else {
            QVERIFY(changes.empty());
        }
    }

    // The best count moves (the table outgrows the cache, another load starts): the next round of
    // probing follows it.
    void tunerFollowsAChangingServer() {
        WorkerTuner tuner({2, 4, kQuickTiming});
        std::uint64_t rows = 0;
        for (double t = 0.2; t < 240.0; t += 0.2) {
            const QList<double> rates = t < 60.0 ? QList<double>{100e3, 200e3, 205e3, 206e3}
                                                 : QList<double>{100e3, 200e3, 300e3, 400e3};
            rows += static_cast<std::uint64_t>(rates[tuner.workers() - 1] * 0.2);
            (void)tuner.observe(t, rows);
            if (t > 50.0 && t < 60.0) {
                QCOMPARE(tuner.workers(), 2);
            }
        }
        QCOMPARE(tuner.workers(), 4);
    }

    // A probe that cannot pay for itself before the load ends is not made; a step back still is.
    void tunerLeavesAShortLoadAlone() {
        WorkerTuner tuner({2, 4, kQuickTiming}); // a step: 7 s; no probe with less than 21 s to go
        std::uint64_t rows = 0;
        for (double t = 0.2; t < 60.0; t += 0.2) {
            rows += 20000;
            QVERIFY(!tuner.observe(t, rows, 20.0).has_value());
        }
        QCOMPARE(tuner.workers(), 2);
        // Probing up while there is time, then the end comes near: back to the better count, no
        // further probe.
        WorkerTuner late({2, 4, kQuickTiming});
        rows = 0;
        std::vector<int> counts;
        for (double t = 0.2; t < 30.0; t += 0.2) { // a 30 s load
            rows += late.workers() == 3 ? 15000u : late.workers() == 1 ? 10000u : 20000u;
            if (const auto c = late.observe(t, rows, 30.0 - t)) {
                counts.push_back(c->to);
            }
        }
        QCOMPARE(counts, (std::vector<int>{3, 2}));
        QCOMPARE(late.workers(), 2);
    }

    // A real load with --workers auto and the tuner's clock shortened: workers start and leave
    // while units load, and every row is there exactly once; the workers that left have closed
    // their connections.
    void autoWorkersLoadEveryRowOnce() {
        LoadRequest request = inProcess("auto_workers");
        request.autoWorkers = true;
        request.workers = 3; // auto:3
        request.rowsPerUnit = 5000;
        request.rowsPerTransaction = 5000;
        request.sampleInterval = std::chrono::milliseconds(20);
        request.tuning = {0.01, 0.04, 0.05, 0.05};
        RecordingSink sink;
        const LoadSummary summary = runLoad(request, {}, sink);
        QVERIFY2(summary.status == LoadStatus::Completed,
                 summary.error ? summary.error->message.c_str() : "");
        QVERIFY(sink.start.has_value());
        QVERIFY(sink.start->autoWorkers);
        QCOMPARE(sink.start->maxWorkers, 3);
        QCOMPARE(sink.start->workers, std::min(defaultWorkerCount(), 3));
        QVERIFY2(!sink.changes.empty(), "the tuner never changed the count");
        int count = sink.start->workers;
        for (const WorkerChange& c : sink.changes) {
            QCOMPARE(c.from, count);
            QVERIFY(c.to >= 1 && c.to <= 3);
            count = c.to;
        }
        QCOMPARE(summary.workers, count);
        std::set<int> ids;
        for (const UnitEvent& u : sink.units) {
            QVERIFY(u.worker >= 1 && u.worker <= 3);
            ids.insert(u.worker);
        }
        QVERIFY(!ids.empty());
        QCOMPARE(summary.rows, std::uint64_t{kRows});
        Connection conn = cluster_->connect();
        QCOMPARE(digest(conn, "auto_workers"), reference_);
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE "
                                    "'isobar worker %'"),
                 QString("0"));
        for (const ServerReading& s : sink.server) {
            QVERIFY(s.workers >= 0 && s.workers <= 3);
        }
    }

    void workersOptionIsChecked() {
        for (const char* bad : {"auto:", "auto:0", "auto:x", "autox", "auto:3x"}) {
            const CliRun run = load_("never", {"--workers", bad});
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.err.contains("--workers takes a count"), qPrintable(run.err));
        }
    }

private:
    static constexpr int kRows = 24 * 121 * 241;
    // The tuner's logic at a pace the simulations can follow: 7 s a step, a minute's hold.
    static constexpr WorkerTuner::Timing kQuickTiming{2.0, 5.0, 0.05, 60.0};

    // A load of the test file into `table`; later options override earlier ones.
    QStringList loadArgs(const QString& table, const QStringList& extra) const {
        QStringList args{"load", "--dsn", QString::fromStdString(cluster_->conninfo()), "--table", table,
                         "--rows-per-unit", "5000",
                         // Four units per transaction: a run of many transactions of several units.
                         "--rows-per-transaction", "20000", "--reporting-period", "0"};
        args << extra << file_;
        return args;
    }

    // The test file into `table` in this process: 2 workers, units of 20,000 rows.
    LoadRequest inProcess(const char* table) const {
        LoadRequest request;
        request.conninfo = cluster_->conninfo();
        request.table = TableName::parse(table);
        request.files = {file_.toStdString()};
        request.workers = 2;
        request.rowsPerUnit = 20000;
        return request;
    }

    CliRun load_(const QString& table, const QStringList& extra) { return runCli(loadArgs(table, extra)); }

    void startLoad(QProcess& p, const QString& table, const QStringList& extra) {
        p.start(QStringLiteral(ISOBAR_CLI_PATH), loadArgs(table, extra));
        QVERIFY(p.waitForStarted());
    }

    void serverCrashMidLoad(const QString& table, const QStringList& extra) {
        QProcess load;
        startLoad(load, table, QStringList{"--retries", "30"} + extra);
        Connection watch = cluster_->connect();
        QVERIFY(waitFor([&] { return committedUnits(watch, table) >= 3; }, std::chrono::seconds(60)));
        cluster_->cluster().stopImmediately();
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        cluster_->cluster().start();
        QVERIFY(load.waitForFinished(120000));
        const QString err = QString::fromUtf8(load.readAllStandardError());
        QVERIFY2(load.exitCode() == 0 || (load.exitCode() == 1 && err.contains("connection")),
                 qPrintable(err));
        Connection conn = cluster_->connect();
        const std::string name = table.toStdString();
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM " + name), ledgerRows(conn, table));
        const CliRun rerun = load_(table, extra);
        QVERIFY2(rerun.exitCode == 0, qPrintable(rerun.err));
        QCOMPARE(digest(conn, table), reference_);
    }

    // A load into a hypertable of 6-hour chunks compressed as COPY receives the rows.
    static QStringList directCompressArgs() {
        return {"--table-type", "hypertable", "--chunk-interval", "6 hours", "--compress"};
    }

    QString uncompressedChunks(const char* table) const {
        Connection conn = cluster_->connect();
        return test::scalar(conn, std::string("SELECT count(*) FROM timescaledb_information.chunks WHERE "
                                              "hypertable_name = '") +
                                      table + "' AND NOT is_compressed");
    }

    // Whether the test server's TimescaleDB compresses rows as COPY receives them.
    bool directCompress() const {
        Connection conn = cluster_->connect();
        const ExtensionStatus ts = timescaledbStatus(conn);
        return ts.usable &&
               hasDirectCompress(ts.installedVersion.empty() ? ts.availableVersion : ts.installedVersion);
    }

    // `extra` loads into another table type; a new regular table's autovacuum is paused during its
    // load (not a hypertable's), which is checked only without it.
    void interruptThenResume(const QString& table, int signal, const QStringList& extra = {}) {
        const bool pauses = extra.isEmpty();
        QProcess load;
        startLoad(load, table, extra);
        Connection watch = cluster_->connect();
        QVERIFY2(waitFor([&] { return committedUnits(watch, table) >= 5; }, std::chrono::seconds(60)),
                 "no unit was committed in time");
        if (pauses) {
            QCOMPARE(autovacuumState(watch, table), QString("paused"));
        }
        kill(static_cast<pid_t>(load.processId()), signal);
        QVERIFY(load.waitForFinished(30000));
        if (pauses && signal == SIGINT) {
            QCOMPARE(load.exitCode(), 130);
            const QString err = QString::fromUtf8(load.readAllStandardError());
            QVERIFY2(err.contains("cancelled") && err.contains("Run the same command again"),
                     qPrintable(err));
            // A cancelled load leaves the table's autovacuum on.
            QVERIFY2(err.contains("autovacuum of " + table + " is on again"), qPrintable(err));
            QCOMPARE(autovacuumState(watch, table), QString("default"));
        } else if (pauses) {
            // A killed one cannot: the record says so, and the load that completes turns it on.
            QCOMPARE(autovacuumState(watch, table), QString("paused"));
            const CliRun settings =
                runCli({"settings", "--dsn", QString::fromStdString(cluster_->conninfo()), "--table", table});
            QVERIFY2(settings.out.contains("autovacuum of " + table +
                                           " is paused by a load of it that has not "
                                           "finished (one still running, or one whose process ended first)"),
                     qPrintable(settings.out + settings.err));
            QVERIFY2(settings.out.contains("RESET (autovacuum_enabled)"), qPrintable(settings.out));
        }
        // Whole units only: the rows in the table are exactly those the ledger accounts for. One
        // statement, one snapshot: a COMMIT the killed worker had sent may still land meanwhile.
        QCOMPARE(
            test::scalar(watch, "SELECT (SELECT count(*) FROM " + table.toStdString() +
                                    ") - (SELECT coalesce(sum(rows), 0) FROM isobar.ledger WHERE relid = '" +
                                    table.toStdString() + "'::regclass)"),
            QString("0"));
        QVERIFY(test::scalar(watch, "SELECT count(*) FROM " + table.toStdString()).toLongLong() < kRows);
        const CliRun rerun = load_(table, extra);
        QVERIFY2(rerun.exitCode == 0, qPrintable(rerun.err));
        QVERIFY2(rerun.err.contains("resuming:"), qPrintable(rerun.err));
        QCOMPARE(digest(watch, table), reference_);
        if (signal == SIGKILL && pauses) {
            QVERIFY2(rerun.err.contains("autovacuum of " + table +
                                        " is paused by a load of it that has not finished"),
                     qPrintable(rerun.err));
            QVERIFY2(rerun.err.contains("autovacuum of " + table + " is on again"), qPrintable(rerun.err));
        }
        QCOMPARE(autovacuumState(watch, table), QString("default"));
    }

    // "paused" (off, and recorded as a load's pause), "off" (the user's choice), "on" or "default".
    static QString autovacuumState(Connection& conn, const QString& table) {
        const std::string t = table.toStdString();
        return test::scalar(
            conn,
            "SELECT CASE WHEN EXISTS (SELECT 1 FROM isobar.paused_autovacuum WHERE relid = '" + t +
                "'::regclass) THEN 'paused' ELSE coalesce((SELECT CASE WHEN option_value = 'false' THEN "
                "'off' ELSE 'on' END FROM pg_class, pg_options_to_table(reloptions) WHERE oid = '" +
                t + "'::regclass AND option_name = 'autovacuum_enabled'), 'default') END");
    }

    static long long committedUnits(Connection& conn, const QString& table) {
        try {
            return test::scalar(conn, "SELECT count(*) FROM isobar.ledger WHERE relid = to_regclass('" +
                                          table.toStdString() + "')")
                .toLongLong();
        } catch (const std::exception&) {
            return 0; // the bookkeeping tables may not exist yet
        }
    }

    static QString ledgerRows(Connection& conn, const QString& table) {
        return test::scalar(conn, "SELECT coalesce(sum(rows), 0) FROM isobar.ledger WHERE relid = '" +
                                      table.toStdString() + "'::regclass");
    }

    // Row count, distinct keys and an order-independent checksum over every column of every row.
    static QString digest(Connection& conn, const QString& table) {
        return test::scalar(conn, "SELECT count(*) || '|' || count(DISTINCT (time, location_id)) || '|' || "
                                  "sum(hashtextextended(t::text, 0)) FROM " +
                                      table.toStdString() + " t");
    }

    std::unique_ptr<test::TestCluster> cluster_;
    QString file_;
    QString reference_;
};

QTEST_GUILESS_MAIN(TestEngine)
#include "tst_engine.moc"
