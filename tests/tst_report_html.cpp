// SPDX-License-Identifier: GPL-3.0-or-later

// A run report as HTML: the disk chart under the rate chart with the worker changes and the
// checkpoints marked, the forecast, standbys and archiver in the summary, each checkpoint with its
// cause and the rate around it, and axes whose labels read as people read them. No server is needed.

#include "report/RunReport.h"
#include "util/Format.h"

#include <QtTest>

#include <cmath>

using namespace isobar;

class TestReportHtml : public QObject {
    Q_OBJECT

private slots:
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
};

QTEST_GUILESS_MAIN(TestReportHtml)
#include "tst_report_html.moc"
