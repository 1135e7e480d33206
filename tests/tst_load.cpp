// SPDX-License-Identifier: GPL-3.0-or-later

// End to end: NetCDF files -> isobar-cli load / runLoad -> rows in a real PostgreSQL, checked
// column by column against values decoded independently here; and every way a load can fail.

#include "Fixtures.h"
#include "TestCluster.h"
#include "TestUtil.h"
#include "db/TableType.h"
#include "ingest/Loader.h"
#include "report/RunReport.h"
#include "util/Files.h"
#include "util/Process.h"

#include <QtTest>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <signal.h>
#include <thread>

using namespace isobar;
using test::CliRun;
using test::runCli;

namespace {

// Records what the engine reports.
class RecordingSink final : public LoadSink {
public:
    void started(const LoadStart& s) override { start = s; }
    void warning(const std::string& w) override { warnings.push_back(w); }
    void finished(const LoadSummary& s) override { summary = s; }
    void failed(const LoadError& e) override { error = e; }

    std::optional<LoadStart> start;
    std::vector<std::string> warnings;
    std::optional<LoadSummary> summary;
    std::optional<LoadError> error;
};

// Microseconds since 2000-01-01 for "hours since 1900-01-01": 1900 -> 1970 is 2208988800 s,
// 1970 -> 2000 is 946684800 s.
qint64 pgMicrosFromHours1900(long long hours) {
    return (hours * 3600LL - 2208988800LL - 946684800LL) * 1000000LL;
}

int seedId(double lat, double lon) {
    double l = lon > 180.0 ? lon - 360.0 : lon;
    if (l == -180.0) {
        l = 180.0;
    }
    return static_cast<int>(std::lround((lat + 90.0) / 0.25)) * 1440 +
           static_cast<int>(std::lround((l + 179.75) / 0.25)) + 1;
}

// What a stored value must become in the table, by the CF rules and the seed's units.
std::optional<float> expectedValue(const test::FixtureVariable& v, double stored, int variableIndex) {
    if ((v.fillValue && stored == *v.fillValue) || (v.missingValue && stored == *v.missingValue) ||
        std::isnan(stored)) {
        return std::nullopt;
    }
    double x = stored * v.scaleFactor.value_or(1.0) + v.addOffset.value_or(0.0);
    if (variableIndex == 0) {
        x -= 273.15;
    } else if (variableIndex >= 4) {
        x *= 1000.0;
    }
    return static_cast<float>(x);
}

} // namespace

