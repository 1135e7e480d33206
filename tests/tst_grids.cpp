// SPDX-License-Identifier: GPL-3.0-or-later

// Regional and coarse grids (issue 11): which global grid numbers a file's points, and what every row
// becomes. A box the CDS interpolated off the grid at a step that is not the grid's (0.25025 deg
// between longitudes) is refused by default, naming a point; with --off-grid nearest each point gets
// its nearest 0.25 deg cell's location_id, also where the nearest cells skip a column, and two points
// in one cell are refused. A coarse download of ERA5's points (1 deg, 0.5 deg) keeps the 0.25 deg
// location_ids, so its rows join with full-resolution tables; a grid that is not a subset of 0.25 deg
// numbers its own cells. Expected ids are worked out here with the seed's formula.

#include "Fixtures.h"
#include "TestCluster.h"
#include "TestUtil.h"
#include "domain/GridField.h"
#include "era5/Dataset.h"
#include "era5/Era5File.h"
#include "ingest/Loader.h"
#include "util/Error.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace isobar;
using test::errorOf;
using test::FixtureSpec;
using test::WeatherRow;
using test::WeatherRows;

namespace {

constexpr qint64 kHour = test::kMicrosPerHour;

// The seed's location_id on the 0.25 deg grid: lat_index = (lat + 90) / 0.25, lon_index =
// (lon + 179.75) / 0.25, both rounded to the nearest integer (so a point off the grid gets its
// nearest cell), id = lat_index * 1440 + lon_index + 1; longitude first put in (-180, 180]. West of
// -179.875 the nearest grid point is 180 (-180 becomes 180): lon_index -1 is column 1439.
int seedId(double lat, double lon) {
    double l = lon;
    if (l > 180.0) {
        l -= 360.0;
    } else if (l <= -180.0) {
        l += 360.0;
    }
    const long latIndex = std::lround((lat + 90.0) / 0.25);
    const long lonIndex = (std::lround((l + 179.75) / 0.25) + 1440) % 1440;
    return static_cast<int>(latIndex * 1440 + lonIndex + 1);
}

// Values that fit the int16 packing of test::packedVariable() over a global grid: t2m 260..299 K,
// u10 -5..4.9 m/s, missing at about one point in eleven.
test::ValueFn boundedWithHoles(int column) {
    return [column](std::size_t s, std::size_t, std::size_t r, std::size_t c) {
        if ((s * 7 + r * 3 + c * 5 + static_cast<std::size_t>(column)) % 11 == 0) {
            return std::numeric_limits<double>::quiet_NaN();
        }
        return column == 0 ? 260.0 + static_cast<double>((r * 7 + c * 3 + s) % 40)
                           : -5.0 + 0.1 * static_cast<double>((r * 5 + c * 11 + s) % 100);
    };
}

// from, from + step, ... (count values), as a CDS interpolation writes them.
std::vector<double> axis(double from, double step, int count) {
    std::vector<double> out;
    out.reserve(static_cast<size_t>(count));
    for (int k = 0; k < count; ++k) {
        out.push_back(from + step * k);
    }
    return out;
}

// A CDS 2024 style file (netCDF4, valid_time in seconds since 1970, float64 coordinates) with
// float32 t2m and tp.
FixtureSpec cds2024(const std::vector<double>& lats, const std::vector<double>& lons,
                    const std::vector<qint64>& micros) {
    FixtureSpec spec = test::cds2024Fixture(lats, lons, micros);
    spec.coordType = NC_DOUBLE;
    spec.variables = {test::floatVariable(0, test::withHoles(0)), test::floatVariable(4, test::withHoles(4))};
    return spec;
}

// Every row the fixture must become, each keyed and numbered with seedId() of its own coordinates,
// which are stored as they are (float4; longitude in (-180, 180]).
WeatherRows expectedSeedRows(const FixtureSpec& spec, const std::vector<qint64>& micros) {
    WeatherRows rows;
    for (size_t s = 0; s < micros.size(); ++s) {
        for (size_t r = 0; r < spec.latitudes.size(); ++r) {
            for (size_t c = 0; c < spec.longitudes.size(); ++c) {
                WeatherRow row;
                row.micros = micros[s];
                row.locationId = seedId(spec.latitudes[r], spec.longitudes[c]);
                row.latitude = test::tableLatitude(spec, spec.latitudes[r]);
                row.longitude = test::tableLongitude(spec, spec.longitudes[c]);
                for (const auto& v : spec.variables) {
                    const int column = test::columnOf(v.name);
                    row.values[static_cast<size_t>(column)] =
                        test::tableValue(v, v.value(s, 0, r, c), column);
                }
                if (!rows.emplace(test::RowKey{row.micros, row.locationId}, row).second) {
                    throw std::runtime_error("fixture: two points in one 0.25 deg cell");
                }
            }
        }
    }
    return rows;
}

// Whether the nearest 0.25 deg columns of consecutive longitudes (west to east, maybe across the
// date line) ever skip one.
bool skipsAColumn(const std::vector<double>& lons) {
    for (size_t k = 1; k < lons.size(); ++k) {
        const int step = ((seedId(0.0, lons[k]) - seedId(0.0, lons[k - 1])) % 1440 + 1440) % 1440;
        if (step != 1) {
            return true;
        }
    }
    return false;
}

} // namespace

