// SPDX-License-Identifier: GPL-3.0-or-later

// The report recorder (ReportRecorder) between a load and its sink, against a real PostgreSQL: the
// rate and server series of a long run bounded with their extremes kept, and what the recorder saw
// of the server, the standbys and the worker changes back from the JSON, every event still passed on.

#include "TestCluster.h"
#include "report/ReportRecorder.h"
#include "report/RunReport.h"

#include <QtTest>

using namespace isobar;

class TestReportRecorder : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }
    void cleanupTestCase() { cluster_.reset(); }

    // The report model's own round trip, including the thinned series of a long run.
    void longRunIsThinned() {
        struct Quiet final : LoadSink {};
        Quiet quiet;
        LoadRequest request;
        request.conninfo = cluster_->conninfo();
        ReportRecorder recorder(quiet, request);
        for (int i = 0; i < 25000; ++i) {
            RateReading s;
            s.elapsed = i * 0.2;
            s.rows = static_cast<std::uint64_t>(i) * 1000;
            s.intervalRate = i == 12345 ? 9e6 : 5000;
            recorder.rateMeasured(s);
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
            ServerReading s;
            s.elapsed = i;
            s.freeBytes = i == 12345 ? 1e6 : 5e9;
            s.walDirBytes = i == 23456 ? 9e9 : 1e9;
            s.bytesPerRow = 60 + i * 1e-3;
            s.checkpointsTimed = static_cast<std::uint64_t>(i / 100);
            recorder.serverMeasured(s);
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
            ServerReading s;
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
            recorder.serverMeasured(s);
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

private:
    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestReportRecorder)
#include "tst_report_recorder.moc"
