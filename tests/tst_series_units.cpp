// SPDX-License-Identifier: GPL-3.0-or-later

// A point series in units of a month's hours (--series-units month), against a real PostgreSQL:
// one ledger row per point and UTC month with the hours it spans, every hour of the CSV in the
// table with its value, all-missing hours left out, a rerun, a renamed copy and the same table
// loaded hour by hour loading nothing, and a download sharing only some hours of a unit refused
// before anything is written. Expected hours come from calendar arithmetic (QDateTime) and values
// from the test's own CSV text.

#include "TestCluster.h"
#include "TestUtil.h"

#include <QDateTime>
#include <QFile>
#include <QtTest>

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

// Hourly u10 at (52.5, 13.25) from `from` to `until` (both included); the cell of `missing` empty.
QString csv(const QDateTime& from, const QDateTime& until, const QDateTime& missing) {
    QString text = "valid_time,u10,latitude,longitude\n";
    for (QDateTime t = from; t <= until; t = t.addSecs(3600)) {
        text +=
            t.toString("yyyy-MM-dd HH:mm:ss") + "," + (t == missing ? QString() : u10At(t)) + ",52.5,13.25\n";
    }
    return text;
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
        for (const QStringList& options : {QStringList{"--series-units", "month"}, QStringList{}}) {
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

        // A longer download of the same point shares only some hours of March's unit: refused
        // before anything is written, naming the unit.
        const QString longer = write("longer.csv", csv(at(2024, 3, 1, 0), at(2024, 4, 2, 23), QDateTime()));
        const CliRun refused = load("months", {longer}, {"--series-units", "month"});
        QVERIFY(refused.exitCode != 0);
        QVERIFY2(refused.err.contains("2024-03-01T00:00:00Z/2024-03-10T05:00:00Z") &&
                     refused.err.contains("shares only some of its hours"),
                 qPrintable(refused.err));
        QCOMPARE(test::count(conn, "SELECT count(*) FROM months"), static_cast<std::uint64_t>(hours - 1));
        // One that begins after the table's hours loads.
        const QString later = write("later.csv", csv(at(2024, 3, 10, 6), at(2024, 4, 2, 23), QDateTime()));
        const CliRun appended = load("months", {later}, {"--series-units", "month"});
        QVERIFY2(appended.exitCode == 0, qPrintable(appended.err));
        QCOMPARE(
            test::count(conn, "SELECT count(*) FROM months"),
            static_cast<std::uint64_t>(hours - 1 + at(2024, 3, 10, 6).secsTo(at(2024, 4, 2, 23)) / 3600 + 1));
        QCOMPARE(test::count(conn,
                             "SELECT count(*) FROM (SELECT time FROM months GROUP BY time HAVING count(*) > "
                             "1) d"),
                 std::uint64_t{0});
    }

    // A table loaded hour by hour, then by months: every hour is recognised (the same files).
    void hoursThenMonths() {
        const QString file = write("hours.csv", csv(at(2024, 5, 30, 0), at(2024, 6, 2, 23), QDateTime()));
        const CliRun byHour = load("hourly", {file});
        QVERIFY2(byHour.exitCode == 0, qPrintable(byHour.err));
        const CliRun byMonth = load("hourly", {file}, {"--series-units", "month"});
        QVERIFY2(byMonth.exitCode == 0, qPrintable(byMonth.err));
        QVERIFY2(byMonth.err.contains("nothing to do"), qPrintable(byMonth.err));
        Connection conn = cluster_->connect();
        QCOMPARE(test::count(conn, "SELECT count(*) FROM hourly"), std::uint64_t{4 * 24});
    }

    void badChoice() {
        const CliRun run = runCli({"load", "--dsn", dsn(), "--series-units", "week", "x.csv"});
        QVERIFY(run.exitCode != 0);
        QVERIFY2(run.err.contains("--series-units takes hour or month, not 'week'"), qPrintable(run.err));
    }
};

QTEST_GUILESS_MAIN(TestSeriesUnits)
#include "tst_series_units.moc"
