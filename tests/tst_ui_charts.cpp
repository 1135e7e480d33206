// The run's charts and what the run panel makes of the monitor's samples: the rate chart's budget,
// worker changes from an engine thread, the disk chart under the rate chart, the warnings said
// once, and axes that read as people read them. No server: the events are the engine's own types,
// sent through the GUI adapter as the engine sends them.

#include "UiHarness.h"

#include <QCategoryAxis>
#include <QRegularExpression>

#include <thread>

using namespace isobar;
using namespace isobar::ui;
using namespace isobar::test;

class TestUiCharts : public QObject {
    Q_OBJECT

private slots:
    void chartKeepsItsBudgetAndPeaks() {
        RateChart chart;
        RateSample s;
        for (int i = 0; i < 5 * RateChart::kPointBudget; ++i) {
            s.elapsed = i * 0.2;
            s.intervalRate = i == 7777 ? 9e6 : 1e5;
            s.overallRate = 1e5;
            chart.addSample(s);
        }
        QVERIFY(chart.pointCount() <= RateChart::kPointBudget);
        QVERIFY(chart.pointCount() > RateChart::kPointBudget / 4);
        double peak = 0;
        for (const QPointF& p : chart.intervalPoints()) {
            peak = std::max(peak, p.y());
        }
        QCOMPARE(peak, 9e6);
        ServerSample server;
        server.elapsed = 3;
        server.checkpointsRequested = 1;
        chart.addServerSample(server);
        chart.addServerSample(server); // the same checkpoint again: one marker
        QCOMPARE(chart.checkpointCount(), 1);
    }

    // A worker change told on an engine thread comes out of the adapter as a signal on the GUI
    // thread, whole; the run panel marks it on the rate chart, logs why, and lists the new worker.
    void workerChangesReachTheRunPanel() {
        LoadController controller;
        RunPanel panel(&controller);
        LoadStart start;
        start.workers = 2;
        start.autoWorkers = true;
        start.maxWorkers = 4;
        controller.events().started(start);
        QSignalSpy changes(&controller, &LoadController::workersChanged);
        QThread* deliveredOn = nullptr;
        connect(&controller, &LoadController::workersChanged, this,
                [&deliveredOn] { deliveredOn = QThread::currentThread(); });
        std::thread engine([&controller] {
            controller.events().workersChanged({12.0, 2, 3, "rate 1.21M rows/s at 3, 1.02M at 2: +19 %"});
        });
        engine.join();
        QVERIFY(changes.wait(kSlowMs));
        QCOMPARE(changes.size(), 1);
        const auto change = changes.at(0).at(0).value<WorkerChange>();
        QCOMPARE(change.elapsed, 12.0);
        QCOMPARE(change.from, 2);
        QCOMPARE(change.to, 3);
        QCOMPARE(QString::fromStdString(change.reason), QString("rate 1.21M rows/s at 3, 1.02M at 2: +19 %"));
        QCOMPARE(deliveredOn, QThread::currentThread());
        QCOMPARE(panel.chart()->workerChangeCount(), 1);
        QCOMPARE(panel.workersTable()->rowCount(), 3);
        QCOMPARE(panel.workersTable()->item(2, 0)->text(), QString("3"));
        const QString log = panel.logView()->toPlainText();
        QVERIFY2(log.contains("workers 2 -> 3 at 12 s: rate 1.21M rows/s at 3"), qPrintable(log));
        QVERIFY2(log.contains("up to 4"), qPrintable(log));
    }

    // Server samples draw the disk chart under the rate chart, on the same time span; the panel
    // says what the disk holds and how many workers run, and warns once (not every second) that
    // the disk will be full, that a standby falls behind, that the archiver fails.
    void diskChartAndWarningsFollowTheServer() {
        LoadController controller;
        RunPanel panel(&controller);
        LoadStart start;
        start.workers = 2;
        start.forecast = {"the load writes about 3.1 GiB; 20.0 GiB free: room for it"};
        controller.events().started(start);
        constexpr double GiB = 1024.0 * 1024 * 1024;
        for (int i = 0; i <= 4; ++i) {
            RateSample rate;
            rate.elapsed = i;
            rate.intervalRate = 1.2e6;
            rate.overallRate = 1.1e6;
            controller.events().rateSampled(rate);
            ServerSample s;
            s.elapsed = i;
            s.freeBytes = (20 - i) * GiB;
            s.walDirBytes = (i == 2 ? 2 : 1) * GiB;
            s.tableBytes = i * 0.5 * GiB;
            s.bytesPerRow = 85.5;
            s.workers = 2;
            s.secondsToFull = i >= 1 ? 1500 - i : -1;
            s.standbys = {{"replica1", "streaming", 70, 71, 72.0 + i, 1e6},
                          {"replica2", "streaming", 1, 1, 1, 0}};
            s.archiveBacklog = 4;
            s.archiveFailures = i >= 2 ? static_cast<std::uint64_t>(i) : 0;
            controller.events().serverSampled(s);
        }
        DiskChart* disk = panel.diskChart();
        QTRY_COMPARE_WITH_TIMEOUT(disk->freePoints().size(), qsizetype{5}, kSlowMs);
        QCOMPARE(disk->walPoints().size(), qsizetype{5});
        QCOMPARE(disk->tablePoints().size(), qsizetype{5});
        QVERIFY(disk->walFreePoints().isEmpty()); // pg_wal with the data: not seen on its own
        QCOMPARE(disk->freePoints().back(), QPointF(4, 16 * GiB));
        QCOMPARE(disk->walPoints().at(2).y(), 2 * GiB);
        // The same time axis under both charts, once both have drawn the samples.
        QTRY_VERIFY_WITH_TIMEOUT(disk->timeAxis()->max() >= 4 && panel.chart()->timeAxis()->max() >= 4,
                                 kSlowMs);
        QCOMPARE(disk->timeAxis()->categoriesLabels(), panel.chart()->timeAxis()->categoriesLabels());
        QCOMPARE(disk->timeAxis()->max(), panel.chart()->timeAxis()->max());
        QVERIFY2(disk->bytesAxis()->categoriesLabels().contains("20 GiB"),
                 qPrintable(disk->bytesAxis()->categoriesLabels().join(' ')));

        const QString server = panel.serverLabel()->text();
        for (const char* fact : {"free 16.0 GiB", "pg_wal 1.0 GiB", "85.5 bytes/row", "2 worker(s)"}) {
            QVERIFY2(server.contains(fact), qPrintable(server));
        }
        const QString log = panel.logView()->toPlainText();
        QVERIFY2(log.contains("the load writes about 3.1 GiB"), qPrintable(log));
        QCOMPARE(log.count("disk full in ~25 min at this rate (19.0 GiB free)"), qsizetype{1});
        QCOMPARE(log.count("disk full"), qsizetype{1});
        QCOMPARE(log.count("standby replica1 (streaming) is"), qsizetype{1});
        QVERIFY(!log.contains("standby replica2"));
        QCOMPARE(log.count("the WAL archiver failed"), qsizetype{1});

        // A new run warns again.
        controller.events().started(start);
        ServerSample again;
        again.secondsToFull = 30;
        controller.events().serverSampled(again);
        QTRY_COMPARE_WITH_TIMEOUT(panel.logView()->toPlainText().count("disk full"), qsizetype{2}, kSlowMs);
        QVERIFY(panel.logView()->toPlainText().contains("disk full in ~1 min at this rate"));
    }

