// SPDX-License-Identifier: GPL-3.0-or-later

// GRIB input: fixtures written here with ecCodes (editions 1 and 2, forecasts with steps, bitmaps,
// south-north scanning, a box across the date line, ERA5-Land, monthly means, pressure levels), what
// Era5File makes of them, and every column of every row loaded into a real PostgreSQL, compared with
// rows worked out here from the values the fixtures were given. The same weather as NetCDF and as
// GRIB must load to identical tables. Then every broken or unsupported file, each with its message.

#include "Fixtures.h"
#include "GribFixtures.h"
#include "TestCluster.h"
#include "TestUtil.h"
#include "era5/BandReader.h"
#include "era5/Dataset.h"
#include "era5/Era5File.h"
#include "era5/Inspection.h"
#include "synth/SyntheticFiles.h"

#include <QFile>
#include <QtTest>

#include <cmath>
#include <fstream>

using namespace isobar;
using test::errorOf;
using test::GribField;
using test::GribGrid;
using test::WeatherRow;
using test::WeatherRows;

using test::box;
using test::expectedSeed;
using test::latitudeOf;
using test::longitudeOf;
using test::marchHours;
using test::seedFields;
using test::SeedHour;
using test::seedValue;
using test::tableOf;

class TestGrib : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }
    void cleanupTestCase() { cluster_.reset(); }

    // Legacy CDS GRIB1: messages padded with NULs to 120 bytes, accumulations as forecasts from 18 UTC
    // at steps 6-8, bitmap holes, and a last latitude rounded to millidegrees the wrong way.
    void grib1Legacy() {
        GribGrid grid = box(50.0, 10.0, 4, 5);
        grid.latitudeOfLast = 49.249; // GRIB1 millidegrees: computed from the first point and increment
        const auto hours = marchHours(3);
        const QString path = file("legacy.grib");
        test::writeGribFixture(path, seedFields(1, grid, hours), 120);
        QCOMPARE(QFile(path).size() % 120, 0);

        const Era5File f = Era5File::open(path.toStdString());
        QCOMPARE(QString::fromStdString(f.format()), QString("GRIB edition 1"));
        QVERIFY2(QString::fromStdString(f.layout()).startsWith("CDS legacy GRIB (18 messages)"),
                 f.layout().c_str());
        QCOMPARE(f.box(), (GridBox{560, 4, 759, 5}));
        QCOMPARE(f.latitudes().back(), 49.25);
        QCOMPARE(f.steps().size(), std::size_t{3});
        for (std::size_t s = 0; s < 3; ++s) {
            QCOMPARE(f.steps()[s].time.micros, hours[s].validMicros);
        }
        QCOMPARE(f.variables().size(), std::size_t{6});
        QCOMPARE(f.find(Variable::T2m)->conversion, Conversion::KelvinToCelsius);
        QCOMPARE(QString::fromStdString(f.find(Variable::Tp)->stepType), QString("accum"));
        QVERIFY(!f.find(Variable::Tp)->accumulatedSinceMidnight);
        QVERIFY2(test::anyLineContains(f.notes(), {"padded with NULs"}),
                 qPrintable(test::joinLines(f.notes())));
        CHECK_EVERY_ROW({path}, "grib1_legacy", expectedSeed(grid, hours));
    }

    // GRIB2, south to north, a box across the date line (179.5 .. 180.5 in GRIB2's 0..360), with
    // accumulations from the 06 UTC forecast at steps 1-3.
    void grib2SouthNorthAcrossTheDateLine() {
        const GribGrid grid = box(-10.0, 179.5, 4, 5, 0.25, true);
        std::vector<SeedHour> hours;
        for (int h = 7; h <= 9; ++h) {
            hours.push_back(
                SeedHour{test::pgMicros(2024, 3, 1, h), 20240301, h * 100L, 20240301, 600, h - 6L});
        }
        const QString path = file("southnorth.grib2");
        test::writeGribFixture(path, seedFields(2, grid, hours));
        const Era5File f = Era5File::open(path.toStdString());
        QCOMPARE(QString::fromStdString(f.format()), QString("GRIB edition 2"));
        QVERIFY(f.latitudesAscending());
        QCOMPARE(f.box().cols, std::size_t{5});
        CHECK_EVERY_ROW({path}, "grib2_dateline", expectedSeed(grid, hours));
    }

    // The same weather as a CDS 2024 NetCDF file and as GRIB loads to identical tables.
    void sameRowsAsNetcdf() {
        const GribGrid grid = box(45.0, -3.0, 3, 4);
        const auto hours = marchHours(2);
        const QString gribPath = file("same.grib");
        test::writeGribFixture(gribPath, seedFields(1, grid, hours), 120);
        std::vector<double> lats;
        std::vector<double> lons;
        for (long r = 0; r < grid.nj; ++r) {
            lats.push_back(latitudeOf(grid, static_cast<std::size_t>(r)));
        }
        for (long c = 0; c < grid.ni; ++c) {
            lons.push_back(longitudeOf(grid, static_cast<std::size_t>(c)));
        }
        std::vector<qint64> micros;
        micros.reserve(hours.size());
        for (const SeedHour& h : hours) {
            micros.push_back(h.validMicros);
        }
        test::FixtureSpec spec = test::cds2024Fixture(lats, lons, micros);
        for (int column = 0; column < 6; ++column) {
            spec.variables.push_back(
                test::floatVariable(column, [column](std::size_t s, std::size_t, std::size_t r,
                                                     std::size_t c) { return seedValue(column, s, r, c); }));
        }
        const QString ncPath = file("same.nc");
        test::writeFixture(ncPath, spec);
        const WeatherRows expected = expectedSeed(grid, hours);
        CHECK_EVERY_ROW({gribPath}, "same_grib", expected);
        CHECK_EVERY_ROW({ncPath}, "same_nc", expected);
        Connection conn = cluster_->connect();
        const QString diff = test::compareRows(test::readWeatherRows(conn, "same_grib"),
                                               test::readWeatherRows(conn, "same_nc"));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        // And GRIB and NetCDF files of different hours load together as one dataset.
        const auto later = marchHours(3);
        const QString thirdHour = file("third-hour.grib");
        test::writeGribFixture(thirdHour, seedFields(1, grid, later));
        const Dataset mixed = Dataset::open({ncPath.toStdString(), thirdHour.toStdString()});
        QCOMPARE(mixed.steps().size(), std::size_t{3});
        QVERIFY2(test::anyLineContains(mixed.notes(), {"identical values"}),
                 qPrintable(test::joinLines(mixed.notes())));
    }

    // ERA5-Land: class l5 on the 0.1 grid, GRIB1 and GRIB2 messages in one file whose longitudes for
    // the same points read -160.0 and 200.0, accumulations labelled 0-1 ... 0-4 h but accumulating
    // since 00 UTC.
    void era5LandMixedEditions() {
        GribGrid west = box(14.0, -160.0, 3, 4, 0.1);
        GribGrid east = west;
        east.longitudeOfFirst = 200.0;
        east.longitudeOfLast = 200.3;
        std::vector<GribField> fields;
        const auto accumulated = [](std::size_t h, std::size_t r, std::size_t c) {
            return static_cast<double>(h * (1 + r + c)) / 1024.0; // grows through the day
        };
        for (std::size_t h = 1; h <= 4; ++h) {
            GribField t;
            t.edition = 1;
            t.marsClass = "l5";
            t.paramId = 167;
            t.grid = west;
            t.type = "fc";
            t.dataDate = 20240101;
            t.endStep = static_cast<long>(h);
            GribField tp = t;
            tp.edition = 2;
            tp.paramId = 228;
            tp.grid = east;
            tp.stepType = "accum";
            tp.startStep = static_cast<long>(h) - 1;
            for (long r = 0; r < west.nj; ++r) {
                for (long c = 0; c < west.ni; ++c) {
                    t.values.push_back(
                        test::gribExact(280.0, h, static_cast<std::size_t>(r), static_cast<std::size_t>(c)));
                    tp.values.push_back(
                        accumulated(h, static_cast<std::size_t>(r), static_cast<std::size_t>(c)));
                }
            }
            fields.push_back(std::move(t));
            fields.push_back(std::move(tp));
        }
        const QString path = file("land.grib");
        test::writeGribFixture(path, fields);
        const Era5File f = Era5File::open(path.toStdString());
        QVERIFY(f.era5Land());
        QCOMPARE(f.grid().spacing(), 0.1);
        QCOMPARE(QString::fromStdString(f.format()), QString("GRIB editions 1 and 2"));
        QVERIFY(f.find(Variable::Tp)->accumulatedSinceMidnight);
        QVERIFY(!f.find(Variable::T2m)->accumulatedSinceMidnight);
        WeatherRows expected;
        for (std::size_t h = 1; h <= 4; ++h) {
            for (long r = 0; r < west.nj; ++r) {
                for (long c = 0; c < west.ni; ++c) {
                    const auto ru = static_cast<std::size_t>(r);
                    const auto cu = static_cast<std::size_t>(c);
                    const double lat = latitudeOf(west, ru);
                    const double lon = longitudeOf(west, cu);
                    WeatherRow row;
                    row.micros = test::pgMicros(2024, 1, 1, static_cast<int>(h));
                    row.locationId = test::gridLocationId(lat, lon, 0.1);
                    row.latitude = static_cast<float>(lat);
                    row.longitude = static_cast<float>(lon);
                    row.values[0] = tableOf(0, test::gribExact(280.0, h, ru, cu));
                    const float now = *tableOf(4, accumulated(h, ru, cu));
                    const float before = *tableOf(4, accumulated(h - 1, ru, cu));
                    row.values[4] =
                        h == 1 ? now
                               : static_cast<float>(
                                     std::max(static_cast<double>(now) - static_cast<double>(before), 0.0));
                    expected[{row.micros, row.locationId}] = row;
                }
            }
        }
        CHECK_EVERY_ROW({path}, "land", expected, {}, 0.1);
    }

    // Monthly means land on 00 UTC of the month's first day, whatever the message encodes: instant
    // means at the 1st 00 UTC, accumulated means as the previous day's 18 UTC forecast + 0-12 h.
    void monthlyMeans() {
        const GribGrid grid = box(10.0, 100.0, 2, 2);
        std::vector<GribField> fields;
        const long months[][3] = {{20240101, 20231231, 1}, {20240201, 20240131, 2}};
        for (const auto& m : months) {
            GribField t;
            t.paramId = 167;
            t.stream = "moda";
            t.stepType = "avgua";
            t.dataDate = m[0];
            t.grid = grid;
            t.values = {280.0, 281.0, 282.0, 283.0};
            GribField tp = t;
            tp.paramId = 228;
            tp.stepType = "avgad";
            tp.type = "fc";
            tp.dataDate = m[1];
            tp.dataTime = 1800;
            tp.endStep = 12;
            tp.values = {0.001, 0.002, 0.003, 0.004};
            fields.push_back(t);
            fields.push_back(tp);
        }
        const QString path = file("monthly.grib");
        test::writeGribFixture(path, fields);
        const Era5File f = Era5File::open(path.toStdString());
        QVERIFY(f.monthlyMeans());
        QCOMPARE(f.steps().size(), std::size_t{2});
        QCOMPARE(f.steps()[0].time.micros, test::pgMicros(2024, 1, 1));
        QCOMPARE(f.steps()[1].time.micros, test::pgMicros(2024, 2, 1));
        QCOMPARE(f.rowCount(), std::uint64_t{8});
        // Monthly means by hour of day (stream mnth): a row per month and hour, on the 1st.
        std::vector<GribField> byHour;
        for (long time : {0L, 1200L}) {
            GribField t = fields.front();
            t.stream = "mnth";
            t.dataDate = 20240101;
            t.dataTime = time;
            byHour.push_back(t);
            GribField tp = fields[1];
            tp.stream = "mnth";
            tp.dataDate = time == 0 ? 20231231 : 20240101;
            tp.dataTime = time == 0 ? 1800 : 600;
            tp.startStep = 5;
            tp.endStep = 6;
            byHour.push_back(tp);
        }
        // 19 UTC's accumulated mean ends on the last day of the month before: still January's row.
        GribField evening = byHour.back();
        evening.dataDate = 20231231;
        evening.dataTime = 1800;
        evening.startStep = 0;
        evening.endStep = 1;
        byHour.push_back(evening);
        const QString hourly = file("monthly-by-hour.grib");
        test::writeGribFixture(hourly, byHour);
        const Era5File h = Era5File::open(hourly.toStdString());
        QVERIFY(h.monthlyMeans());
        QCOMPARE(h.steps().size(), std::size_t{3});
        QCOMPARE(h.steps()[0].time.micros, test::pgMicros(2024, 1, 1, 0));
        QCOMPARE(h.steps()[1].time.micros, test::pgMicros(2024, 1, 1, 12));
        QCOMPARE(h.steps()[2].time.micros, test::pgMicros(2024, 1, 1, 19));
        QVERIFY(h.provides(0, 0, 0) && h.provides(1, 0, 0) && h.provides(1, 1, 0));
        QVERIFY(!h.provides(0, 2, 0) && h.provides(1, 2, 0));
        QCOMPARE(h.rowCount(), std::uint64_t{12});
        // inspect --scan reads only the messages there are.
        const Inspection scanned = inspect({hourly.toStdString()}, {}, true);
        QVERIFY2(!scanned.files.front().error, scanned.files.front().error.value_or("").c_str());
        QCOMPARE(scanned.files.front().variables.front().valueCount, std::uint64_t{8});
        QCOMPARE(scanned.files.front().variables.front().missingCount, std::optional<std::uint64_t>(0));

        // A NetCDF series a month apart that is not stamped on the 1st keeps its times.
        const std::vector<qint64> fifteenths{test::pgMicros(2024, 1, 15, 12), test::pgMicros(2024, 2, 15, 12),
                                             test::pgMicros(2024, 3, 15, 12)};
        test::FixtureSpec series = test::cds2024Fixture({10.0}, {100.0}, fifteenths);
        series.variables.push_back(
            test::floatVariable(0, [](std::size_t, std::size_t, std::size_t, std::size_t) { return 280.0; }));
        const QString seriesPath = file("fifteenths.nc");
        test::writeFixture(seriesPath, series);
        const Era5File kept = Era5File::open(seriesPath.toStdString());
        for (std::size_t i = 0; i < fifteenths.size(); ++i) {
            QCOMPARE(kept.steps()[i].time.micros, fifteenths[i]);
        }
        // The new CDS stamps NetCDF accumulated means 06 UTC on the 1st: the same month's row.
        const QString real = test::samplesDir() + "/cds-2024_monthly-means_avgad_tp.nc";
        if (!QFile::exists(real)) {
            QSKIP("the ERA5 samples folder (../shared/era5-samples) is absent");
        }
        const Era5File nc = Era5File::open(real.toStdString());
        QCOMPARE(nc.steps().front().time.micros, test::pgMicros(2005, 1, 1));
        QCOMPARE(nc.steps().back().time.micros, test::pgMicros(2024, 12, 1));
    }

    // GRIB1 stores increments in millidegrees: 0.28125 reads 0.281, which would drift 0.36 deg along
    // a global row; the span between the first and last point gives the grid.
    void grib1RoundedIncrement() {
        GribGrid grid = box(90.0, 0.0, 321, 1280, 0.28125); // the northern hemisphere, 90 .. 0
        GribField f;
        f.grid = grid;
        f.values.assign(321 * 1280, 280.0);
        const QString path = file("n640-like.grib");
        test::writeGribFixture(path, {f});
        const Era5File e = Era5File::open(path.toStdString());
        QCOMPARE(e.grid().spacing(), 0.28125);
        QCOMPARE(e.longitudes().back(), 359.71875);
        QCOMPARE(e.box().cols, std::size_t{1280});
        QCOMPARE(e.latitudes()[160], 45.0);
    }

    // Pressure-level GRIB (isobaricInhPa) is pressure-level data.
    void pressureLevels() {
        const GribGrid grid = box(60.0, 0.0, 2, 3);
        std::vector<GribField> fields;
        for (long level : {500L, 850L}) {
            for (long param : {130L, 129L}) {
                GribField f;
                f.paramId = param;
                f.typeOfLevel = "isobaricInhPa";
                f.level = level;
                f.grid = grid;
                f.values.assign(6, param == 130 ? 250.0 + static_cast<double>(level) / 100.0 : 50000.0);
                fields.push_back(f);
            }
        }
        const QString path = file("levels.grib");
        test::writeGribFixture(path, fields);
        const Era5File f = Era5File::open(path.toStdString());
        QCOMPARE(f.vertical(), Vertical::PressureLevels);
        QCOMPARE(f.levels().size(), std::size_t{2});
        QCOMPARE(f.variables().size(), std::size_t{2});
        const LoadSummary summary = test::loadFiles(*cluster_, {path}, "levels_grib");
        QCOMPARE(summary.status, LoadStatus::Completed);
        QCOMPARE(summary.rows, std::uint64_t{12});
        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn, "SELECT count(DISTINCT pressure_level) FROM levels_grib"), QString("2"));
        QCOMPARE(test::scalar(conn,
                              "SELECT round(avg(t)::numeric, 2) FROM levels_grib WHERE pressure_level = 850"),
                 QString("-14.65"));
    }

    // An expver switch inside one file (ERA5 then ERA5T), and messages given twice: the final ERA5
    // wins over ERA5T, an identical copy is read once, copies that disagree are refused.
    void expverAndDuplicates() {
        const GribGrid grid = box(0.0, 0.0, 1, 2);
        const auto field = [&](long time, const std::string& expver, double value) {
            GribField f;
            f.grid = grid;
            f.dataTime = time;
            f.expver = expver;
            f.values = {value, value + 1.0};
            return f;
        };
        const QString path = file("expver.grib");
        test::writeGribFixture(path,
                               {field(0, "0001", 270.0), field(100, "0001", 271.0), field(200, "0005", 272.0),
                                field(200, "0001", 275.0), field(100, "0001", 271.0)});
        const Era5File f = Era5File::open(path.toStdString());
        QCOMPARE(f.steps().size(), std::size_t{3});
        QCOMPARE(QString::fromStdString(f.steps()[2].expver), QString("0001"));
        QVERIFY2(test::anyLineContains(f.notes(), {"both ERA5T and final ERA5"}),
                 qPrintable(test::joinLines(f.notes())));
        QVERIFY2(test::anyLineContains(f.notes(), {"identical values"}),
                 qPrintable(test::joinLines(f.notes())));
        const Dataset d = Dataset::open({path.toStdString()});
        const auto values = BandReader(d).readSource(*d.steps()[2].sources[0]);
        QCOMPARE(values.front(), static_cast<float>(275.0 - 273.15));

        const QString era5t = file("era5t.grib");
        test::writeGribFixture(era5t, {field(0, "0001", 270.0), field(100, "0005", 271.0)});
        const Era5File t = Era5File::open(era5t.toStdString());
        QVERIFY2(test::anyLineContains(t.notes(), {"1 of 2 steps", "ERA5T"}),
                 qPrintable(test::joinLines(t.notes())));

        const QString clash = file("clash.grib");
        test::writeGribFixture(clash, {field(0, "0001", 270.0), field(0, "0001", 280.0)});
        VERIFY_MESSAGE(errorOf([&] { (void)Era5File::open(clash.toStdString()); }), "clash.grib", "2t",
                       "2024-01-01 00:00:00+00", "different values", "message 1", "message 2");
    }

    // A GRIB download saved under a NetCDF name is read as GRIB (by content).
    void detectedByContent() {
        const QString path = file("download.nc");
        test::writeGribFixture(path, seedFields(1, box(0.0, 0.0, 2, 2), marchHours(1)));
        const Era5File f = Era5File::open(path.toStdString());
        QCOMPARE(QString::fromStdString(f.format()), QString("GRIB edition 1"));
        QTemporaryDir dir;
        test::writeGribFixture(dir.path() + "/a.grb", seedFields(1, box(0.0, 0.0, 2, 2), marchHours(1)));
        QCOMPARE(expandInputs({dir.path().toStdString()}).size(), std::size_t{1});
    }

    void badFiles_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("truncated") << "truncated" << QStringList{"message 3", "cut short", "download"};
        QTest::newRow("non-GRIB tail") << "tail" << QStringList{"not GRIB", "tail"};
        QTest::newRow("junk between messages")
            << "junk" << QStringList{"after message 1", "not GRIB", "damaged"};
        QTest::newRow("no known parameter")
            << "unknown"
            << QStringList{"no ERA5", "parameter ECMWF's parameter database defines", "the file has",
                           "paramId 0"};
        QTest::newRow("grid changes")
            << "grids" << QStringList{"grid changes within the file", "message 1", "message 2"};
        QTest::newRow("reduced Gaussian") << "gaussian" << QStringList{"Gaussian grid", "reduced_gg", "grid"};
        QTest::newRow("ensemble member") << "ensemble" << QStringList{"ensemble member 3", "reanalysis"};
        QTest::newRow("model levels")
            << "model" << QStringList{"model levels", "single-level and pressure-level"};
        QTest::newRow("surface and pressure mixed")
            << "mixed" << QStringList{"mixes single-level and pressure-level"};
    }
    void badFiles() {
        QFETCH(QString, kind);
        QFETCH(QStringList, expected);
        const QString path = file("bad-" + kind + ".grib");
        const GribGrid grid = box(10.0, 10.0, 2, 2);
        const auto fieldOf = [&](long param) {
            GribField f;
            f.paramId = param;
            f.grid = grid;
            f.values = {1.0, 2.0, 3.0, 4.0};
            return f;
        };
        GribField t2m = fieldOf(167);
        t2m.values = {280.0, 281.0, 282.0, 283.0};
        if (kind == "truncated" || kind == "tail" || kind == "junk") {
            test::writeGribFixture(path, {t2m, t2m, t2m});
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadWrite));
            const qint64 size = f.size();
            if (kind == "truncated") {
                QVERIFY(f.resize(size - 10));
            } else if (kind == "tail") {
                f.seek(size);
                f.write("<html>504 Gateway Timeout</html>\n");
            } else {
                f.close();
                QFile in(path);
                QVERIFY(in.open(QIODevice::ReadOnly));
                const QByteArray all = in.readAll();
                in.close();
                const qint64 one = all.size() / 3;
                QFile out(path);
                QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
                out.write(all.left(one) + QByteArray("garbage!") + all.mid(one));
            }
        } else if (kind == "unknown") {
            // Parameters no definition of ecCodes names: ECMWF's parameter database does not know them.
            std::vector<GribField> fields;
            for (long indicator : {250L, 251L}) {
                GribField u = fieldOf(167);
                u.undefinedParameter = indicator;
                fields.push_back(u);
            }
            test::writeGribFixture(path, fields);
        } else if (kind == "grids") {
            GribField other = t2m;
            other.grid = box(20.0, 10.0, 2, 2);
            other.dataTime = 100;
            test::writeGribFixture(path, {t2m, other});
        } else if (kind == "gaussian") {
            GribField g = t2m;
            g.grid.gridType = "reduced_gg";
            test::writeGribFixture(path, {g});
        } else if (kind == "ensemble") {
            GribField e = t2m;
            e.stream = "enda";
            e.type = "pf";
            e.number = 3;
            test::writeGribFixture(path, {e});
        } else if (kind == "model") {
            GribField m = fieldOf(130);
            m.typeOfLevel = "hybrid";
            m.level = 137;
            test::writeGribFixture(path, {m});
        } else if (kind == "mixed") {
            GribField p = fieldOf(130);
            p.typeOfLevel = "isobaricInhPa";
            p.level = 500;
            p.values = t2m.values;
            test::writeGribFixture(path, {t2m, p});
        }
        const QString error = errorOf([&] { (void)Dataset::open({path.toStdString()}); });
        QVERIFY2(error.contains(path), qPrintable(error));
        for (const QString& part : expected) {
            QVERIFY2(error.contains(part), qPrintable("'" + part + "' not in: " + error));
        }
    }

    // The sample writer's GRIB layouts hold the same weather as its NetCDF ones: the same rows, with
    // values equal to within 16-bit packing.
    void sampleLayouts() {
        SyntheticOptions options;
        options.hours = 3;
        options.region = SyntheticRegion::parse("50,48,-2,1");
        options.layout = SyntheticLayout::Cds2024;
        options.out = file("sample-2024.nc").toStdString();
        (void)writeSynthetic(options);
        for (const auto& [layout, name] : {std::pair{SyntheticLayout::CdsGrib, "sample-grib1.grib"},
                                           std::pair{SyntheticLayout::CdsGrib2, "sample-grib2.grib2"}}) {
            options.layout = layout;
            options.out = file(name).toStdString();
            (void)writeSynthetic(options);
        }
        QVERIFY(test::loadFiles(*cluster_, {file("sample-2024.nc")}, "sample_nc").status ==
                LoadStatus::Completed);
        QVERIFY(test::loadFiles(*cluster_, {file("sample-grib1.grib")}, "sample_grib1").status ==
                LoadStatus::Completed);
        QVERIFY(test::loadFiles(*cluster_, {file("sample-grib2.grib2")}, "sample_grib2").status ==
                LoadStatus::Completed);
        Connection conn = cluster_->connect();
        for (const char* table : {"sample_grib1", "sample_grib2"}) {
            const std::string sql = std::string("SELECT count(*) FROM sample_nc n FULL JOIN ") + table +
                                    " g USING (time, location_id) WHERE n.time IS NULL OR g.time IS NULL"
                                    " OR abs(n.temperature_2m - g.temperature_2m) > 0.01"
                                    " OR abs(n.zonal_wind_10m - g.zonal_wind_10m) > 0.01"
                                    " OR abs(n.total_cloud_cover - g.total_cloud_cover) > 0.001"
                                    " OR abs(n.total_precipitation - g.total_precipitation) > 0.01"
                                    " OR n.latitude <> g.latitude OR n.longitude <> g.longitude";
            QCOMPARE(test::scalar(conn, sql), QString("0"));
            QCOMPARE(test::scalar(conn, std::string("SELECT count(*) FROM ") + table),
                     QString::number(9 * 13 * 3));
        }
    }

private:
    QString file(const QString& name) const { return cluster_->workDir() + "/" + name; }
    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestGrib)
#include "tst_grib.moc"