class TestLoad : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }
    void cleanupTestCase() { cluster_.reset(); }

    // A classic CDS file across the prime meridian, with missing values in every variable: all
    // rows arrive, and every column of every row equals the value worked out here.
    void everyColumnOfEveryRow() {
        const auto lats = test::range(51.0, 49.0, 0.25);
        const auto lons = test::range(-1.5, 1.25, 0.25);
        const test::FixtureSpec spec = test::classicFixture(lats, lons, 4, 5);
        const QString path = cluster_->workDir() + "/classic.nc";
        test::writeFixture(path, spec);

        LoadRequest request;
        request.conninfo = cluster_->conninfo();
        request.table = TableName::parse("classic");
        request.files = {path.toStdString()};
        request.bandRows = 3; // several bands per time step, one shorter than the rest
        RecordingSink sink;
        const LoadSummary summary = runLoad(request, {}, sink);
        QVERIFY2(summary.status == LoadStatus::Completed,
                 summary.error ? summary.error->message.c_str() : "");
        const size_t expectedRows = 4 * lats.size() * lons.size();
        QCOMPARE(summary.rows, std::uint64_t{expectedRows});
        QVERIFY(summary.tableCreated);
        QVERIFY(sink.start.has_value());
        QCOMPARE(sink.start->plannedRows, std::uint64_t{expectedRows});
        QVERIFY(sink.summary.has_value());

        Connection conn = cluster_->connect();
        const auto rows = test::readWeatherRowsInOrder(conn, "classic");
        QCOMPARE(rows.size(), expectedRows);
        size_t k = 0;
        size_t nulls = 0;
        for (size_t t = 0; t < 4; ++t) {
            for (size_t i = 0; i < lats.size(); ++i) {
                for (size_t j = 0; j < lons.size(); ++j, ++k) {
                    const test::WeatherRow& row = rows[k];
                    QCOMPARE(row.micros, pgMicrosFromHours1900(spec.times[t]));
                    QCOMPARE(row.latitude, static_cast<float>(lats[i]));
                    QCOMPARE(row.longitude, static_cast<float>(lons[j]));
                    QCOMPARE(row.locationId, seedId(lats[i], lons[j]));
                    for (int v = 0; v < 6; ++v) {
                        const auto& var = spec.variables[static_cast<size_t>(v)];
                        const auto expected = expectedValue(var, var.stored[k], v);
                        QCOMPARE(row.values[static_cast<size_t>(v)].has_value(), expected.has_value());
                        if (expected) {
                            QCOMPARE(*row.values[static_cast<size_t>(v)], *expected);
                        } else {
                            ++nulls;
                        }
                    }
                }
            }
        }
        QCOMPARE(nulls, size_t{6 * 5}); // the fill values became NULL, nothing else did
    }

    // The CLI: synthetic sample -> load; its summary line, and the rows against the file.
    // bench ingest: the whole `isobar-cli load` process, its load phase and its COPY phase, the
    // server's own COPY and a bare client, each a rate of the same rows, with their ratios; the
    // tables it used are gone. The files are named relative to the directory it runs in.
    void benchIngestTimesTheWholeProcess() {
        const QString file = cluster_->workDir() + "/bench.nc";
        const CliRun sample = runCli({"synth", "--out", file, "--hours", "2", "--region", "10,0,0,10"});
        QVERIFY2(sample.exitCode == 0, qPrintable(sample.err));
        const CliRun bench =
            runCli({"bench", "ingest", "--dsn", QString::fromStdString(cluster_->conninfo()), "--workers",
                    "2", "--table-types", "regular", "--rounds", "1", "bench.nc"},
                   cluster_->workDir());
        QVERIFY2(bench.exitCode == 0, qPrintable(bench.err + bench.out));
        QVERIFY2(bench.out.contains(
                     "(a) isobar  (a') load phase  (a'') COPY phase  (b) server COPY  (c) bare client"),
                 qPrintable(bench.out));
        QVERIFY2(bench.err.contains("isobar load") && bench.err.contains("(load phase") &&
                     bench.err.contains(", COPY phase"),
                 qPrintable(bench.err));
        QVERIFY2(bench.err.indexOf("warming up: the server's own COPY of the rows once, untimed") >= 0 &&
                     bench.err.indexOf("warming up") < bench.err.indexOf("round 1"),
                 qPrintable(bench.err));
        const QRegularExpression row(
            R"(\nregular +2 +(\d+) +(\d+) +(\d+) +(\d+) +(\d+) +(\d+) +([0-9.]+) +([0-9.]+) +)"
            R"(([0-9.]+) +([0-9.]+)\n)");
        const auto m = row.match(bench.out);
        QVERIFY2(m.hasMatch(), qPrintable(bench.out));
        QCOMPARE(m.captured(1).toInt(), 2 * 41 * 41);
        const double whole = m.captured(2).toDouble();
        const double phase = m.captured(3).toDouble();
        const double copy = m.captured(4).toDouble();
        QVERIFY(whole > 0 && phase > 0 && copy > 0 && m.captured(5).toDouble() > 0 &&
                m.captured(6).toDouble() > 0);
        QVERIFY2(whole <= phase, qPrintable(bench.out)); // the process holds the load phase
        QVERIFY2(phase <= copy, qPrintable(bench.out));  // which holds the COPY phase
        // The ratios are the quotients of the rates beside them, to the two decimals shown (not
        // "> 0": under ThreadSanitizer isobar-cli is slow enough for a/b to show as 0.00).
        const double server = m.captured(5).toDouble();
        const double bare = m.captured(6).toDouble();
        const auto shows = [&](int column, double quotient) {
            return std::abs(m.captured(column).toDouble() - quotient) <= 0.0051 + 0.001 * quotient;
        };
        QVERIFY2(shows(7, whole / server) && shows(8, phase / server) && shows(9, bare / server) &&
                     shows(10, copy / bare),
                 qPrintable(bench.out));
        // Each round's ratios beside the medians': with one round, the same numbers.
        const auto rounds =
            QRegularExpression(R"(\nregular, 2 stream\(s\): a/b by round ([0-9.]+) \(median ([0-9.]+)\); )"
                               R"(a''/c by round ([0-9.]+) \(median ([0-9.]+)\)\n)")
                .match(bench.out);
        QVERIFY2(rounds.hasMatch(), qPrintable(bench.out));
        QCOMPARE(rounds.captured(1), rounds.captured(2));
        QCOMPARE(rounds.captured(3), rounds.captured(4));
        // (the same ratio, once of rates and once of seconds: the last digit may round apart)
        QVERIFY2(std::abs(rounds.captured(1).toDouble() - m.captured(7).toDouble()) <= 0.011,
                 qPrintable(bench.out));
        QVERIFY2(std::abs(rounds.captured(3).toDouble() - m.captured(10).toDouble()) <= 0.011,
                 qPrintable(bench.out));
        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM pg_class WHERE relname LIKE 'isobar_bench%'"),
                 QString("0"));
    }

    // bench ingest into hypertables: measured like the plain tables where TimescaleDB can be used
    // (the server's COPY goes into a hypertable too, and its index on time is built after, as the
    // load does), and otherwise a row saying why not; bench durability does not take them.
    void benchIngestHypertables() {
        const QString file = cluster_->workDir() + "/bench-hyper.nc";
        const CliRun sample = runCli({"synth", "--out", file, "--hours", "2", "--region", "10,0,0,10"});
        QVERIFY2(sample.exitCode == 0, qPrintable(sample.err));
        const QString dsn = QString::fromStdString(cluster_->conninfo());
        const CliRun bench = runCli({"bench", "ingest", "--dsn", dsn, "--workers", "1", "--table-types",
                                     "regular,hypertable", "--rounds", "1", file});
        QVERIFY2(bench.exitCode == 0, qPrintable(bench.err + bench.out));
        QVERIFY2(QRegularExpression(R"(\nregular +1 +3362 +\d+)").match(bench.out).hasMatch(),
                 qPrintable(bench.out));
        Connection conn = cluster_->connect();
        const ExtensionStatus ts = timescaledbStatus(conn);
        if (ts.usable) {
            const QRegularExpression row(
                R"(\nhypertable +1 +3362 +(\d+) +(\d+) +(\d+) +(\d+) +(\d+) +([0-9.]+) +)"
                R"(([0-9.]+) +([0-9.]+) +([0-9.]+)\n)");
            const auto m = row.match(bench.out);
            QVERIFY2(m.hasMatch(), qPrintable(bench.out));
            QVERIFY(m.captured(1).toDouble() > 0 && m.captured(3).toDouble() > 0 &&
                    m.captured(4).toDouble() > 0 && m.captured(6).toDouble() > 0 &&
                    m.captured(9).toDouble() > 0);
        } else {
            QVERIFY2(QRegularExpression(R"(\nhypertable +1  not measured: )" +
                                        QRegularExpression::escape(QString::fromStdString(ts.reason)))
                         .match(bench.out)
                         .hasMatch(),
                     qPrintable(bench.out));
            QVERIFY2(bench.err.contains("hypertable: not measured: "), qPrintable(bench.err));
        }
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM pg_class WHERE relname LIKE 'isobar_bench%'"),
                 QString("0"));
        const CliRun durability =
            runCli({"bench", "durability", "--yes", "--dsn", dsn, "--table-types", "hypertable", file});
        QCOMPARE(durability.exitCode, 2);
        QVERIFY2(durability.err.contains("hypertable"), qPrintable(durability.err));
    }

    // bench sustained: the load as a whole process against the server's COPY of the same rows in
    // rounds that alternate which goes first, and the curve of each run report, which is left for
    // `isobar-cli report`.
    void benchSustainedKeepsTheCurve() {
        const QString file = cluster_->workDir() + "/sustained.nc";
        const CliRun sample = runCli({"synth", "--out", file, "--hours", "6", "--region", "20,0,0,20"});
        QVERIFY2(sample.exitCode == 0, qPrintable(sample.err));
        const CliRun bench =
            runCli({"bench", "sustained", "--dsn", QString::fromStdString(cluster_->conninfo()), "--workers",
                    "2", "--rounds", "2", file});
        QVERIFY2(bench.exitCode == 0, qPrintable(bench.err + bench.out));
        const int rows = 6 * 81 * 81;
        QVERIFY2(
            bench.out.startsWith(QString::number(rows) + " rows, 2 worker(s), regular table, 2 round(s)"),
            qPrintable(bench.out));
        for (const char* line :
             {"isobar-cli load, whole process", "server COPY of the same rows", "whole process / server COPY",
              "per-interval rate over the middle 90%", "checkpoints during the load: "}) {
            QVERIFY2(bench.out.contains(line), qPrintable(bench.out));
        }
        // Round 1 begins with the load, round 2 with the server's COPY.
        const QRegularExpression each(
            R"(each round, whole process / server COPY: 1: ([0-9.]+) \(isobar first\), )"
            R"(2: ([0-9.]+) \(server first\)\n)");
        const auto ratios = each.match(bench.out);
        QVERIFY2(ratios.hasMatch(), qPrintable(bench.out));
        QVERIFY2(ratios.captured(1).toDouble() > 0 && ratios.captured(2).toDouble() > 0,
                 qPrintable(bench.out));
        QVERIFY2(bench.err.contains("round 2 of 2: the server's own COPY of the same rows"),
                 qPrintable(bench.err));
        // An untimed server COPY first, before the round that begins with the load.
        QVERIFY2(bench.err.indexOf("warming up: the server's own COPY of the rows once, untimed") >= 0 &&
                     bench.err.indexOf("warming up") < bench.err.indexOf("round 1 of 2"),
                 qPrintable(bench.err));
        const QRegularExpression curve(R"(the curve: (\S+-round-([12])\.json))");
        const auto m = curve.match(bench.out);
        QVERIFY2(m.hasMatch(), qPrintable(bench.out));
        QVERIFY2(bench.out.contains("(round " + m.captured(2) + ", the median whole process)"),
                 qPrintable(bench.out));
        // Both rounds' loads left their run report: complete, every row.
        for (const QString& n : {QString("1"), QString("2")}) {
            QString path = m.captured(1);
            path.replace(path.size() - 6, 1, n);
            const RunReport report = readReport(path.toStdString());
            QCOMPARE(report.rows, std::uint64_t(rows));
            QCOMPARE(QString::fromStdString(report.status), QString("completed"));
            QVERIFY(!report.phases.run.empty());
            QFile::remove(path);
        }

        for (const char* wrong : {"--hours", "--rounds"}) {
            const CliRun bad = runCli(
                {"bench", "sustained", "--dsn", QString::fromStdString(cluster_->conninfo()), wrong, "0"});
            QCOMPARE(bad.exitCode, 2);
            QVERIFY2(bad.err.contains(wrong), qPrintable(bad.err));
        }
    }

    void cliLoadsSyntheticSample() {
        const QString file = cluster_->workDir() + "/sample.nc";
        const CliRun sample = runCli({"synth", "--out", file, "--hours", "3", "--region", "10,-10,170,-170"});
        QVERIFY2(sample.exitCode == 0, qPrintable(sample.err));
        QVERIFY2(sample.out.contains("SYNTHETIC"), qPrintable(sample.out));

        const CliRun load = runCli({"load", "--dsn", QString::fromStdString(cluster_->conninfo()), "--table",
                                    "sample_weather", file});
        QVERIFY2(load.exitCode == 0, qPrintable(load.err));
        const QRegularExpression summary(
            R"((?:^|\n)COPY (\d+), took [0-9.hms]+ with \d+ worker\(s\) \(mean rate [0-9]+\.[0-9]/sec\)\n$)");
        const auto match = summary.match(load.out);
        QVERIFY2(match.hasMatch(), qPrintable(load.out));
        const int rows = 3 * 81 * 81;
        QCOMPARE(match.captured(1).toInt(), rows);

        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM sample_weather"), QString::number(rows));
        // Across the date line: longitudes 170..180 stay, 180.25..190 become -179.75..-170.
        QCOMPARE(test::scalar(
                     conn, "SELECT min(longitude)::text || ' ' || max(longitude)::text FROM sample_weather"),
                 QString("-179.75 180"));
        QCOMPARE(test::scalar(conn, "SELECT count(DISTINCT location_id) FROM sample_weather"),
                 QString::number(81 * 81));

        // A netCDF-4 file read on the load's reader thread: HDF5 prints nothing of its own.
        const QString cf = cluster_->workDir() + "/sample-cf.nc";
        QCOMPARE(
            runCli({"synth", "--out", cf, "--hours", "2", "--region", "10,9,0,1", "--layout", "cds-2024"})
                .exitCode,
            0);
        const CliRun cfLoad = runCli(
            {"load", "--dsn", QString::fromStdString(cluster_->conninfo()), "--table", "sample_cf", cf});
        QVERIFY2(cfLoad.exitCode == 0, qPrintable(cfLoad.err));
        QVERIFY2(!cfLoad.err.contains("HDF5"), qPrintable(cfLoad.err));

        // --replace reloads atomically instead of adding the rows a second time.
        const CliRun again = runCli({"load", "--dsn", QString::fromStdString(cluster_->conninfo()), "--table",
                                     "sample_weather", "--replace", file});
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM sample_weather"), QString::number(rows));

        // The t2m of every row equals the file's value decoded here.
        const auto stored = test::readStored(file, "t2m");
        const double scale = *test::readNumberAttribute(file, "t2m", "scale_factor");
        const double offset = *test::readNumberAttribute(file, "t2m", "add_offset");
        const auto rowsBack = test::readWeatherRowsInOrder(conn, "sample_weather");
        QCOMPARE(rowsBack.size(), stored.size());
        const auto lats = test::readCoordinate(file, "latitude");
        const auto lons = test::readCoordinate(file, "longitude");
        // readWeatherRowsInOrder orders by normalized longitude, not the file's order: match through the key.
        std::map<std::pair<qint64, int>, float> byKey;
        for (const test::WeatherRow& r : rowsBack) {
            byKey[{r.micros, r.locationId}] = *r.values[0];
        }
        const auto times = test::readCoordinate(file, "time");
        size_t k = 0;
        for (double h : times) {
            for (double lat : lats) {
                for (double lon : lons) {
                    const float expected = static_cast<float>(stored[k++] * scale + offset - 273.15);
                    const auto it =
                        byKey.find({pgMicrosFromHours1900(static_cast<long long>(h)), seedId(lat, lon)});
                    QVERIFY(it != byKey.end());
                    QCOMPARE(it->second, expected);
                }
            }
        }
    }

    // A real CDS download (negative longitudes, on the 0.25 grid, only t2m): every row checked.
    void realCdsFile() {
        const QString dir = test::samplesDir();
        if (dir.isEmpty()) {
            QSKIP("../shared/era5-samples is not present next to the repository");
        }
        const QString file = dir + "/cds-legacy_grid-0.25_neg-lon_t2m.nc";
        LoadRequest request;
        request.conninfo = cluster_->conninfo();
        request.table = TableName::parse("cds_t2m");
        request.files = {file.toStdString()};
        RecordingSink sink;
        const LoadSummary summary = runLoad(request, {}, sink);
        QVERIFY2(summary.status == LoadStatus::Completed,
                 summary.error ? summary.error->message.c_str() : "");
        QCOMPARE(summary.rows, std::uint64_t{161 * 161});

        const auto stored = test::readStored(file, "t2m");
        const double scale = *test::readNumberAttribute(file, "t2m", "scale_factor");
        const double offset = *test::readNumberAttribute(file, "t2m", "add_offset");
        const auto lats = test::readCoordinate(file, "latitude");
        const auto lons = test::readCoordinate(file, "longitude");
        Connection conn = cluster_->connect();
        const auto rows = test::readWeatherRowsInOrder(
            conn, "cds_t2m"); // time, latitude desc, longitude asc: the file's order
        QCOMPARE(rows.size(), stored.size());
        for (size_t k = 0; k < rows.size(); ++k) {
            const test::WeatherRow& r = rows[k];
            QCOMPARE(r.micros,
                     qint64{725889600000000}); // 2023-01-01 12:00 UTC = 8401.5 days after 2000-01-01
            QCOMPARE(r.latitude, static_cast<float>(lats[k / 161]));
            QCOMPARE(r.longitude, static_cast<float>(lons[k % 161]));
            QCOMPARE(r.locationId, seedId(lats[k / 161], lons[k % 161]));
            QCOMPARE(*r.values[0], static_cast<float>(stored[k] * scale + offset - 273.15));
            for (size_t v = 1; v < 6; ++v) {
                QVERIFY(!r.values[v].has_value()); // not in the file: NULL
            }
        }
    }

    // A broken file among good ones: refused before anything is sent, named in the message, and the
    // table is not even created.
    void badFileLoadsNothing() {
        const QString good = cluster_->workDir() + "/good.nc";
        test::writeFixture(good, test::classicFixture({10.0, 9.75}, {20.0, 20.25}, 2, 0));
        const QString bad = cluster_->workDir() + "/broken.nc";
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("CDF\x02 this is not really a netcdf header at all");
        f.close();
        const CliRun run = runCli({"load", "--dsn", QString::fromStdString(cluster_->conninfo()), "--table",
                                   "never_created", good, bad});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("broken.nc"), qPrintable(run.err));
        QVERIFY2(run.err.contains("truncated or corrupt"), qPrintable(run.err));
        QVERIFY2(run.err.contains("no unit was committed"), qPrintable(run.err));
        QVERIFY(run.out.isEmpty());
        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn, "SELECT to_regclass('never_created') IS NULL"), QString("t"));
    }

    void missingFileAndUsageErrors() {
        CliRun run =
            runCli({"load", "--dsn", QString::fromStdString(cluster_->conninfo()), "/nonexistent/era5.nc"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("/nonexistent/era5.nc: no such file"), qPrintable(run.err));
        run = runCli({"load", "--dsn", QString::fromStdString(cluster_->conninfo())});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("at least one FILE"), qPrintable(run.err));
        run = runCli({"load", "--bogus", "x.nc"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("unknown option '--bogus'"), qPrintable(run.err));
        run = runCli({"frobnicate"});
        QCOMPARE(run.exitCode, 2);
        run = runCli({"--help"});
        QCOMPARE(run.exitCode, 0);
        for (const char* command : {"load", "synth", "cluster"}) {
            QVERIFY2(run.out.contains(command), qPrintable(run.out));
        }
        run = runCli({"--version"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.startsWith("isobar-cli "));
        run = runCli({"synth", "--out", cluster_->workDir() + "/x.nc", "--hours", "0"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("--hours"), qPrintable(run.err));
    }

    // A server that is not there, and a wrong password: the target is named, the password is not.
    void deadServerAndWrongPassword() {
        const QString file = cluster_->workDir() + "/small.nc";
        test::writeFixture(file, test::classicFixture({10.0}, {20.0}, 1, 0));
        CliRun run = runCli(
            {"load", "--dsn", "host=/nonexistent-dir port=6543 dbname=x user=u password=hunter2", file});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("cannot connect to host=/nonexistent-dir port=6543"), qPrintable(run.err));
        QVERIFY2(!run.err.contains("hunter2"), qPrintable(run.err));

        // Password authentication against the test server: a role with a password, over a
        // password-checked local line in pg_hba.conf.
        Connection admin = cluster_->connect();
        admin.exec("CREATE ROLE loader LOGIN PASSWORD 'right-one'");
        const std::string hba = test::scalar(admin, "SHOW hba_file").toStdString();
        {
            std::error_code error;
            const std::string all = readWholeFile(hba, error);
            QVERIFY2(!error, qPrintable(QString::fromStdString(hba + ": " + error.message())));
            std::ofstream out(hba, std::ios::trunc);
            out << "local all loader scram-sha-256\n" << all;
        }
        admin.exec("SELECT pg_reload_conf()");
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        const QString dsn = QString::fromStdString(cluster_->conninfo())
                                .replace(QRegularExpression("user=\\S+"), "user=loader password=wrong-one");
        run = runCli({"load", "--dsn", dsn, file});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("password authentication failed for user \"loader\""), qPrintable(run.err));
        QVERIFY2(!run.err.contains("wrong-one"), qPrintable(run.err));
    }

    // A table whose columns do not fit: the precise diff, nothing loaded.
    void mismatchedTableIsRefused() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE narrow (time timestamptz, location_id int, temperature_2m float8)");
        const QString file = cluster_->workDir() + "/small2.nc";
        test::writeFixture(file, test::classicFixture({10.0}, {20.0}, 1, 0));
        const CliRun run = runCli(
            {"load", "--dsn", QString::fromStdString(cluster_->conninfo()), "--table", "narrow", file});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("missing column latitude real"), qPrintable(run.err));
        QVERIFY2(run.err.contains("column temperature_2m is double precision, expected real"),
                 qPrintable(run.err));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM narrow"), QString("0"));
    }

    // A constraint the user added rejects some rows: the SQLSTATE and the file are named, no row of
    // the load remains, the rows already there are untouched.
    void constraintViolationRollsBackEverything() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE checked (time timestamptz NOT NULL, location_id int, latitude float4, "
                  "longitude float4, "
                  "temperature_2m float4 CHECK (temperature_2m < 0), zonal_wind_10m float4, "
                  "meridional_wind_10m float4, "
                  "total_cloud_cover float4, total_precipitation float4, snowfall float4)");
        conn.exec("INSERT INTO checked (time, temperature_2m) VALUES ('2020-01-01', -5)");
        const QString file = cluster_->workDir() + "/warm.nc";
        test::writeFixture(
            file, test::classicFixture(test::range(10.0, 5.0, 0.25), test::range(20.0, 25.0, 0.25), 3, 0));
        const CliRun run = runCli(
            {"load", "--dsn", QString::fromStdString(cluster_->conninfo()), "--table", "checked", file});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("checked_temperature_2m_check"), qPrintable(run.err));
        QVERIFY2(run.err.contains("23514"), qPrintable(run.err));
        QVERIFY2(run.err.contains("warm.nc"), qPrintable(run.err));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM checked"), QString("1"));
    }

    void schemaQualifiedQuotedTable() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE SCHEMA era5");
        const QString file = cluster_->workDir() + "/small3.nc";
        test::writeFixture(file, test::classicFixture({10.0, 9.75}, {20.0}, 2, 0));
        const CliRun run = runCli({"load", "--dsn", QString::fromStdString(cluster_->conninfo()), "--table",
                                   "era5.\"Weather 2023\"", file});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM era5.\"Weather 2023\""), QString("4"));
    }

    // Only the chosen variables: a table of their columns, equal to a full load's; the table keeps
    // its variables, so later loads into it load those (the files' others left out), and a load
    // that asks for others is refused with both lists.
    void onlyChosenVariables() {
        Connection conn = cluster_->connect();
        const QString file = cluster_->workDir() + "/some.nc";
        test::writeFixture(
            file, test::classicFixture(test::range(10.0, 9.0, 0.25), test::range(20.0, 21.0, 0.25), 2, 0));
        const QString dsn = QString::fromStdString(cluster_->conninfo());
        CliRun run = runCli({"load", "--dsn", dsn, "--table", "full_vars", file});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        // By short name and by long name, in any case.
        run = runCli(
            {"load", "--dsn", dsn, "--table", "some_vars", "--variables", "t2m,Total Precipitation", file});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM some_vars"), QString("50"));
        QCOMPARE(test::scalar(conn, "SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_attribute WHERE "
                                    "attrelid = 'some_vars'::regclass AND attnum > 0 AND NOT attisdropped"),
                 QString("time,location_id,latitude,longitude,temperature_2m,total_precipitation"));
        QCOMPARE(test::scalar(conn,
                              "SELECT count(*) FROM some_vars s JOIN full_vars f USING (time, location_id) "
                              "WHERE s.temperature_2m IS NOT DISTINCT FROM f.temperature_2m AND "
                              "s.total_precipitation IS NOT DISTINCT FROM f.total_precipitation"),
                 QString("50"));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM full_vars WHERE zonal_wind_10m IS NOT NULL"),
                 QString("50"));
        // Other variables into the same table: refused, naming both lists and the way out.
        run = runCli({"load", "--dsn", dsn, "--table", "some_vars", "--variables", "t2m,u10", file});
        QCOMPARE(run.exitCode, 1);
        VERIFY_MESSAGE(run.err, "some_vars holds t2m, tp", "asks for t2m, u10", "another table");
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM some_vars"), QString("50"));
        // Without --variables: the table's own; the files' others are listed as left out. Already
        // loaded, so nothing to do; the same choice in another order is the same load.
        run = runCli({"load", "--dsn", dsn, "--table", "some_vars", file});
        QVERIFY2(run.exitCode == 0 && run.err.contains("already in the table"), qPrintable(run.err));
        VERIFY_MESSAGE(run.err, "left out of these files: u10, v10, tcc, sf");
        run = runCli({"load", "--dsn", dsn, "--table", "some_vars", "--variables", "tp,2t", file});
        QVERIFY2(run.exitCode == 0 && run.err.contains("already in the table"), qPrintable(run.err));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM some_vars"), QString("50"));
        // Names that are not variables of the files: refused, naming what they have.
        run = runCli({"load", "--dsn", dsn, "--table", "x", "--variables", "t2m,sst", file});
        QCOMPARE(run.exitCode, 1);
        VERIFY_MESSAGE(run.err, "not in these files: 'sst'", "they have t2m, u10, v10, tcc, tp, sf");
        QCOMPARE(test::scalar(conn, "SELECT to_regclass('x') IS NULL"), QString("t"));
    }

private:
    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestLoad)
#include "tst_load.moc"
