// SPDX-License-Identifier: GPL-3.0-or-later

// Many files as one dataset: how Dataset::open merges them (one file per variable, gaps, ERA5 over
// ERA5T, duplicates, the same file twice, directories), what it refuses and how it says so (grids,
// boxes, conflicting values, irregular/rotated grids, truncated and unreadable files), and the two
// rules that are about the table: a table keeps its grid, and all-missing bands are skipped or loaded.

#include "Fixtures.h"
#include "TestCluster.h"
#include "TestUtil.h"
#include "era5/Dataset.h"
#include "era5/Era5File.h"
#include "ingest/Loader.h"
#include "util/Error.h"
#include "util/Process.h"

#include <QtTest>

#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

using namespace isobar;
using test::errorOf;
using test::FixtureSpec;
using test::WeatherRows;

namespace {

constexpr qint64 kHour = test::kMicrosPerHour;

// An hourly file of one or more variables (by table column) over a small box, hours since 1900.
FixtureSpec hourlySpec(const std::vector<int>& columns, const std::vector<qint64>& micros, double salt = 0,
                       std::vector<double> lats = test::range(10.0, 9.0, 0.25),
                       std::vector<double> lons = test::range(20.0, 21.25, 0.25)) {
    FixtureSpec spec;
    spec.latitudes = std::move(lats);
    spec.longitudes = std::move(lons);
    spec.times = test::timesSince(micros, test::pgMicros(1900, 1, 1), kHour);
    for (int col : columns) {
        spec.variables.push_back(test::floatVariable(col, [col, salt](size_t s, size_t, size_t r, size_t c) {
            return test::synthValue(col, s, r, c, salt);
        }));
    }
    return spec;
}

std::vector<std::filesystem::path> paths(const QStringList& files) {
    std::vector<std::filesystem::path> out;
    for (const QString& f : files) {
        out.emplace_back(f.toStdString());
    }
    return out;
}

} // namespace

