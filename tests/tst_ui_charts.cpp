// SPDX-License-Identifier: GPL-3.0-or-later

// The run's charts and what the run panel makes of the monitor's samples: the rate chart's budget,
// worker changes from an engine thread, the disk chart under the rate chart, the warnings said
// once, and axes that read as people read them; a finished run's disk in the exports and the
// history. No server: the events are the engine's own types, sent through the GUI adapter as the
// engine sends them, and the reports are built as a run builds them.

#include "BenchPlotView.h"
#include "UiHarness.h"

#include <QCategoryAxis>
#include <QGraphicsTextItem>
#include <QRegularExpression>
#include <QTextDocument>

#include <thread>

using namespace isobar;
using namespace isobar::ui;
using namespace isobar::test;

namespace {

constexpr double GiB = 1024.0 * 1024 * 1024;

// A finished run of 10 s whose monitor saw the data directory's free space (but once), pg_wal
// and the table, not pg_wal's own filesystem; two worker changes, a forecast, a standby, an
// archiver that failed once.
RunReport reportWithDisk() {
    RunReport r;
    r.tool = "isobar test";
    r.startedAt = "2024-05-02T10:00:00Z";
    r.status = "completed";
    r.table = "public.era5_disk";
    r.tableType = "plain";
    r.rows = 12'000'000;
    r.plannedRows = 12'000'000;
    r.seconds = 10;
    r.meanRate = 1.2e6;
    r.workers = 2;
    r.autoWorkers = true;
    r.maxWorkers = 4;
    r.workerChanges = {{3.0, 2, 3, "rate 1.21M rows/s at 3, 1.02M at 2: +19 %"},
                       {7.5, 3, 2, "rate 1.19M rows/s at 3, 1.20M at 2: no gain"}};
    r.forecast = {"the load writes about 3.1 GiB; 20.0 GiB free: room for it",
                  "pg_wal may grow to 1.0 GiB (max_wal_size)"};
    r.standbys = {{"replica1", "streaming", 4.5, 2e6}};
    for (int i = 0; i <= 20; ++i) {
        RunReport::Sample s;
        s.elapsed = i * 0.5;
        s.intervalRate = i == 10 ? 1.5e6 : 1.2e6;
        s.overallRate = 1.2e6;
        r.samples.push_back(s);
    }
    for (int i = 0; i <= 11; ++i) { // the monitor's last look comes after the last rate sample
        RunReport::Server s;
        s.elapsed = i;
        s.freeBytes = i == 4 ? -1 : (20 - 0.3 * i) * GiB;
        s.walDirBytes = (i == 6 ? 1.0 : 0.5) * GiB;
        s.tableBytes = i * 0.25 * GiB;
        s.bytesPerRow = i > 0 ? 85.5 : -1;
        s.archiveBacklog = 3;
        s.archiveFailures = i >= 8 ? 1 : 0;
        s.checkpointsRequested = i >= 5 ? 1 : 0;
        r.server.push_back(s);
    }
    return r;
}

// Rate samples on to `seconds`, after the monitor's last look.
void rateUntil(RunReport& r, double seconds) {
    for (double t = r.samples.back().elapsed + 0.5; t <= seconds; t += 0.5) {
        RunReport::Sample s = r.samples.back();
        s.elapsed = t;
        r.samples.push_back(s);
    }
}

// An older, longer run (30 s) on a server whose disk the monitor could not see.
RunReport reportWithoutDisk() {
    RunReport r = reportWithDisk();
    r.startedAt = "2024-05-01T09:00:00Z";
    rateUntil(r, 30);
    for (auto& s : r.server) {
        s.freeBytes = s.walFreeBytes = s.walDirBytes = s.tableBytes = s.bytesPerRow = -1;
    }
    return r;
}

// The report's series as a DiskChart draws them (free, free for pg_wal, pg_wal, table): the
// figures seen, in order.
QList<QVector<QPointF>> seen(const RunReport& r) {
    QList<QVector<QPointF>> series;
    for (double RunReport::Server::*figure :
         {&RunReport::Server::freeBytes, &RunReport::Server::walFreeBytes, &RunReport::Server::walDirBytes,
          &RunReport::Server::tableBytes}) {
        QVector<QPointF> points;
        for (const auto& s : r.server) {
            if (s.*figure >= 0) {
                points.push_back(QPointF(s.elapsed, s.*figure));
            }
        }
        series.push_back(points);
    }
    return series;
}

QList<QVector<QPointF>> drawn(const DiskChart& disk) {
    return {disk.freePoints(), disk.walFreePoints(), disk.walPoints(), disk.tablePoints()};
}

// The texts of a chart that Qt Charts drew elided ("1.2..." or "..."): labels and titles that did
// not get the room they need, with the offscreen platform's font metrics.
QStringList elidedTexts(QChartView& view) {
    QStringList elided;
    for (QGraphicsItem* item : view.scene()->items()) {
        const auto* text = dynamic_cast<QGraphicsTextItem*>(item);
        if (text != nullptr && text->isVisible() && text->toPlainText().endsWith(QStringLiteral("..."))) {
            elided << text->toPlainText();
        }
    }
    return elided;
}

// Pixels of `image` in rows [firstRow, endRow) close to `colour` (antialiasing blends the edges of a curve).
int pixelsLike(const QImage& image, QColor colour, int firstRow, int endRow) {
    int n = 0;
    for (int y = firstRow; y < endRow; ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (std::abs(c.red() - colour.red()) + std::abs(c.green() - colour.green()) +
                    std::abs(c.blue() - colour.blue()) <=
                24) {
                ++n;
            }
        }
    }
    return n;
}