    // The axes read as people read them, read back from the axis objects: rows/s as "1.2M" and
    // bytes as "1.5 GiB", and no label twice on the time axis of a short run (no "0 0 0 1 1 1").
    void chartAxesReadAsPeopleRead_data() {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<QString>("lastLabel");
        QTest::newRow("0.4 s") << 0.4 << "1s"; // the axis is at least a second long
        QTest::newRow("3 s") << 3.0 << "3s";
        QTest::newRow("7.5 s") << 7.5 << "8s";
        QTest::newRow("95 s") << 95.0 << "2m";
        QTest::newRow("an hour") << 3500.0 << "1h";
    }
    void chartAxesReadAsPeopleRead() {
        QFETCH(double, seconds);
        QFETCH(QString, lastLabel);
        RateChart rates;
        DiskChart disk;
        connect(&rates, &RateChart::timeSpanChanged, &disk, &DiskChart::setMinimumTimeSpan);
        connect(&disk, &DiskChart::timeSpanChanged, &rates, &RateChart::setMinimumTimeSpan);
        constexpr int kSamples = 40;
        for (int i = 0; i <= kSamples; ++i) {
            RateSample r;
            r.elapsed = seconds * i / kSamples;
            r.intervalRate = i == 20 ? 1'250'000 : 850'000;
            r.overallRate = 900'000;
            rates.addSample(r);
            ServerSample s;
            s.elapsed = r.elapsed;
            s.freeBytes = 1.5 * 1024 * 1024 * 1024;
            s.walDirBytes = 256.0 * 1024 * 1024;
            disk.addServerSample(s);
        }
        // Drawn (the redraw coalesces samples for 40 ms): the axes reach the data.
        QTRY_VERIFY_WITH_TIMEOUT(rates.rateAxis()->max() >= 1'250'000 &&
                                     disk.bytesAxis()->max() >= 1.5 * 1024 * 1024 * 1024,
                                 kSlowMs);
        QVERIFY(rates.timeAxis()->max() >= seconds);
        QCOMPARE(rates.timeAxis()->max(), disk.timeAxis()->max());
        const auto unique = [](const QStringList& labels) {
            return QSet<QString>(labels.begin(), labels.end()).size() == labels.size();
        };
        const QStringList time = rates.timeAxis()->categoriesLabels();
        QVERIFY2(unique(time) && time.size() >= 3 && time.size() <= 8, qPrintable(time.join(' ')));
        QCOMPARE(time.front(), QString("0s"));
        QCOMPARE(time.back(), lastLabel);
        QCOMPARE(disk.timeAxis()->categoriesLabels(), time);

        const QStringList rate = rates.rateAxis()->categoriesLabels();
        QVERIFY2(unique(rate), qPrintable(rate.join(' ')));
        static const QRegularExpression readable(QStringLiteral("^(0|[1-9][0-9]{0,2}(\\.[0-9]{1,2})?[kM])$"));
        for (const QString& label : rate) {
            QVERIFY2(readable.match(label).hasMatch(), qPrintable(rate.join(' ')));
        }
        QVERIFY2(rate.contains("1M") && rate.contains("500k"), qPrintable(rate.join(' ')));

        const QStringList bytes = disk.bytesAxis()->categoriesLabels();
        QVERIFY2(unique(bytes), qPrintable(bytes.join(' ')));
        QVERIFY2(bytes.contains("1.5 GiB") || bytes.contains("2 GiB"), qPrintable(bytes.join(' ')));
    }
};

QTEST_MAIN(TestUiCharts)
#include "tst_ui_charts.moc"
