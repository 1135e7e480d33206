// SPDX-License-Identifier: GPL-3.0-or-later

// isobar-cli bench as a user runs it, against a real PostgreSQL on a tiny file: bench methods' Markdown
// table on stdout, its --report as HTML and its report in the report directory; bench read's report as
// --report x.json and in the report directory. Nothing is left behind.

#include "BenchTestUtil.h"
#include "TestUtil.h"
#include "bench/BenchReport.h"
#include "bench/WarehouseBenchmarks.h"
#include "db/Connection.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

using namespace isobar;
using test::CliRun;
using test::leftovers;
using test::number;
using test::readText;
using test::runCli;
using test::text;

class TestBenchCli : public QObject, protected test::BenchFixture {
    Q_OBJECT

private slots:
    void initTestCase() { startTinyBench(); }
    void cleanupTestCase() { cluster_.reset(); }

    // isobar-cli bench methods as a user runs it: the Markdown table on stdout, --report as HTML,
    // and the report in the report directory it inherited from this process.
    void cliBenchMethods() {
        const QString reports = qEnvironmentVariable("ISOBAR_REPORT_DIR");
        QCOMPARE(reports, cluster_->workDir() + "/reports");
        QCOMPARE(benchReportDirectory(), benchReports());
        const QString html = cluster_->workDir() + "/m.html";
        const CliRun run = runCli({"bench", "methods", "--dsn", QString::fromStdString(cluster_->conninfo()),
                                   "--methods", "copy-binary,server-limit", "--rounds", "1", "--report", html,
                                   QString::fromStdString(file_.string())});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains("### Loading methods") && run.out.contains("|---"), qPrintable(run.out));
        QVERIFY2(run.out.contains("| copy-binary |") && run.out.contains("| server-limit |"),
                 qPrintable(run.out));
        QVERIFY2(!run.out.contains("| copy-text |"), qPrintable(run.out));
        QVERIFY(readText(html.toStdString()).find("<svg") != std::string::npos);

        std::vector<BenchReportEntry> methods;
        for (auto& e : listBenchReports(benchReports())) {
            if (e.report.kind == "methods") {
                methods.push_back(std::move(e));
            }
        }
        QCOMPARE(methods.size(), std::size_t{1});
        const BenchReport& report = methods.front().report;
        QVERIFY2(run.err.contains(QString::fromStdString(methods.front().path.string())),
                 qPrintable(run.err));
        QCOMPARE(report.status, std::string("completed"));
        QVERIFY2(report.command.find("--methods copy-binary,server-limit") != std::string::npos,
                 report.command.c_str());
        const BenchTable* table = report.table("methods");
        QVERIFY(table != nullptr);
        QCOMPARE(table->rows.size(), std::size_t{2});
        for (const auto& row : table->rows) {
            QCOMPARE(number(*table, row, "rows"), std::optional(double(fileRows_)));
            VERIFY_POSITIVE(*table, row, "rows_per_s");
        }
        Connection conn = cluster_->connect();
        const QString left = leftovers(conn);
        QVERIFY2(left.isEmpty(), qPrintable(left));
    }

    // bench read writes its report too: --report x.json, and in the report directory.
    void cliBenchReadReport() {
        const std::filesystem::path json = work() / "x.json";
        const CliRun run =
            runCli({"bench", "read", "--passes", "1", "--report", QString::fromStdString(json.string()),
                    QString::fromStdString(file_.string())});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        BenchReport report;
        NO_ERROR(report = parseBenchReport(readText(json)));
        QCOMPARE(report.kind, std::string("read"));
        QCOMPARE(report.status, std::string("completed"));
        QVERIFY(!report.machine.empty());
        const BenchTable* table = report.table("read");
        QVERIFY(table != nullptr);
        QCOMPARE(table->rows.size(), std::size_t{4});
        QCOMPARE(text(*table, table->rows.back(), "stage"), std::string("all"));
        for (const auto& row : table->rows) {
            VERIFY_POSITIVE(*table, row, "seconds");
            VERIFY_POSITIVE(*table, row, "rows_per_s");
        }
        const auto listed = listBenchReports(benchReports());
        QVERIFY(
            std::any_of(listed.begin(), listed.end(), [](const auto& e) { return e.report.kind == "read"; }));
    }
};

QTEST_GUILESS_MAIN(TestBenchCli)
#include "tst_bench_cli.moc"
