// SPDX-License-Identifier: GPL-3.0-or-later

// Run report files, against a real PostgreSQL: the reports isobar-cli writes of a completed, a failed
// and a verified load, read back and rendered again as CSV and HTML by isobar-cli report, never
// holding a password; runs of one second each keeping their own file; files that are not reports.

#include "TestCluster.h"
#include "TestUtil.h"
#include "report/RunReport.h"
#include "util/Error.h"
#include "util/Files.h"

#include <QtTest>

#include <filesystem>
#include <set>
#include <thread>

using namespace isobar;
using test::CliRun;
using test::runCli;

class TestReportFiles : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        cluster_ = std::make_unique<test::TestCluster>();
        file_ = cluster_->workDir() + "/report.nc";
        const CliRun sample = runCli({"synth", "--out", file_, "--hours", "12", "--region", "20,0,0,20"});
        QVERIFY2(sample.exitCode == 0, qPrintable(sample.err));
        // The test server trusts local connections, so a password in the connection string is
        // ignored by the server; it must not show up in any report either.
        dsn_ = QString::fromStdString(cluster_->conninfo()) + " password=hunter2-secret";
    }
    void cleanupTestCase() { cluster_.reset(); }

    // A completed load: every format, and the JSON read back equals what was recorded.
    void completedRun() {
        const QString json = cluster_->workDir() + "/done.json";
        const QString html = cluster_->workDir() + "/done.html";
        CliRun run = runCli({"load", "--dsn", dsn_, "--table", "reported", "--workers", "2",
                             "--rows-per-unit", "20000", "--report", json, "--reporting-period", "0", file_});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.err.contains("report: " + json), qPrintable(run.err));
        QVERIFY2(run.err.contains("report: "), qPrintable(run.err)); // the standard one too

        const RunReport r = readReport(json.toStdString());
        QCOMPARE(QString::fromStdString(r.status), QString("completed"));
        QCOMPARE(r.rows, std::uint64_t{kRows});
        QCOMPARE(r.plannedRows, std::uint64_t{kRows});
        QCOMPARE(r.workers, 2);
        QCOMPARE(QString::fromStdString(r.table), QString("reported"));
        QCOMPARE(QString::fromStdString(r.tableType), QString("regular"));
        QCOMPARE(r.files.size(), size_t{1});
        QVERIFY(QString::fromStdString(r.files[0].layout).startsWith("CDS legacy"));
        QCOMPARE(r.variables.size(), size_t{6});
        QVERIFY(QString::fromStdString(r.serverVersion).startsWith("PostgreSQL"));
        QVERIFY(std::any_of(r.settings.begin(), r.settings.end(),
                            [](const ServerSetting& s) { return s.name == "fsync"; }));
        QVERIFY(r.countedRows.has_value());
        QCOMPARE(*r.countedRows, std::uint64_t{kRows});
        QCOMPARE(*r.ledgerRows, std::uint64_t{kRows});
        QVERIFY(!r.samples.empty());
        QCOMPARE(r.samples.back().committedRows, std::uint64_t{kRows});
        QCOMPARE(r.workerRows.size(), size_t{2});
        QVERIFY(r.meanRate > 0);
        QVERIFY(!r.error);

        // Re-rendered from the JSON by the CLI.
        run = runCli({"report", json, "--html", html, "--csv", cluster_->workDir() + "/done.csv"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QFile page(html);
        QVERIFY(page.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(page.readAll());
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains("<polyline"));
        QVERIFY(text.contains("completed"));
        QVERIFY(text.contains(QString::number(kRows).left(3)));
        QFile csv(cluster_->workDir() + "/done.csv");
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.front(),
                 QString("elapsed_s,rows_sent,rows_committed,rate_rows_per_s,overall_rows_per_s,"
                         "queue_depth,worker1_rows,worker2_rows"));
        QCOMPARE(lines.size() - 1, static_cast<int>(r.samples.size()));

        for (const QString& path : {json, html}) {
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            QVERIFY2(!f.readAll().contains("hunter2"), qPrintable(path + " holds the password"));
        }
    }

    // A failed load still writes its report, with the error and the unit.
    void failedRun() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE refusing (LIKE reported)");
        conn.exec("ALTER TABLE refusing ADD CONSTRAINT only_early CHECK (time < '2024-01-01 06:00:00+00')");
        const QString json = cluster_->workDir() + "/failed.json";
        const CliRun run = runCli({"load", "--dsn", dsn_, "--table", "refusing", "--workers", "1", "--report",
                                   json, "--reporting-period", "0", file_});
        QCOMPARE(run.exitCode, 1);
        const RunReport r = readReport(json.toStdString());
        QCOMPARE(QString::fromStdString(r.status), QString("failed"));
        QVERIFY(r.error.has_value());
        QVERIFY2(QString::fromStdString(*r.error).contains("only_early"), r.error->c_str());
        QCOMPARE(QString::fromStdString(r.errorSqlState), QString("23514"));
        QVERIFY(QString::fromStdString(r.errorUnit).startsWith("2024-01-01T06:00:00Z"));
        QCOMPARE(*r.countedRows, *r.ledgerRows);
    }

    // --verify: units trusts the server's count of each unit's COPY and does not scan the table;
    // full counts it however large it is; a bad value is refused before anything loads.
    void verificationChoices() {
        const QString units = cluster_->workDir() + "/units.json";
        CliRun run = runCli({"load", "--dsn", dsn_, "--table", "verified", "--rows-per-unit", "20000",
                             "--verify", "units", "--report", units, "--reporting-period", "0", file_});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        RunReport r = readReport(units.toStdString());
        QVERIFY(!r.countedRows.has_value());
        QCOMPARE(*r.ledgerRows, std::uint64_t{kRows});
        QVERIFY2(QString::fromStdString(r.verification).contains("row count of every COPY matched"),
                 r.verification.c_str());
        QVERIFY2(QString::fromStdString(r.verification).contains(QString::number(kRows) + " rows in "),
                 r.verification.c_str());
        QVERIFY2(QString::fromStdString(r.verification).contains("--verify full"), r.verification.c_str());

        // Rows the ledger does not know about are what only a full count finds.
        Connection conn = cluster_->connect();
        conn.exec("INSERT INTO verified (time, location_id) VALUES ('2030-01-01', 1)");
        const QString full = cluster_->workDir() + "/full.json";
        run = runCli({"load", "--dsn", dsn_, "--table", "verified", "--verify", "full", "--report", full,
                      "--reporting-period", "0", file_});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        r = readReport(full.toStdString());
        QCOMPARE(r.rows, std::uint64_t{0}); // everything was loaded already
        QCOMPARE(*r.countedRows, std::uint64_t{kRows + 1});
        QCOMPARE(*r.ledgerRows, std::uint64_t{kRows});
        QVERIFY2(QString::fromStdString(r.verification).contains("the ledger accounts for"),
                 r.verification.c_str());

        run = runCli({"load", "--dsn", dsn_, "--table", "verified", "--verify", "some", file_});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("--verify takes auto, units or full, not 'some'"), qPrintable(run.err));
    }

    // Runs of one table started in the same second, also in processes writing at the same moment,
    // each keep their own report: the name is reserved before the report is written.
    void reportsOfOneSecondKeepTheirNames() {
        const QString dir = cluster_->workDir() + "/same-second";
        const QByteArray saved = qgetenv("ISOBAR_REPORT_DIR");
        qputenv("ISOBAR_REPORT_DIR", QFile::encodeName(dir));
        RunReport report;
        report.tool = "isobar test";
        report.startedAt = "2024-05-01T10:00:00Z";
        report.table = "public.same";
        report.status = "completed";
        constexpr std::size_t kWriters = 8;
        std::vector<std::filesystem::path> paths(kWriters);
        std::vector<std::string> problems(kWriters);
        {
            std::vector<std::jthread> writers;
            for (std::size_t i = 0; i < kWriters; ++i) {
                writers.emplace_back([&, i] {
                    try {
                        RunReport own = report;
                        own.rows = static_cast<std::uint64_t>(i);
                        paths[i] = writeRunReport(own);
                    } catch (const std::exception& e) {
                        problems[i] = e.what();
                    }
                });
            }
        }
        qputenv("ISOBAR_REPORT_DIR", saved);
        std::set<std::uint64_t> rows;
        for (std::size_t i = 0; i < kWriters; ++i) {
            QVERIFY2(problems[i].empty(), problems[i].c_str());
            QCOMPARE(QString::fromStdString(paths[i].parent_path().string()), dir);
            QVERIFY2(paths[i].filename().string().starts_with("run-2024-05-01T10-00-00Z-same"),
                     paths[i].c_str());
            rows.insert(readReport(paths[i]).rows);
        }
        QCOMPARE(rows.size(), kWriters); // every report whole, none overwritten
        // Nothing else is left beside them: no reservation, no temporary file.
        QCOMPARE(QDir(dir).entryList(QDir::Files).size(), static_cast<qsizetype>(kWriters));
    }

    void badReportFiles() {
        const QString notJson = cluster_->workDir() + "/not.json";
        QFile f(notJson);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"tool\": \"something else\"}");
        f.close();
        CliRun run = runCli({"report", notJson});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("not an Isobar run report"), qPrintable(run.err));
        run = runCli({"report", cluster_->workDir() + "/missing.json"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("missing.json") && run.err.contains("No such file or directory"),
                 qPrintable(run.err));
        run = runCli({"report", cluster_->workDir()}); // a directory
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("Is a directory"), qPrintable(run.err));
        QVERIFY_THROWS_EXCEPTION(Error, parseReportJson("{\"tool\": \"isobar 1\", \"files\": [1, 2"));
    }

    // readWholeFile, which reads the reports (and the journals and bench reports): every byte of a
    // file larger than its first buffer, NULs among them; a /proc file whose size says 0; the cause
    // when there is no file.
    void readingWholeFiles() {
        QByteArray bytes;
        for (int i = 0; i < 100'000; ++i) {
            bytes.append(static_cast<char>(i % 251)); // a NUL every 251 bytes
        }
        const QString path = cluster_->workDir() + "/bytes.bin";
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QCOMPARE(f.write(bytes), qint64{bytes.size()});
        f.close();
        const std::string read = readWholeFile(path.toStdString());
        QCOMPARE(QByteArray(read.data(), static_cast<qsizetype>(read.size())), bytes);

        QFile cmdline("/proc/self/cmdline");
        QVERIFY(cmdline.open(QIODevice::ReadOnly));
        const QByteArray expected = cmdline.readAll();
        QVERIFY(!expected.isEmpty());
        QCOMPARE(QByteArray::fromStdString(readWholeFile("/proc/self/cmdline")), expected);

        std::error_code error;
        QVERIFY(readWholeFile(cluster_->workDir().toStdString() + "/missing.bin", error).empty());
        QVERIFY2(error == std::errc::no_such_file_or_directory, error.message().c_str());
        QVERIFY(!readWholeFile(path.toStdString(), error).empty());
        QVERIFY(!error);
    }

private:
    static constexpr int kRows = 12 * 81 * 81;
    std::unique_ptr<test::TestCluster> cluster_;
    QString file_;
    QString dsn_;
};

QTEST_GUILESS_MAIN(TestReportFiles)
#include "tst_report_files.moc"
