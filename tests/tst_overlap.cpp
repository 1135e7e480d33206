// SPDX-License-Identifier: GPL-3.0-or-later

// Exactly once across files: a unit is what its rows are (time, level, place on the grid), not the
// file that brought it. A renamed copy or a second download is recognised, ERA5T gives way to final
// ERA5, other values are refused unless the user says skip or replace, and a regional box loaded
// before the globe is not loaded twice. Expected rows come from the fixtures' own value functions
// (test::expectedRows), never from the loader's tables.

#include "Fixtures.h"
#include "TestCluster.h"
#include "TestUtil.h"
#include "db/Ledger.h"
#include "db/TableAudit.h"
#include "db/TableType.h"
#include "ingest/Loader.h"
#include "plan/LoadPlan.h"
#include "rows/UnitSource.h"

#include <QFile>
#include <QProcess>
#include <QtTest>

#include <csignal>
#include <cstdint>
#include <memory>

using namespace isobar;
using isobar::test::CliRun;
using isobar::test::runCli;
using isobar::test::waitFor;

namespace {

// A value of `column` at a place and hour, whatever file holds it: two downloads of the same place
// and hour agree, whatever their boxes. `salt` makes another version of the data.
double valueAt(int column, double lat, double lon, qint64 micros, double salt) {
    const double hour = static_cast<double>((micros / test::kMicrosPerHour) % 240);
    return column == 0 ? 270.0 + 0.1 * lat + 0.05 * lon + 0.01 * hour + salt
                       : -3.0 + 0.02 * lat + 0.03 * lon + 0.001 * hour + salt;
}

// A CDS 2024 (cfgrib) file of t2m and u10 over the box at those hours, each step labelled `expver`
// (none when empty).
test::FixtureSpec fixture(const std::vector<double>& lats, const std::vector<double>& lons,
                          const std::vector<qint64>& micros, double salt, const std::string& expver = {}) {
    test::FixtureSpec spec = test::cds2024Fixture(lats, lons, micros);
    for (const int column : {0, 1}) {
        spec.variables.push_back(
            test::floatVariable(column, [lats, lons, micros, column, salt](std::size_t s, std::size_t,
                                                                           std::size_t r, std::size_t c) {
                return valueAt(column, lats[r], lons[c], micros[s], salt);
            }));
    }
    if (!expver.empty()) {
        spec.stepExpver.assign(micros.size(), expver);
    }
    return spec;
}

// FNV-1a, 64 bits, written out here from its public definition: what earlier versions put at the
// end of their unit keys, over "name:size\n" of the unit's files.
std::uint64_t fnv1a(const std::string& text) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const char c : text) {
        h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    }
    return h;
}

} // namespace

