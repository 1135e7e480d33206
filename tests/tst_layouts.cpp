// SPDX-License-Identifier: GPL-3.0-or-later

// Every ERA5 layout of issue 3, one per test: a fixture written with netcdf-c, what Era5File makes of
// it, every value decoded through Dataset + BandReader, and every column of every row loaded into a
// real PostgreSQL, all compared with rows worked out here from the fixture's own value callbacks.

#include "Fixtures.h"
#include "TestCluster.h"
#include "era5/Dataset.h"
#include "era5/Era5File.h"
#include "ingest/Loader.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace isobar;
using test::FixtureSpec;
using test::ValueFn;
using test::WeatherRows;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr qint64 kHour = test::kMicrosPerHour;

} // namespace

class TestLayouts : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }
    void cleanupTestCase() { cluster_.reset(); }

    // CDS since 2024: netCDF4, zlib + chunks, float32 with NaN fill, int64 valid_time in seconds,
    // a scalar `number`, a per-step expver label and NC_STRING text attributes (units included).
    void cds2024() {
        const auto micros = test::hourly(test::pgMicros(2024, 3, 1), 3);
        FixtureSpec spec =
            test::cds2024Fixture(test::range(50.0, 48.75, 0.25), test::range(10.0, 12.25, 0.25), micros);
        spec.chunks = {1, 3, 4};
        spec.numberScalar = true;
        spec.stringAttributes = true;
        spec.globalText = {{"GRIB_centre", "ecmf"}, {"Conventions", "CF-1.7"}};
        spec.stepExpver = {"0001", "0001", "0005"};
        for (int col = 0; col < 6; ++col) {
            spec.variables.push_back(test::floatVariable(col, test::withHoles(col)));
        }
        const QString path = file("cds2024.nc");
        test::writeFixture(path, spec);

        const Era5File f = Era5File::open(path.toStdString());
        QCOMPARE(QString::fromStdString(f.format()), QString("netCDF4 (HDF5)"));
        QCOMPARE(QString::fromStdString(f.layout()), QString("CDS 2024 (cfgrib)"));
        QCOMPARE(f.grid().spacing(), 0.25);
        QCOMPARE(f.box(), (GridBox{560, 6, 759, 10})); // (50 + 90) / 0.25, (10 + 179.75) / 0.25
        QCOMPARE(f.steps().size(), size_t{3});
        for (size_t s = 0; s < 3; ++s) {
            QCOMPARE(f.steps()[s].time.micros, micros[s]);
            QCOMPARE(QString::fromStdString(f.steps()[s].expver), QString::fromStdString(spec.stepExpver[s]));
        }
        QCOMPARE(f.variables().size(), size_t{6});
        QCOMPARE(f.find(Variable::T2m)->conversion, Conversion::KelvinToCelsius); // NC_STRING "K" was read
        QCOMPARE(QString::fromStdString(f.find(Variable::Tp)->stepType), QString("accum"));
        QVERIFY2(test::anyLineContains(f.notes(), {"1 of 3 steps", "ERA5T"}),
                 qPrintable(test::joinLines(f.notes())));
        QVERIFY(f.ignoredVariables().empty());

        CHECK_EVERY_ROW({path}, "cds2024", test::expectedRows(spec, micros));
    }

    // ERA5 + ERA5T side by side along an expver dimension: ERA5 only, an overlap in which ERA5 wins
    // (ERA5T fills only its holes), then ERA5T only. The choice is by label, not position.
    void expverDimension_data() {
        QTest::addColumn<bool>("strings");
        QTest::addColumn<int>("firstLabel");
        QTest::newRow("int labels [1, 5], netCDF3 int16 packed") << false << 1;
        QTest::newRow("string labels [0005, 0001], netCDF4 float") << true << 5;
    }
    void expverDimension() {
        QFETCH(bool, strings);
        QFETCH(int, firstLabel);
        FixtureSpec spec;
        spec.format = strings ? NC_NETCDF4 : NC_64BIT_OFFSET;
        spec.dimOrder = {"time", "expver", "lat", "lon"};
        spec.expver = firstLabel == 1 ? std::vector<long long>{1, 5} : std::vector<long long>{5, 1};
        spec.expverAsStrings = strings;
        spec.latitudes = test::range(-20.0, -21.0, 0.25);
        spec.longitudes = test::range(30.0, 31.5, 0.25);
        const auto micros = test::hourly(test::pgMicros(2023, 12, 31, 20), 5);
        spec.times = test::timesSince(micros, test::pgMicros(1900, 1, 1), kHour);
        const std::vector<long long> labels = spec.expver;
        for (int col = 0; col < 6; ++col) {
            // Steps 0-1: ERA5 only; 2: both, ERA5 missing where (r + c) % 3 == 0; 3-4: ERA5T only.
            const ValueFn value = [col, labels](size_t s, size_t e, size_t r, size_t c) {
                const bool era5 = labels[e] == 1;
                const bool present = era5 ? (s < 2 || (s == 2 && (r + c) % 3 != 0)) : s >= 2;
                return present ? test::synthValue(col, s, r, c, era5 ? 0.0 : 0.5) : kNaN;
            };
            spec.variables.push_back(strings ? test::floatVariable(col, value)
                                             : test::packedVariable(col, value));
        }
        const QString path = file(QString("expver-%1.nc").arg(strings ? "strings" : "ints"));
        test::writeFixture(path, spec);

        const Era5File f = Era5File::open(path.toStdString());
        QCOMPARE(QString::fromStdString(f.layout()), QString("CDS with expver dimension (ERA5 + ERA5T)"));
        const size_t era5Pos = firstLabel == 1 ? 0 : 1;
        QCOMPARE(f.find(Variable::T2m)->expverOrder, (std::vector<size_t>{era5Pos, 1 - era5Pos}));
        QVERIFY2(test::anyLineContains(f.notes(), {firstLabel == 1 ? "0001, 0005" : "0005, 0001"}),
                 qPrintable(test::joinLines(f.notes())));
        QCOMPARE(f.steps().size(), size_t{5});

        WeatherRows expected;
        for (size_t s = 0; s < micros.size(); ++s) {
            for (size_t r = 0; r < spec.latitudes.size(); ++r) {
                for (size_t c = 0; c < spec.longitudes.size(); ++c) {
                    test::WeatherRow row;
                    row.micros = micros[s];
                    row.locationId = test::gridLocationId(spec.latitudes[r], spec.longitudes[c]);
                    row.latitude = test::tableLatitude(spec, spec.latitudes[r]);
                    row.longitude = test::tableLongitude(spec, spec.longitudes[c]);
                    for (int col = 0; col < 6; ++col) {
                        const auto& v = spec.variables[static_cast<size_t>(col)];
                        const auto final = test::tableValue(v, v.value(s, era5Pos, r, c), col);
                        const auto preliminary = test::tableValue(v, v.value(s, 1 - era5Pos, r, c), col);
                        row.values[static_cast<size_t>(col)] = final ? final : preliminary;
                    }
                    expected[{row.micros, row.locationId}] = row;
                }
            }
        }
        // The overlap step really differs between the two, so the test can tell who won.
        const auto& t2m = spec.variables[0];
        QVERIFY(test::tableValue(t2m, t2m.value(2, era5Pos, 0, 1), 0) !=
                test::tableValue(t2m, t2m.value(2, 1 - era5Pos, 0, 1), 0));
        CHECK_EVERY_ROW({path}, strings ? "expver_strings" : "expver_ints", expected);
    }

    // NCAR RDA ds633.0: an analysis file (VAR_2T, double 0..360 coordinates across the prime
    // meridian) and a forecast file (TP, forecast_initial_time 06/18 UTC x forecast_hour 1..12),
    // lined up by valid time; times only one of them covers get NULL for the other, and a note.
    void ncarAnalysisAndForecast() {
        FixtureSpec analysis;
        analysis.format = NC_NETCDF4;
        analysis.deflate = 1;
        analysis.coordType = NC_DOUBLE;
        analysis.utcDate = true;
        analysis.timeUnits = "hours since 1900-01-01 00:00:00";
        analysis.latitudes = test::range(45.0, 44.5, 0.25);
        analysis.longitudes = {359.0, 359.25, 359.5, 359.75, 0.0, 0.25, 0.5};
        const auto analysisMicros = test::hourly(test::pgMicros(2024, 1, 1), 24);
        analysis.times = test::timesSince(analysisMicros, test::pgMicros(1900, 1, 1), kHour);
        analysis.variables.push_back(test::floatVariable(0, test::withHoles(0), "VAR_2T"));
        analysis.variables[0].fillValue = 9.999e20;

        FixtureSpec forecast = analysis;
        forecast.dimOrder = {"init", "hour", "lat", "lon"};
        forecast.forecastHours = test::range(1, 12, 1);
        forecast.times = test::timesSince({test::pgMicros(2024, 1, 1, 6), test::pgMicros(2024, 1, 1, 18)},
                                          test::pgMicros(1900, 1, 1), kHour);
        forecast.variables = {test::floatVariable(4, test::withHoles(4), "TP")};
        std::vector<qint64> validMicros;
        for (qint64 init : {test::pgMicros(2024, 1, 1, 6), test::pgMicros(2024, 1, 1, 18)}) {
            for (int h = 1; h <= 12; ++h) {
                validMicros.push_back(init + h * kHour);
            }
        }
        const QString a = file("ncar-2t.nc");
        const QString b = file("ncar-tp.nc");
        test::writeFixture(a, analysis);
        test::writeFixture(b, forecast);

        const Era5File fa = Era5File::open(a.toStdString());
        const Era5File fb = Era5File::open(b.toStdString());
        QCOMPARE(QString::fromStdString(fa.layout()), QString("NCAR RDA ds633.0 analysis"));
        QCOMPARE(QString::fromStdString(fb.layout()),
                 QString("NCAR RDA ds633.0 forecast (forecast_initial_time x forecast_hour)"));
        QCOMPARE(fa.box(), (GridBox{540, 3, 715, 7})); // 359 is -1: (-1 + 179.75) / 0.25
        QCOMPARE(fb.box(), fa.box());
        QCOMPARE(fb.steps().size(), size_t{24});
        for (size_t s = 0; s < 24; ++s) {
            QCOMPARE(fb.steps()[s].time.micros, validMicros[s]);
        }

        // Valid times: 01-01 00..23 from the analysis, 01-01 07 .. 01-02 06 from the forecasts.
        WeatherRows expected = test::expectedRows(analysis, analysisMicros);
        for (const auto& [key, row] : test::expectedRows(forecast, validMicros)) {
            auto [it, added] = expected.emplace(key, row);
            it->second.values[4] = row.values[4];
        }
        QCOMPARE(expected.size(), size_t{31 * 21});
        const Dataset dataset = Dataset::open({a.toStdString(), b.toStdString()});
        QCOMPARE(dataset.steps().size(), size_t{31});
        QVERIFY2(
            test::anyLineContains(dataset.notes(), {"t2m is missing for 7 of 31", "2024-01-02 00:00:00"}),
            qPrintable(test::joinLines(dataset.notes())));
        QVERIFY2(test::anyLineContains(dataset.notes(), {"tp is missing for 7 of 31", "2024-01-01 00:00:00"}),
                 qPrintable(test::joinLines(dataset.notes())));
        CHECK_EVERY_ROW({a, b}, "ncar", expected);
    }

    // Regional boxes in every orientation: location_id always on the global grid.
    void regionalBoxes_data() {
        QTest::addColumn<QString>("table");
        QTest::addColumn<QList<double>>("lats");
        QTest::addColumn<QList<double>>("lons");
        QTest::addColumn<bool>("lonFirst");
        QTest::addColumn<int>("northRow");
        QTest::addColumn<int>("westColumn");
        const auto list = [](const std::vector<double>& v) {
            return QList<double>(v.begin(), v.end());
        };
        QList<double> dateLine180 = list(test::range(178.0, 180.0, 0.25));
        dateLine180 += list(test::range(-179.75, -178.0, 0.25));
        QTest::newRow("a: lon before lat, latitude ascending")
            << "box_a" << list(test::range(30.0, 31.0, 0.25)) << list(test::range(100.0, 101.5, 0.25)) << true
            << 484 << 1119;
        QTest::newRow("b: date line as 0..360")
            << "box_b" << list(test::range(-10.0, -11.0, 0.25)) << list(test::range(178.0, 182.0, 0.25))
            << false << 320 << 1431;
        QTest::newRow("c: date line as -180..180")
            << "box_c" << list(test::range(-10.0, -11.0, 0.25)) << dateLine180 << false << 320 << 1431;
        QTest::newRow("d: prime meridian as -180..180")
            << "box_d" << list(test::range(60.0, 59.0, 0.25)) << list(test::range(-1.0, 1.0, 0.25)) << false
            << 600 << 715;
    }
    void regionalBoxes() {
        QFETCH(QString, table);
        QFETCH(QList<double>, lats);
        QFETCH(QList<double>, lons);
        QFETCH(bool, lonFirst);
        QFETCH(int, northRow);
        QFETCH(int, westColumn);
        const FixtureSpec spec = boxSpec({lats.begin(), lats.end()}, {lons.begin(), lons.end()}, lonFirst);
        const QString path = file(table + ".nc");
        test::writeFixture(path, spec);
        const Era5File f = Era5File::open(path.toStdString());
        QCOMPARE(f.box(), (GridBox{northRow, static_cast<size_t>(lats.size()), westColumn,
                                   static_cast<size_t>(lons.size())}));
        QCOMPARE(f.latitudesAscending(), lonFirst);
        QCOMPARE(f.find(Variable::T2m)->latBeforeLon, !lonFirst);
        const auto micros = test::hourly(test::pgMicros(2022, 6, 1), 2);
        const WeatherRows expected = test::expectedRows(spec, micros);
        // The seed formula by hand for the box corners: location_id = lat_index * 1440 + lon_index + 1.
        const int northWest = northRow * 1440 + westColumn + 1;
        QVERIFY(expected.count({micros[0], northWest}) == 1);
        CHECK_EVERY_ROW({path}, table.toStdString(), expected);
    }

    // The same date-line box written with 0..360 and with -180..180 numbers: identical rows.
    void dateLineBoxesAgree() {
        const auto lats = test::range(-10.0, -11.0, 0.25);
        std::vector<double> lons180 = test::range(178.0, 180.0, 0.25);
        for (double lon : test::range(-179.75, -178.0, 0.25)) {
            lons180.push_back(lon);
        }
        const QString b = file("dateline360.nc");
        const QString c = file("dateline180.nc");
        test::writeFixture(b, boxSpec(lats, test::range(178.0, 182.0, 0.25), false));
        test::writeFixture(c, boxSpec(lats, lons180, false));
        QVERIFY(test::loadFiles(*cluster_, {b}, "dateline_360").status == LoadStatus::Completed);
        QVERIFY(test::loadFiles(*cluster_, {c}, "dateline_180").status == LoadStatus::Completed);
        Connection conn = cluster_->connect();
        const WeatherRows rows360 = test::readWeatherRows(conn, "dateline_360");
        const WeatherRows rows180 = test::readWeatherRows(conn, "dateline_180");
        QCOMPARE(rows360.size(), size_t{2 * 5 * 17});
        const QString diff = test::compareRows(rows180, rows360);
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        QCOMPARE(test::scalar(conn,
                              "SELECT min(longitude)::text || ' ' || max(longitude)::text FROM dateline_180"),
                 QString("-179.75 180"));
    }

