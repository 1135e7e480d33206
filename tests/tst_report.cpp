// Run reports: written for completed, failed and cancelled runs, read back, rendered as CSV and
// HTML, never holding a password.

#include "TestCluster.h"
#include "TestUtil.h"
#include "report/ReportRecorder.h"
#include "report/RunReport.h"
#include "util/Format.h"

#include <QtTest>

#include <limits>
#include <set>
#include <thread>

using namespace isobar;
using test::CliRun;
using test::runCli;

class TestReport : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        cluster_ = std::make_unique<test::TestCluster>();
        file_ = cluster_->workDir() + "/report.nc";
        const CliRun sample = runCli({"sample", "--out", file_, "--hours", "12", "--region", "20,0,0,20"});
        QVERIFY2(sample.exitCode == 0, qPrintable(sample.err));
        // The test server trusts local connections, so a password in the connection string is
        // ignored by the server; it must not show up in any report either.
        dsn_ = QString::fromStdString(cluster_->conninfo()) + " password=hunter2-secret";
    }
    void cleanupTestCase() { cluster_.reset(); }

    // A completed load: every format, and the JSON read back equals what was recorded.
    void completedRun() {
        const QString json = cluster_->workDir() + "/done.json";
        const QString html = cluster_->workDir() + "/done.html";
        CliRun run = runCli({"load", "--dsn", dsn_, "--table", "reported", "--workers", "2",
                             "--rows-per-unit", "20000", "--report", json, "--reporting-period", "0", file_});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.err.contains("report: " + json), qPrintable(run.err));
        QVERIFY2(run.err.contains("report: "), qPrintable(run.err)); // the standard one too

        const RunReport r = readReport(json.toStdString());
        QCOMPARE(QString::fromStdString(r.status), QString("completed"));
        QCOMPARE(r.rows, std::uint64_t{kRows});
        QCOMPARE(r.plannedRows, std::uint64_t{kRows});
        QCOMPARE(r.workers, 2);
        QCOMPARE(QString::fromStdString(r.table), QString("reported"));
        QCOMPARE(QString::fromStdString(r.tableType), QString("regular"));
        QCOMPARE(r.files.size(), size_t{1});
        QVERIFY(QString::fromStdString(r.files[0].layout).startsWith("CDS legacy"));
        QCOMPARE(r.variables.size(), size_t{6});
        QVERIFY(QString::fromStdString(r.serverVersion).startsWith("PostgreSQL"));
        QVERIFY(std::any_of(r.settings.begin(), r.settings.end(),
                            [](const ServerSetting& s) { return s.name == "fsync"; }));
        QVERIFY(r.countedRows.has_value());
        QCOMPARE(*r.countedRows, std::uint64_t{kRows});
        QCOMPARE(*r.ledgerRows, std::uint64_t{kRows});
        QVERIFY(!r.samples.empty());
        QCOMPARE(r.samples.back().committedRows, std::uint64_t{kRows});
        QCOMPARE(r.workerRows.size(), size_t{2});
        QVERIFY(r.meanRate > 0);
        QVERIFY(!r.error);

        // Re-rendered from the JSON by the CLI.
        run = runCli({"report", json, "--html", html, "--csv", cluster_->workDir() + "/done.csv"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QFile page(html);
        QVERIFY(page.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(page.readAll());
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains("<polyline"));
        QVERIFY(text.contains("completed"));
        QVERIFY(text.contains(QString::number(kRows).left(3)));
        QFile csv(cluster_->workDir() + "/done.csv");
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.front(),
                 QString("elapsed_s,rows_sent,rows_committed,rate_rows_per_s,overall_rows_per_s,"
                         "queue_depth,worker1_rows,worker2_rows"));
        QCOMPARE(lines.size() - 1, static_cast<int>(r.samples.size()));

        for (const QString& path : {json, html}) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY2(!f.readAll().contains("hunter2"), qPrintable(path + " holds the password"));
        }
    }

    // A failed load still writes its report, with the error and the unit.
    void failedRun() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE refusing (LIKE reported)");
        conn.exec("ALTER TABLE refusing ADD CONSTRAINT only_early CHECK (time < '2024-01-01 06:00:00+00')");
        const QString json = cluster_->workDir() + "/failed.json";
        const CliRun run = runCli({"load", "--dsn", dsn_, "--table", "refusing", "--workers", "1", "--report",
                                   json, "--reporting-period", "0", file_});
        QCOMPARE(run.exitCode, 1);
        const RunReport r = readReport(json.toStdString());
        QCOMPARE(QString::fromStdString(r.status), QString("failed"));
        QVERIFY(r.error.has_value());
        QVERIFY2(QString::fromStdString(*r.error).contains("only_early"), r.error->c_str());
        QCOMPARE(QString::fromStdString(r.errorSqlState), QString("23514"));
        QVERIFY(QString::fromStdString(r.errorUnit).startsWith("2024-01-01T06:00:00Z"));
        QCOMPARE(*r.countedRows, *r.ledgerRows);
    }

    // --verify: units trusts the server's count of each unit's COPY and does not scan the table;
    // full counts it however large it is; a bad value is refused before anything loads.
    void verificationChoices() {
        const QString units = cluster_->workDir() + "/units.json";
        CliRun run = runCli({"load", "--dsn", dsn_, "--table", "verified", "--rows-per-unit", "20000",
                             "--verify", "units", "--report", units, "--reporting-period", "0", file_});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        RunReport r = readReport(units.toStdString());
        QVERIFY(!r.countedRows.has_value());
        QCOMPARE(*r.ledgerRows, std::uint64_t{kRows});
        QVERIFY2(QString::fromStdString(r.verification).contains("row count of every COPY matched"),
                 r.verification.c_str());
        QVERIFY2(QString::fromStdString(r.verification).contains(QString::number(kRows) + " rows in "),
                 r.verification.c_str());
        QVERIFY2(QString::fromStdString(r.verification).contains("--verify full"), r.verification.c_str());

        // Rows the ledger does not know about are what only a full count finds.
        Connection conn = cluster_->connect();
        conn.exec("INSERT INTO verified (time, location_id) VALUES ('2030-01-01', 1)");
        const QString full = cluster_->workDir() + "/full.json";
        run = runCli({"load", "--dsn", dsn_, "--table", "verified", "--verify", "full", "--report", full,
                      "--reporting-period", "0", file_});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        r = readReport(full.toStdString());
        QCOMPARE(r.rows, std::uint64_t{0}); // everything was loaded already
        QCOMPARE(*r.countedRows, std::uint64_t{kRows + 1});
        QCOMPARE(*r.ledgerRows, std::uint64_t{kRows});
        QVERIFY2(QString::fromStdString(r.verification).contains("the ledger accounts for"),
                 r.verification.c_str());

        run = runCli({"load", "--dsn", dsn_, "--table", "verified", "--verify", "some", file_});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("--verify takes auto, units or full, not 'some'"), qPrintable(run.err));
    }

    // The report model's own round trip, including the thinned series of a long run.
    void longRunIsThinned() {
        struct Quiet final : LoadSink {};
        Quiet quiet;
        LoadRequest request;
        request.conninfo = cluster_->conninfo();
        ReportRecorder recorder(quiet, request);
        for (int i = 0; i < 25000; ++i) {
            RateSample s;
            s.elapsed = i * 0.2;
            s.rows = static_cast<std::uint64_t>(i) * 1000;
            s.intervalRate = i == 12345 ? 9e6 : 5000;
            recorder.rateSampled(s);
        }
        LoadSummary summary;
        summary.status = LoadStatus::Completed;
        summary.seconds = 5000;
        summary.rows = 25'000'000;
        const RunReport r = recorder.finish(summary);
        QVERIFY(r.samples.size() <= RunReport::kMaxSamples);
        QVERIFY(r.samples.size() >= RunReport::kMaxSamples / 4);
        // The spike survives the thinning.
        QVERIFY(std::any_of(r.samples.begin(), r.samples.end(),
                            [](const RunReport::Sample& s) { return s.intervalRate > 1e6; }));
        QCOMPARE(r.medianSustainedRate, 5000.0);
        const RunReport back = parseReportJson(renderReportJson(r));
        QCOMPARE(back.samples.size(), r.samples.size());
        QCOMPARE(back.rows, r.rows);
        QCOMPARE(back.medianSustainedRate, r.medianSustainedRate);
    }

    // The server series of a long run is bounded too, its worst moments kept: the lowest free
    // space, the largest pg_wal; the last sample's bytes/row is the run's.
    void longServerSeriesKeepsItsWorst() {
        struct Quiet final : LoadSink {};
        Quiet quiet;
        LoadRequest request;
        request.conninfo = cluster_->conninfo();
        ReportRecorder recorder(quiet, request);
        for (int i = 0; i < 25001; ++i) {
            ServerSample s;
            s.elapsed = i;
            s.freeBytes = i == 12345 ? 1e6 : 5e9;
            s.walDirBytes = i == 23456 ? 9e9 : 1e9;
            s.bytesPerRow = 60 + i * 1e-3;
            s.checkpointsTimed = static_cast<std::uint64_t>(i / 100);
            recorder.serverSampled(s);
        }
        LoadSummary summary;
        summary.status = LoadStatus::Completed;
        const RunReport r = recorder.finish(summary);
        QVERIFY(r.server.size() <= RunReport::kMaxSamples + 1);
        QVERIFY(r.server.size() >= RunReport::kMaxSamples / 4);
        QCOMPARE(r.server.back().elapsed, 25000.0);
        QCOMPARE(r.server.back().checkpointsTimed, std::uint64_t{250});
        const RunReport::StorageFigures disk = r.storageFigures();
        QCOMPARE(disk.lowestFreeBytes, 1e6);
        QCOMPARE(disk.peakWalDirBytes, 9e9);
        QCOMPARE(disk.finalBytesPerRow, 60 + 25000 * 1e-3);
    }

    // The disk, the standbys, the archiver and the worker changes as the recorder saw them come
    // back from the JSON, and every event still reaches the sink behind the recorder.
    void serverFiguresSurviveTheRoundTrip() {
        struct Counting final : LoadSink {
            int workerChanges = 0;
            void workersChanged(const WorkerChange&) override { ++workerChanges; }
        };
        Counting inner;
        LoadRequest request;
        request.conninfo = cluster_->conninfo();
        ReportRecorder recorder(inner, request);
        LoadStart start;
        start.workers = 1;
        start.autoWorkers = true;
        start.maxWorkers = 4;
        start.forecast = {"the load writes about 12.0 GiB (table 9.1 GiB, WAL 2.9 GiB)",
                          "45.2 GiB free on /var/lib/postgresql: room for it"};
        recorder.started(start);
        for (int i = 0; i < 4; ++i) {
            ServerSample s;
            s.elapsed = i;
            s.checkpointsRequested = i >= 2 ? 1 : 0;
            s.walBytes = static_cast<std::uint64_t>(i) << 20;
            s.tableBytes = 8192.0 * (i + 1);
            s.bytesPerRow = 80.0 + i;
            s.freeBytes = 50e9 - i * 1e9;
            s.walDirBytes = i == 1 ? 3e9 : 1e9;
            s.secondsToFull = i == 3 ? 600 : -1;
            s.archiveBacklog = i;
            s.archiveFailures = i == 3 ? 2 : 0;
            s.workers = i < 2 ? 1 : 2;
            s.standbys = {{"replica1", "streaming", 0.5, 0.6, 1.0 + i, 1000.0 * i},
                          {"replica2", i == 3 ? "catchup" : "streaming", -1, -1, 90.0, 5e6}};
            recorder.serverSampled(s);
        }
        recorder.workersChanged({2.0, 1, 2, "rate 1.21M rows/s at 2, 1.02M at 1: +19 %"});
        QCOMPARE(inner.workerChanges, 1);
        LoadSummary summary;
        summary.status = LoadStatus::Completed;
        summary.seconds = 4;
        summary.workers = 2;
        const RunReport r = recorder.finish(summary);
        QCOMPARE(r.server.size(), std::size_t{4});

        const RunReport back = parseReportJson(renderReportJson(r));
        QVERIFY(back.autoWorkers);
        QCOMPARE(back.maxWorkers, 4);
        QCOMPARE(back.workers, 2);
        QCOMPARE(back.forecast, start.forecast);
        QCOMPARE(back.workerChanges.size(), std::size_t{1});
        QCOMPARE(back.workerChanges[0].elapsed, 2.0);
        QCOMPARE(back.workerChanges[0].from, 1);
        QCOMPARE(back.workerChanges[0].to, 2);
        QCOMPARE(back.workerChanges[0].reason, r.workerChanges[0].reason);
        QCOMPARE(back.server.size(), r.server.size());
        for (std::size_t i = 0; i < r.server.size(); ++i) {
            const RunReport::Server& a = r.server[i];
            const RunReport::Server& b = back.server[i];
            QCOMPARE(b.elapsed, a.elapsed);
            QCOMPARE(b.checkpointsRequested, a.checkpointsRequested);
            QCOMPARE(b.walBytes, a.walBytes);
            QCOMPARE(b.tableBytes, a.tableBytes);
            QCOMPARE(b.bytesPerRow, a.bytesPerRow);
            QCOMPARE(b.freeBytes, a.freeBytes);
            QCOMPARE(b.walFreeBytes, -1.0); // never seen, so never written
            QCOMPARE(b.walDirBytes, a.walDirBytes);
            QCOMPARE(b.secondsToFull, a.secondsToFull);
            QCOMPARE(b.archiveBacklog, a.archiveBacklog);
            QCOMPARE(b.archiveFailures, a.archiveFailures);
            QCOMPARE(b.workers, a.workers);
            QCOMPARE(b.standbyReplayLag, 90.0); // replica2's, the worse
            QCOMPARE(b.standbyReplayBytes, 5e6);
        }
        QCOMPARE(back.server[3].secondsToFull, 600.0);
        QCOMPARE(back.server[3].archiveFailures, std::uint64_t{2});
        QCOMPARE(back.standbys.size(), std::size_t{2});
        QCOMPARE(QString::fromStdString(back.standbys[0].name), QString("replica1"));
        QCOMPARE(back.standbys[0].maxReplayLag, 4.0);
        QCOMPARE(back.standbys[0].maxReplayBytes, 3000.0);
        QCOMPARE(QString::fromStdString(back.standbys[1].state), QString("catchup")); // the last seen
        const RunReport::StorageFigures disk = back.storageFigures();
        QCOMPARE(disk.peakWalDirBytes, 3e9);
        QCOMPARE(disk.lowestFreeBytes, 47e9);
        QCOMPARE(disk.finalBytesPerRow, 83.0);
        QCOMPARE(disk.finalTableBytes, 4 * 8192.0);
    }

    // A report written before the disk was watched reads as one that saw nothing of it, and
    // renders without a disk chart.
    void reportFromBeforeTheDiskWasWatched() {
        const std::string old = R"({"tool": "isobar 0.1.0", "status": "completed", "workers": 3,
            "result": {"rows": 100, "seconds": 2.5, "meanRate": 40},
            "samples": [{"t": 1, "rows": 50, "committed": 50, "rate": 50, "overall": 50, "queue": 0}],
            "serverSamples": [{"t": 1, "checkpointsTimed": 0, "checkpointsRequested": 1,
                               "walBytes": 4096}]})";
        const RunReport r = parseReportJson(old);
        QCOMPARE(r.workers, 3);
        QVERIFY(!r.autoWorkers);
        QCOMPARE(r.maxWorkers, 3); // it ran the count it started with
        QVERIFY(r.forecast.empty());
        QVERIFY(r.workerChanges.empty());
        QVERIFY(r.standbys.empty());
        QCOMPARE(r.server.size(), std::size_t{1});
        QCOMPARE(r.server[0].checkpointsRequested, std::uint64_t{1});
        QCOMPARE(r.server[0].walBytes, std::uint64_t{4096});
        for (double unseen : {r.server[0].tableBytes, r.server[0].bytesPerRow, r.server[0].freeBytes,
                              r.server[0].walFreeBytes, r.server[0].walDirBytes, r.server[0].secondsToFull,
                              r.server[0].standbyReplayLag, r.server[0].standbyReplayBytes}) {
            QCOMPARE(unseen, -1.0);
        }
        QCOMPARE(r.server[0].archiveBacklog, std::int64_t{-1});
        QCOMPARE(r.storageFigures().lowestFreeBytes, -1.0);
        const QString page = QString::fromStdString(renderReportHtml(r));
        QVERIFY(page.contains("rows per second over time"));
        QVERIFY(!page.contains("disk free and pg_wal size over time"));
        QVERIFY(page.contains("No disk figures"));
        QVERIFY(!page.contains("peak pg_wal"));
    }

    // The HTML: the disk chart under the rate chart, worker changes marked on the rate chart and
    // listed, the forecast, the standbys and the archiver, the disk in the summary.
    void htmlShowsTheDiskAndTheWorkerChanges() {
        RunReport r;
        r.tool = "isobar test";
        r.status = "completed";
        r.seconds = 3;
        r.rows = 3'600'000;
        r.meanRate = 1.2e6;
        r.workers = 2;
        r.autoWorkers = true;
        r.maxWorkers = 4;
        r.forecast = {"the load writes about 1.5 GiB <table & WAL>"};
        r.workerChanges = {{1.5, 1, 2, "rate 1.21M rows/s at 2, 1.02M at 1: +19 %"}};
        r.standbys = {{"replica1", "streaming", 75.5, 3 * 1024.0 * 1024}};
        for (int i = 0; i <= 3; ++i) {
            const auto rows = static_cast<std::uint64_t>(i) * 1'200'000;
            r.samples.push_back({static_cast<double>(i), rows, rows, 1.2e6, 1.2e6, 0, {}});
            RunReport::Server s;
            s.elapsed = i;
            s.checkpointsTimed = i >= 2 ? 1 : 0;
            s.freeBytes = (20.0 - i) * 1024 * 1024 * 1024;
            s.walDirBytes = (i == 2 ? 2.0 : 1.0) * 1024 * 1024 * 1024;
            s.tableBytes = i * 100.0 * 1024 * 1024;
            s.bytesPerRow = 87.25;
            s.archiveBacklog = 3;
            s.archiveFailures = 1;
            r.server.push_back(s);
        }
        const QString page = QString::fromStdString(renderReportHtml(r));
        const qsizetype rates = page.indexOf("aria-label=\"rows per second over time\"");
        const qsizetype disk = page.indexOf("aria-label=\"disk free and pg_wal size over time\"");
        QVERIFY(rates > 0);
        QVERIFY2(disk > rates, "the disk chart comes under the rate chart");
        // Worker change: a mark on the rate chart (before the disk chart starts) and a row.
        const qsizetype mark = page.indexOf("<title>workers 1 → 2 at 1.50s: rate 1.21M rows/s");
        QVERIFY2(mark > rates && mark < disk, qPrintable(page.mid(rates, 2000)));
        QVERIFY(page.contains("<h2>Worker changes</h2>"));
        QVERIFY(page.contains("auto, up to 4: 2 at the end, 1 change(s)"));
        // The axes read as people read them, every label once.
        QVERIFY2(page.contains(">1.2M</text>") || page.contains(">1M</text>"),
                 qPrintable(page.mid(rates, 2000)));
        QVERIFY(!page.contains(">1,200,000</text>"));
        QVERIFY(page.contains(">20 GiB</text>"));
        QVERIFY(page.contains(">3s</text>"));
        QCOMPARE(page.count(">1s</text>"), 2); // once on each chart's time axis
        // Checkpoints are marked on both charts.
        QCOMPARE(page.count("<title>timed checkpoint at 2.00s</title>"), 2);
        QVERIFY(page.contains("<li>the load writes about 1.5 GiB &lt;table &amp; WAL&gt;</li>"));
        QVERIFY(page.contains("<th>peak pg_wal</th><td>2.0 GiB</td>"));
        QVERIFY(page.contains("<th>lowest free space</th><td>17.0 GiB</td>"));
        QVERIFY(page.contains("<th>bytes per row</th><td>87.2 (at the end)</td>") ||
                page.contains("<th>bytes per row</th><td>87.3 (at the end)</td>"));
        QVERIFY(page.contains(
            "standby replica1</th><td>streaming, replay lag up to 1m15.5s, up to 3.0 MiB behind"));
        QVERIFY(page.contains("up to 3 WAL segment(s) waiting, 1 failed archive_command run(s)"));
    }

    // Counts and rates read "850k", "1.2M"; an axis never shows one label twice, however short or
    // long the run, whatever it counts.
    void axesReadAsPeopleRead_data() {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("compact");
        QTest::newRow("zero") << 0.0 << "0";
        QTest::newRow("small") << 12.0 << "12";
        QTest::newRow("fraction") << 0.25 << "0.25";
        QTest::newRow("thousands") << 1234.0 << "1.23k";
        QTest::newRow("850k") << 850'000.0 << "850k";
        QTest::newRow("1.2M") << 1'200'000.0 << "1.2M";
        QTest::newRow("rounds up a unit") << 999'950.0 << "1M";
        QTest::newRow("billions") << 3.456e9 << "3.46G";
    }
    // Each checkpoint with its cause and the rate before and after it, in the HTML too.
    void checkpointsWithTheirCauseAndCost() {
        RunReport r;
        r.status = "completed";
        r.seconds = 40;
        std::uint64_t rows = 0;
        for (int i = 1; i <= 400; ++i) { // 100k rows/s, half that for 10 s after the one at 10 s
            const double t = i * 0.1;
            rows += t > 10 && t <= 20 ? 5000 : 10000;
            RunReport::Sample s;
            s.elapsed = t;
            s.rows = rows;
            r.samples.push_back(s);
        }
        for (int t = 1; t <= 40; ++t) {
            RunReport::Server s;
            s.elapsed = t;
            s.checkpointsRequested = t >= 10 ? 1 : 0;
            s.checkpointsTimed = t >= 30 ? 1 : 0;
            r.server.push_back(s);
        }
        const auto effects = r.checkpointEffects();
        QCOMPARE(effects.size(), std::size_t{2});
        QCOMPARE(effects[0].elapsed, 10.0);
        QVERIFY(effects[0].requested);
        QVERIFY2(std::abs(effects[0].rateBefore - 100e3) < 1e3,
                 qPrintable(QString::number(effects[0].rateBefore)));
        QVERIFY2(std::abs(effects[0].rateAfter - 50e3) < 1e3,
                 qPrintable(QString::number(effects[0].rateAfter)));
        QCOMPARE(effects[1].elapsed, 30.0);
        QVERIFY(!effects[1].requested);
        QVERIFY(std::abs(effects[1].rateAfter - 100e3) < 1e3);
        const std::string html = renderReportHtml(r);
        QVERIFY(html.find("<h2>Checkpoints</h2>") != std::string::npos);
        QVERIFY2(
            html.find("requested (WAL reached max_wal_size, or a CHECKPOINT was run): 100k rows/s in the "
                      "10 s before, 50k after (-50 %)") != std::string::npos,
            html.c_str());
        QVERIFY(html.find("timed (checkpoint_timeout)") != std::string::npos);
        QVERIFY(html.find("<title>requested checkpoint at " + formatDuration(10) + "</title>") !=
                std::string::npos);

        // One with less than a second of rates after it says no figures.
        r.samples.resize(100); // up to 10 s
        const auto cut = r.checkpointEffects();
        QCOMPARE(cut[0].rateAfter, -1.0);
        QVERIFY(cut[0].rateBefore > 0);
    }

    void axesReadAsPeopleRead() {
        QFETCH(double, value);
        QFETCH(QString, compact);
        QCOMPARE(QString::fromStdString(formatCompact(value)), compact);

        const auto labels = [](const AxisTicks& axis) {
            QStringList out;
            for (const auto& tick : axis.labels) {
                out << QString::fromStdString(tick.second);
            }
            return out;
        };
        QCOMPARE(labels(axisTicks(3, AxisScale::Seconds, 5)), (QStringList{"0s", "1s", "2s", "3s"}));
        QCOMPARE(labels(axisTicks(0.9, AxisScale::Seconds, 6)),
                 (QStringList{"0s", "0.2s", "0.4s", "0.6s", "0.8s", "1s"}));
        QCOMPARE(labels(axisTicks(150, AxisScale::Seconds, 6)),
                 (QStringList{"0s", "30s", "1m", "1m30s", "2m", "2m30s"}));
        QCOMPARE(labels(axisTicks(1.1e6, AxisScale::Count, 5)),
                 (QStringList{"0", "250k", "500k", "750k", "1M", "1.25M"}));
        QCOMPARE(labels(axisTicks(1.4 * 1024 * 1024 * 1024, AxisScale::Bytes, 4)),
                 (QStringList{"0", "0.5 GiB", "1 GiB", "1.5 GiB"}));
        for (AxisScale scale : {AxisScale::Count, AxisScale::Bytes, AxisScale::Seconds}) {
            for (double max = value / 7 + 0.003; max < 1e13; max = max * 1.37 + 0.01) {
                const AxisTicks axis = axisTicks(max, scale, 5);
                const QStringList shown = labels(axis);
                QVERIFY2(QSet<QString>(shown.begin(), shown.end()).size() == shown.size(),
                         qPrintable(QString::number(max) + ": " + shown.join(' ')));
                QVERIFY(axis.top >= max);
                QVERIFY2(shown.size() <= 8, qPrintable(QString::number(max) + ": " + shown.join(' ')));
                QCOMPARE(axis.labels.front().first, 0.0);
                QCOMPARE(axis.labels.back().first, axis.top);
            }
        }
    }

    // What a report holds comes back as it was: row counts beyond a double's 2^53, doubles,
    // text that is not ASCII or needs escaping. Broken JSON is refused saying where and why.
    void reportValuesSurviveTheRoundTrip() {
        RunReport r;
        r.tool = "isobar test";
        r.table = "public.wetter_zürich";
        r.files = {{"/data/☃ \"quoted\" back\\slash.nc", "CDS 2024 (cfgrib)", "netCDF4 (HDF5)"}};
        r.rows = (std::uint64_t{1} << 53) + 1;
        r.plannedRows = std::numeric_limits<std::uint64_t>::max();
        r.walBytes = 123'456'789'012'345'678;
        r.meanRate = 1723220.7;
        r.seconds = 0.1;
        r.error = "tab\there\nnewline \x01 control, \u00e9";
        r.samples = {{2.0, 9'007'199'254'740'993, 0, 5000.0 / 3, 1e-7, 2, {1, 2}}};
        const RunReport back = parseReportJson(renderReportJson(r));
        QCOMPARE(back.table, r.table);
        QCOMPARE(back.files.at(0).name, r.files[0].name);
        QCOMPARE(back.rows, r.rows);
        QCOMPARE(back.plannedRows, r.plannedRows);
        QCOMPARE(back.walBytes, r.walBytes);
        QCOMPARE(back.meanRate, r.meanRate);
        QCOMPARE(back.seconds, r.seconds);
        QCOMPARE(back.error.value(), r.error.value());
        QCOMPARE(back.samples.at(0).rows, r.samples[0].rows);
        QCOMPARE(back.samples.at(0).intervalRate, r.samples[0].intervalRate);
        QCOMPARE(back.samples.at(0).overallRate, r.samples[0].overallRate);
        QCOMPARE(back.samples.at(0).workerRows, r.samples[0].workerRows);
        QVERIFY(back.extent.empty()); // none recorded: a map of the run says so
        QVERIFY(!back.overlap.any());
        // What the run found already in the table, and did about it.
        r.overlap.sameRows = 162;
        r.overlap.sameUnits = 2;
        r.overlap.era5tReplacedUnits = 240;
        r.overlap.era5tReplacedHours = 48;
        r.overlap.replacedRows = (std::uint64_t{1} << 40) + 3;
        r.overlap.decisions = {"replacing 48 hour(s) of ERA5T from \"a\".nc (expver 0005) by final ERA5"};
        const RunReport withOverlap = parseReportJson(renderReportJson(r));
        QCOMPARE(withOverlap.overlap.sameRows, r.overlap.sameRows);
        QCOMPARE(withOverlap.overlap.sameUnits, r.overlap.sameUnits);
        QCOMPARE(withOverlap.overlap.era5tReplacedUnits, r.overlap.era5tReplacedUnits);
        QCOMPARE(withOverlap.overlap.era5tReplacedHours, r.overlap.era5tReplacedHours);
        QCOMPARE(withOverlap.overlap.replacedRows, r.overlap.replacedRows);
        QCOMPARE(withOverlap.overlap.decisions, r.overlap.decisions);
        QCOMPARE(withOverlap.overlap.describe(),
                 (std::vector<std::string>{"replaced 48 hour(s) of ERA5T by final ERA5 (240 unit(s)); "
                                           "1,099,511,627,779 earlier rows deleted",
                                           "162 rows (2 unit(s)) were in the table already from other files, "
                                           "with the same values: skipped"}));
        r.overlap = {};
        // Where the rows lie (what a map of the table reads): a box across the date line, two
        // runs of times, pressure levels.
        r.extent.gridStep = 0.25;
        r.extent.bounds = {-10.25, 35.5, 170.0, -175.75};
        r.extent.times = {{PgTimestamp{86'400'000'000LL}, 3'600'000'000LL, 24},
                          {PgTimestamp{86'400'000'000LL * 40}, 0, 1}};
        r.extent.levels = {500, 850, 1000};
        const RunReport withExtent = parseReportJson(renderReportJson(r));
        QVERIFY(withExtent.extent == r.extent);
        EXPECT_ERROR_CONTAINING(parseReportJson("{\"tool\": \"isobar 1\",\n \"files\": [1, 2"),
                                "not valid JSON at line 2, column", "unexpected end of input");
        EXPECT_ERROR_CONTAINING(parseReportJson("{\"tool\": \"isobar 1\", \"x\": \"a\\qb\"}"),
                                "not valid JSON at line 1, column", "after backslash");
    }

    // Runs of one table started in the same second, also in processes writing at the same moment,
    // each keep their own report: the name is reserved before the report is written.
    void reportsOfOneSecondKeepTheirNames() {
        const QString dir = cluster_->workDir() + "/same-second";
        const QByteArray saved = qgetenv("ISOBAR_REPORT_DIR");
        qputenv("ISOBAR_REPORT_DIR", QFile::encodeName(dir));
        RunReport report;
        report.tool = "isobar test";
        report.startedAt = "2024-05-01T10:00:00Z";
        report.table = "public.same";
        report.status = "completed";
        constexpr std::size_t kWriters = 8;
        std::vector<std::filesystem::path> paths(kWriters);
        std::vector<std::string> problems(kWriters);
        {
            std::vector<std::jthread> writers;
            for (std::size_t i = 0; i < kWriters; ++i) {
                writers.emplace_back([&, i] {
                    try {
                        RunReport own = report;
                        own.rows = static_cast<std::uint64_t>(i);
                        paths[i] = writeRunReport(own);
                    } catch (const std::exception& e) {
                        problems[i] = e.what();
                    }
                });
            }
        }
        qputenv("ISOBAR_REPORT_DIR", saved);
        std::set<std::uint64_t> rows;
        for (std::size_t i = 0; i < kWriters; ++i) {
            QVERIFY2(problems[i].empty(), problems[i].c_str());
            QCOMPARE(QString::fromStdString(paths[i].parent_path().string()), dir);
            QVERIFY2(paths[i].filename().string().starts_with("run-2024-05-01T10-00-00Z-same"),
                     paths[i].c_str());
            rows.insert(readReport(paths[i]).rows);
        }
        QCOMPARE(rows.size(), kWriters); // every report whole, none overwritten
        // Nothing else is left beside them: no reservation, no temporary file.
        QCOMPARE(QDir(dir).entryList(QDir::Files).size(), static_cast<qsizetype>(kWriters));
    }

    void badReportFiles() {
        const QString notJson = cluster_->workDir() + "/not.json";
        QFile f(notJson);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"tool\": \"something else\"}");
        f.close();
        CliRun run = runCli({"report", notJson});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("not an Isobar run report"), qPrintable(run.err));
        run = runCli({"report", cluster_->workDir() + "/missing.json"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("missing.json"), qPrintable(run.err));
        QVERIFY_THROWS_EXCEPTION(Error, parseReportJson("{\"tool\": \"isobar 1\", \"files\": [1, 2"));
    }

private:
    static constexpr int kRows = 12 * 81 * 81;
    std::unique_ptr<test::TestCluster> cluster_;
    QString file_;
    QString dsn_;
};

QTEST_GUILESS_MAIN(TestReport)
#include "tst_report.moc"
