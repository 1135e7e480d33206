// SPDX-License-Identifier: GPL-3.0-or-later

// What makes a bench impossible, refused before it starts and saying why: bad options, in the
// library and in isobar-cli (which then writes no report), and a second bench on a server where one
// runs. Nothing is left behind.

#include "BenchTestUtil.h"
#include "TestUtil.h"
#include "bench/WarehouseBenchmarks.h"
#include "db/Connection.h"

#include <QtTest>

#include <string>

using namespace isobar;
using test::CliRun;
using test::leftovers;
using test::runCli;

class TestBenchRefusals : public QObject, protected test::BenchFixture {
    Q_OBJECT

private slots:
    void initTestCase() { startTinyBench(); }
    void cleanupTestCase() { cluster_.reset(); }

    // What makes a bench impossible is refused before it starts, saying which option.
    void optionsAreValidated() {
        MethodsBenchmarkOptions methods;
        methods.conninfo = cluster_->conninfo();
        methods.data = data();
        const auto noProgress = [](const std::string&, double) {
        };
        {
            auto o = methods;
            o.durability = {"safe", "fast"};
            EXPECT_ERROR_CONTAINING(benchmarkMethods(o, noProgress), "--yes", "fsync");
        }
        {
            auto o = methods;
            o.durability = {"reckless"};
            EXPECT_ERROR_CONTAINING(benchmarkMethods(o, noProgress), "'reckless'", "safe or fast");
        }
        {
            auto o = methods;
            o.rounds = 0;
            EXPECT_ERROR_CONTAINING(benchmarkMethods(o, noProgress), "rounds", "at least 1");
        }
        {
            auto o = methods;
            o.methods.clear();
            EXPECT_ERROR_CONTAINING(benchmarkMethods(o, noProgress), "at least one method");
        }
        MatrixBenchmarkOptions matrix;
        matrix.conninfo = cluster_->conninfo();
        matrix.hours = {0};
        EXPECT_ERROR_CONTAINING(benchmarkMatrix(matrix, noProgress), "0 hours");
        matrix.hours = {1};
        matrix.workers = 0;
        EXPECT_ERROR_CONTAINING(benchmarkMatrix(matrix, noProgress), "at least 1 worker");
        QueryBenchmarkOptions query;
        query.conninfo = cluster_->conninfo();
        query.repeats = 0;
        EXPECT_ERROR_CONTAINING(benchmarkQueries(query, noProgress), "at least 1 warm run");
        Connection conn = cluster_->connect();
        const QString left = leftovers(conn);
        QVERIFY2(left.isEmpty(), qPrintable(left));
    }

    // isobar-cli refuses them too, with status 2 and the option named, and writes no report. (The
    // server named cannot be reached: a refusal that came too late would fail otherwise.)
    void cliRefusesBadOptions_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("said");
        const QString nowhere = "host=/nonexistent port=1";
        QTest::newRow("unknown method")
            << QStringList{"bench", "methods", "--dsn", nowhere, "--methods", "copy-text,bogus"}
            << QStringList{"'bogus'", "--methods"};
        QTest::newRow("fast without --yes")
            << QStringList{"bench", "methods", "--dsn", nowhere, "--durability", "fast"}
            << QStringList{"--yes"};
        QTest::newRow("hours not a number")
            << QStringList{"bench", "matrix", "--dsn", nowhere, "--hours", "1,x"}
            << QStringList{"--hours", "'x'"};
        QTest::newRow("no warm run") << QStringList{"bench", "query", "--dsn", nowhere, "--repeats", "0"}
                                     << QStringList{"--repeats", "'0'"};
        QTest::newRow("report extension")
            << QStringList{"bench", "methods", "--dsn", nowhere, "--report", "out.txt"}
            << QStringList{"out.txt", ".json, .csv, .html or .md"};
        QTest::newRow("unknown bench")
            << QStringList{"bench", "nosuch"} << QStringList{"'nosuch'", "methods"};
        QTest::newRow("option of another bench")
            << QStringList{"bench", "matrix", "--dsn", nowhere, "--repeats", "3"}
            << QStringList{"--repeats", "matrix"};
    }
    void cliRefusesBadOptions() {
        QFETCH(QStringList, args);
        QFETCH(QStringList, said);
        const std::size_t before = benchReportFiles();
        const CliRun run = runCli(args, 60'000);
        QVERIFY2(run.exitCode == 2, qPrintable(QString("exit %1: %2").arg(run.exitCode).arg(run.err)));
        for (const QString& part : said) {
            QVERIFY2(run.err.contains(part), qPrintable("'" + part + "' not in: " + run.err));
        }
        QCOMPARE(benchReportFiles(), before);
    }

    // One bench at a time on a server: each drops every isobar_bench_* table, the other's too.
    void oneBenchAtATime() {
        Connection holder = cluster_->connect();
        holder.exec("SELECT pg_advisory_lock(hashtext('isobar bench'))");
        MatrixBenchmarkOptions o;
        o.conninfo = cluster_->conninfo();
        o.data = data();
        EXPECT_ERROR_CONTAINING(benchmarkMatrix(o, [](const std::string&, double) {}), "another bench runs");
        holder.exec("SELECT pg_advisory_unlock(hashtext('isobar bench'))");
    }
};

QTEST_GUILESS_MAIN(TestBenchRefusals)
#include "tst_bench_refusals.moc"