class TestDataset : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }
    void cleanupTestCase() { cluster_.reset(); }

    // NCAR style, one file per variable for the same hours: complete rows, no NULL anywhere.
    void oneFilePerVariable() {
        const auto micros = test::hourly(test::pgMicros(2024, 2, 1), 4);
        const char* ncarNames[] = {"VAR_2T", "VAR_10U", "VAR_10V", "TCC", "TP", "SF"};
        QStringList files;
        WeatherRows expected;
        for (int col = 0; col < 6; ++col) {
            FixtureSpec spec = hourlySpec({col}, micros);
            spec.variables[0].name = ncarNames[col];
            spec.utcDate = true;
            files << file(QString("ncar-%1.nc").arg(ncarNames[col]));
            test::writeFixture(files.back(), spec);
            for (const auto& [key, row] : test::expectedRows(spec, micros)) {
                auto [it, added] = expected.emplace(key, row);
                it->second.values[static_cast<size_t>(col)] = row.values[static_cast<size_t>(col)];
            }
        }
        const Dataset dataset = Dataset::open(paths(files));
        QCOMPARE(dataset.files().size(), size_t{6});
        QCOMPARE(dataset.steps().size(), size_t{4});
        QCOMPARE(dataset.variables().size(), size_t{6});
        QCOMPARE(dataset.rowCount(), std::uint64_t{4 * 5 * 6});
        for (const DatasetStep& step : dataset.steps()) {
            for (const auto& source : step.sources) {
                QVERIFY(source.has_value());
            }
        }
        QVERIFY2(!test::anyLineContains(dataset.notes(), {"missing"}),
                 qPrintable(test::joinLines(dataset.notes())));
        const WeatherRows decoded = test::decodedRows(dataset);
        const QString diff = test::compareRows(decoded, expected);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        for (const auto& [key, row] : decoded) {
            for (const auto& v : row.values) {
                QVERIFY(v.has_value());
            }
        }
    }

    // A variable missing for some steps: NULL there, and a note naming it and how often.
    void gapsGiveNullAndNote() {
        const auto micros = test::hourly(test::pgMicros(2024, 2, 1), 4);
        const FixtureSpec t2m = hourlySpec({0}, micros);
        const FixtureSpec u10 = hourlySpec({1}, {micros[1], micros[3]});
        const QString a = file("gap-t2m.nc");
        const QString b = file("gap-u10.nc");
        test::writeFixture(a, t2m);
        test::writeFixture(b, u10);
        WeatherRows expected = test::expectedRows(t2m, micros);
        for (const auto& [key, row] : test::expectedRows(u10, {micros[1], micros[3]})) {
            expected.at(key).values[1] = row.values[1];
        }
        const Dataset dataset = Dataset::open(paths({a, b}));
        QCOMPARE(dataset.steps().size(), size_t{4});
        QVERIFY2(test::anyLineContains(dataset.notes(), {"u10 is missing for 2 of 4 time steps",
                                                         "2024-02-01 00:00:00", "NULL"}),
                 qPrintable(test::joinLines(dataset.notes())));
        QVERIFY2(!test::anyLineContains(dataset.notes(), {"t2m is missing"}),
                 qPrintable(test::joinLines(dataset.notes())));
        const QString diff = test::compareRows(test::decodedRows(dataset), expected);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // 0.25 and 0.1 deg files do not mix: both files and both grids named.
    void differentGridsRefused() {
        const auto [era5, land] = writeGridPair("grid", 1);
        const auto both = paths({era5, land}); // clang-tidy 14 cannot parse a lambda capturing the bindings
        VERIFY_MESSAGE(errorOf([&] { (void)Dataset::open(both); }), era5, land,
                       "0.25 deg global grid (721 x 1440 points)",
                       "0.1 deg global grid (1801 x 3600 points)");
    }

    // Files that share time steps must share the box; different boxes at different times are fine.
    void boxes() {
        const auto first = test::hourly(test::pgMicros(2024, 2, 1), 2);
        const auto later = test::hourly(test::pgMicros(2024, 2, 1, 2), 3);
        const FixtureSpec north = hourlySpec({0}, first);
        const FixtureSpec southSameTimes = hourlySpec({1}, first, 0, test::range(5.0, 4.5, 0.25));
        const FixtureSpec southLater =
            hourlySpec({0}, later, 0, test::range(5.0, 4.5, 0.25), test::range(30.0, 30.75, 0.25));
        const QString a = file("box-north.nc");
        const QString b = file("box-south-same.nc");
        const QString c = file("box-south-later.nc");
        test::writeFixture(a, north);
        test::writeFixture(b, southSameTimes);
        test::writeFixture(c, southLater);
        VERIFY_MESSAGE(errorOf([&] {
                           (void)Dataset::open(paths({a, b}));
                       }),
                       a, b, "different points", "2024-02-01 00:00:00", "lat 10..9", "lat 5..4.5");

        const Dataset dataset = Dataset::open(paths({a, c}));
        QCOMPARE(dataset.geometries().size(), size_t{2});
        QCOMPARE(dataset.rowCount(), std::uint64_t{2 * 5 * 6 + 3 * 3 * 4});
        WeatherRows expected = test::expectedRows(north, first);
        expected.merge(test::expectedRows(southLater, later));
        const QString diff = test::compareRows(test::decodedRows(dataset), expected);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // One box, written by one source with 0..360 and by another with -180..180 numbers, for the same
    // hours: the same grid points, so the variables merge into the same rows.
    void sameBoxEitherLongitudeConvention_data() {
        QTest::addColumn<QList<double>>("lons360");
        QTest::addColumn<QList<double>>("lons180");
        QTest::newRow("date line") << QList<double>{179.5, 179.75, 180.0, 180.25, 180.5}
                                   << QList<double>{179.5, 179.75, 180.0, -179.75, -179.5};
        QTest::newRow("prime meridian") << QList<double>{359.0, 359.25, 359.5, 359.75, 0.0}
                                        << QList<double>{-1.0, -0.75, -0.5, -0.25, 0.0};
    }
    void sameBoxEitherLongitudeConvention() {
        QFETCH(QList<double>, lons360);
        QFETCH(QList<double>, lons180);
        const auto micros = test::hourly(test::pgMicros(2024, 2, 1), 2);
        const FixtureSpec t2m =
            hourlySpec({0}, micros, 0, test::range(10.0, 9.5, 0.25), {lons360.begin(), lons360.end()});
        const FixtureSpec u10 =
            hourlySpec({1}, micros, 0, test::range(10.0, 9.5, 0.25), {lons180.begin(), lons180.end()});
        const QString a = file(QString("conv360-%1.nc").arg(QTest::currentDataTag()).replace(' ', '-'));
        const QString b = file(QString("conv180-%1.nc").arg(QTest::currentDataTag()).replace(' ', '-'));
        test::writeFixture(a, t2m);
        test::writeFixture(b, u10);
        QCOMPARE(Era5File::open(a.toStdString()).box(), Era5File::open(b.toStdString()).box());
        WeatherRows expected = test::expectedRows(t2m, micros);
        for (const auto& [key, row] : test::expectedRows(u10, micros)) {
            expected.at(key).values[1] = row.values[1];
        }
        const QString refused = errorOf([&] { (void)Dataset::open(paths({a, b})); });
        QVERIFY2(refused.isEmpty(), qPrintable(refused));
        const Dataset dataset = Dataset::open(paths({a, b}));
        const QString diff = test::compareRows(test::decodedRows(dataset), expected);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // The same (variable, time) in two files: identical -> once, with a note; different -> refused
    // naming both files and the time; ERA5T ("0005") and final ERA5 ("0001") -> ERA5, with a note.
    void duplicates_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<bool>("reversed");
        QTest::newRow("identical") << "identical" << false;
        QTest::newRow("different") << "different" << false;
        QTest::newRow("0005 then 0001") << "labels" << false;
        QTest::newRow("0001 then 0005") << "labels" << true;
    }
    void duplicates() {
        QFETCH(QString, kind);
        QFETCH(bool, reversed);
        const auto micros = test::hourly(test::pgMicros(2024, 5, 1), 3);
        FixtureSpec first = hourlySpec({0, 4}, micros, kind == "identical" ? 0.0 : 0.5);
        FixtureSpec second = hourlySpec({0, 4}, micros, 0.0);
        if (kind == "labels") {
            first.format = second.format = NC_NETCDF4;
            first.stepExpver = {"0005", "0005", "0005"};
            second.stepExpver = {"0001", "0001", "0001"};
        }
        const QString a = file("dup-" + kind + "-a.nc");
        const QString b = file("dup-" + kind + "-b.nc");
        test::writeFixture(a, first);
        test::writeFixture(b, second);
        const auto order = reversed ? paths({b, a}) : paths({a, b});
        if (kind == "different") {
            VERIFY_MESSAGE(errorOf([&] { (void)Dataset::open(order); }), a, b, "2024-05-01 00:00:00",
                           "different values");
            return;
        }
        const Dataset dataset = Dataset::open(order);
        QCOMPARE(dataset.steps().size(), size_t{3});
        QCOMPARE(dataset.rowCount(), std::uint64_t{3 * 5 * 6});
        if (kind == "identical") {
            QVERIFY2(test::anyLineContains(dataset.notes(),
                                           {"6 (variable, time) pair(s)", "identical", "loaded once"}),
                     qPrintable(test::joinLines(dataset.notes())));
        } else {
            for (const char* var : {"t2m", "tp"}) {
                QVERIFY2(test::anyLineContains(dataset.notes(), {QString(var) + ": 3 step(s)", "final ERA5"}),
                         qPrintable(test::joinLines(dataset.notes())));
            }
        }
        // Either way the rows are the second file's (the 0001 one, or the identical copy).
        const QString diff =
            test::compareRows(test::decodedRows(dataset), test::expectedRows(second, micros));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // The same file given twice, also under another spelling of its path: read once, with a note.
    void sameFileTwice() {
        const auto micros = test::hourly(test::pgMicros(2024, 2, 1), 2);
        const QString a = file("twice.nc");
        test::writeFixture(a, hourlySpec({0, 1}, micros));
        const QString again = cluster_->workDir() + "/./twice.nc";
        for (const auto& list : {paths({a, a}), paths({a, again})}) {
            const Dataset dataset = Dataset::open(list);
            QCOMPARE(dataset.files().size(), size_t{1});
            QCOMPARE(dataset.rowCount(), std::uint64_t{2 * 5 * 6});
            QVERIFY2(test::anyLineContains(dataset.notes(), {"twice.nc", "more than once", "read once"}),
                     qPrintable(test::joinLines(dataset.notes())));
        }
    }

    // A directory stands for its NetCDF files, sorted, nothing else.
    void directoryInput() {
        QTemporaryDir dir;
        const auto micros = test::hourly(test::pgMicros(2024, 2, 1), 2);
        test::writeFixture(dir.filePath("b-u10.nc"), hourlySpec({1}, micros));
        test::writeFixture(dir.filePath("a-t2m.nc"), hourlySpec({0}, micros));
        QFile notes(dir.filePath("notes.txt"));
        QVERIFY(notes.open(QIODevice::WriteOnly));
        notes.write("not data\n");
        notes.close();
        QVERIFY(QDir(dir.path()).mkdir("sub.nc")); // a directory, even with a .nc name, is not a file
        const auto expanded = expandInputs({dir.path().toStdString()});
        QCOMPARE(expanded.size(), size_t{2});
        QCOMPARE(QString::fromStdString(expanded[0].filename().string()), QString("a-t2m.nc"));
        QCOMPARE(QString::fromStdString(expanded[1].filename().string()), QString("b-u10.nc"));
        const Dataset dataset = Dataset::open({dir.path().toStdString()});
        QCOMPARE(dataset.files().size(), size_t{2});
        QCOMPARE(dataset.variables().size(), size_t{2});
        QCOMPARE(dataset.rowCount(), std::uint64_t{2 * 5 * 6});

        QTemporaryDir empty;
        VERIFY_MESSAGE(errorOf([&] { (void)expandInputs({empty.path().toStdString()}); }), empty.path(),
                       "without NetCDF or GRIB files");
    }

    // Grids Isobar cannot number: each a one-line message naming the file and the grid found.
    void badGrids_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QStringList>("says");
        QTest::newRow("uneven latitude spacing")
            << "irregular" << QStringList{"latitude axis is not regular", "0.25", "0.5", "near 49.5"};
        QTest::newRow("rotated: rlat/rlon") << "rlat" << QStringList{"rotated", "rlat"};
        QTest::newRow("rotated: standard_name grid_latitude")
            << "grid_latitude" << QStringList{"rotated", "dimension y"};
    }
    void badGrids() {
        QFETCH(QString, kind);
        QFETCH(QStringList, says);
        FixtureSpec spec = hourlySpec({0}, test::hourly(test::pgMicros(2024, 2, 1), 1));
        if (kind == "irregular") {
            spec.latitudes = {50.0, 49.75, 49.5, 49.0, 48.75};
        } else if (kind == "rlat") {
            spec.latName = "rlat";
            spec.lonName = "rlon";
        } else {
            spec.latName = "y";
            spec.lonName = "x";
            spec.latText["standard_name"] = "grid_latitude";
            spec.lonText["standard_name"] = "grid_longitude";
        }
        const QString path = file("bad-grid-" + kind + ".nc");
        test::writeFixture(path, spec);
        const QString message = errorOf([&] { (void)Dataset::open(paths({path})); });
        VERIFY_MESSAGE(message, path);
        for (const QString& part : says) {
            QVERIFY2(message.contains(part), qPrintable("'" + part + "' not in: " + message));
        }
        QVERIFY2(!message.contains('\n'), qPrintable(message));
    }

    // A netCDF4/HDF5 download cut in half: the file is named, at open or at the latest when read.
    void truncatedNetcdf4() {
        FixtureSpec spec = hourlySpec({0, 1, 2, 3}, test::hourly(test::pgMicros(2024, 2, 1), 6), 0,
                                      test::range(60.0, 50.0, 0.25), test::range(0.0, 10.0, 0.25));
        spec.format = NC_NETCDF4;
        const QString path = file("cut.nc");
        test::writeFixture(path, spec);
        std::filesystem::resize_file(path.toStdString(), std::filesystem::file_size(path.toStdString()) / 2);
        const QString message = errorOf([&] {
            const Dataset dataset = Dataset::open(paths({path}));
            (void)test::decodedRows(dataset, 0.25, 41);
        });
        VERIFY_MESSAGE(message, path, "truncated or corrupt");
    }

    // A file this user may not read: named, with "permission denied". As root the check runs the
    // CLI as the postgres account (root reads everything); otherwise the file is opened directly.
    void unreadableFile() {
        QTemporaryDir dir;
        QVERIFY(chmod(QFile::encodeName(dir.path()).constData(), 0711) == 0);
        const QString path = dir.filePath("secret.nc");
        test::writeFixture(path, hourlySpec({0}, test::hourly(test::pgMicros(2024, 2, 1), 1)));
        if (geteuid() == 0) {
            QVERIFY(chmod(QFile::encodeName(path).constData(), 0600) == 0);
            const auto postgres = RunAs::lookup("postgres");
            if (!postgres) {
                QSKIP("running as root without a postgres account to run the CLI as");
            }
            ProcessOptions options;
            options.runAs = postgres;
            options.timeout = std::chrono::seconds(60);
            const ProcessResult run = runProcess(ISOBAR_CLI_PATH, {"inspect", path.toStdString()}, options);
            const QString out = QString::fromStdString(run.output);
            QVERIFY2(!run.ok(), qPrintable(out));
            QVERIFY2(out.contains(path + ": permission denied"), qPrintable(out));
            return;
        }
        QVERIFY(chmod(QFile::encodeName(path).constData(), 0) == 0);
        if (QFile f(path); f.open(QIODevice::ReadOnly)) {
            QSKIP("this process reads files without permission (capabilities)");
        }
        VERIFY_MESSAGE(errorOf([&] { (void)Era5File::open(path.toStdString()); }),
                       path + ": permission denied");
    }

    // A table remembers its grid: a 0.1 deg load into a 0.25 deg table fails naming both and leaves
    // the rows; once emptied, the table takes the new grid.
    void tableKeepsItsGrid() {
        const auto [era5, land] = writeGridPair("table", 0);
        LoadSummary s = test::loadFiles(*cluster_, {era5}, "grid_memory");
        QVERIFY2(s.status == LoadStatus::Completed, s.error ? s.error->message.c_str() : "");
        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM grid_memory"), QString("60"));

        s = test::loadFiles(*cluster_, {land}, "grid_memory");
        QVERIFY(s.status == LoadStatus::Failed);
        QVERIFY(s.error.has_value());
        VERIFY_MESSAGE(QString::fromStdString(s.error->message), "grid_memory", "0.25 deg global grid",
                       "0.1 deg global grid");
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM grid_memory"), QString("60"));
        QCOMPARE(test::scalar(conn, "SELECT min(location_id) FROM grid_memory"),
                 QString::number(test::gridLocationId(9.0, 20.0)));

        conn.exec("TRUNCATE grid_memory");
        s = test::loadFiles(*cluster_, {land}, "grid_memory");
        QVERIFY2(s.status == LoadStatus::Completed, s.error ? s.error->message.c_str() : "");
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM grid_memory"), QString("72"));
        QCOMPARE(test::scalar(conn, "SELECT min(location_id) FROM grid_memory"),
                 QString::number(test::gridLocationId(9.5, 20.0, 0.1)));
    }

    // Every value a fill value: skipped with a warning that says so, or loaded as rows of NULLs.
    void allMissing_data() {
        QTest::addColumn<bool>("load");
        QTest::newRow("skip (default)") << false;
        QTest::newRow("load as NULLs") << true;
    }
    void allMissing() {
        QFETCH(bool, load);
        FixtureSpec spec;
        spec.latitudes = test::range(10.0, 9.0, 0.25);
        spec.longitudes = test::range(20.0, 21.25, 0.25);
        spec.times =
            test::timesSince(test::hourly(test::pgMicros(2024, 2, 1), 3), test::pgMicros(1900, 1, 1), kHour);
        for (int col = 0; col < 6; ++col) {
            spec.variables.push_back(test::packedVariable(col, [](size_t, size_t, size_t, size_t) {
                return std::numeric_limits<double>::quiet_NaN();
            }));
        }
        const QString path = file("all-missing.nc");
        test::writeFixture(path, spec);
        const std::string table = load ? "all_missing_loaded" : "all_missing_skipped";
        test::RecordingSink sink;
        const LoadSummary s = test::loadFiles(*cluster_, {path}, table, {}, &sink,
                                              load ? AllMissingPolicy::Load : AllMissingPolicy::Skip);
        QVERIFY2(s.status == LoadStatus::Completed, s.error ? s.error->message.c_str() : "");
        const std::uint64_t all = 3 * 5 * 6;
        Connection conn = cluster_->connect();
        if (!load) {
            QCOMPARE(s.rows, std::uint64_t{0});
            QCOMPARE(s.skippedRows, all);
            QVERIFY2(test::anyLineContains(sink.warnings, {"90 rows", "every value missing", "skipped"}),
                     qPrintable(test::joinLines(sink.warnings)));
            QCOMPARE(test::scalar(conn, "SELECT count(*) FROM " + table), QString("0"));
            return;
        }
        QCOMPARE(s.rows, all);
        QCOMPARE(s.skippedRows, std::uint64_t{0});
        QVERIFY2(!test::anyLineContains(sink.warnings, {"skipped"}),
                 qPrintable(test::joinLines(sink.warnings)));
        QCOMPARE(
            test::scalar(conn,
                         "SELECT count(*) FROM " + table +
                             " WHERE temperature_2m IS NULL AND zonal_wind_10m IS NULL AND "
                             "meridional_wind_10m IS NULL AND total_cloud_cover IS NULL AND "
                             "total_precipitation IS NULL AND snowfall IS NULL AND location_id IS NOT NULL"),
            QString::number(all));
    }

private:
    QString file(const QString& name) const { return cluster_->workDir() + "/" + name; }

    // Two hours of t2m on the 0.25 deg grid (PREFIX-025.nc), and of variable `landVariable` on the
    // 0.1 deg grid with float64 coordinates (PREFIX-01.nc), as ERA5 and ERA5-Land come.
    std::pair<QString, QString> writeGridPair(const QString& prefix, int landVariable) const {
        const auto micros = test::hourly(test::pgMicros(2024, 2, 1), 2);
        const QString era5 = file(prefix + "-025.nc");
        const QString land = file(prefix + "-01.nc");
        test::writeFixture(era5, hourlySpec({0}, micros));
        FixtureSpec spec =
            hourlySpec({landVariable}, micros, 0, test::range(10.0, 9.5, 0.1), test::range(20.0, 20.5, 0.1));
        spec.coordType = NC_DOUBLE;
        test::writeFixture(land, spec);
        return {era5, land};
    }

    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestDataset)
#include "tst_dataset.moc"
