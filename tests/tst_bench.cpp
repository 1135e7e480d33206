// The published benches (methods, matrix, query) against a real PostgreSQL on a tiny file: what each
// measures, that they refuse bad options (in the library and in isobar-cli), and that they leave no
// table behind however they end. Speed is never asserted: only that what was measured is there and
// consistent. The rows the methods send, and the reports, are tst_benchreport's.

#include "BenchTestUtil.h"
#include "TestCluster.h"
#include "TestUtil.h"
#include "bench/BenchReport.h"
#include "bench/WarehouseBenchmarks.h"
#include "db/TableType.h"
#include "era5/Dataset.h"
#include "era5/SampleWriter.h"

#include <QtTest>

#include <cstdint>
#include <filesystem>
#include <map>
#include <stop_token>
#include <thread>

using namespace isobar;
using test::CliRun;
using test::describeRow;
using test::leftovers;
using test::number;
using test::readText;
using test::runCli;
using test::text;

namespace {

// A number of the row that must be there and above zero.
#define VERIFY_POSITIVE(table, row, key)                                                                     \
    do {                                                                                                     \
        const auto v_ = number(table, row, key);                                                             \
        QVERIFY2(v_.has_value() && *v_ > 0,                                                                  \
                 qPrintable(QString(key) + " not > 0 in: " + describeRow(table, row)));                      \
    } while (false)

// Every progress call of a bench.
struct Steps {
    std::vector<std::pair<std::string, double>> seen;
    BenchProgress progress() {
        return [this](const std::string& step, double done) {
            seen.emplace_back(step, done);
        };
    }
    // Empty when the shares never go back, stay within 0-1 (or -1: no share) and end with "done".
    QString problem() const {
        double last = 0;
        for (const auto& [step, done] : seen) {
            if (done < 0) {
                continue;
            }
            if (done < last || done > 1) {
                return QString::fromStdString("share " + std::to_string(done) + " at '" + step + "'");
            }
            last = done;
        }
        if (seen.empty() || seen.back() != std::pair<std::string, double>{"done", 1.0}) {
            return "the last step is not done, 1";
        }
        return {};
    }
};

} // namespace

class TestBench : public QObject {
    Q_OBJECT

    std::unique_ptr<test::TestCluster> cluster_;
    // 4 hours from 2024-01-01 22:00 UTC on 9 x 20 points: two UTC days, the first with 2 hours.
    std::filesystem::path file_;
    std::uint64_t fileRows_ = 0;
    std::uint64_t firstDayRows_ = 0;
    std::optional<BenchReport> methods_;
    QString methodsError_;
    Steps methodsSteps_;

    BenchData data() const { return BenchData{{file_}, {}, 0}; }

    std::filesystem::path work() const { return cluster_->workDir().toStdString(); }

    // bench methods on the tiny file (test::everyMethodOnce); run once for the tests that read its
    // report.
    const BenchReport* methodsReport() {
        if (!methods_ && methodsError_.isEmpty()) {
            const MethodsBenchmarkOptions o = test::everyMethodOnce(cluster_->conninfo(), data());
            methodsError_ = test::errorOf([&] { methods_ = benchmarkMethods(o, methodsSteps_.progress()); });
        }
        return methods_ ? &*methods_ : nullptr;
    }

    // The bench reports in the report directory the test cluster set for this process (and so for
    // the isobar-cli it starts).
    std::filesystem::path benchReports() const {
        return std::filesystem::path(qEnvironmentVariable("ISOBAR_REPORT_DIR").toStdString()) / "bench";
    }
    std::size_t benchReportFiles() const {
        std::error_code ec;
        std::size_t n = 0;
        for (auto it = std::filesystem::directory_iterator(benchReports(), ec);
             !ec && it != std::filesystem::directory_iterator(); ++it) {
            ++n;
        }
        return n;
    }

private slots:
    void initTestCase() {
        cluster_ = std::make_unique<test::TestCluster>();
        const SampleInfo info = writeSample(test::tinySample(work() / "tiny.nc"));
        file_ = info.files.front();
        fileRows_ = info.rows();
        QCOMPARE(fileRows_, std::uint64_t{4 * 9 * 20});
        QCOMPARE(Dataset::open({file_}).rowCount(), fileRows_);
        firstDayRows_ = 2 * 9 * 20; // 22 and 23 UTC
    }
    void cleanupTestCase() { cluster_.reset(); }

    // Every method into every table type with 1 and 2 workers: each loads all the rows (the INSERT
    // its sample), with a time, a rate and WAL; server-limit is its own ceiling; hypertables, without
    // TimescaleDB here, are rows that say so. Nothing is left behind.
    void methodsMeasureEveryMethod() {
        const BenchReport* ran = methodsReport();
        QVERIFY2(ran != nullptr, qPrintable(methodsError_));
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
        QCOMPARE(names, (std::vector<std::string>{"regular", "unlogged", "partitioned", "hypertable",
                                                  "hypertable-compressed", "distributed"}));

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

    // The four queries on a regular and a partitioned table of the same rows, the server restarted
    // before each type's cold runs; and the first UTC day removed from each.
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

QTEST_GUILESS_MAIN(TestBench)
#include "tst_bench.moc"
