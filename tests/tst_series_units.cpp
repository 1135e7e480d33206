// SPDX-License-Identifier: GPL-3.0-or-later

// A point series in units of a month's hours (the default), against a real PostgreSQL: one
// ledger row per point and UTC month with the hours it spans, every hour of the CSV in the table
// with its value, all-missing hours left out; a rerun, a renamed copy and a table loaded hour by
// hour loading nothing; units cut in time along the table's (a longer download loads only its new
// hours), pieces inside larger units read back and compared; two concurrent runs of other hours,
// and a kill -9, leaving every hour once. Expected hours come from calendar arithmetic (QDateTime)
// and values from the test's own CSV text.

#include "TestCluster.h"
#include "TestUtil.h"

#include <QDateTime>
#include <QFile>
#include <QProcess>
#include <QtTest>

#include <chrono>
#include <csignal>
#include <fstream>

using namespace isobar;
using isobar::test::CliRun;
using isobar::test::runCli;

namespace {

// u10 at an hour: a value with a fraction, some in exponent notation as the CDS writes them.
QString u10At(const QDateTime& t) {
    const qint64 h = QDateTime(QDate(2000, 1, 1), QTime(0, 0), Qt::UTC).secsTo(t) / 3600;
    return h % 7 == 0 ? QString::number(1.5e-3 * static_cast<double>(h % 100), 'e', 6)
                      : QString::number(-4.0 + static_cast<double>(h % 97) * 0.125, 'g', 8);
}

// Hourly u10 at `point` ("52.5,13.25") from `from` to `until` (both included); the cell of
// `missing` empty. `other`: other values (a quarter more).
QString csv(const QDateTime& from, const QDateTime& until, const QDateTime& missing, bool other = false,
            const QString& point = "52.5,13.25") {
    QString text = "valid_time,u10,latitude,longitude\n";
    for (QDateTime t = from; t <= until; t = t.addSecs(3600)) {
        const QString value = other ? QString::number(u10At(t).toDouble() + 0.25, 'g', 8) : u10At(t);
        text +=
            t.toString("yyyy-MM-dd HH:mm:ss") + "," + (t == missing ? QString() : value) + "," + point + "\n";
    }
    return text;
}

qint64 hoursFrom(const QDateTime& from, const QDateTime& until) {
    return from.secsTo(until) / 3600 + 1;
}

QDateTime at(int y, int m, int d, int h) {
    return {QDate(y, m, d), QTime(h, 0), Qt::UTC};
}

} // namespace

class TestSeriesUnits : public QObject {
    Q_OBJECT

    std::unique_ptr<test::TestCluster> cluster_;