// DiskChart's free space and pg_wal, RateChart's worker change markers: colours the other chart
// does not use.
const QColor kFreeGreen(0x2d, 0xa4, 0x4e);
const QColor kWalOrange(0xd4, 0x76, 0x0b);
const QColor kWorkerPurple(0x82, 0x50, 0xdf);

} // namespace

class TestUiCharts : public QObject {
    Q_OBJECT

private slots:
    void chartKeepsItsBudgetAndPeaks() {
        RateChart chart;
        RateReading s;
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
        ServerReading server;
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
        QVERIFY2(log.contains("workers 2 -> 3 at 12s: rate 1.21M rows/s at 3"), qPrintable(log));
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
        for (int i = 0; i <= 4; ++i) {
            RateReading rate;
            rate.elapsed = i;
            rate.intervalRate = 1.2e6;
            rate.overallRate = 1.1e6;
            controller.events().rateMeasured(rate);
            ServerReading s;
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
            controller.events().serverMeasured(s);
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
        ServerReading again;
        again.secondsToFull = 30;
        controller.events().serverMeasured(again);
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
            RateReading r;
            r.elapsed = seconds * i / kSamples;
            r.intervalRate = i == 20 ? 1'250'000 : 850'000;
            r.overallRate = 900'000;
            rates.addSample(r);
            ServerReading s;
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

    // Every label of the run's charts, the history's and a bench plot is drawn whole, after a
    // 2-second run and a 2-hour one, in a small window and a large one: a chart with little room
    // shows fewer ticks, never "..." (a 2-second load of 4 global hours used to elide every label of
    // the disk chart's axis).
    void labelsAreNeverElided_data() {
        QTest::addColumn<double>("seconds");
        QTest::addColumn<QSize>("window");
        QTest::newRow("2 s, small") << 2.0 << QSize(640, 420);
        QTest::newRow("2 s, large") << 2.0 << QSize(1600, 1000);
        QTest::newRow("2 h, small") << 7200.0 << QSize(640, 420);
        QTest::newRow("2 h, large") << 7200.0 << QSize(1600, 1000);
    }
    void labelsAreNeverElided() {
        QFETCH(double, seconds);
        QFETCH(QSize, window);
        LoadController controller;
        RunPanel panel(&controller);
        panel.resize(window);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        LoadStart start;
        start.workers = 2;
        controller.events().started(start);
        constexpr int kSamples = 40;
        for (int i = 0; i <= kSamples; ++i) {
            RateReading rate;
            rate.elapsed = seconds * i / kSamples;
            rate.intervalRate = 1.2e6 + 1e4 * (i % 3);
            rate.overallRate = 1.1e6;
            controller.events().rateMeasured(rate);
            ServerReading s;
            s.elapsed = rate.elapsed;
            s.freeBytes = (20 - 0.1 * i) * GiB;
            s.walDirBytes = 1.0 * GiB;
            s.tableBytes = i * 0.08 * GiB;
            controller.events().serverMeasured(s);
        }
        QTRY_VERIFY_WITH_TIMEOUT(panel.chart()->timeAxis()->max() >= seconds &&
                                     panel.diskChart()->timeAxis()->max() >= seconds,
                                 kSlowMs);
        // The redraws after the layout settled (a resize schedules one, 40 ms later).
        QTest::qWait(200);
        QVERIFY2(elidedTexts(*panel.chart()).isEmpty(), qPrintable(elidedTexts(*panel.chart()).join(' ')));
        QVERIFY2(elidedTexts(*panel.diskChart()).isEmpty(),
                 qPrintable(elidedTexts(*panel.diskChart()).join(' ')));
        QVERIFY(panel.diskChart()->bytesAxis()->categoriesLabels().size() >= 2);
        QCOMPARE(panel.diskChart()->timeAxis()->categoriesLabels(),
                 panel.chart()->timeAxis()->categoriesLabels());

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        RunReport report = reportWithDisk();
        rateUntil(report, seconds);
        writeReport(report, dir.filePath("run.json").toStdString());
        HistoryPanel history;
        history.resize(window);
        QSignalSpy refreshed(&history, &HistoryPanel::refreshed);
        history.setDirectory(dir.path());
        history.QWidget::show();
        QVERIFY(QTest::qWaitForWindowExposed(&history));
        QTRY_VERIFY_WITH_TIMEOUT(!refreshed.isEmpty(), kSlowMs);
        QTest::qWait(200);
        QVERIFY2(elidedTexts(*history.chart()).isEmpty(),
                 qPrintable(elidedTexts(*history.chart()).join(' ')));
        QVERIFY2(elidedTexts(*history.diskChart()).isEmpty(),
                 qPrintable(elidedTexts(*history.diskChart()).join(' ')));

        BenchPlotView bench;
        BenchPlot plot;
        plot.title = "rows/s by workers";
        plot.xLabel = "workers";
        plot.yLabel = "rows/s";
        plot.yFormat = "rate";
        plot.categories = {"1", "2", "4", "8"};
        plot.series = {{"isobar", {1.1e6, 1.9e6, 2.4e6, 2.45e6}},
                       {"server COPY", {1.2e6, 2.0e6, 2.5e6, 2.6e6}}};
        bench.resize(window.width() / 2, std::max(280, window.height() / 3));
        bench.showPlot(plot);
        bench.show();
        QVERIFY(QTest::qWaitForWindowExposed(&bench));
        QTest::qWait(200);
        QVERIFY2(elidedTexts(bench).isEmpty(), qPrintable(elidedTexts(bench).join(' ')));
    }

    // A finished run's disk is drawn from its report at once (no redraw timer to wait for): the
    // figures seen, each at its time, and nothing of those never seen; the time axis is the rate
    // chart's, though the monitor looked once more after the last rate sample.
    void diskChartShowsAReport() {
        const RunReport report = reportWithDisk();
        RateChart rates;
        DiskChart disk;
        connect(&rates, &RateChart::timeSpanChanged, &disk, &DiskChart::setMinimumTimeSpan);
        connect(&disk, &DiskChart::timeSpanChanged, &rates, &RateChart::setMinimumTimeSpan);
        rates.showReport(report, "run");
        disk.showReport(report);
        QVERIFY(disk.hasFigures());
        QCOMPARE(drawn(disk), seen(report));
        QCOMPARE(disk.freePoints().size(), qsizetype{11}); // 12 looks, one without the free space
        QVERIFY(disk.walFreePoints().isEmpty());
        QCOMPARE(disk.walPoints().at(6), QPointF(6, 1.0 * GiB));
        QCOMPARE(disk.tablePoints().back(), QPointF(11, 2.75 * GiB));
        QVERIFY2(disk.bytesAxis()->max() >= 20 * GiB,
                 qPrintable(disk.bytesAxis()->categoriesLabels().join(' ')));
        QVERIFY(disk.timeAxis()->max() >= 11);
        QCOMPARE(disk.timeAxis()->max(), rates.timeAxis()->max());
        QCOMPARE(disk.timeAxis()->categoriesLabels(), rates.timeAxis()->categoriesLabels());

        // A run whose rate series outlasts what the monitor saw: the disk's axis reaches its end.
        RunReport longer = report;
        rateUntil(longer, 30);
        rates.showReport(longer, "longer");
        disk.showReport(longer);
        QCOMPARE(drawn(disk), seen(longer));
        QVERIFY(rates.timeAxis()->max() >= 30);
        QCOMPARE(disk.timeAxis()->max(), rates.timeAxis()->max());

        // Another run replaces it; one whose disk was never seen leaves the chart empty.
        disk.showReport(reportWithoutDisk());
        QVERIFY(!disk.hasFigures());
        QVERIFY(disk.freePoints().isEmpty() && disk.walPoints().isEmpty() && disk.tablePoints().isEmpty());
    }

    // The exported image holds both charts: the rate chart as large as without the disk (its
    // worker markers), the disk chart under it (free space's green, pg_wal's orange), which a run
    // without disk figures lacks.
    void exportedImageHoldsBothCharts() {
        const QSize rateSize(1000, 420);
        const QImage both = renderRunCharts(reportWithDisk(), rateSize);
        const QImage rateOnly = renderRunCharts(reportWithoutDisk(), rateSize);
        QCOMPARE(rateOnly.size(), rateSize);
        QCOMPARE(both.size(), QSize(1000, 420 + 280));
        const int end = both.height();
        for (const QColor& disk : {kFreeGreen, kWalOrange}) {
            QVERIFY(pixelsLike(both, disk, 420, end) > 20);
            QCOMPARE(pixelsLike(both, disk, 0, 420), 0);
            QCOMPARE(pixelsLike(rateOnly, disk, 0, 420), 0);
        }
        QVERIFY(pixelsLike(both, kFreeGreen, 420, end) > 60); // the legend's mark and the curve
        QVERIFY(pixelsLike(both, kWorkerPurple, 0, 420) > 20);
        QCOMPARE(pixelsLike(both, kWorkerPurple, 420, end), 0);
        QVERIFY(pixelsLike(rateOnly, kWorkerPurple, 0, 420) > 20);

        // What the PNG export writes.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath("run.png");
        const QString problem = exportReport(reportWithDisk(), path);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        const QImage png(path);
        QCOMPARE(png.size(), both.size());
        QVERIFY(pixelsLike(png, kWalOrange, 420, end) > 20);
    }

    // The PDF is written with the charts, and its summary says what the HTML report says of the
    // workers, the disk, the standbys and the archiver (the PDF's own text is compressed and
    // glyph-coded: read here from the summary it is made of).
    void pdfSaysWhatTheHtmlReportSays() {
        const RunReport report = reportWithDisk();
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString withDisk = dir.filePath("disk.pdf");
        const QString withoutDisk = dir.filePath("nodisk.pdf");
        for (const auto& [r, path] :
             {std::pair{report, withDisk}, std::pair{reportWithoutDisk(), withoutDisk}}) {
            const QString problem = exportReport(r, path);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
        QFile pdf(withDisk);
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QVERIFY(pdf.read(5) == "%PDF-");
        QVERIFY(pdf.size() > 10'000);
        QVERIFY2(pdf.size() > QFileInfo(withoutDisk).size(), "the disk chart adds to the image");

        QTextDocument doc;
        doc.setHtml(reportSummaryHtml(report));
        const QString text = doc.toPlainText();
        for (const QString& fact :
             {QString("auto, up to 4: 2 at the end, 2 change(s)"),
              QString("workers 2 \u2192 3 at 3.00s: rate 1.21M rows/s at 3, 1.02M at 2: +19 %"),
              QString("workers 3 \u2192 2 at 7.50s: rate 1.19M rows/s at 3, 1.20M at 2: no gain"),
              QString::fromStdString(report.forecast[0]), QString::fromStdString(report.forecast[1]),
              QString("lowest free space 16.7 GiB"), QString("pg_wal peak 1.0 GiB"),
              QString("table 2.8 GiB at the end (85.5 bytes/row)"),
              QString("replica1: streaming, replay lag up to 4.50s, up to 1.9 MiB behind"),
              QString("up to 3 WAL segment(s) waiting, 1 failed archive_command run(s)")}) {
            QVERIFY2(text.contains(fact), qPrintable(fact + "\n---\n" + text));
        }
        doc.setHtml(reportSummaryHtml(reportWithoutDisk()));
        QVERIFY2(doc.toPlainText().contains("not seen (a server on another machine"),
                 qPrintable(doc.toPlainText()));
        QVERIFY(!doc.toPlainText().contains("lowest free space"));
    }

    // The history shows a run's disk under its rate chart, on the same time span: the newest run
    // as the reports are read, another when opened (hidden when its disk was never seen), and the
    // first run's when two are compared, saying so.
    void historyShowsTheDisk() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const RunReport withDisk = reportWithDisk();
        const RunReport withoutDisk = reportWithoutDisk(); // the older of the two
        writeReport(withDisk, dir.filePath("run-new.json").toStdString());
        writeReport(withoutDisk, dir.filePath("run-old.json").toStdString());
        HistoryPanel history;
        QSignalSpy refreshed(&history, &HistoryPanel::refreshed);
        history.setDirectory(dir.path());
        QTRY_VERIFY_WITH_TIMEOUT(!refreshed.isEmpty(), kSlowMs);
        QCOMPARE(history.runCount(), 2);
        DiskChart* disk = history.diskChart();
        QCOMPARE(drawn(*disk), seen(withDisk)); // the newest, before any is opened
        QVERIFY(!disk->isHidden());
        QVERIFY(disk->timeAxis()->max() >= 11);
        QCOMPARE(disk->timeAxis()->max(), history.chart()->timeAxis()->max());

        history.select({1});
        history.openSelected();
        QVERIFY(disk->isHidden());
        QVERIFY(!disk->hasFigures());
        QVERIFY2(history.summaryLabel()->text().contains("not seen"),
                 qPrintable(history.summaryLabel()->text()));

        history.select({0});
        history.openSelected();
        QVERIFY(!disk->isHidden());
        QCOMPARE(drawn(*disk), seen(withDisk));
        QVERIFY2(history.summaryLabel()->text().contains("no gain"),
                 qPrintable(history.summaryLabel()->text()));

        history.select({0, 1});
        history.compareSelected();
        QCOMPARE(drawn(*disk), seen(withDisk));
        QVERIFY2(disk->toolTip().contains("first run"), qPrintable(disk->toolTip()));
        QVERIFY2(
            history.summaryLabel()->text().contains("disk chart shows the first run's (2024-05-02T10:00:00)"),
            qPrintable(history.summaryLabel()->text()));
        // The second run's curve is longer: both charts reach its end.
        QVERIFY(history.chart()->timeAxis()->max() >= 30);
        QCOMPARE(disk->timeAxis()->max(), history.chart()->timeAxis()->max());
    }
};

QTEST_MAIN(TestUiCharts)
#include "tst_ui_charts.moc"
