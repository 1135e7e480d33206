// SPDX-License-Identifier: GPL-3.0-or-later

// bench methods against a real PostgreSQL on a tiny file: every loading method into every table type
// with 1 and 2 workers, what each measures, and a bench stopped mid-method that keeps what it measured
// and leaves no table behind. Speed is never asserted: only that what was measured is there and
// consistent. The rows the methods send, and the reports, are tst_benchreport's.

#include "BenchTestUtil.h"
#include "TestUtil.h"
#include "bench/BenchReport.h"
#include "bench/BenchmarkStages.h"
#include "bench/WarehouseBenchmarks.h"
#include "db/Compression.h"
#include "db/Connection.h"
#include "util/Error.h"

#include <QtTest>

#include <atomic>
#include <cstdint>
#include <latch>
#include <map>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

using namespace isobar;
using test::describeRow;
using test::leftovers;
using test::number;
using test::Steps;
using test::text;

class TestBenchMethods : public QObject, protected test::BenchFixture {
    Q_OBJECT

    std::optional<BenchReport> methods_;
    QString methodsError_;
    Steps methodsSteps_;

    // bench methods on the tiny file (test::everyMethodOnce); run once for the tests that read its
    // report.
    const BenchReport* methodsReport() {
        if (!methods_ && methodsError_.isEmpty()) {
            const MethodsBenchmarkOptions o = test::everyMethodOnce(cluster_->conninfo(), data());
            methodsError_ = test::errorOf([&] { methods_ = benchmarkMethods(o, methodsSteps_.progress()); });
        }
        return methods_ ? &*methods_ : nullptr;
    }

private slots:
    void initTestCase() { startTinyBench(); }
    void cleanupTestCase() { cluster_.reset(); }

    // Every method into every table type with 1 and 2 workers: each loads all the rows (the INSERT
    // its sample), with a time, a rate and WAL; server-limit is its own ceiling; hypertables, without
    // TimescaleDB here, are rows that say so. Nothing is left behind.
    // The direct-compress row: the COPY methods into a hypertable compressed as COPY receives the
    // rows, each loading every row (the bench counts them), against the server's own COPY with the
    // same settings; the INSERT methods say why they are not measured there.
    void methodsDirectCompress() {
        Connection conn = cluster_->connect();
        const ExtensionStatus ts = timescaledbStatus(conn);
        if (!ts.usable ||
            !hasDirectCompress(ts.installedVersion.empty() ? ts.availableVersion : ts.installedVersion)) {
            QSKIP("TimescaleDB with direct compress of COPY (2.21+) is not on the test server");
        }
        MethodsBenchmarkOptions o = test::everyMethodOnce(cluster_->conninfo(), data());
        o.tableTypes = {{TableType::Hypertable, true, true}};
        o.methods = {LoadMethod::Insert, LoadMethod::CopyText, LoadMethod::CopyBinary,
                     LoadMethod::ServerLimit};
        o.workers = {2};
        Steps steps;
        const BenchReport report = benchmarkMethods(o, steps.progress());
        QVERIFY2(report.status == "completed", report.problem.c_str());
        const BenchTable* table = report.table("methods");
        QVERIFY(table != nullptr);
        QCOMPARE(table->rows.size(), std::size_t(4));
        for (const auto& row : table->rows) {
            QCOMPARE(text(*table, row, "table_type"), std::string("hypertable-direct"));
            if (text(*table, row, "method") == "insert") {
                VERIFY_MESSAGE(QString::fromStdString(text(*table, row, "note")),
                               "not measured: direct compress is of COPY");
                continue;
            }
            QCOMPARE(number(*table, row, "rows"), std::optional(double(fileRows_)));
            VERIFY_POSITIVE(*table, row, "vs_server_limit");
        }
    }