private:
    QString file(const QString& name) const { return cluster_->workDir() + "/" + name; }

    // A box fixture whose values depend on the grid point (not the file position), so the same box
    // written differently must give the same rows: t2m int16 packed, tp float32.
    static FixtureSpec boxSpec(const std::vector<double>& lats, const std::vector<double>& lons,
                               bool lonFirst) {
        FixtureSpec spec;
        spec.latitudes = lats;
        spec.longitudes = lons;
        if (lonFirst) {
            spec.dimOrder = {"time", "lon", "lat"};
        }
        const auto micros = test::hourly(test::pgMicros(2022, 6, 1), 2);
        spec.times = test::timesSince(micros, test::pgMicros(1900, 1, 1), kHour);
        const auto at = [lats, lons](int col) -> ValueFn {
            return [col, lats, lons](size_t s, size_t, size_t r, size_t c) {
                const auto row = static_cast<size_t>(std::lround((lats[r] + 90.0) * 4));
                const auto column =
                    static_cast<size_t>(std::lround((test::seedLongitude(lons[c]) + 180.0) * 4));
                return (row + column + s) % 9 == 0 ? kNaN : test::synthValue(col, s, row % 17, column % 23);
            };
        };
        spec.variables = {test::packedVariable(0, at(0)), test::floatVariable(4, at(4))};
        spec.variables[1].fillValue = 9.96921e36;
        return spec;
    }

    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestLayouts)
#include "tst_layouts.moc"
