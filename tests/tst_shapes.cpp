// SPDX-License-Identifier: GPL-3.0-or-later

// The other shapes ERA5 files take on users' disks (issue 3, layout 6): ERA5-Land on the 0.1 grid
// with accumulations since 00 UTC, monthly means, an off-grid single point, sparse time axes back to
// 1940, a non-CF `date` axis, and the CDS's ZIP archive saved as .nc. Each: what Era5File makes of
// it, every value decoded, every column of every row loaded, against rows worked out here.

#include "Fixtures.h"
#include "TestCluster.h"
#include "TestUtil.h"
#include "era5/Dataset.h"
#include "era5/Era5File.h"
#include "era5/ZipArchive.h"
#include "ingest/Loader.h"
#include "util/Error.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace isobar;
using test::errorOf;
using test::FixtureSpec;
using test::ValueFn;
using test::WeatherRows;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr qint64 kHour = test::kMicrosPerHour;

// A CDS 2024 style file (netCDF4, valid_time in seconds since 1970), its variables to add.
FixtureSpec cds2024(const std::vector<double>& lats, const std::vector<double>& lons,
                    const std::vector<qint64>& micros) {
    return test::cds2024Fixture(lats, lons, micros);
}

} // namespace

class TestShapes : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }
    void cleanupTestCase() { cluster_.reset(); }

    // ERA5-Land, 0.1 deg: tp accumulates from 00 UTC. Steps 23 UTC (previous day) .. 05 UTC: 23 has
    // no hour before (NULL, noted), 00 = acc(00) - acc(23), 01 as it is, later hours the difference
    // (never negative). Without 03 UTC, 04 UTC cannot be worked out either.
    // Coordinates come as float64 from the CDS since 2024 and as float32 from grib_to_netcdf.
    void era5Land_data() {
        QTest::addColumn<bool>("gap");
        QTest::addColumn<bool>("floatCoordinates");
        QTest::newRow("23 UTC through 05 UTC, double coordinates") << false << false;
        QTest::newRow("03 UTC missing, double coordinates") << true << false;
        QTest::newRow("23 UTC through 05 UTC, float32 coordinates") << false << true;
    }
    void era5Land() {
        QFETCH(bool, gap);
        QFETCH(bool, floatCoordinates);
        std::vector<qint64> micros;
        for (qint64 t : test::hourly(test::pgMicros(2024, 1, 1, 23), 7)) {
            if (!gap || t != test::pgMicros(2024, 1, 2, 3)) {
                micros.push_back(t);
            }
        }
        FixtureSpec spec = cds2024(test::range(45.5, 45.0, 0.1), test::range(10.0, 10.6, 0.1), micros);
        const auto hourOf = [micros](size_t s) {
            return static_cast<int>(((micros[s] / kHour) % 24 + 24) % 24);
        };
        // Hourly amounts in m; the file holds their sum since the last 00 UTC (00 UTC: the whole day).
        const auto amount = [](int hour, size_t r, size_t c) {
            return 0.0001 * static_cast<double>((static_cast<size_t>(hour) * 3 + r * 5 + c * 7) % 9);
        };
        const ValueFn accumulated = [hourOf, amount](size_t s, size_t, size_t r, size_t c) {
            if (r == 5 && c == 0) {
                return kNaN; // sea
            }
            const int hour = hourOf(s);
            double sum = 0;
            for (int h = 1; h <= (hour == 0 ? 24 : hour); ++h) {
                sum += amount(h, r, c);
            }
            // Packing noise: at 03 UTC one point accumulates a hair less than at 02 UTC.
            return hour == 3 && r == 0 && c == 0 ? sum - amount(3, r, c) - 2e-7 : sum;
        };
        spec.variables = {test::floatVariable(0, test::withHoles(0)), test::floatVariable(4, accumulated)};
        spec.coordType = floatCoordinates ? NC_FLOAT : NC_DOUBLE;
        const QString path = file(QString("land-%1-%2.nc").arg(gap).arg(floatCoordinates));
        test::writeFixture(path, spec);

        // float32 0.1 deg coordinates are 0.1 only to float precision (45.4f - 45.5f = -0.0999985).
        const QString refused = errorOf([&] { (void)Era5File::open(path.toStdString()); });
        QVERIFY2(refused.isEmpty(), qPrintable(refused));
        const Era5File f = Era5File::open(path.toStdString());
        QVERIFY(f.era5Land());
        QCOMPARE(f.grid().spacing(), 0.1);
        QCOMPARE(f.grid().longitudes(), 3600);
        QCOMPARE(f.grid().latitudes(), 1801);
        QCOMPARE(f.box(), (GridBox{1355, 6, 1899, 7})); // (45.5 + 90) / 0.1, (10 + 179.9) / 0.1
        QVERIFY(f.find(Variable::Tp)->accumulatedSinceMidnight);
        QVERIFY(!f.find(Variable::T2m)->accumulatedSinceMidnight);
        QVERIFY2(QString::fromStdString(f.layout()).contains("ERA5-Land"), f.layout().c_str());

        WeatherRows expected = test::expectedRows(spec, micros, 0.1);
        const auto& tp = spec.variables[1];
        size_t unconvertible = 0;
        for (size_t s = 0; s < micros.size(); ++s) {
            const auto previous = std::find(micros.begin(), micros.end(), micros[s] - kHour);
            unconvertible += hourOf(s) != 1 && previous == micros.end() ? 1u : 0u;
            for (size_t r = 0; r < spec.latitudes.size(); ++r) {
                for (size_t c = 0; c < spec.longitudes.size(); ++c) {
                    const int id = test::gridLocationId(spec.latitudes[r], spec.longitudes[c], 0.1);
                    auto& value = expected.at({micros[s], id}).values[4];
                    const auto now = test::tableValue(tp, tp.value(s, 0, r, c), 4);
                    if (hourOf(s) == 1) {
                        value = now;
                        continue;
                    }
                    value.reset();
                    if (previous == micros.end() || !now) {
                        continue;
                    }
                    const auto p = static_cast<size_t>(previous - micros.begin());
                    if (const auto before = test::tableValue(tp, tp.value(p, 0, r, c), 4)) {
                        const double diff = static_cast<double>(*now) - static_cast<double>(*before);
                        value = static_cast<float>(std::max(diff, 0.0));
                    }
                }
            }
        }
        QCOMPARE(unconvertible, gap ? size_t{2} : size_t{1});
        if (!gap) {
            // The noise point really accumulates less at 03 than at 02 UTC, and is loaded as 0.
            QVERIFY(*test::tableValue(tp, tp.value(4, 0, 0, 0), 4) <
                    *test::tableValue(tp, tp.value(3, 0, 0, 0), 4));
            QCOMPARE(
                expected.at({test::pgMicros(2024, 1, 2, 3), test::gridLocationId(45.5, 10.0, 0.1)}).values[4],
                std::optional<float>(0.0f));
        }
        const Dataset dataset = Dataset::open({path.toStdString()});
        QCOMPARE(QString::fromStdString(dataset.productName()), QString("ERA5-Land hourly"));
        QVERIFY2(
            test::anyLineContains(dataset.notes(), {QString("tp: %1 hour(s)").arg(unconvertible), "NULL"}),
            qPrintable(test::joinLines(dataset.notes())));
        CHECK_EVERY_ROW({path}, QString("land_%1_%2").arg(gap).arg(floatCoordinates).toStdString(), expected,
                        {}, 0.1);
    }

    // Monthly means: steps a month apart, GRIB_stepType avgua / avgad. A single step is known by its
    // step type alone. Values are loaded as they are (mean daily totals for tp), never differenced.
    void monthlyMeans_data() {
        QTest::addColumn<int>("months");
        QTest::newRow("three months") << 3;
        QTest::newRow("one month, step type only") << 1;
    }
    void monthlyMeans() {
        QFETCH(int, months);
        std::vector<qint64> micros;
        for (int m = 1; m <= months; ++m) {
            micros.push_back(test::pgMicros(2023, m, 1));
        }
        FixtureSpec spec = cds2024(test::range(-33.0, -34.0, 0.25), test::range(150.0, 151.0, 0.25), micros);
        spec.stringAttributes = true;
        spec.variables = {test::floatVariable(0, test::withHoles(0)),
                          test::floatVariable(4, test::withHoles(4))};
        spec.variables[0].text["GRIB_stepType"] = "avgua";
        spec.variables[1].text["GRIB_stepType"] = "avgad";
        const QString path = file(QString("monthly-%1.nc").arg(months));
        test::writeFixture(path, spec);

        const Era5File f = Era5File::open(path.toStdString());
        QVERIFY(f.monthlyMeans());
        QVERIFY(!f.era5Land());
        QVERIFY2(QString::fromStdString(f.layout()).contains("monthly means"), f.layout().c_str());
        QVERIFY(!f.find(Variable::Tp)->accumulatedSinceMidnight);
        const Dataset dataset = Dataset::open({path.toStdString()});
        QVERIFY(dataset.monthlyMeans());
        QCOMPARE(QString::fromStdString(dataset.productName()), QString("ERA5 monthly means"));
        const std::string table = "monthly_" + std::to_string(months);
        CHECK_EVERY_ROW({path}, table, test::expectedRows(spec, micros));
        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn, "SELECT product FROM isobar.table_grid WHERE relid = '" + table +
                                        "'::regclass"),
                 QString("ERA5 monthly means"));
    }

    // A single point interpolated off the grid: refused by default, naming the point; with
    // OffGridPolicy::Nearest at the nearest 0.25 cell's location_id, keeping its real coordinates.
    void offGridPoint() {
        FixtureSpec spec;
        spec.latitudes = {55.695};
        spec.longitudes = {12.495};
        const auto micros = test::hourly(test::pgMicros(2021, 7, 14), 4);
        spec.times = test::timesSince(micros, test::pgMicros(1900, 1, 1), kHour);
        for (int col : {0, 1, 2}) {
            spec.variables.push_back(test::packedVariable(col, test::withHoles(col)));
        }
        const QString path = file("point.nc");
        test::writeFixture(path, spec);

        for (const QString& message :
             {errorOf([&] { (void)Era5File::open(path.toStdString()); }),
              errorOf([&] { (void)Dataset::open({path.toStdString()}); }),
              QString::fromStdString(
                  test::loadFiles(*cluster_, {path}, "point_refused").error.value_or(LoadError{}).message)}) {
            for (const char* part :
                 {"point.nc", "55.695", "12.495", "not on the 0.25", "--off-grid nearest"}) {
                QVERIFY2(message.contains(part), qPrintable(message));
            }
        }
        OpenOptions nearest;
        nearest.offGrid = OffGridPolicy::Nearest;
        const Era5File f = Era5File::open(path.toStdString(), nearest);
        QVERIFY(f.offGrid());
        QCOMPARE(f.box(),
                 (GridBox{583, 1, 769, 1})); // 55.75 and 12.5: (55.75 + 90) / 0.25, (12.5 + 179.75) / 0.25
        QVERIFY2(QString::fromStdString(f.layout()).contains("single point"), f.layout().c_str());
        const WeatherRows expected = test::expectedRows(spec, micros);
        QCOMPARE(expected.begin()->first.second, 583 * 1440 + 769 + 1);
        QCOMPARE(expected.begin()->second.latitude, 55.695f);
        QCOMPARE(expected.begin()->second.longitude, 12.495f);
        CHECK_EVERY_ROW({path}, "point_nearest", expected, nearest);
    }

    // Sparse, irregular time axes reaching back to 1940: whole hours since 1900, and fractional days
    // since 1940 (1/24 is not exact in binary, yet must land on the hour).
    void sparseTimeAxis_data() {
        QTest::addColumn<bool>("days");
        QTest::newRow("hours since 1900, int") << false;
        QTest::newRow("days since 1940, fractional double") << true;
    }
    void sparseTimeAxis() {
        QFETCH(bool, days);
        FixtureSpec spec;
        spec.latitudes = test::range(0.5, 0.0, 0.25);
        spec.longitudes = test::range(-0.5, 0.25, 0.25);
        std::vector<qint64> micros;
        if (days) {
            micros = {test::pgMicros(1940, 1, 1, 1), test::pgMicros(1940, 1, 1, 6),
                      test::pgMicros(1941, 1, 1, 12), test::pgMicros(2019, 12, 31, 21)};
            spec.timeType = NC_DOUBLE;
            spec.timeUnits = "days since 1940-01-01 00:00:00";
            spec.calendar = "standard";
        } else {
            micros = {test::pgMicros(1940, 1, 1, 0), test::pgMicros(1940, 1, 1, 6),
                      test::pgMicros(1963, 7, 4, 12), test::pgMicros(2020, 2, 29, 23)};
        }
        const qint64 epoch = days ? test::pgMicros(1940, 1, 1) : test::pgMicros(1900, 1, 1);
        spec.times = test::timesSince(micros, epoch, kHour); // whole hours; days are rewritten below
        spec.variables = {test::packedVariable(0, test::withHoles(0)),
                          test::packedVariable(5, test::withHoles(5))};
        const QString path = file(days ? "sparse-days.nc" : "sparse-hours.nc");
        test::writeFixture(path, spec);
        if (days) {
            // Fixtures write integral times: the fractional days go in here with netcdf-c directly.
            int ncid = -1;
            int varid = -1;
            QCOMPARE(nc_open(QFile::encodeName(path).constData(), NC_WRITE, &ncid), NC_NOERR);
            QCOMPARE(nc_inq_varid(ncid, "time", &varid), NC_NOERR);
            std::vector<double> values;
            values.reserve(micros.size());
            for (qint64 m : micros) {
                values.push_back(static_cast<double>(m - epoch) / 86400e6);
            }
            const size_t start = 0;
            const size_t count = values.size();
            QCOMPARE(nc_put_vara_double(ncid, varid, &start, &count, values.data()), NC_NOERR);
            QCOMPARE(nc_close(ncid), NC_NOERR);
            QCOMPARE(test::readCoordinate(path, "time")[0], 1.0 / 24.0);
        }
        const Era5File f = Era5File::open(path.toStdString());
        QCOMPARE(f.steps().size(), micros.size());
        for (size_t s = 0; s < micros.size(); ++s) {
            QCOMPARE(f.steps()[s].time.micros, micros[s]);
        }
        QVERIFY(!f.monthlyMeans());
        CHECK_EVERY_ROW({path}, days ? "sparse_days" : "sparse_hours", test::expectedRows(spec, micros));
        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn, std::string("SELECT min(time) AT TIME ZONE 'UTC' FROM ") +
                                        (days ? "sparse_days" : "sparse_hours")),
                 QString(days ? "1940-01-01 01:00:00" : "1940-01-01 00:00:00"));
    }

    // The CDS beta's non-CF axis: a `date` dimension of YYYYMMDD integers without units.
    void nonCfDateAxis() {
        FixtureSpec spec;
        spec.format = NC_NETCDF4;
        spec.timeName = "date";
        spec.timeUnits.clear();
        spec.calendar.clear();
        spec.times = {20240131, 20240201, 20240202};
        const std::vector<qint64> micros = {test::pgMicros(2024, 1, 31), test::pgMicros(2024, 2, 1),
                                            test::pgMicros(2024, 2, 2)};
        spec.latitudes = test::range(70.0, 69.25, 0.25);
        spec.longitudes = test::range(20.0, 20.5, 0.25);
        spec.variables = {test::floatVariable(0, test::withHoles(0)),
                          test::floatVariable(3, test::withHoles(3))};
        const QString path = file("date-axis.nc");
        test::writeFixture(path, spec);
        const Era5File f = Era5File::open(path.toStdString());
        QCOMPARE(f.steps().size(), size_t{3});
        for (size_t s = 0; s < 3; ++s) {
            QCOMPARE(f.steps()[s].time.micros, micros[s]);
        }
        QVERIFY2(test::anyLineContains(f.notes(), {"date", "not CF units"}),
                 qPrintable(test::joinLines(f.notes())));
        CHECK_EVERY_ROW({path}, "date_axis", test::expectedRows(spec, micros));
    }

    // The ZIP the new CDS returns for a request mixing instant and accumulated variables, saved
    // with a .nc name (written here, stored members): both members load as one dataset.
    void zipArchive() {
        const auto lats = test::range(40.0, 39.0, 0.25);
        const auto lons = test::range(-4.0, -2.5, 0.25);
        const auto micros = test::hourly(test::pgMicros(2024, 8, 15, 6), 3);
        FixtureSpec instant = cds2024(lats, lons, micros);
        instant.variables = {test::floatVariable(0, test::withHoles(0)),
                             test::floatVariable(1, test::withHoles(1))};
        FixtureSpec accum = cds2024(lats, lons, micros);
        accum.variables = {test::floatVariable(4, test::withHoles(4))};
        const QString instantPath = file("instant-member.nc");
        const QString accumPath = file("accum-member.nc");
        test::writeFixture(instantPath, instant);
        test::writeFixture(accumPath, accum);
        const QString archive = file("cds-download.nc");
        test::writeStoredZip(archive, {{"data_stream-oper_stepType-instant.nc", instantPath},
                                       {"data_stream-oper_stepType-accum.nc", accumPath}});
        QVERIFY(looksLikeZip(archive.toStdString()));

        WeatherRows expected = test::expectedRows(instant, micros);
        for (const auto& [key, row] : test::expectedRows(accum, micros)) {
            expected.at(key).values[4] = row.values[4];
        }
        {
            const Dataset dataset = Dataset::open({archive.toStdString()});
            QCOMPARE(dataset.files().size(), size_t{2});
            QStringList names;
            for (const auto& f : dataset.files()) {
                names << QString::fromStdString(f.name());
            }
            QVERIFY2(names.contains(archive + "!data_stream-oper_stepType-instant.nc"),
                     qPrintable(names.join(", ")));
            QVERIFY2(names.contains(archive + "!data_stream-oper_stepType-accum.nc"),
                     qPrintable(names.join(", ")));
            QCOMPARE(dataset.steps().size(), size_t{3});
            QVERIFY2(
                test::anyLineContains(dataset.notes(), {"cds-download.nc", "ZIP archive", "2 member(s)"}),
                qPrintable(test::joinLines(dataset.notes())));
            QVERIFY2(!test::anyLineContains(dataset.notes(), {"missing"}),
                     qPrintable(test::joinLines(dataset.notes())));
        }
        CHECK_EVERY_ROW({archive}, "zip_members", expected);
    }

private:
    QString file(const QString& name) const { return cluster_->workDir() + "/" + name; }

    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestShapes)
#include "tst_shapes.moc"