    void methodsMeasureEveryMethod() {
        const BenchReport* ran = methodsReport();
        if (ran == nullptr) { // not QVERIFY: GCC cannot see that it returns (-Wnull-dereference)
            QFAIL(qPrintable(methodsError_));
        }
        const BenchReport& report = *ran;
        QVERIFY2(report.status == "completed", report.problem.c_str());
        QCOMPARE(report.kind, std::string("methods"));
        QVERIFY(!report.started.empty());
        QVERIFY(report.seconds > 0);
        QVERIFY(!report.server.empty());
        const BenchTable* table = report.table("methods");
        QVERIFY(table != nullptr);
        Connection conn = cluster_->connect();
        const bool timescale = timescaledbStatus(conn).usable;

        std::map<std::tuple<std::string, std::string, double>, const std::vector<BenchValue>*> rows;
        for (const auto& row : table->rows) {
            QCOMPARE(row.size(), table->columns.size());
            const auto key = std::tuple(text(*table, row, "method"), text(*table, row, "table_type"),
                                        number(*table, row, "workers").value_or(0));
            QVERIFY2(rows.emplace(key, &row).second, qPrintable("twice: " + describeRow(*table, row)));
        }
        std::size_t expectedRows = 0;
        std::size_t measuredRuns = 0;
        for (const char* type : {"regular", "partitioned", "hypertable"}) {
            const bool measured = std::string(type) != "hypertable" || timescale;
            for (double workers : {1.0, 2.0}) {
                std::map<std::string, double> seconds;
                for (const char* method : {"insert", "multi-insert", "copy-text", "copy-csv-file",
                                           "copy-csv-file+write", "copy-binary", "server-limit"}) {
                    const auto it = rows.find({method, type, workers});
                    const QString what = QString("%1, %2, %3 worker(s)").arg(method, type).arg(workers);
                    if (!measured && std::string(method) == "copy-csv-file+write") {
                        QVERIFY2(it == rows.end(), qPrintable(what + ": a row though not measured"));
                        continue;
                    }
                    QVERIFY2(it != rows.end(), qPrintable(what + ": no row"));
                    const auto& row = *it->second;
                    ++expectedRows;
                    QCOMPARE(text(*table, row, "durability"), std::string("safe"));
                    if (!measured) {
                        const std::string note = text(*table, row, "note");
                        QVERIFY2(note.starts_with("not measured: ") &&
                                     note.find("TimescaleDB") != std::string::npos,
                                 note.c_str());
                        QVERIFY2(!number(*table, row, "rows") && !number(*table, row, "seconds") &&
                                     !number(*table, row, "rows_per_s"),
                                 qPrintable(describeRow(*table, row)));
                        continue;
                    }
                    measuredRuns += std::string(method) == "copy-csv-file+write" ? 0U : 1U;
                    const std::uint64_t want = std::string(method) == "insert" ? 50 : fileRows_;
                    QCOMPARE(number(*table, row, "rows"), std::optional(double(want)));
                    VERIFY_POSITIVE(*table, row, "seconds");
                    VERIFY_POSITIVE(*table, row, "rows_per_s");
                    VERIFY_POSITIVE(*table, row, "wal_bytes");
                    VERIFY_POSITIVE(*table, row, "vs_server_limit");
                    QVERIFY(number(*table, row, "client_cpu_s").has_value());
                    QCOMPARE(number(*table, row, "rounds"), std::optional(1.0));
                    QCOMPARE(*number(*table, row, "rows_per_s"),
                             double(want) / *number(*table, row, "seconds"));
                    seconds[method] = *number(*table, row, "seconds");
                    if (std::string(method) == "server-limit") {
                        QVERIFY2(*number(*table, row, "vs_server_limit") == 1.0,
                                 qPrintable(describeRow(*table, row)));
                    }
                }
                if (measured) {
                    QVERIFY2(seconds["copy-csv-file+write"] >= seconds["copy-csv-file"],
                             qPrintable(QString("%1 worker(s)").arg(workers)));
                }
            }
        }
        QCOMPARE(table->rows.size(), expectedRows);
        // One step per measured run, then done.
        QCOMPARE(methodsSteps_.seen.size(), measuredRuns + 1);
        QVERIFY2(methodsSteps_.problem().isEmpty(), qPrintable(methodsSteps_.problem()));

        // The plot: rows/s against the worker counts, a line per method and table type measured.
        QCOMPARE(report.plots.size(), std::size_t{1});
        const BenchPlot& plot = report.plots.front();
        QCOMPARE(plot.kind, BenchPlot::Kind::Lines);
        QCOMPARE(plot.categories, (std::vector<std::string>{"1", "2"}));
        QCOMPARE(plot.series.size(), std::size_t{timescale ? 21U : 14U});
        for (const auto& s : plot.series) {
            QVERIFY2(s.values.size() == 2 && s.values[0] > 0.0 && s.values[1] > 0.0, s.name.c_str());
        }

        const QString left = leftovers(conn);
        QVERIFY2(left.isEmpty(), qPrintable(left));
        QCOMPARE(test::count(conn, "SELECT count(*) FROM pg_class WHERE relname LIKE 'isobar_bench%'"),
                 std::uint64_t{0});
    }

