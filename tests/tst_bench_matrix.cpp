// SPDX-License-Identifier: GPL-3.0-or-later

// bench matrix against a real PostgreSQL on a tiny file: every table type measured end to end, or a
// row saying what it needs, and the first UTC day removed from each; and a bench stopped once its table
// exists leaves no table behind. Speed is never asserted: only that what was measured is there and
// consistent.

#include "BenchTestUtil.h"
#include "TestUtil.h"
#include "bench/BenchReport.h"
#include "bench/WarehouseBenchmarks.h"
#include "db/Connection.h"

#include <QtTest>

#include <algorithm>
#include <chrono>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace isobar;
using test::describeRow;
using test::leftovers;
using test::number;
using test::Steps;
using test::text;

class TestBenchMatrix : public QObject, protected test::BenchFixture {
    Q_OBJECT

private slots:
    void initTestCase() { startTinyBench(); }
    void cleanupTestCase() { cluster_.reset(); }

    // Every table type on the tiny file (the hours are not used with files): the plain and
    // partitioned tables are measured end to end, and lose the first UTC day by DELETE or by dropping
    // its partition; those that need TimescaleDB or Citus, absent here, are rows that say so.
    void matrixOfEveryTableType() {
        MatrixBenchmarkOptions o;
        o.conninfo = cluster_->conninfo();
        o.data = data();
        o.hours = {1, 10};
        o.workers = 2;
        o.seriesLocations = 4;
        Steps steps;
        BenchReport report;
        NO_ERROR(report = benchmarkMatrix(o, steps.progress()));
        QVERIFY2(report.status == "completed", report.problem.c_str());
        QCOMPARE(report.kind, std::string("matrix"));
        QVERIFY2(steps.problem().isEmpty(), qPrintable(steps.problem()));
        Connection conn = cluster_->connect();
        std::vector<std::pair<std::string, std::string>> skipped;
        availableBenchTableTypes(conn, &skipped);
        std::vector<std::string> names;
        for (const auto& t : allBenchTableTypes()) {
            names.push_back(benchTableTypeName(t));
        }
        QCOMPARE(names,
                 (std::vector<std::string>{"regular", "unlogged", "partitioned", "hypertable",
                                           "hypertable-compressed", "hypertable-direct", "distributed"}));

        const BenchTable* table = report.table("matrix");
        QVERIFY(table != nullptr);
        QCOMPARE(table->rows.size(), names.size()); // one data size: the file
        std::vector<bool> measured;
        for (std::size_t i = 0; i < names.size(); ++i) {
            const auto& row = table->rows[i];
            QCOMPARE(row.size(), table->columns.size());
            QCOMPARE(text(*table, row, "data"), std::string("1 file(s)"));
            QCOMPARE(text(*table, row, "table_type"), names[i]);
            const auto why = std::find_if(skipped.begin(), skipped.end(),
                                          [&](const auto& s) { return s.first == names[i]; });
            measured.push_back(why == skipped.end());
            if (why != skipped.end()) {
                const std::string note = text(*table, row, "note");
                QCOMPARE(note, "not measured: " + why->second);
                const char* needs = names[i] == "distributed" ? "Citus" : "TimescaleDB";
                QVERIFY2(note.find(needs) != std::string::npos, note.c_str());
                QVERIFY2(!number(*table, row, "rows") && !number(*table, row, "total_bytes"),
                         qPrintable(describeRow(*table, row)));
                continue;
            }
            QCOMPARE(number(*table, row, "rows"), std::optional(double(fileRows_)));
            for (const char* key : {"write_1_s", "write_n_s", "rows_per_s_n", "heap_bytes", "total_bytes",
                                    "scan_1_s", "scan_n_s", "series_1_s", "series_n_s", "delete_s"}) {
                VERIFY_POSITIVE(*table, row, key);
            }
            const double total = *number(*table, row, "total_bytes");
            QVERIFY(total >= *number(*table, row, "heap_bytes"));
            QCOMPARE(number(*table, row, "delete_rows"), std::optional(double(firstDayRows_)));
            const std::string method = text(*table, row, "delete_method");
            const auto after = number(*table, row, "after_delete_bytes");
            QVERIFY(after.has_value());
            if (names[i] == "partitioned") {
                QCOMPARE(method, std::string("DETACH + DROP partition"));
                QVERIFY2(*after < total, qPrintable(describeRow(*table, row)));
                QCOMPARE(number(*table, row, "vacuum_s"), std::optional(0.0));
            } else if (names[i].starts_with("hypertable")) {
                QCOMPARE(method, std::string("drop_chunks"));
                QVERIFY2(*after < total, qPrintable(describeRow(*table, row)));
            } else {
                QCOMPARE(method, std::string("DELETE"));
                VERIFY_POSITIVE(*table, row, "vacuum_s");
                QVERIFY2(*after <= total, qPrintable(describeRow(*table, row)));
            }
        }
        QVERIFY(measured[0] && measured[1] && measured[2]);

        // Write time, size and full scan, a bar per measured table type.
        QCOMPARE(report.plots.size(), std::size_t{3});
        for (const BenchPlot& plot : report.plots) {
            QCOMPARE(plot.kind, BenchPlot::Kind::Bars);
            QCOMPARE(plot.categories, names);
            QVERIFY(!plot.series.empty());
            for (const auto& s : plot.series) {
                QCOMPARE(s.values.size(), names.size());
                for (std::size_t i = 0; i < names.size(); ++i) {
                    QVERIFY2(
                        measured[i] ? s.values[i] > 0.0 : !s.values[i].has_value(),
                        qPrintable(QString::fromStdString(plot.title + ", " + s.name + ", " + names[i])));
                }
            }
        }
        QCOMPARE(report.plots[0].series.size(), std::size_t{2}); // writing with 1 and with 2 workers
        const QString left = leftovers(conn);
        QVERIFY2(left.isEmpty(), qPrintable(left));
    }