class TestGrids : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }
    void cleanupTestCase() { cluster_.reset(); }

    // The box a table map reads back: from the rows' location_ids, north to south, west to east
    // from the smallest arc holding them (across the date line when that is shorter).
    void boxOfPointsFollowsTheRows() {
        const GlobalGrid grid; // 0.25 deg: 721 x 1440
        // lat 50..45, lon -5..5 (21 rows, 41 columns), shuffled, repeated.
        const std::int32_t south = grid.latitudeIndex(45.0);
        const std::int32_t west = grid.longitudeIndex(-5.0);
        std::vector<std::int32_t> rows;
        std::vector<std::int32_t> columns;
        for (std::int32_t k = 0; k < 41; ++k) {
            rows.push_back(south + (k * 5) % 21);
            columns.push_back(west + (k * 13) % 41);
            columns.push_back(west + k);
        }
        GridBox box = boxOfPoints(grid, rows, columns);
        QCOMPARE(box.northRow, south + 20);
        QCOMPARE(box.rows, std::size_t(21));
        QCOMPARE(box.westColumn, west);
        QCOMPARE(box.cols, std::size_t(41));
        QVERIFY(box.rowIndex.empty() && box.columnIndex.empty());
        QCOMPARE(grid.latitudeOf(box.gridRow(0)), 50.0);
        QCOMPARE(grid.longitudeOf(box.gridColumn(0, grid)), -5.0);
        // Across the date line: 179.5 .. -179.5 is 5 columns, not 1436 (here every second one: a
        // 0.5 deg download, 3 columns).
        std::vector<std::int32_t> across;
        for (const double lon : {179.5, 179.75, 180.0, -179.75, -179.5}) {
            across.push_back(grid.longitudeIndex(lon));
        }
        box = boxOfPoints(grid, {360, 360, 360, 360, 360}, across);
        QCOMPARE(box.cols, std::size_t(5));
        QCOMPARE(grid.longitudeOf(box.gridColumn(0, grid)), 179.5);
        QCOMPARE(grid.longitudeOf(box.gridColumn(4, grid)), -179.5);
        box = boxOfPoints(grid, {360, 360, 360}, {across[0], across[2], across[4]});
        QCOMPARE(box.cols, std::size_t(3));
        QCOMPARE(grid.longitudeOf(box.gridColumn(1, grid)), 180.0);
        QCOMPARE(grid.longitudeOf(box.gridColumn(2, grid)), -179.5);
        // A coarser download of the grid's points (every 4th column, every 2nd row): those only.
        box = boxOfPoints(grid, {100, 102, 104}, {0, 4, 8, 12});
        QCOMPARE(box.rows, std::size_t(3));
        QCOMPARE(box.cols, std::size_t(4));
        QCOMPARE(box.gridRow(1), 102);
        QCOMPARE(box.gridColumn(3, grid), 12);
        QCOMPARE(boxOfPoints(grid, {}, {}).rows, std::size_t(0));
    }

    // A run's times as the report keeps them: evenly spaced runs, and back.
    void timeRunsRoundTrip() {
        const std::int64_t hour = 3'600'000'000LL;
        std::vector<PgTimestamp> times;
        times.reserve(48);
        for (int h = 0; h < 48; ++h) {
            times.push_back(PgTimestamp{h * hour});
        }
        QCOMPARE(timeRuns(times).size(), std::size_t(1));
        QCOMPARE(timeRuns(times).front().count, std::size_t(48));
        times.push_back(PgTimestamp{100 * hour}); // a gap, then a monthly-like step
        times.push_back(PgTimestamp{130 * hour});
        times.push_back(PgTimestamp{160 * hour});
        const auto runs = timeRuns(times);
        QCOMPARE(expandTimeRuns(runs), times);
        QVERIFY(runs.size() <= 3);
        QVERIFY(timeRuns({}).empty());
        QCOMPARE(expandTimeRuns(timeRuns({PgTimestamp{5}})), std::vector<PgTimestamp>{PgTimestamp{5}});
    }

    // --time as users type it, and what is refused.
    void timestampsAsTyped() {
        const PgTimestamp six = PgTimestamp{(24LL * 365 * 6 + 24 * 2) * 3'600'000'000LL}; // 2006-01-01
        QCOMPARE(parseTimestamp("2006-01-01").value(), six);
        const PgTimestamp later{six.micros + 6 * 3'600'000'000LL + 30 * 60'000'000LL};
        for (const char* text :
             {"2006-01-01 06:30", "2006-01-01T06:30", "2006-01-01T06:30:00Z", "2006-01-01 06:30:00+00"}) {
            QVERIFY2(parseTimestamp(text) == later, text);
        }
        QCOMPARE(formatTimestamp(*parseTimestamp(formatTimestamp(later))), formatTimestamp(later));
        for (const char* text :
             {"", "yesterday", "2006-02-30", "2006-13-01", "2006-01-01 25:00", "2006-01-01x"}) {
            QVERIFY2(!parseTimestamp(text), text);
        }
    }

    // A regional box interpolated off the grid, its longitudes 0.25025 deg apart and its latitudes
    // 0.25 apart. Refused by default, naming a point and the spacing; with --off-grid nearest every
    // row at its nearest 0.25 deg cell, with its own coordinates. Over 360 columns the nearest cells
    // skip one: the drift of 0.00025 deg per column takes column 336 from 0.0412 to 0.1252 deg east
    // of the 336th cell after the first one's, past half a cell. The box may cross the date line,
    // latitudes south to north.
    void offGridRegionalBox_data() {
        QTest::addColumn<std::vector<double>>("lats");
        QTest::addColumn<std::vector<double>>("lons");
        QTest::addColumn<QString>("named");    // the point the refusal names
        QTest::addColumn<bool>("skipsColumn"); // the nearest cells skip a column
        QTest::newRow("9.29..10.29 E, latitudes on the grid")
            << axis(47.0, -0.25, 3) << axis(9.29, 0.25025, 5) << "latitude 47, longitude 9.29" << false;
        QTest::newRow("360 columns, latitudes off the grid")
            << axis(47.1, -0.25, 3) << axis(9.2912, 0.25025, 360) << "latitude 47.1, longitude 9.2912"
            << true;
        QTest::newRow("across the date line, south to north")
            << axis(-10.1, 0.25, 3) << axis(100.0412, 0.25025, 360) << "latitude -10.1, longitude 100.0412"
            << true;
    }
    void offGridRegionalBox() {
        QFETCH(std::vector<double>, lats);
        QFETCH(std::vector<double>, lons);
        QFETCH(QString, named);
        QFETCH(bool, skipsColumn);
        QCOMPARE(skipsAColumn(lons), skipsColumn); // the fixture tests what it says
        const auto micros = test::hourly(test::pgMicros(2024, 3, 10, 6), 2);
        const FixtureSpec spec = cds2024(lats, lons, micros);
        const QString path =
            file(QString("offgrid-%1x%2-%3.nc").arg(lats.size()).arg(lons.size()).arg(lats[0]));
        test::writeFixture(path, spec);

        const std::string table = "offgrid_" + std::to_string(lons.size()) + (lats[0] < 0 ? "_south" : "");
        for (const QString& message :
             {errorOf([&] { (void)Era5File::open(path.toStdString()); }),
              QString::fromStdString(
                  test::loadFiles(*cluster_, {path}, table).error.value_or(LoadError{}).message)}) {
            VERIFY_MESSAGE(message, path, "the point (" + named + ") is not on the 0.25 degree grid",
                           "its longitudes are 0.25025 degrees apart: not the grid's spacing",
                           "use --off-grid nearest");
        }
        OpenOptions nearest;
        nearest.offGrid = OffGridPolicy::Nearest;
        const Era5File f = Era5File::open(path.toStdString(), nearest);
        QVERIFY(f.offGrid());
        QCOMPARE(f.grid().spacing(), 0.25);
        QCOMPARE(f.box().rows, lats.size());
        QCOMPARE(f.box().cols, lons.size());
        QCOMPARE(f.box().columnIndex.empty(), !skipsColumn);
        QVERIFY(f.box().rowIndex.empty());
        QCOMPARE(QString::fromStdString(f.spacingText()), QString("0.25 x 0.25025 deg"));

        const WeatherRows expected = expectedSeedRows(spec, micros);
        QCOMPARE(expected.size(), micros.size() * lats.size() * lons.size());
        CHECK_EVERY_ROW({path}, table, expected, nearest);
        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn, "SELECT grid_step FROM isobar.table_grid WHERE relid = '" + table +
                                        "'::regclass"),
                 QString("0.25"));
    }

    // With --off-grid nearest, two points whose nearest cell is the same are refused, naming both,
    // the cell and its location_id; so are two longitudes of one grid point (0 and 360). Nothing
    // is loaded.
    void pointsSharingACellRefused_data() {
        QTest::addColumn<std::vector<double>>("lats");
        QTest::addColumn<std::vector<double>>("lons");
        QTest::addColumn<QString>("points");
        QTest::addColumn<QString>("cell");
        QTest::addColumn<int>("id");
        QTest::newRow("longitudes 0.2 apart")
            << std::vector<double>{47.0, 46.75} << axis(10.0, 0.2, 4)
            << "the points (latitude 47, longitude 10.4) and (latitude 47, longitude 10.6) would share "
               "the nearest cell of the 0.25 degree grid"
            << "(latitude 47, longitude 10.5, location_id " << seedId(47.0, 10.5);
        QTest::newRow("latitudes 0.2 apart")
            << axis(47.0, -0.2, 4) << std::vector<double>{10.0, 10.25}
            << "the points (latitude 46.6, longitude 10) and (latitude 46.4, longitude 10) would share "
               "the nearest cell of the 0.25 degree grid"
            << "(latitude 46.5, longitude 10, location_id " << seedId(46.5, 10.0);
        QTest::newRow("0 and 360 on the grid")
            << std::vector<double>{10.0} << std::vector<double>{0.0, 90.0, 180.0, 270.0, 360.0}
            << "the points (latitude 10, longitude 0) and (latitude 10, longitude 360) share the cell of "
               "the 0.25 degree grid"
            << "(latitude 10, longitude 0, location_id " << seedId(10.0, 0.0);
    }
    void pointsSharingACellRefused() {
        QFETCH(std::vector<double>, lats);
        QFETCH(std::vector<double>, lons);
        QFETCH(QString, points);
        QFETCH(QString, cell);
        QFETCH(int, id);
        const auto micros = test::hourly(test::pgMicros(2024, 3, 10), 1);
        const QString path = file(QString("shared-%1.nc").arg(QTest::currentDataTag()).replace(' ', '-'));
        test::writeFixture(path, cds2024(lats, lons, micros));
        OpenOptions nearest;
        nearest.offGrid = OffGridPolicy::Nearest;
        const std::string table = "shared_cell";
        const LoadSummary summary = test::loadFiles(*cluster_, {path}, table, nearest);
        QVERIFY(summary.status != LoadStatus::Completed);
        for (const QString& message : {errorOf([&] { (void)Era5File::open(path.toStdString(), nearest); }),
                                       QString::fromStdString(summary.error.value_or(LoadError{}).message)}) {
            VERIFY_MESSAGE(message, path, points, cell + QString::number(id) + ")",
                           "one location_id cannot hold the rows of two points");
        }
        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn, "SELECT to_regclass('" + table + "') IS NULL"), QString("t"));
    }

    // A coarse download of ERA5's points (the CDS's grid 1.0 / 0.5) keeps the seed's 0.25 deg
    // location_ids: every row of a 1 deg global grid (181 x 360 points, three hours) and of a 0.5
    // deg box south to north across the date line, with ids from seedId(). The table records the
    // 0.25 deg grid, the grid its ids are numbered on.
    void coarseGridKeepsSeedIds_data() {
        QTest::addColumn<std::vector<double>>("lats");
        QTest::addColumn<std::vector<double>>("lons");
        QTest::addColumn<int>("stride"); // 0.25 deg cells between neighbouring points
        QTest::addColumn<QString>("box");
        QTest::newRow("1 deg global, 0..359") << axis(90.0, -1.0, 181) << axis(0.0, 1.0, 360) << 4
                                              << "lat 90..-90, lon -179..180 (181 x 360 points)";
        QTest::newRow("0.5 deg box across the date line, south to north")
            << axis(-10.0, 0.5, 11) << axis(170.0, 0.5, 41) << 2
            << "lat -5..-10, lon 170..-170 (11 x 41 points)";
    }
    void coarseGridKeepsSeedIds() {
        QFETCH(std::vector<double>, lats);
        QFETCH(std::vector<double>, lons);
        QFETCH(int, stride);
        QFETCH(QString, box);
        const auto micros = test::hourly(test::pgMicros(2023, 7, 1, 12), 3);
        FixtureSpec spec = test::classicFixture(lats, lons, 1, 0); // legacy CDS: netCDF3, int16 packed
        spec.times = test::timesSince(micros, test::pgMicros(1900, 1, 1), kHour);
        spec.variables = {test::packedVariable(0, boundedWithHoles(0)),
                          test::packedVariable(1, boundedWithHoles(1))};
        const QString path = file(QString("coarse-%1.nc").arg(stride));
        test::writeFixture(path, spec);

        const Era5File f = Era5File::open(path.toStdString());
        QVERIFY(!f.offGrid());
        QVERIFY(!f.era5Land());
        QCOMPARE(f.grid().spacing(), 0.25);
        QCOMPARE(f.grid().longitudes(), 1440);
        QCOMPARE(QString::fromStdString(f.box().describe(f.grid())), box);
        QCOMPARE(f.box().rowIndex.size(), lats.size());
        QCOMPARE(f.box().columnIndex.size(), lons.size());
        for (size_t k = 1; k < f.box().columnIndex.size(); ++k) {
            QCOMPARE((f.box().columnIndex[k] - f.box().columnIndex[k - 1] + 1440) % 1440, stride);
        }
        QVERIFY2(test::anyLineContains(f.notes(), {"points of the 0.25 degree grid", "location_ids"}),
                 qPrintable(test::joinLines(f.notes())));

        const WeatherRows expected = expectedSeedRows(spec, micros);
        QCOMPARE(expected.size(), micros.size() * lats.size() * lons.size());
        const std::string table = "coarse_" + std::to_string(stride);
        CHECK_EVERY_ROW({path}, table, expected);
        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM " + table), QString::number(expected.size()));
        QCOMPARE(test::scalar(conn, "SELECT grid_step || ' ' || grid FROM isobar.table_grid WHERE relid = '" +
                                        table + "'::regclass"),
                 QString("0.25 0.25 deg global grid (721 x 1440 points)"));
    }

    // The point of keeping the seed's ids: a 1 deg file and a 0.25 deg file share a table (both are
    // numbered on the 0.25 deg grid), and their rows join on location_id. --grid 1 numbers the
    // 1 deg grid's own cells instead, and such rows are refused in that table, naming both grids.
    void coarseAndFullGridShareATable() {
        const auto coarseHours = test::hourly(test::pgMicros(2023, 7, 1, 0), 1);
        const auto fullHours = test::hourly(test::pgMicros(2023, 7, 1, 1), 1);
        FixtureSpec coarse = cds2024(axis(60.0, -1.0, 11), axis(-5.0, 1.0, 11), coarseHours);
        FixtureSpec full = cds2024(axis(55.0, -0.25, 9), axis(0.0, 0.25, 9), fullHours);
        const QString coarsePath = file("share-1deg.nc");
        const QString fullPath = file("share-025.nc");
        test::writeFixture(coarsePath, coarse);
        test::writeFixture(fullPath, full);
        const std::string table = "coarse_and_full";
        LoadSummary s = test::loadFiles(*cluster_, {coarsePath}, table);
        QVERIFY2(s.status == LoadStatus::Completed, s.error ? s.error->message.c_str() : "");
        s = test::loadFiles(*cluster_, {fullPath}, table);
        QVERIFY2(s.status == LoadStatus::Completed, s.error ? s.error->message.c_str() : "");
        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM " + table), QString::number(121 + 81));
        // The 1 deg points inside the 0.25 deg box (53..55 N, 0..2 E): 3 x 3, each joined to the
        // 0.25 deg row at the same place.
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM " + table + " a JOIN " + table +
                                        " b USING (location_id) WHERE a.time < b.time AND a.latitude = "
                                        "b.latitude AND a.longitude = b.longitude"),
                 QString("9"));
        QCOMPARE(test::scalar(conn, "SELECT location_id FROM " + table +
                                        " WHERE latitude = 54 AND longitude = 1 ORDER BY time LIMIT 1"),
                 QString::number(seedId(54.0, 1.0)));

        OpenOptions own;
        own.gridSpacing = 1.0;
        const Era5File f = Era5File::open(coarsePath.toStdString(), own);
        QCOMPARE(f.grid().spacing(), 1.0);
        QVERIFY(f.box().rowIndex.empty() && f.box().columnIndex.empty());
        s = test::loadFiles(*cluster_, {coarsePath}, table, own);
        QVERIFY(s.status != LoadStatus::Completed);
        VERIFY_MESSAGE(QString::fromStdString(s.error.value_or(LoadError{}).message), "coarse_and_full",
                       "0.25 deg global grid (721 x 1440 points)", "1 deg global grid (181 x 360 points)");
    }

    // Which grid numbers a file's points: the product's (ERA5 0.25, ERA5-Land 0.1) when they are on
    // it, however coarse, rectangular or not; else the file's own spacing when it divides 360; --grid
    // says otherwise.
    void whichGrid_data() {
        QTest::addColumn<double>("latStep");
        QTest::addColumn<double>("lonStep");
        QTest::addColumn<QString>("title");
        QTest::addColumn<double>("asked"); // --grid, 0: none
        QTest::addColumn<double>("grid");
        QTest::addColumn<bool>("land");
        QTest::newRow("1 deg ERA5") << 1.0 << 1.0 << "" << 0.0 << 0.25 << false;
        QTest::newRow("0.25 x 0.5 deg, on the grid") << 0.25 << 0.5 << "" << 0.0 << 0.25 << false;
        QTest::newRow("0.1 deg: ERA5-Land's own") << 0.1 << 0.1 << "" << 0.0 << 0.1 << true;
        QTest::newRow("0.5 deg ERA5-Land (by its title)")
            << 0.5 << 0.5 << "ERA5-Land hourly data" << 0.0 << 0.1 << true;
        QTest::newRow("0.2 deg: not a subset of 0.25") << 0.2 << 0.2 << "" << 0.0 << 0.2 << false;
        QTest::newRow("1 deg, --grid 1") << 1.0 << 1.0 << "" << 1.0 << 1.0 << false;
    }
    void whichGrid() {
        QFETCH(double, latStep);
        QFETCH(double, lonStep);
        QFETCH(QString, title);
        QFETCH(double, asked);
        QFETCH(double, grid);
        QFETCH(bool, land);
        FixtureSpec spec = cds2024(axis(40.0, -latStep, 4), axis(10.0, lonStep, 5),
                                   test::hourly(test::pgMicros(2024, 1, 1, 1), 1));
        if (!title.isEmpty()) {
            spec.globalText["title"] = title.toStdString();
        }
        const QString path = file(QString("which-%1.nc").arg(QTest::currentDataTag()).replace(' ', '-'));
        test::writeFixture(path, spec);
        OpenOptions options;
        if (asked > 0) {
            options.gridSpacing = asked;
        }
        const Era5File f = Era5File::open(path.toStdString(), options);
        QCOMPARE(f.grid().spacing(), grid);
        QCOMPARE(f.era5Land(), land);
        QVERIFY(!f.offGrid());
        QCOMPARE(f.box().rows, size_t{4});
        QCOMPARE(f.box().cols, size_t{5});
        // Every box row and column is the grid cell of the file's own coordinate.
        const std::vector<double> boxLats = f.boxLatitudes();
        const std::vector<double> boxLons = f.boxLongitudes();
        for (size_t i = 0; i < boxLats.size(); ++i) {
            QCOMPARE(f.box().gridRow(i), static_cast<int>(std::lround((boxLats[i] + 90.0) / grid)));
        }
        for (size_t j = 0; j < boxLons.size(); ++j) {
            const long firstColumn = std::lround(std::floor(-180.0 / grid + 1e-9)) + 1;
            QCOMPARE(f.box().gridColumn(j, f.grid()),
                     static_cast<int>(std::lround(boxLons[j] / grid) - firstColumn));
        }
    }

    // isobar-cli inspect tells what it will do: the grid the ids are numbered on, how far apart the
    // file's points are, and that off-grid points go to their nearest cells.
    void inspectDescribesTheGrid() {
        const auto micros = test::hourly(test::pgMicros(2024, 3, 10), 1);
        const QString coarse = file("inspect-1deg.nc");
        test::writeFixture(coarse, cds2024(axis(50.0, -1.0, 3), axis(10.0, 1.0, 4), micros));
        const QString offGrid = file("inspect-offgrid.nc");
        test::writeFixture(offGrid, cds2024(axis(47.0, -0.25, 3), axis(9.29, 0.25025, 5), micros));

        test::CliRun run = test::runCli({"inspect", coarse});
        QCOMPARE(run.exitCode, 0);
        VERIFY_MESSAGE(run.out,
                       "grid:       0.25 deg global grid (721 x 1440 points), the file's points 1 deg apart",
                       "box:        lat 50..48, lon 10..13 (3 x 4 points)", "points of the 0.25 degree grid");

        run = test::runCli({"inspect", offGrid});
        QCOMPARE(run.exitCode, 1);
        VERIFY_MESSAGE(run.out, "cannot be loaded", "the point (latitude 47, longitude 9.29)",
                       "0.25025 degrees apart", "--off-grid nearest");

        run = test::runCli({"inspect", "--json", "--off-grid", "nearest", offGrid});
        QCOMPARE(run.exitCode, 0);
        const QJsonObject grid = QJsonDocument::fromJson(run.out.toUtf8())
                                     .object()["files"]
                                     .toArray()
                                     .at(0)
                                     .toObject()["grid"]
                                     .toObject();
        QCOMPARE(grid["step"].toDouble(), 0.25);
        QCOMPARE(grid["pointSpacing"].toString(), QString("0.25 x 0.25025 deg"));
        QCOMPARE(grid["offGrid"].toBool(), true);
        QCOMPARE(grid["box"].toString(), QString("lat 47..46.5, lon 9.25..10.25 (3 x 5 points)"));
    }

private:
    QString file(const QString& name) const { return cluster_->workDir() + "/" + name; }

    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestGrids)
#include "tst_grids.moc"