    QString dsn() const { return QString::fromStdString(cluster_->conninfo()); }
    QString write(const QString& name, const QString& text) const {
        QString path = cluster_->workDir() + "/" + name;
        std::ofstream(path.toStdString()) << text.toStdString();
        return path;
    }
    CliRun load(const QString& table, const QStringList& files, const QStringList& options = {}) const {
        return runCli(QStringList{"load", "--dsn", dsn(), "--table", table, "--reporting-period", "0"} +
                      options + files);
    }

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }
    void cleanupTestCase() { cluster_.reset(); }

    void unitsFollowCalendarMonths() {
        // Across a year's end and a leap February, one hour of January without a value.
        const QDateTime from = at(2023, 12, 15, 6);
        const QDateTime until = at(2024, 3, 10, 5);
        const QDateTime missing = at(2024, 1, 20, 12);
        const QString file = write("site.csv", csv(from, until, missing));
        const CliRun run = load("months", {file}, {"--series-units", "month"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const qint64 hours = from.secsTo(until) / 3600 + 1;
        QVERIFY2(run.err.contains(QString("%1 rows in 4 unit(s)").arg(hours)), qPrintable(run.err));

        Connection conn = cluster_->connect();
        const std::string relid = "'months'::regclass";
        // One unit per month, from its first hour in the file to its last.
        QCOMPARE(test::scalar(conn,
                              "SELECT string_agg(valid_time || ' ' || valid_until || ' ' || rows, '; ' ORDER "
                              "BY valid_time) FROM isobar.ledger WHERE relid = " +
                                  relid),
                 QString("2023-12-15 06:00:00+00 2023-12-31 23:00:00+00 %1; "
                         "2024-01-01 00:00:00+00 2024-01-31 23:00:00+00 %2; "
                         "2024-02-01 00:00:00+00 2024-02-29 23:00:00+00 %3; "
                         "2024-03-01 00:00:00+00 2024-03-10 05:00:00+00 %4")
                     .arg(from.secsTo(at(2024, 1, 1, 0)) / 3600)
                     .arg(31 * 24 - 1)
                     .arg(29 * 24)
                     .arg(at(2024, 3, 1, 0).secsTo(until) / 3600 + 1));
        QCOMPARE(
            test::scalar(conn, "SELECT unit_key FROM isobar.ledger WHERE relid = " + relid +
                                   " AND valid_time = '2024-02-01 00:00+00'"),
            QString("2024-02-01T00:00:00Z/2024-02-29T23:00:00Z lat 52.5..52.5 lon 13.25..13.25 on 0.25"));
        // Each unit's rows are in the table, and every hour's value is the CSV's.
        QCOMPARE(test::count(conn, "SELECT count(*) FROM isobar.ledger l WHERE relid = " + relid +
                                       " AND rows <> (SELECT count(*) FROM months t WHERE t.time BETWEEN "
                                       "l.valid_time AND l.valid_until)"),
                 std::uint64_t{0});
        QCOMPARE(test::count(conn, "SELECT count(*) FROM months"), static_cast<std::uint64_t>(hours - 1));
        const QString stored = test::scalar(
            conn, "SELECT string_agg(to_char(time AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24') || '=' || "
                  "zonal_wind_10m::float4::text, ',' ORDER BY time) FROM months");
        QStringList expected;
        for (QDateTime t = from; t <= until; t = t.addSecs(3600)) {
            if (t != missing) {
                expected << t.toString("yyyy-MM-dd HH") + "=" + QString::number(u10At(t).toFloat(), 'g', 9);
            }
        }
        const QStringList got = stored.split(',');
        QCOMPARE(got.size(), expected.size());
        for (qsizetype i = 0; i < got.size(); ++i) {
            const QStringList g = got[i].split('=');
            const QStringList e = expected[i].split('=');
            QCOMPARE(g[0], e[0]);
            QCOMPARE(g[1].toFloat(), e[1].toFloat());
        }

        // Again, by months or by hours, and a renamed copy: nothing more.
        for (const QStringList& options : {QStringList{}, QStringList{"--series-units", "hour"}}) {
            const CliRun again = load("months", {file}, options);
            QVERIFY2(again.exitCode == 0, qPrintable(again.err));
            QVERIFY2(again.err.contains("nothing to do"), qPrintable(again.err));
        }
        const QString copy = cluster_->workDir() + "/site (1).csv";
        QVERIFY(QFile::copy(file, copy));
        const CliRun renamed = load("months", {copy}, {"--series-units", "month"});
        QVERIFY2(renamed.exitCode == 0, qPrintable(renamed.err));
        QVERIFY2(renamed.err.contains("(the same values): skipped"), qPrintable(renamed.err));
        QCOMPARE(test::count(conn, "SELECT count(*) FROM months"), static_cast<std::uint64_t>(hours - 1));

        // A longer download of the same point: March's unit is cut where the table's ends, so only
        // the hours the table lacks load; a download of those hours then loads nothing.
        const QString longer = write("longer.csv", csv(at(2024, 3, 1, 0), at(2024, 4, 2, 23), QDateTime()));
        const CliRun grown = load("months", {longer}, {"--series-units", "month"});
        QVERIFY2(grown.exitCode == 0, qPrintable(grown.err));
        QVERIFY2(grown.err.contains("1 unit(s) share only some of their rows") &&
                     grown.err.contains("(the same values): skipped"),
                 qPrintable(grown.err));
        const qint64 added = hoursFrom(at(2024, 3, 10, 6), at(2024, 4, 2, 23));
        QCOMPARE(test::count(conn, "SELECT count(*) FROM months"),
                 static_cast<std::uint64_t>(hours - 1 + added));
        QCOMPARE(test::scalar(conn, "SELECT rows FROM isobar.ledger WHERE relid = " + relid +
                                        " AND valid_time = '2024-03-10 06:00+00' AND valid_until = "
                                        "'2024-03-31 23:00+00'"),
                 QString::number(hoursFrom(at(2024, 3, 10, 6), at(2024, 3, 31, 23))));
        const QString later = write("later.csv", csv(at(2024, 3, 10, 6), at(2024, 4, 2, 23), QDateTime()));
        const CliRun again = load("months", {later}, {"--series-units", "month"});
        QVERIFY2(again.exitCode == 0 && again.err.contains("(the same values): skipped"),
                 qPrintable(again.err));
        QCOMPARE(test::count(conn, "SELECT count(*) FROM months"),
                 static_cast<std::uint64_t>(hours - 1 + added));
        QCOMPARE(test::count(conn,
                             "SELECT count(*) FROM (SELECT time FROM months GROUP BY time HAVING count(*) > "
                             "1) d"),
                 std::uint64_t{0});
    }

    // A month split between two files of one load is two units; a file of the whole month then
    // is cut along them and compared piece by piece.
    void monthSplitAcrossTwoFiles() {
        const QString first = write("jan-a.csv", csv(at(2024, 1, 1, 0), at(2024, 1, 15, 23), QDateTime()));
        const QString second = write("jan-b.csv", csv(at(2024, 1, 16, 0), at(2024, 1, 31, 23), QDateTime()));
        const CliRun run = load("split", {first, second}, {"--series-units", "month"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn,
                              "SELECT string_agg(valid_time || ' ' || valid_until || ' ' || rows, '; ' ORDER "
                              "BY valid_time) FROM isobar.ledger WHERE relid = 'split'::regclass"),
                 QString("2024-01-01 00:00:00+00 2024-01-15 23:00:00+00 360; "
                         "2024-01-16 00:00:00+00 2024-01-31 23:00:00+00 384"));
        const QString whole = write("jan.csv", csv(at(2024, 1, 1, 0), at(2024, 2, 1, 23), QDateTime()));
        const CliRun again = load("split", {whole}, {"--series-units", "month"});
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QVERIFY2(again.err.contains("1 unit(s), 360 rows already loaded from jan-a.csv") &&
                     again.err.contains("1 unit(s), 384 rows already loaded from jan-b.csv"),
                 qPrintable(again.err));
        QCOMPARE(test::count(conn, "SELECT count(*) FROM split"), std::uint64_t{32 * 24});
    }

    // A download inside a unit the table holds from other files: its rows are read back and
    // compared. The same values load nothing (by months or by hours); other values are refused,
    // kept by --overlap skip, and not replaced (that unit reaches beyond these files' hours).
    void insideIsReadBack() {
        const QString all = write("q1.csv", csv(at(2024, 1, 1, 0), at(2024, 3, 31, 23), QDateTime()));
        QVERIFY(load("inside", {all}, {"--series-units", "month"}).exitCode == 0);
        const qint64 rows = hoursFrom(at(2024, 1, 1, 0), at(2024, 3, 31, 23));
        const QDateTime from = at(2024, 2, 10, 0);
        const QDateTime until = at(2024, 3, 20, 23);
        const QString same = write("feb-mar.csv", csv(from, until, QDateTime()));
        for (const QStringList& options : {QStringList{}, QStringList{"--series-units", "hour"}}) {
            const CliRun run = load("inside", {same}, options);
            QVERIFY2(run.exitCode == 0, qPrintable(run.err));
            QVERIFY2(run.err.contains("with the table's rows, read back") &&
                         run.err.contains(QString("rows already loaded from q1.csv")),
                     qPrintable(run.err));
        }
        Connection conn = cluster_->connect();
        QCOMPARE(test::count(conn, "SELECT count(*) FROM inside"), static_cast<std::uint64_t>(rows));

        const QString other = write("other.csv", csv(from, until, QDateTime(), true));
        const CliRun refused = load("inside", {other}, {"--series-units", "month"});
        QVERIFY(refused.exitCode != 0);
        QVERIFY2(refused.err.contains("already holds unit 2024-02-01T00:00:00Z/2024-02-29T23:00:00Z") &&
                     refused.err.contains("2024-02-10T00:00:00Z/2024-02-29T23:00:00Z") &&
                     refused.err.contains("only part of it, with other values"),
                 qPrintable(refused.err));
        const CliRun replace = load("inside", {other}, {"--series-units", "month", "--overlap", "replace"});
        QVERIFY(replace.exitCode != 0);
        QVERIFY2(replace.err.contains("whole units only"), qPrintable(replace.err));
        const CliRun skip = load("inside", {other}, {"--series-units", "month", "--overlap", "skip"});
        QVERIFY2(skip.exitCode == 0, qPrintable(skip.err));
        QVERIFY2(skip.err.contains(QString("%1 rows (2 unit(s)) are in the table with other values")
                                       .arg(hoursFrom(from, until))),
                 qPrintable(skip.err));
        // The table's values are the first file's still.
        QCOMPARE(test::scalar(conn, "SELECT zonal_wind_10m::float4::text FROM inside WHERE time = "
                                    "'2024-02-10 00:00+00'")
                     .toFloat(),
                 u10At(from).toFloat());
        QCOMPARE(test::count(conn, "SELECT count(*) FROM inside"), static_cast<std::uint64_t>(rows));
    }

    // A table loaded hour by hour, then by months: every hour is recognised (the same files).
    void hoursThenMonths() {
        const QString file = write("hours.csv", csv(at(2024, 5, 30, 0), at(2024, 6, 2, 23), QDateTime()));
        const CliRun byHour = load("hourly", {file}, {"--series-units", "hour"});
        QVERIFY2(byHour.exitCode == 0, qPrintable(byHour.err));
        const CliRun byMonth = load("hourly", {file}, {"--series-units", "month"});
        QVERIFY2(byMonth.exitCode == 0, qPrintable(byMonth.err));
        QVERIFY2(byMonth.err.contains("nothing to do"), qPrintable(byMonth.err));
        Connection conn = cluster_->connect();
        QCOMPARE(test::count(conn, "SELECT count(*) FROM hourly"), std::uint64_t{4 * 24});
        // A longer download by months: June's unit is cut at each hour the table holds (the same
        // values, by their prints), and only the later hours load.
        const QString longer =
            write("longer-hours.csv", csv(at(2024, 5, 30, 0), at(2024, 6, 5, 23), QDateTime()));
        const CliRun grown = load("hourly", {longer}, {"--series-units", "month"});
        QVERIFY2(grown.exitCode == 0, qPrintable(grown.err));
        QVERIFY2(grown.err.contains("96 unit(s), 96 rows already loaded from hours.csv"),
                 qPrintable(grown.err));
        QCOMPARE(test::count(conn, "SELECT count(*) FROM hourly"), std::uint64_t{7 * 24});
        QCOMPARE(test::scalar(conn,
                              "SELECT valid_time || ' ' || valid_until FROM isobar.ledger WHERE relid = "
                              "'hourly'::regclass AND valid_until IS NOT NULL"),
                 QString("2024-06-03 00:00:00+00 2024-06-05 23:00:00+00"));
    }

    // Two runs at once of other hours of one point: their units differ, so neither finds the
    // other's in the ledger before it loads. The second to claim waits for the first (a lock per
    // point and month), sees its unit over some of its hours, writes nothing of it and ends asking
    // to be run again; the rerun completes the table, every hour once.
    void concurrentRangesDoNotDuplicate() {
        const QString december = write("dec.csv", csv(at(2023, 12, 1, 0), at(2023, 12, 14, 23), QDateTime()));
        QVERIFY(load("together", {december}, {"--series-units", "month"}).exitCode == 0);
        const QString a = write("together-a.csv", csv(at(2023, 12, 15, 0), at(2024, 1, 31, 23), QDateTime()));
        const QString b = write("together-b.csv", csv(at(2024, 1, 10, 0), at(2024, 2, 28, 23), QDateTime()));
        const auto start = [this](const QString& file) {
            auto run = std::make_unique<QProcess>();
            run->start(QStringLiteral(ISOBAR_CLI_PATH),
                       QStringList{"load", "--dsn", dsn(), "--table", "together", "--workers", "1",
                                   "--rows-per-transaction", "1", "--series-units", "month",
                                   "--reporting-period", "0", file});
            return run;
        };
        const auto waiting = [](Connection& c, const std::string& which) {
            return test::waitFor(
                [&] {
                    return test::count(c, "SELECT count(*) FROM pg_locks WHERE NOT granted AND " + which) > 0;
                },
                std::chrono::seconds(60));
        };
        // A's first unit (December) waits to write its rows, holding the ledger for its claim; B's
        // preparation waits for that. When the table is let go, B prepares before A's January
        // unit begins: both load January, each without the other's unit.
        Connection hold = cluster_->connect();
        Connection watch = cluster_->connect();
        hold.exec("BEGIN");
        hold.exec("LOCK TABLE together IN SHARE MODE");
        std::vector<std::unique_ptr<QProcess>> runs;
        runs.push_back(start(a));
        QVERIFY(waiting(watch, "relation = 'together'::regclass"));
        runs.push_back(start(b));
        QVERIFY(waiting(watch, "locktype = 'advisory'"));
        hold.exec("COMMIT");
        QStringList failed;
        for (const auto& run : runs) {
            QVERIFY(run->waitForFinished(120000));
            if (run->exitCode() != 0) {
                const QString err = QString::fromUtf8(run->readAllStandardError());
                QVERIFY2(
                    err.contains("which another run committed to table together while this one loaded") &&
                        err.contains("Run the same load again"),
                    qPrintable(err));
                failed << run->arguments().last();
            }
        }
        QCOMPARE(failed.size(), 1);
        const CliRun again = load("together", failed, {"--series-units", "month"});
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QCOMPARE(test::count(watch, "SELECT count(*) FROM together"),
                 static_cast<std::uint64_t>(hoursFrom(at(2023, 12, 1, 0), at(2024, 2, 28, 23))));
        QCOMPARE(test::count(watch, "SELECT count(DISTINCT time) FROM together"),
                 static_cast<std::uint64_t>(hoursFrom(at(2023, 12, 1, 0), at(2024, 2, 28, 23))));
        QCOMPARE(test::count(watch, "SELECT count(*) FROM (SELECT time FROM together GROUP BY time HAVING "
                                    "count(*) > 1) d"),
                 std::uint64_t{0});
        QCOMPARE(test::count(watch,
                             "SELECT count(*) FROM isobar.ledger l WHERE relid = 'together'::regclass AND "
                             "rows <> (SELECT count(*) FROM together t WHERE t.time BETWEEN l.valid_time "
                             "AND coalesce(l.valid_until, l.valid_time))"),
                 std::uint64_t{0});
    }

    // kill -9 in the middle of a folder of sites by months: what was in flight rolled back, every
    // unit in the ledger has its rows in the table, and the rerun ends with every hour of every
    // site once.
    void killedLoadResumesExact() {
        QStringList files;
        const QDateTime from = at(2024, 1, 1, 0);
        const QDateTime until = at(2024, 4, 30, 23);
        for (int k = 0; k < 30; ++k) {
            files << write(QString("site-%1.csv").arg(k),
                           csv(from, until, QDateTime(), false, QString("%1,10").arg(45.0 + 0.25 * k)));
        }
        const auto sites = static_cast<std::uint64_t>(files.size());
        const std::uint64_t rows = sites * static_cast<std::uint64_t>(hoursFrom(from, until));
        QProcess cli;
        cli.start(QStringLiteral(ISOBAR_CLI_PATH),
                  QStringList{"load", "--dsn", dsn(), "--table", "killed", "--workers", "2",
                              "--rows-per-transaction", "2000", "--series-units", "month",
                              "--reporting-period", "0"} +
                      files);
        QVERIFY(cli.waitForStarted());
        Connection watch = cluster_->connect();
        const auto units = [&watch] {
            return test::count(watch,
                               "SELECT count(*) FROM isobar.ledger WHERE relid = to_regclass('killed')");
        };
        QVERIFY2(test::waitFor([&] { return units() >= 20; }, std::chrono::seconds(120)),
                 qPrintable(QString::fromUtf8(cli.readAllStandardError())));
        ::kill(static_cast<pid_t>(cli.processId()), SIGKILL);
        QVERIFY(cli.waitForFinished(30000));
        QVERIFY2(units() < sites * 4, "the load ended before it was killed");
        // Each unit's rows are its point's hours in the table (location_id = row * 1440 + column + 1).
        const std::string unitsAgainstTable = "SELECT count(*) FROM isobar.ledger l WHERE relid = "
                                              "'killed'::regclass AND rows <> (SELECT count(*) "
                                              "FROM killed t WHERE t.time BETWEEN l.valid_time AND "
                                              "l.valid_until AND t.location_id = l.north * 1440 "
                                              "+ l.west + 1)";
        QCOMPARE(test::count(watch, unitsAgainstTable), std::uint64_t{0});
        QCOMPARE(test::count(watch, "SELECT count(*) FROM killed"),
                 test::count(watch, "SELECT sum(rows) FROM isobar.ledger WHERE relid = 'killed'::regclass"));

        const CliRun rerun = load("killed", files, {"--series-units", "month"});
        QVERIFY2(rerun.exitCode == 0, qPrintable(rerun.err));
        QCOMPARE(test::count(watch, "SELECT count(*) FROM killed"), rows);
        QCOMPARE(test::count(watch, "SELECT count(*) FROM (SELECT DISTINCT time, location_id FROM killed) d"),
                 rows);
        QCOMPARE(test::count(watch, unitsAgainstTable), std::uint64_t{0});
        QCOMPARE(test::count(watch, "SELECT count(*) FROM isobar.ledger WHERE relid = 'killed'::regclass"),
                 sites * 4);
        // Every site's value at an hour is the CSV's (the same function of the hour at each).
        QCOMPARE(test::count(watch, "SELECT count(*) FROM killed WHERE time = '2024-03-05 07:00+00' AND "
                                    "zonal_wind_10m = " +
                                        u10At(at(2024, 3, 5, 7)).toStdString() + "::float4"),
                 sites);
    }

    void badChoice() {
        const CliRun run = runCli({"load", "--dsn", dsn(), "--series-units", "week", "x.csv"});
        QVERIFY(run.exitCode != 0);
        QVERIFY2(run.err.contains("--series-units takes hour or month, not 'week'"), qPrintable(run.err));
    }
};

QTEST_GUILESS_MAIN(TestSeriesUnits)
#include "tst_series_units.moc"
