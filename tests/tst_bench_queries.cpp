// SPDX-License-Identifier: GPL-3.0-or-later

// bench query against a real PostgreSQL on a tiny file: the four queries on a regular and a
// partitioned table, cold (after a server restart, unless other sessions would lose theirs) and warm,
// and the first UTC day removed from each. Speed is never asserted: only that what was measured is
// there and consistent.

#include "BenchTestUtil.h"
#include "TestUtil.h"
#include "bench/BenchReport.h"
#include "bench/WarehouseBenchmarks.h"
#include "db/Connection.h"
#include "db/TableType.h"

#include <QtTest>

#include <cmath>
#include <string>
#include <vector>

using namespace isobar;
using test::describeRow;
using test::leftovers;
using test::number;
using test::Steps;
using test::text;

class TestBenchQueries : public QObject, protected test::BenchFixture {
    Q_OBJECT

private slots:
    void initTestCase() { startTinyBench(); }
    void cleanupTestCase() { cluster_.reset(); }

    // A restart would end everyone's sessions: with another client connected the server is not
    // restarted, and the notes say why the cold runs are only the first after the load.
    void queriesDoNotRestartABusyServer() {
        Connection other = cluster_->connect(); // someone else's session
        int restarts = 0;
        QueryBenchmarkOptions o;
        o.conninfo = cluster_->conninfo();
        o.data = data();
        o.tableTypes = {{TableType::Regular, false}};
        o.repeats = 1;
        o.restartServer = [&] {
            ++restarts;
        };
        BenchReport report;
        NO_ERROR(report = benchmarkQueries(o, [](const std::string&, double) {}));
        QVERIFY2(report.status == "completed", report.problem.c_str());
        QCOMPARE(restarts, 0);
        const BenchTable* queries = report.table("queries");
        QVERIFY(queries != nullptr);
        QVERIFY2(queries->notes.front().find("not restarted: 1 other session(s)") != std::string::npos,
                 queries->notes.front().c_str());
        QCOMPARE(test::scalar(other, "SELECT 1"), QString("1")); // still connected
    }

    // The four queries on a regular and a partitioned table of the same rows, the server restarted
    // before each type's cold runs; and the first UTC day removed from each.
    void queriesAndRetention() {
        int restarts = 0;
        QueryBenchmarkOptions o;
        o.conninfo = cluster_->conninfo();
        o.data = data();
        o.tableTypes = {{TableType::Regular, false}, {TableType::Partitioned, false}};
        o.repeats = 3;
        o.restartServer = [&] {
            ++restarts;
            cluster_->cluster().stop();
            cluster_->cluster().start();
        };
        Steps steps;
        BenchReport report;
        NO_ERROR(report = benchmarkQueries(o, steps.progress()));
        QVERIFY2(report.status == "completed", report.problem.c_str());
        QCOMPARE(restarts, 2);
        QVERIFY2(steps.problem().isEmpty(), qPrintable(steps.problem()));

        const BenchTable* queries = report.table("queries");
        QVERIFY(queries != nullptr);
        QCOMPARE(queries->rows.size(), std::size_t{8});
        QVERIFY(!queries->notes.empty() && queries->notes.front().find("restarted") != std::string::npos);
        for (std::size_t q = 0; q < 4; ++q) {
            const auto& regular = queries->rows[q];
            const auto& partitioned = queries->rows[q + 4];
            QCOMPARE(text(*queries, regular, "table_type"), std::string("regular"));
            QCOMPARE(text(*queries, partitioned, "table_type"), std::string("partitioned"));
            QCOMPARE(text(*queries, regular, "query"), text(*queries, partitioned, "query"));
            for (const auto* row : {&regular, &partitioned}) {
                for (const char* key : {"rows", "cold_s", "warm_mean_s", "warm_p95_s"}) {
                    VERIFY_POSITIVE(*queries, *row, key);
                }
                // Of 3 warm runs the 95th percentile (nearest rank) is the slowest: never below the mean.
                QVERIFY(*number(*queries, *row, "warm_p95_s") >= *number(*queries, *row, "warm_mean_s"));
            }
            QCOMPARE(number(*queries, regular, "rows"), number(*queries, partitioned, "rows"));
        }
        // What the tiny file makes of them: a location's 2 days; 8 locations in the first hour; the
        // first day's 2 hours in one 10 degree band; a location's 4 hours (of the last 5) each.
        QCOMPARE(number(*queries, queries->rows[0], "rows"), std::optional(2.0));
        QCOMPARE(number(*queries, queries->rows[1], "rows"), std::optional(8.0));
        QCOMPARE(number(*queries, queries->rows[2], "rows"), std::optional(2.0));
        QCOMPARE(std::fmod(*number(*queries, queries->rows[3], "rows"), 4.0), 0.0);

        const BenchTable* retention = report.table("retention");
        QVERIFY(retention != nullptr);
        QCOMPARE(retention->rows.size(), std::size_t{2});
        const auto& regular = retention->rows[0];
        QCOMPARE(text(*retention, regular, "table_type"), std::string("regular"));
        QCOMPARE(text(*retention, regular, "method"), std::string("DELETE"));
        QCOMPARE(number(*retention, regular, "rows"), std::optional(double(firstDayRows_)));
        VERIFY_POSITIVE(*retention, regular, "seconds");
        VERIFY_POSITIVE(*retention, regular, "vacuum_s");
        VERIFY_POSITIVE(*retention, regular, "before_bytes");
        QVERIFY2(*number(*retention, regular, "after_bytes") <= *number(*retention, regular, "before_bytes"),
                 qPrintable(describeRow(*retention, regular)));
        const auto& partitioned = retention->rows[1];
        QCOMPARE(text(*retention, partitioned, "table_type"), std::string("partitioned"));
        QCOMPARE(text(*retention, partitioned, "method"), std::string("DETACH + DROP partition"));
        QCOMPARE(number(*retention, partitioned, "rows"), std::optional(double(firstDayRows_)));
        QCOMPARE(number(*retention, partitioned, "vacuum_s"), std::optional(0.0));
        VERIFY_POSITIVE(*retention, partitioned, "before_bytes");
        QVERIFY2(*number(*retention, partitioned, "after_bytes") <
                     *number(*retention, partitioned, "before_bytes"),
                 qPrintable(describeRow(*retention, partitioned)));

        // Warm and cold latency per query, and the removal per table type.
        QCOMPARE(report.plots.size(), std::size_t{3});
        QCOMPARE(report.plots[0].categories, (std::vector<std::string>{"Q1", "Q2", "Q3", "Q4"}));
        QCOMPARE(report.plots[1].categories, report.plots[0].categories);
        QCOMPARE(report.plots[0].series.size(), std::size_t{2});
        QCOMPARE(report.plots[2].categories, (std::vector<std::string>{"regular", "partitioned"}));

        Connection conn = cluster_->connect(); // the server is up again
        const QString left = leftovers(conn);
        QVERIFY2(left.isEmpty(), qPrintable(left));
    }
};

QTEST_GUILESS_MAIN(TestBenchQueries)
#include "tst_bench_queries.moc"
