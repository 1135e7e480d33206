// SPDX-License-Identifier: GPL-3.0-or-later

// A run report's JSON: every value back as it was written (counts beyond 2^53, text that needs
// escaping, what the run found in the table, where its rows lie), a report written before the disk
// was watched, and broken JSON refused saying where. No server is needed.

#include "TestUtil.h"
#include "report/RunReport.h"

#include <QtTest>

#include <cstdint>
#include <limits>

using namespace isobar;

class TestReportJson : public QObject {
    Q_OBJECT

private slots:
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
        r.extent.gridSpacing = 0.25;
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
};

QTEST_GUILESS_MAIN(TestReportJson)
#include "tst_report_json.moc"