    // Stopped once its table exists (during the second load or the reads after it): cancelled, no
    // table left.
    void cancelledMatrixLeavesNoTables() {
        MatrixBenchmarkOptions o;
        o.conninfo = cluster_->conninfo();
        o.data = data();
        o.workers = 2;
        std::stop_source stop;
        Steps steps;
        BenchReport report;
        QString error;
        std::jthread stopper;
        {
            std::jthread bench([&] {
                try {
                    report = benchmarkMatrix(
                        o,
                        [&](const std::string& step, double done) {
                            steps.seen.emplace_back(step, done);
                            if (steps.seen.size() != 2) {
                                return;
                            }
                            // Watches for the table on a connection of its own, and stops the
                            // bench as soon as it is there (or after 20 s at the latest).
                            stopper = std::jthread([&, conninfo = o.conninfo] {
                                try {
                                    Connection watch = Connection::open(conninfo);
                                    test::waitFor(
                                        [&] {
                                            return test::scalar(watch,
                                                                "SELECT to_regclass('isobar_bench_matrix') "
                                                                "IS NOT NULL") == "t";
                                        },
                                        std::chrono::seconds(20));
                                } catch (const std::exception&) {
                                    // Stopped all the same: the test then finds what is left.
                                }
                                stop.request_stop();
                            });
                        },
                        stop.get_token());
                } catch (const std::exception& e) {
                    error = e.what();
                }
            });
        }
        stopper = {};
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY2(report.status == "cancelled",
                 qPrintable(QString::fromStdString(report.status + " " + report.problem)));
        QVERIFY(steps.seen.size() >= 2);
        QVERIFY(std::none_of(steps.seen.begin(), steps.seen.end(),
                             [](const auto& s) { return s.first == "done"; }));
        QVERIFY(report.table("matrix") != nullptr);
        Connection conn = cluster_->connect();
        const QString left = leftovers(conn);
        QVERIFY2(left.isEmpty(), qPrintable(left));
    }
};

QTEST_GUILESS_MAIN(TestBenchMatrix)
#include "tst_bench_matrix.moc"