    // The parallel stages' runner, with every thread cancelled at the same moment: Cancelled comes
    // out, and each thread records its cancellation without racing the others (the tsan leg: the
    // flags were a std::vector<bool>, whose neighbouring elements share a word).
    void runParallelWithEveryThreadCancelledAtOnce() {
        constexpr int kThreads = 16;
        std::latch together(kThreads);
        std::atomic<int> ran{0};
        QVERIFY_THROWS_EXCEPTION(Cancelled, bench::runParallel(kThreads, "cancelling", [&](int) {
                                     ++ran;
                                     together.arrive_and_wait();
                                     throw Cancelled();
                                 }));
        QCOMPARE(ran.load(), kThreads);
        // A failure and no cancellation: the failure, naming the stage.
        try {
            bench::runParallel(2, "reading", [](int i) {
                if (i == 1) {
                    throw Error("no such table");
                }
            });
            QFAIL("runParallel did not throw");
        } catch (const Cancelled&) {
            QFAIL("a failure came out as a cancellation");
        } catch (const Error& e) {
            QCOMPARE(std::string(e.what()), std::string("reading failed: no such table"));
        }
    }

    // Stopped while a method writes into its table: cancelled, what was measured kept, no table left.
    void cancelledMethodsLeaveNoTables() {
        MethodsBenchmarkOptions o;
        o.conninfo = cluster_->conninfo();
        o.data = data();
        o.workers = {2};
        o.rounds = 2;
        o.insertRows = 50;
        std::stop_source stop;
        Steps steps;
        BenchReport report;
        QString error;
        {
            // The bench on a thread of its own, as the desktop app runs it; stopped from its progress
            // (on that thread) as the second method starts, which notices it among its rows: its
            // table made, its transaction open.
            std::jthread bench([&] {
                try {
                    report = benchmarkMethods(
                        o,
                        [&](const std::string& step, double done) {
                            steps.seen.emplace_back(step, done);
                            if (steps.seen.size() == 2) {
                                stop.request_stop();
                            }
                        },
                        stop.get_token());
                } catch (const std::exception& e) {
                    error = e.what();
                }
            });
        }
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(report.status, std::string("cancelled"));
        QVERIFY(report.problem.empty());
        QCOMPARE(steps.seen.size(), std::size_t{2});
        QVERIFY(steps.seen[1].first.starts_with("multi-insert"));
        const BenchTable* table = report.table("methods");
        QVERIFY(table != nullptr);
        std::size_t measured = 0;
        for (const auto& row : table->rows) {
            if (number(*table, row, "rows")) {
                ++measured;
                QCOMPARE(text(*table, row, "method"), std::string("insert"));
                QCOMPARE(number(*table, row, "rows"), std::optional(50.0));
            } else {
                QCOMPARE(text(*table, row, "note"), std::string("not measured"));
            }
        }
        QCOMPARE(measured, std::size_t{1});
        QVERIFY(renderBenchMarkdown(report).find("**cancelled**") != std::string::npos);
        Connection conn = cluster_->connect();
        const QString left = leftovers(conn);
        QVERIFY2(left.isEmpty(), qPrintable(left));
    }
};

QTEST_GUILESS_MAIN(TestBenchMethods)
#include "tst_bench_methods.moc"