class TestOverlap : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        cluster_ = std::make_unique<test::TestCluster>();
        dir_ = cluster_->workDir();
        lats_ = test::range(42, 40, 0.25);
        lons_ = test::range(0, 2, 0.25);
        hours_ = test::hourly(test::pgMicros(2024, 1, 1, 0), 2);
    }
    void cleanupTestCase() { cluster_.reset(); }

    // A unit's print changes with any one value of it, wherever it lies, and only its unit's; two
    // files of the same values give the same prints.
    void printSeesEveryValue() {
        // Units of thousands of values: a print that kept only its last inputs would miss the first.
        const std::vector<double> lats = test::range(42, 30, 0.25);
        const std::vector<double> lons = test::range(0, 12, 0.25);
        const test::FixtureSpec base = fixture(lats, lons, hours_, 0);
        const QString same = write("print-same.nc", base);
        QVERIFY(QFile::copy(same, dir_ + "/print-copy.nc"));
        const auto prints = [](const QString& path) {
            const Dataset dataset = Dataset::open({path.toStdString()});
            const LoadPlan plan = LoadPlan::build(dataset, 0, 64);
            const UnitSource source(dataset);
            RawUnit raw;
            DecodedBand band;
            std::vector<std::uint64_t> out;
            for (const WorkUnit& u : plan.units()) {
                source.fetch(u, raw);
                source.decode(raw, band);
                out.push_back(source.print(u, band));
            }
            return out;
        };
        const std::vector<std::uint64_t> reference = prints(same);
        QCOMPARE(reference.size(), std::size_t{4}); // two bands of the grid's rows, two hours
        QCOMPARE(prints(dir_ + "/print-copy.nc"), reference);
        QCOMPARE(std::set<std::uint64_t>(reference.begin(), reference.end()).size(), reference.size());
        // One value changed: the first of the file, one in the middle of the first hour, the last.
        const std::size_t cells = lats.size() * lons.size();
        for (const std::size_t changed : {std::size_t{0}, cells / 2, 2 * cells - 1}) {
            test::FixtureSpec spec = base;
            const test::ValueFn original = spec.variables[1].value;
            spec.variables[1].value = [original, changed, cols = lons.size(),
                                       cells](std::size_t s, std::size_t e, std::size_t r, std::size_t c) {
                return original(s, e, r, c) + (s * cells + r * cols + c == changed ? 0.25 : 0.0);
            };
            const std::vector<std::uint64_t> other = prints(write("print-other.nc", spec));
            std::size_t differ = 0;
            for (std::size_t i = 0; i < reference.size(); ++i) {
                differ += other[i] != reference[i] ? 1U : 0U;
            }
            QCOMPARE(differ, std::size_t{1});
        }
    }

    // The first two rows: a byte-identical copy under another name, then the same download
    // again with one global attribute different. 162 rows after each, the first file's values.
    void renamedCopyAndSecondDownload() {
        const test::FixtureSpec spec = fixture(lats_, lons_, hours_, 0);
        const QString data = write("data.nc", spec);
        LoadSummary first = load({data}, "renamed");
        QVERIFY2(first.status == LoadStatus::Completed, message(first));
        QCOMPARE(first.rows, std::uint64_t{162});
        Connection conn = cluster_->connect();
        const std::uint64_t units = ledgerUnits(conn, "renamed");

        const QString copy = dir_ + "/download (1).nc";
        QVERIFY(QFile::copy(data, copy));
        test::RecordingSink sink;
        const LoadSummary second = load({copy}, "renamed", OverlapPolicy::Refuse, &sink);
        QVERIFY2(second.status == LoadStatus::Completed, message(second));
        QCOMPARE(second.rows, std::uint64_t{0});
        QCOMPARE(second.overlap.sameRows, std::uint64_t{162});
        QVERIFY2(test::anyLineContains(sink.notes, {"already loaded from data.nc on", "skipped"}),
                 qPrintable(test::joinLines(sink.notes)));

        test::FixtureSpec again = spec;
        again.globalText["history"] = "downloaded again";
        const QString second2 = write("data-again.nc", again);
        QVERIFY(QFile(second2).size() != QFile(data).size());
        const LoadSummary third = load({second2}, "renamed");
        QVERIFY2(third.status == LoadStatus::Completed, message(third));
        QCOMPARE(third.rows, std::uint64_t{0});

        QCOMPARE(test::count(conn, "SELECT count(*) FROM renamed"), std::uint64_t{162});
        QCOMPARE(ledgerUnits(conn, "renamed"), units);
        const QString diff =
            test::compareRows(test::readWeatherRows(conn, "renamed"), test::expectedRows(spec, hours_));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // The third row: two hours of ERA5T, then final ERA5 of the same hours with other
    // values. 162 rows, the final values, counted as replaced; ERA5T again afterwards is refused.
    void era5tGivesWayToFinalEra5() {
        const test::FixtureSpec era5t = fixture(lats_, lons_, hours_, 0.7, "0005");
        const test::FixtureSpec era5 = fixture(lats_, lons_, hours_, 0, "0001");
        const QString preliminary = write("era5t.nc", era5t);
        const QString final = write("era5.nc", era5);
        LoadSummary first = load({preliminary}, "expver");
        QVERIFY2(first.status == LoadStatus::Completed, message(first));
        Connection conn = cluster_->connect();
        const std::uint64_t units = ledgerUnits(conn, "expver");
        QCOMPARE(test::count(conn, "SELECT count(*) FROM isobar.ledger WHERE relid = 'expver'::regclass AND "
                                   "expver = '0005'"),
                 units);

        test::RecordingSink sink;
        const LoadSummary second = load({final}, "expver", OverlapPolicy::Refuse, &sink);
        QVERIFY2(second.status == LoadStatus::Completed, message(second));
        QCOMPARE(second.rows, std::uint64_t{162});
        QCOMPARE(second.overlap.era5tReplacedUnits, static_cast<std::size_t>(units));
        QCOMPARE(second.overlap.era5tReplacedHours, std::uint64_t{2});
        QCOMPARE(second.overlap.replacedRows, std::uint64_t{162});
        QVERIFY2(
            test::anyLineContains(sink.notes, {"replacing 2 hour(s) of ERA5T", "era5t.nc", "by final ERA5"}),
            qPrintable(test::joinLines(sink.notes)));
        // The index made to find the ERA5T rows is gone with the load.
        QVERIFY2(test::anyLineContains(sink.notes, {"made the index", "dropped when the load ends"}),
                 qPrintable(test::joinLines(sink.notes)));
        QCOMPARE(test::count(conn, "SELECT count(*) FROM pg_indexes WHERE tablename = 'expver'"),
                 std::uint64_t{0});
        QCOMPARE(test::count(conn, "SELECT count(*) FROM expver"), std::uint64_t{162});
        QCOMPARE(test::count(conn, "SELECT count(*) FROM isobar.ledger WHERE relid = 'expver'::regclass AND "
                                   "expver = '0005'"),
                 std::uint64_t{0});
        QString diff =
            test::compareRows(test::readWeatherRows(conn, "expver"), test::expectedRows(era5, hours_));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));

        // Preliminary data never replaces final data unasked.
        const LoadSummary back = load({preliminary}, "expver");
        QVERIFY(back.status == LoadStatus::Failed);
        QVERIFY(back.error && back.error->overlap);
        diff = test::compareRows(test::readWeatherRows(conn, "expver"), test::expectedRows(era5, hours_));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // Other values from another file: refused before anything is written, naming the unit and both
    // files; --overlap skip keeps the table's rows, --overlap replace puts the new ones in their
    // place. Each ends with 162 rows.
    void otherValuesAreRefusedSkippedOrReplaced() {
        const test::FixtureSpec a = fixture(lats_, lons_, hours_, 0);
        const test::FixtureSpec b = fixture(lats_, lons_, hours_, 2.5);
        const QString fileA = write("first.nc", a);
        const QString fileB = write("second.nc", b);
        QVERIFY(load({fileA}, "choice").status == LoadStatus::Completed);
        Connection conn = cluster_->connect();

        const LoadSummary refused = load({fileB}, "choice");
        QVERIFY(refused.status == LoadStatus::Failed);
        QVERIFY(refused.error && refused.error->overlap);
        const QString why = QString::fromStdString(refused.error->message);
        for (const char* part : {"already holds unit 2024-01-01T00:00:00Z lat ", "first.nc", "second.nc",
                                 "nothing was loaded", "--overlap skip", "--overlap replace"}) {
            QVERIFY2(why.contains(part), qPrintable(why));
        }
        QString diff =
            test::compareRows(test::readWeatherRows(conn, "choice"), test::expectedRows(a, hours_));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));

        const LoadSummary kept = load({fileB}, "choice", OverlapPolicy::Skip);
        QVERIFY2(kept.status == LoadStatus::Completed, message(kept));
        QCOMPARE(kept.rows, std::uint64_t{0});
        QCOMPARE(kept.overlap.keptRows, std::uint64_t{162});
        diff = test::compareRows(test::readWeatherRows(conn, "choice"), test::expectedRows(a, hours_));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));

        const LoadSummary replaced = load({fileB}, "choice", OverlapPolicy::Replace);
        QVERIFY2(replaced.status == LoadStatus::Completed, message(replaced));
        QCOMPARE(replaced.rows, std::uint64_t{162});
        QCOMPARE(replaced.overlap.replacedRows, std::uint64_t{162});
        QVERIFY(replaced.overlap.overlapReplacedUnits > 0);
        QCOMPARE(replaced.overlap.era5tReplacedUnits, std::size_t{0});
        diff = test::compareRows(test::readWeatherRows(conn, "choice"), test::expectedRows(b, hours_));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // Every table type: a renamed copy adds nothing, final ERA5 replaces ERA5T row for row (a
    // hypertable where TimescaleDB can be used on the test server; distributed tables in
    // tst_citus).
    void eachTableType_data() {
        QTest::addColumn<QString>("type");
        for (const char* type : {"regular", "unlogged", "partitioned", "hypertable"}) {
            QTest::newRow(type) << QString(type);
        }
    }
    void eachTableType() {
        QFETCH(QString, type);
        Connection conn = cluster_->connect();
        const std::optional<TableType> tableType = parseTableType(type.toStdString());
        QVERIFY(tableType.has_value());
        if (*tableType == TableType::Hypertable) {
            if (const ExtensionStatus status = timescaledbStatus(conn); !status.usable) {
                QSKIP(qPrintable("TimescaleDB cannot be used on the test server: " +
                                 QString::fromStdString(status.reason)));
            }
        }
        const std::string table = "typed_" + type.toStdString();
        const test::FixtureSpec era5t = fixture(lats_, lons_, hours_, 0.4, "0005");
        const test::FixtureSpec era5 = fixture(lats_, lons_, hours_, 0, "0001");
        const QString preliminary = write(type + "-era5t.nc", era5t);
        const QString final = write(type + "-era5.nc", era5);
        LoadRequest request = requestFor({preliminary}, table);
        request.tableOptions.type = tableType;
        test::RecordingSink sink;
        LoadSummary s = runLoad(request, {}, sink);
        QVERIFY2(s.status == LoadStatus::Completed, message(s));
        const QString copy = dir_ + "/" + type + "-era5t copy.nc";
        QVERIFY(QFile::copy(preliminary, copy));
        s = load({copy}, table);
        QVERIFY2(s.status == LoadStatus::Completed, message(s));
        QCOMPARE(s.rows, std::uint64_t{0});
        s = load({final}, table);
        QVERIFY2(s.status == LoadStatus::Completed, message(s));
        QCOMPARE(s.overlap.replacedRows, std::uint64_t{162});
        QCOMPARE(test::count(conn, "SELECT count(*) FROM " + table), std::uint64_t{162});
        const QString diff =
            test::compareRows(test::readWeatherRows(conn, table), test::expectedRows(era5, hours_));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // A regional box first, then a larger one holding it: the shared rows are recognised by their
    // values and the rest loads, each row once. The region again with other values is refused.
    void regionalBoxThenALargerOne() {
        const std::vector<double> regionLats = test::range(41, 40.5, 0.25);
        const std::vector<double> regionLons = test::range(0.5, 1.5, 0.25);
        const test::FixtureSpec region = fixture(regionLats, regionLons, hours_, 0);
        const test::FixtureSpec box = fixture(lats_, lons_, hours_, 0);
        QVERIFY(load({write("region.nc", region)}, "nested").status == LoadStatus::Completed);
        test::RecordingSink sink;
        const LoadSummary larger = load({write("box.nc", box)}, "nested", OverlapPolicy::Refuse, &sink);
        QVERIFY2(larger.status == LoadStatus::Completed, message(larger));
        const std::uint64_t regionRows = 3 * 5 * 2;
        QCOMPARE(larger.rows, std::uint64_t{162} - regionRows);
        QCOMPARE(larger.overlap.sameRows, regionRows);
        QVERIFY2(test::anyLineContains(sink.notes, {"cut along them"}),
                 qPrintable(test::joinLines(sink.notes)));
        Connection conn = cluster_->connect();
        QCOMPARE(test::count(conn, "SELECT count(*) FROM nested"), std::uint64_t{162});
        QString diff =
            test::compareRows(test::readWeatherRows(conn, "nested"), test::expectedRows(box, hours_));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));

        // Loaded again, the larger box is the table's already.
        const LoadSummary boxAgain = load({dir_ + "/box.nc"}, "nested");
        QVERIFY2(boxAgain.status == LoadStatus::Completed && boxAgain.rows == 0, message(boxAgain));

        const LoadSummary other =
            load({write("region-other.nc", fixture(regionLats, regionLons, hours_, 1.5))}, "nested");
        QVERIFY(other.status == LoadStatus::Failed && other.error && other.error->overlap);
        QCOMPARE(test::count(conn, "SELECT count(*) FROM nested"), std::uint64_t{162});
    }

    // The globe first, then a region inside it from another file: its rows are part of units that
    // hold more, so they are read back from the table and compared. The same values load nothing;
    // others are refused by default, kept by --overlap skip and not replaced (whole units only).
    void aRegionInsideALargerBoxLoadedEarlier() {
        const test::FixtureSpec box = fixture(lats_, lons_, hours_, 0);
        QVERIFY(load({write("outer.nc", box)}, "inside").status == LoadStatus::Completed);
        const std::vector<double> lats = test::range(41, 40.5, 0.25), lons = test::range(0.5, 1.5, 0.25);
        const LoadSummary same = load({write("inner-same.nc", fixture(lats, lons, hours_, 0))}, "inside");
        QVERIFY2(same.status == LoadStatus::Completed && same.rows == 0, message(same));
        QCOMPARE(same.overlap.sameRows, std::uint64_t{3 * 5 * hours_.size()});
        const QString inner = write("inner.nc", fixture(lats, lons, hours_, 2.5));
        const LoadSummary refused = load({inner}, "inside");
        QVERIFY2(refused.status == LoadStatus::Failed && refused.error &&
                     refused.error->message.find("only part of it, with other values") != std::string::npos,
                 message(refused));
        const LoadSummary skipped = load({inner}, "inside", OverlapPolicy::Skip);
        QVERIFY2(skipped.status == LoadStatus::Completed && skipped.rows == 0, message(skipped));
        const LoadSummary replace = load({inner}, "inside", OverlapPolicy::Replace);
        QVERIFY2(replace.status == LoadStatus::Failed &&
                     replace.error->message.find("whole units only") != std::string::npos,
                 message(replace));
        Connection conn = cluster_->connect();
        const QString diff =
            test::compareRows(test::readWeatherRows(conn, "inside"), test::expectedRows(box, hours_));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // kill -9 while final ERA5 replaces ERA5T, unit by unit: every unit is either still ERA5T or
    // wholly final (never deleted without its new rows, never both), and the rerun ends exact.
    void killedReplacementEndsExact() {
        const std::vector<double> lats = test::range(50, 35.25, 0.25);
        const std::vector<double> lons = test::range(10, 24.75, 0.25);
        const std::vector<qint64> hours = test::hourly(test::pgMicros(2024, 3, 1, 0), 48);
        const test::FixtureSpec era5t = fixture(lats, lons, hours, 0.7, "0005");
        const test::FixtureSpec era5 = fixture(lats, lons, hours, 0, "0001");
        const QString preliminary = write("killed-era5t.nc", era5t);
        const QString final = write("killed-era5.nc", era5);
        const std::uint64_t rows = lats.size() * lons.size() * hours.size();
        const QStringList units{"--rows-per-unit", "5000"}; // the same units in every run: 3 grid rows
        const CliRun first = runCli(QStringList{"load", "--dsn", QString::fromStdString(cluster_->conninfo()),
                                                "--table", "killed", preliminary} +
                                    units);
        QVERIFY2(first.exitCode == 0, qPrintable(first.err));

        QProcess cli;
        cli.start(QStringLiteral(ISOBAR_CLI_PATH),
                  QStringList{"load", "--dsn", QString::fromStdString(cluster_->conninfo()), "--table",
                              "killed", "--workers", "2", "--rows-per-transaction", "1000",
                              "--reporting-period", "0", final} +
                      units);
        QVERIFY(cli.waitForStarted());
        Connection watch = cluster_->connect();
        const auto finalUnits = [&watch] {
            return test::count(watch,
                               "SELECT count(*) FROM isobar.ledger WHERE relid = 'killed'::regclass AND "
                               "expver = '0001'");
        };
        QVERIFY2(waitFor([&] { return finalUnits() >= 20; }, std::chrono::seconds(120)),
                 qPrintable(QString::fromUtf8(cli.readAllStandardError())));
        ::kill(static_cast<pid_t>(cli.processId()), SIGKILL);
        QVERIFY(cli.waitForFinished(30000));
        // Whatever was in flight rolled back: every row once, the ledger accounts for each.
        QCOMPARE(test::count(watch, "SELECT count(*) FROM killed"), rows);
        QCOMPARE(test::count(watch, "SELECT sum(rows) FROM isobar.ledger WHERE relid = 'killed'::regclass"),
                 rows);
        QVERIFY(finalUnits() < ledgerUnits(watch, "killed"));

        const CliRun rerun = runCli(QStringList{"load", "--dsn", QString::fromStdString(cluster_->conninfo()),
                                                "--table", "killed", final} +
                                    units);
        QVERIFY2(rerun.exitCode == 0, qPrintable(rerun.err));
        QVERIFY2(rerun.err.contains("of ERA5T from killed-era5t.nc (expver 0005) by final ERA5"),
                 qPrintable(rerun.err));
        QVERIFY2(rerun.err.contains("earlier rows deleted"), qPrintable(rerun.err));
        // The index the killed run made is dropped by the rerun that used it.
        QCOMPARE(test::count(watch, "SELECT count(*) FROM pg_indexes WHERE tablename = 'killed'"),
                 std::uint64_t{0}); // the summary
        QCOMPARE(test::count(watch, "SELECT count(*) FROM isobar.ledger WHERE relid = 'killed'::regclass AND "
                                    "expver = '0005'"),
                 std::uint64_t{0});
        const QString diff =
            test::compareRows(test::readWeatherRows(watch, "killed"), test::expectedRows(era5, hours));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // A table loaded by the previous version: its ledger without the columns this one records, its
    // keys naming the files. The same file again loads nothing (its units are recognised by the old
    // keys, which get their place); another file's rows there are refused, not added.
    void tableOfThePreviousKeyFormat() {
        const test::FixtureSpec spec = fixture(lats_, lons_, hours_, 0);
        const QString data = write("old.nc", spec);
        QVERIFY(load({data}, "old_keys").status == LoadStatus::Completed);
        Connection conn = cluster_->connect();
        // The ledger as the previous version left it: its columns only, its keys.
        conn.exec("DELETE FROM isobar.ledger WHERE relid = 'old_keys'::regclass");
        for (const char* ledger : {"isobar.ledger", "isobar.ledger_unlogged"}) {
            conn.exec(std::string("DROP INDEX IF EXISTS ") + ledger + "_time");
            for (const char* column : {"valid_time", "level", "north", "south", "west", "east", "sparse",
                                       "files", "bytes", "files_print", "legacy_print", "values_print",
                                       "expver", "product", "columns", "valid_until"}) {
                conn.exec(std::string("ALTER TABLE ") + ledger + " DROP COLUMN " + column);
            }
        }
        // Two latitude rows a unit from the box's northern row, as loadFiles asks (bandRows 2).
        const std::string print =
            QString::number(fnv1a("old.nc:" + std::to_string(QFile(data).size()) + "\n"), 16)
                .rightJustified(16, '0')
                .toStdString();
        for (const std::string time : {"2024-01-01T00:00:00Z", "2024-01-01T01:00:00Z"}) {
            for (int row0 = 0; row0 < 9; row0 += 2) {
                const int last = std::min(row0 + 1, 8);
                conn.exec(
                    "INSERT INTO isobar.ledger (relid, unit_key, rows) VALUES ('old_keys'::regclass, '" +
                    time + " rows " + std::to_string(row0) + "-" + std::to_string(last) +
                    " of 42..40 x 0..2 on 0.25 [" + print + "]', " + std::to_string((last - row0 + 1) * 9) +
                    ")");
            }
        }
        // Another file's rows there are refused (their values were never fingerprinted), but the
        // units keep the place they were given meanwhile: a refused load does not undo it.
        const QString copy = dir_ + "/old-renamed.nc";
        QVERIFY(QFile::copy(data, copy));
        const LoadSummary other = load({copy}, "old_keys");
        QVERIFY(other.status == LoadStatus::Failed);
        QVERIFY2(other.error->message.find("from a load by an earlier version") != std::string::npos,
                 message(other));
        QCOMPARE(test::count(conn,
                             "SELECT count(*) FROM isobar.ledger WHERE relid = 'old_keys'::regclass AND "
                             "valid_time IS NOT NULL AND legacy_print IS NOT NULL"),
                 std::uint64_t{10});
        QCOMPARE(test::count(conn, "SELECT count(*) FROM old_keys"), std::uint64_t{162});
        // The same file is the table's already.
        const LoadSummary again = load({data}, "old_keys");
        QVERIFY2(again.status == LoadStatus::Completed, message(again));
        QCOMPARE(again.rows, std::uint64_t{0});
        QCOMPARE(test::count(conn, "SELECT count(*) FROM old_keys"), std::uint64_t{162});
        // New hours load as before, keyed by content.
        const QString later =
            write("later.nc", fixture(lats_, lons_, test::hourly(test::pgMicros(2024, 1, 1, 2), 1), 0));
        const LoadSummary more = load({later}, "old_keys");
        QVERIFY2(more.status == LoadStatus::Completed, message(more));
        QCOMPARE(more.rows, std::uint64_t{81});
    }

    // The audit finds nothing on a clean load, then what is planted: duplicate rows (and the SQL
    // that removes them, which then leaves it clean), a missing hour, ERA5T units, a column with
    // no value; the same when it reads a sample of the time steps instead of every row.
    void auditFindsWhatIsPlanted() {
        const std::vector<qint64> hours = test::hourly(test::pgMicros(2024, 2, 1, 0), 4);
        const test::FixtureSpec spec = fixture(lats_, lons_, hours, 0);
        QVERIFY(load({write("audited.nc", spec)}, "audited").status == LoadStatus::Completed);
        Connection conn = cluster_->connect();
        AuditRequest request;
        request.table = TableName::parse("audited");
        TableAudit a = auditTable(conn, request);
        QVERIFY2(a.clean(), describeAudit(a).c_str());
        QCOMPARE(a.tableRows, std::uint64_t{4 * 81});
        QCOMPARE(a.ledgerRows, std::uint64_t{4 * 81});
        QCOMPARE(a.timeStep, std::string("1 h"));
        QCOMPARE(a.timeSteps, std::uint64_t{4});
        const CliRun clean =
            runCli({"audit", "--dsn", QString::fromStdString(cluster_->conninfo()), "--table", "audited"});
        QVERIFY2(clean.exitCode == 0 && clean.out.contains("nothing found"),
                 qPrintable(clean.out + clean.err));

        // 30 rows of the second hour twice.
        conn.exec("INSERT INTO audited SELECT * FROM audited WHERE time = '2024-02-01 01:00:00+00' ORDER BY "
                  "location_id "
                  "LIMIT 30");
        a = auditTable(conn, request);
        QCOMPARE(a.duplicateKeys, std::uint64_t{30});
        QCOMPARE(a.extraRows, std::uint64_t{30});
        QVERIFY(a.unitMismatches > 0);
        QVERIFY(a.rowsDiffer()); // 354 rows, the ledger's 324
        QVERIFY(!a.cleanupSql.empty());
        const CliRun found =
            runCli({"audit", "--dsn", QString::fromStdString(cluster_->conninfo()), "--table", "audited"});
        QCOMPARE(found.exitCode, 3);
        QVERIFY2(found.out.contains("PROBLEM  duplicate keys: 30 key(s) more than once"),
                 qPrintable(found.out));
        QVERIFY2(found.out.contains("Isobar never runs it"), qPrintable(found.out));
        QCOMPARE(test::count(conn, "SELECT count(*) FROM audited"), std::uint64_t{4 * 81 + 30}); // not run
        conn.exec(a.cleanupSql);
        QCOMPARE(test::count(conn, "SELECT count(*) FROM audited"), std::uint64_t{4 * 81});
        a = auditTable(conn, request);
        QVERIFY2(a.clean(), describeAudit(a).c_str());

        // A missing hour (its rows and its units gone), a column without values.
        conn.exec("DELETE FROM audited WHERE time = '2024-02-01 02:00:00+00'");
        conn.exec("DELETE FROM isobar.ledger WHERE relid = 'audited'::regclass AND valid_time = '2024-02-01 "
                  "02:00:00+00'");
        conn.exec("UPDATE audited SET zonal_wind_10m = NULL");
        a = auditTable(conn, request);
        QCOMPARE(a.missingSteps, std::uint64_t{1});
        QCOMPARE(a.nullColumns, std::vector<std::string>{"zonal_wind_10m"});
        QCOMPARE(a.duplicateKeys, std::uint64_t{0});

        // Sampled: the same findings from the time steps read.
        request.exactRows = 0;
        request.sampleTimes = 2;
        a = auditTable(conn, request);
        QVERIFY2(a.rowsEstimated && a.method.find("2 time steps") != std::string::npos, a.method.c_str());
        QVERIFY2(a.method.find("no index on time") != std::string::npos, a.method.c_str());
        QCOMPARE(a.rowsRead, std::uint64_t{2 * 81});
        QCOMPARE(a.nullColumns, std::vector<std::string>{"zonal_wind_10m"});
        QCOMPARE(a.missingSteps, std::uint64_t{1});

        // ERA5T: found unit by unit, with its hours.
        QVERIFY(load({write("audited-era5t.nc", fixture(lats_, lons_, hours_, 0.3, "0005"))}, "audited_t")
                    .status == LoadStatus::Completed);
        AuditRequest era5t;
        era5t.table = TableName::parse("audited_t");
        a = auditTable(conn, era5t);
        QCOMPARE(a.era5tHours, std::uint64_t{2});
        QCOMPARE(a.era5tUnits, ledgerUnits(conn, "audited_t"));
        QVERIFY(!a.clean());
        // A ledger unit claiming the rows of another (a copy loaded by an earlier version).
        conn.exec(
            "INSERT INTO isobar.ledger (relid, unit_key, rows, valid_time, north, south, west, east, sparse) "
            "SELECT relid, unit_key || ' [copy]', rows, valid_time, north, south, west, east, sparse FROM "
            "isobar.ledger WHERE relid = 'audited_t'::regclass ORDER BY unit_key LIMIT 1");
        a = auditTable(conn, era5t);
        QCOMPARE(a.overlappingUnits, std::uint64_t{1});
        QVERIFY(a.cleanupSql.find("[copy]") != std::string::npos);
    }

private:
    QString write(const QString& name, const test::FixtureSpec& spec) const {
        QString path = dir_ + "/" + name;
        test::writeFixture(path, spec);
        return path;
    }

    LoadRequest requestFor(const std::vector<QString>& files, const std::string& table,
                           OverlapPolicy overlap = OverlapPolicy::Refuse) const {
        LoadRequest request;
        request.conninfo = cluster_->conninfo();
        request.table = TableName::parse(table);
        for (const QString& f : files) {
            request.files.emplace_back(f.toStdString());
        }
        request.bandRows = 2;
        request.overlap = overlap;
        return request;
    }

    LoadSummary load(const std::vector<QString>& files, const std::string& table,
                     OverlapPolicy overlap = OverlapPolicy::Refuse,
                     test::RecordingSink* sink = nullptr) const {
        test::RecordingSink local;
        return runLoad(requestFor(files, table, overlap), {}, sink != nullptr ? *sink : local);
    }

    static const char* message(const LoadSummary& s) {
        static std::string text;
        text = s.error ? s.error->message : std::string("no error");
        return text.c_str();
    }

    static std::uint64_t ledgerUnits(Connection& conn, const std::string& table) {
        return test::count(conn,
                           "SELECT count(*) FROM isobar.ledger WHERE relid = '" + table + "'::regclass");
    }

    std::unique_ptr<test::TestCluster> cluster_;
    QString dir_;
    std::vector<double> lats_;
    std::vector<double> lons_;
    std::vector<qint64> hours_;
};

QTEST_GUILESS_MAIN(TestOverlap)
#include "tst_overlap.moc"
