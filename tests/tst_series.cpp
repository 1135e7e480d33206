// SPDX-License-Identifier: GPL-3.0-or-later

// The point series of the CDS time-series datasets (reanalysis-era5-single-levels-timeseries,
// reanalysis-era5-land-timeseries) as CSV, netCDF and ZIP archives of them: written here (the CSV
// as text, the netCDF with netcdf-c), loaded into a real PostgreSQL, and every row checked against
// the test's own reading of what it wrote.

#include "Fixtures.h"
#include "TestCluster.h"
#include "TestUtil.h"
#include "era5/Dataset.h"
#include "era5/Era5File.h"

#include <QtTest>

#include <netcdf.h>

#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>

using namespace isobar;
using test::CliRun;
using test::runCli;

namespace {

void writeText(const QString& path, const QString& text) {
    std::ofstream out(path.toStdString(), std::ios::binary);
    out << text.toStdString();
}

// One row of a time-series CSV as the test reads its own text: the time, and per header name the
// value (nullopt for an empty cell).
struct CsvRow {
    qint64 micros = 0; // since 2000-01-01 UTC
    std::map<QString, std::optional<float>> values;
    double latitude = 0;
    double longitude = 0;
};

std::vector<CsvRow> readCsvText(const QString& text) {
    QStringList lines = text.split('\n', Qt::SkipEmptyParts);
    const QStringList header = lines.takeFirst().trimmed().split(',');
    std::vector<CsvRow> rows;
    const QDateTime epoch(QDate(2000, 1, 1), QTime(0, 0), Qt::UTC);
    for (const QString& line : lines) {
        const QStringList fields = line.trimmed().split(',');
        CsvRow row;
        for (qsizetype c = 0; c < header.size(); ++c) {
            const QString& name = header[c];
            if (name == "valid_time") {
                QDateTime t = QDateTime::fromString(fields[c], "yyyy-MM-dd HH:mm:ss");
                t.setTimeSpec(Qt::UTC);
                row.micros = epoch.msecsTo(t) * 1000;
            } else if (name == "latitude") {
                row.latitude = fields[c].toDouble();
            } else if (name == "longitude") {
                row.longitude = fields[c].toDouble();
            } else if (fields[c].isEmpty()) {
                row.values[name] = std::nullopt;
            } else {
                row.values[name] = fields[c].toFloat();
            }
        }
        rows.push_back(row);
    }
    return rows;
}

// One variable of a netCDF point series: its values along valid_time and the attributes cfgrib
// writes.
struct SeriesVar {
    std::string name;
    long paramId = 0;
    std::string units;
    std::string stepType;
    std::vector<float> values;
};

void check(int status, const char* what) {
    if (status != NC_NOERR) {
        throw std::runtime_error(std::string(what) + ": " + nc_strerror(status));
    }
}

// A netCDF-4 point series as the CDS time-series datasets deliver it: valid_time int64 hours since
// 1970 (ERA5-Land's), scalar double latitude and longitude, each variable along valid_time.
void writeNetcdfSeries(const QString& path, long long firstHour, double lat, double lon,
                       const std::vector<SeriesVar>& vars, const std::string& history, bool seconds = false) {
    int ncid = 0;
    check(nc_create(path.toStdString().c_str(), NC_CLOBBER | NC_NETCDF4, &ncid), "create");
    const size_t n = vars.front().values.size();
    int dim = 0;
    check(nc_def_dim(ncid, "valid_time", n, &dim), "dim");
    int timeVar = 0;
    check(nc_def_var(ncid, "valid_time", NC_INT64, 1, &dim, &timeVar), "time");
    const std::string timeUnits = seconds ? "seconds since 1970-01-01" : "hours since 1970-01-01";
    check(nc_put_att_text(ncid, timeVar, "units", timeUnits.size(), timeUnits.c_str()), "time units");
    int latVar = 0;
    int lonVar = 0;
    check(nc_def_var(ncid, "latitude", NC_DOUBLE, 0, nullptr, &latVar), "latitude");
    check(nc_def_var(ncid, "longitude", NC_DOUBLE, 0, nullptr, &lonVar), "longitude");
    std::vector<int> ids;
    for (const SeriesVar& v : vars) {
        int id = 0;
        check(nc_def_var(ncid, v.name.c_str(), NC_FLOAT, 1, &dim, &id), "variable");
        const float fill = NAN;
        check(nc_put_att_float(ncid, id, "_FillValue", NC_FLOAT, 1, &fill), "fill");
        check(nc_put_att_text(ncid, id, "units", v.units.size(), v.units.c_str()), "units");
        check(nc_put_att_long(ncid, id, "GRIB_paramId", NC_INT64, 1, &v.paramId), "paramId");
        check(nc_put_att_text(ncid, id, "GRIB_stepType", v.stepType.size(), v.stepType.c_str()), "stepType");
        ids.push_back(id);
    }
    check(nc_put_att_text(ncid, NC_GLOBAL, "history", history.size(), history.c_str()), "history");
    check(nc_enddef(ncid), "enddef");
    std::vector<long long> hours(n);
    for (size_t i = 0; i < n; ++i) {
        hours[i] = (firstHour + static_cast<long long>(i)) * (seconds ? 3600 : 1);
    }
    check(nc_put_var_longlong(ncid, timeVar, hours.data()), "times");
    check(nc_put_var_double(ncid, latVar, &lat), "lat");
    check(nc_put_var_double(ncid, lonVar, &lon), "lon");
    for (size_t k = 0; k < vars.size(); ++k) {
        check(nc_put_var_float(ncid, ids[k], vars[k].values.data()), "values");
    }
    check(nc_close(ncid), "close");
}

// Microseconds since 2000-01-01 of an hour counted from 1970.
qint64 microsOfHour1970(long long hour) {
    return (hour * 3600LL - 946684800LL) * 1000000LL;
}

// The value a float of the file becomes in the table: K -> degC, m -> mm, else as stored.
float converted(float stored, const QString& units) {
    double x = stored;
    if (units == "K") {
        x -= 273.15;
    } else if (units == "m") {
        x *= 1000.0;
    }
    return static_cast<float>(x);
}

// Every row of `table`: (time, location_id) -> the named columns' values, NULL as nullopt.
std::map<std::pair<qint64, int>, std::vector<std::optional<float>>>
readRows(Connection& conn, const std::string& table, const QStringList& columns,
         std::pair<double, double>* point) {
    std::string select;
    for (const QString& c : columns) {
        select += ", " + c.toStdString();
    }
    Result r = conn.query("SELECT (extract(epoch FROM time - '2000-01-01 00:00:00+00') * 1000000)::bigint, "
                          "location_id, latitude, longitude" +
                          select + " FROM " + table);
    std::map<std::pair<qint64, int>, std::vector<std::optional<float>>> rows;
    for (int i = 0; i < r.rows(); ++i) {
        std::vector<std::optional<float>> values;
        for (int c = 0; c < columns.size(); ++c) {
            if (!r.isNull(i, 4 + c)) {
                values.emplace_back(std::strtof(r.text(i, 4 + c).c_str(), nullptr));
            } else {
                values.emplace_back(std::nullopt);
            }
        }
        if (point != nullptr) {
            *point = {std::strtod(r.text(i, 2).c_str(), nullptr), std::strtod(r.text(i, 3).c_str(), nullptr)};
        }
        if (!rows.emplace(std::pair(std::stoll(r.text(i, 0)), std::stoi(r.text(i, 1))), values).second) {
            throw std::runtime_error(table + " holds a row twice");
        }
    }
    return rows;
}

// Two days of hourly ERA5 at one point, as the CDS writes the CSV: the variables in the order of the
// request (not alphabetical), some values in exponent notation, CRLF line ends, an empty cell.
QString era5Csv() {
    QString text = "valid_time,u10,t2m,tp,u100,latitude,longitude\r\n";
    for (int h = 0; h < 48; ++h) {
        const QString time = QDateTime(QDate(2024, 2, 28), QTime(0, 0), Qt::UTC)
                                 .addSecs(h * 3600)
                                 .toString("yyyy-MM-dd HH:mm:ss");
        const QString u10 = QString::number(std::sin(h / 3.0) * 7.0, 'g', 8);
        const QString t2m = QString::number(270.0 + h * 0.37, 'g', 8);
        const QString tp = h % 5 == 0 ? "0.0" : QString::number(1.25e-5 * h, 'e', 7);
        const QString u100 = h == 17 ? QString() : QString::number(-1.5e0 * std::cos(h), 'E', 6);
        text += time + "," + u10 + "," + t2m + "," + tp + "," + u100 + ",52.5,13.25\r\n";
    }
    return text;
}

} // namespace

class TestSeries : public QObject {
    Q_OBJECT

private:
    QString dsn() const { return QString::fromStdString(cluster_->conninfo()); }
    QString path(const QString& name) const { return cluster_->workDir() + "/" + name; }

    std::unique_ptr<test::TestCluster> cluster_;

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }

    // An ERA5 CSV: every row at the point's 0.25 deg location_id, every value as the test reads
    // the text, converted by the column's rules (t2m K -> degC, tp m -> mm, the rest as stored).
    void era5CsvLoadsEveryRow() {
        const QString file = path("site.csv");
        const QString text = era5Csv();
        writeText(file, text);
        const CliRun run = runCli({"load", "--dsn", dsn(), "--table", "site", file});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        Connection conn = cluster_->connect();
        std::pair<double, double> point;
        const auto rows = readRows(
            conn, "site", {"temperature_2m", "zonal_wind_10m", "total_precipitation", "u100"}, &point);
        const std::vector<CsvRow> expected = readCsvText(text);
        QCOMPARE(rows.size(), expected.size());
        const int id = test::gridLocationId(52.5, 13.25, 0.25);
        QCOMPARE(id, static_cast<int>(std::lround((52.5 + 90) / 0.25)) * 1440 +
                         static_cast<int>(std::lround((13.25 + 179.75) / 0.25)) + 1);
        QCOMPARE(point.first, 52.5);
        QCOMPARE(point.second, 13.25);
        const std::vector<std::pair<QString, QString>> columns{
            {"t2m", "K"}, {"u10", ""}, {"tp", "m"}, {"u100", ""}};
        for (const CsvRow& e : expected) {
            const auto it = rows.find({e.micros, id});
            QVERIFY2(it != rows.end(), qPrintable(QString("no row at %1").arg(e.micros)));
            for (std::size_t c = 0; c < columns.size(); ++c) {
                const std::optional<float> stored = e.values.at(columns[c].first);
                const std::optional<float> want =
                    stored ? std::optional(converted(*stored, columns[c].second)) : std::nullopt;
                QCOMPARE(it->second[c], want);
            }
        }
        // --variables on a series: only the chosen column, by ECMWF's short name or paramId.
        const CliRun chosen =
            runCli({"load", "--dsn", dsn(), "--table", "site_u100", "--variables", "228246", file});
        QVERIFY2(chosen.exitCode == 0, qPrintable(chosen.err));
        QCOMPARE(
            test::scalar(conn,
                         "SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_attribute WHERE attrelid = "
                         "'site_u100'::regclass AND attnum > 0 AND NOT attisdropped"),
            QString("time,location_id,latitude,longitude,u100"));
        QCOMPARE(test::count(conn,
                             "SELECT count(*) FROM site_u100 s JOIN site USING (time, location_id) WHERE "
                             "s.u100 IS NOT DISTINCT FROM site.u100"),
                 std::uint64_t{47});
        // Hour 17's only value is the empty cell: a row of nothing but NULLs is skipped (--all-missing).
        QCOMPARE(test::count(conn, "SELECT count(*) FROM site_u100"), std::uint64_t{47});
        // No map of one cell: inspect --map says what the file is instead.
        const CliRun map = runCli({"inspect", "--map", path("site.png"), "--variable", "t2m", file});
        QCOMPARE(map.exitCode, 1);
        QVERIFY2(
            map.err.contains("no map: the files are time series of the CDS time-series datasets, one point "
                             "(latitude 52.5, longitude 13.25) over 48 hours from 2024-02-28 00:00 to "
                             "2024-02-29 23:00"),
            qPrintable(map.err));
        QVERIFY(!QFile::exists(path("site.png")));
        // The same file again: nothing more.
        const CliRun again = runCli({"load", "--dsn", dsn(), "--table", "site", file});
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QCOMPARE(test::count(conn, "SELECT count(*) FROM site"), std::uint64_t{48});
    }

    // ERA5-Land's series (netCDF): hours since 1970, the point with float noise, accumulations
    // already hourly with ECMWF's small negative values: loaded as given on the 0.1 deg grid.
    void era5LandNetcdfIsLoadedAsGiven() {
        const QString file = path("land.nc");
        const long long first = 491418; // 2026-01-22 18:00 UTC: the series crosses 00 UTC
        std::vector<float> t2m;
        std::vector<float> tp;
        std::vector<float> ssrd;
        for (int h = 0; h < 30; ++h) {
            t2m.push_back(static_cast<float>(290.0 + h * 0.21));
            tp.push_back(h % 7 == 3 ? -5e-08f : static_cast<float>(2e-4 * (h % 4)));
            ssrd.push_back(h % 9 == 2 ? -4.0f : static_cast<float>(1000.5 * h));
        }
        writeNetcdfSeries(file, first, -22.8999999999992, -47.0999999999974,
                          {{"t2m", 167, "K", "instant", t2m},
                           {"tp", 228, "m", "accum", tp},
                           {"ssrd", 169, "J m**-2", "accum", ssrd}},
                          "2026-01-23 earthkit-data: reanalysis-era5-land-timeseries (era5_land arco)");
        const CliRun inspect = runCli({"inspect", file});
        QVERIFY2(inspect.exitCode == 0, qPrintable(inspect.err));
        QVERIFY2(inspect.out.contains("ERA5-Land hourly"), qPrintable(inspect.out));
        QVERIFY2(inspect.out.contains("hourly amounts already"), qPrintable(inspect.out));
        // Row 671 from the south (-22.9 + 90) / 0.1, column 1328 from -179.9: the 0.1 deg grid's id.
        const int id = 671 * 3600 + 1328 + 1;
        QVERIFY2(inspect.out.contains(
                     QString("one point, latitude -22.9, longitude -47.1 (location_id %1)").arg(id)),
                 qPrintable(inspect.out));
        const CliRun run = runCli({"load", "--dsn", dsn(), "--table", "land", file});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        Connection conn = cluster_->connect();
        std::pair<double, double> point;
        const auto rows = readRows(conn, "land", {"temperature_2m", "total_precipitation", "ssrd"}, &point);
        QCOMPARE(rows.size(), std::size_t{30});
        QCOMPARE(point.first, -22.9);
        QCOMPARE(point.second, -47.1);
        QCOMPARE(test::gridLocationId(-22.9, -47.1, 0.1), id);
        for (int h = 0; h < 30; ++h) {
            const auto it = rows.find({microsOfHour1970(first + h), id});
            QVERIFY2(it != rows.end(), qPrintable(QString("no row for hour %1").arg(h)));
            QCOMPARE(it->second[0], std::optional(converted(t2m[static_cast<std::size_t>(h)], "K")));
            QCOMPARE(it->second[1], std::optional(converted(tp[static_cast<std::size_t>(h)], "m")));
            QCOMPARE(it->second[2], std::optional(ssrd[static_cast<std::size_t>(h)]));
        }
        QVERIFY(test::count(conn, "SELECT count(*) FROM land WHERE total_precipitation < 0") > 0);
    }

    // The ERA5-Land ZIP: one member per variable group on one time axis, joined on valid_time
    // into one row per hour; and a ZIP of a CSV saved under a .csv name.
    void groupZipJoinsMembers() {
        const long long first = 482000;
        std::vector<float> t2m;
        std::vector<float> sp;
        std::vector<float> tp;
        for (int h = 0; h < 12; ++h) {
            t2m.push_back(static_cast<float>(280.0 + h));
            sp.push_back(static_cast<float>(100000.0 + 10.0 * h));
            tp.push_back(static_cast<float>(1e-4 * h));
        }
        const QString a = path("m1.nc");
        const QString b = path("m2.nc");
        writeNetcdfSeries(a, first, 47.3, 8.5, {{"t2m", 167, "K", "instant", t2m}},
                          "reanalysis-era5-land-timeseries");
        writeNetcdfSeries(b, first, 47.3, 8.5,
                          {{"sp", 134, "Pa", "instant", sp}, {"tp", 228, "m", "accum", tp}},
                          "reanalysis-era5-land-timeseries");
        const QString zip = path("land-group.zip");
        test::writeStoredZip(zip,
                             {{"reanalysis-era5-land-timeseries-sfc-2m-temperatureq3x9k2lm.nc", a},
                              {"reanalysis-era5-land-timeseries-sfc-pressure-precipitation7fj2k0aa.nc", b}});
        const CliRun run = runCli({"load", "--dsn", dsn(), "--table", "grp", zip});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        Connection conn = cluster_->connect();
        const auto rows = readRows(conn, "grp", {"temperature_2m", "sp", "total_precipitation"}, nullptr);
        QCOMPARE(rows.size(), std::size_t{12});
        const int id = test::gridLocationId(47.3, 8.5, 0.1);
        for (int h = 0; h < 12; ++h) {
            const auto it = rows.find({microsOfHour1970(first + h), id});
            QVERIFY(it != rows.end());
            QCOMPARE(it->second[0], std::optional(converted(t2m[static_cast<std::size_t>(h)], "K")));
            QCOMPARE(it->second[1], std::optional(sp[static_cast<std::size_t>(h)]));
            QCOMPARE(it->second[2], std::optional(converted(tp[static_cast<std::size_t>(h)], "m")));
        }
        // The CDS's ZIP of one CSV, saved under a .csv name.
        const QString member = path("member.csv");
        writeText(member, era5Csv());
        const QString disguised = path("download.csv");
        test::writeStoredZip(disguised,
                             {{"reanalysis-era5-single-levels-timeseries-sfcAb12Cd34.csv", member}});
        const CliRun zipped = runCli({"load", "--dsn", dsn(), "--table", "zipped", disguised});
        QVERIFY2(zipped.exitCode == 0, qPrintable(zipped.err));
        QCOMPARE(test::count(conn, "SELECT count(*) FROM zipped"), std::uint64_t{48});
        QCOMPARE(test::count(conn, "SELECT count(*) FROM (SELECT * FROM zipped EXCEPT SELECT * FROM site) d"),
                 std::uint64_t{0});
    }

    // ERA5's netCDF series (int64 seconds since 1970) and a CSV of the same request with another
    // variable: one dataset, joined on valid_time, one row per hour with both files' columns.
    void era5NetcdfAndCsvJoin() {
        const long long first = 473352; // 2024-01-01 00:00 UTC in hours since 1970
        std::vector<float> u100(6);
        for (int h = 0; h < 6; ++h) {
            u100[static_cast<std::size_t>(h)] = static_cast<float>(-2.5 + 0.75 * h);
        }
        const QString dir = path("request");
        QVERIFY(QDir().mkpath(dir));
        writeNetcdfSeries(dir + "/part.nc", first, 56.75, -2.0,
                          {{"u100", 228246, "m s**-1", "instant", u100}},
                          "reanalysis-era5-single-levels-timeseries", true);
        QString text = "valid_time,v10,latitude,longitude\n";
        for (int h = 0; h < 6; ++h) {
            text += QString("2024-01-01 %1:00:00,%2,56.75,-2.0\n").arg(h, 2, 10, QChar('0')).arg(1.5 * h);
        }
        writeText(dir + "/part.csv", text);
        const CliRun run = runCli({"load", "--dsn", dsn(), "--table", "joined", dir});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        Connection conn = cluster_->connect();
        const auto rows = readRows(conn, "joined", {"u100", "meridional_wind_10m"}, nullptr);
        QCOMPARE(rows.size(), std::size_t{6});
        // (56.75 + 90) / 0.25 = 587 rows from the south, (-2 + 179.75) / 0.25 = 711 columns.
        const int id = 587 * 1440 + 711 + 1;
        for (int h = 0; h < 6; ++h) {
            const auto it = rows.find({microsOfHour1970(first + h), id});
            QVERIFY2(it != rows.end(), qPrintable(QString("no row for hour %1").arg(h)));
            QCOMPARE(it->second[0], std::optional(u100[static_cast<std::size_t>(h)]));
            QCOMPARE(it->second[1], std::optional(static_cast<float>(1.5 * h)));
        }
    }

    // A folder of site downloads: one dataset of points, one row per point and hour, each point at
    // its own location_id with its own values; a gridded file beside them is refused.
    void pointsOfAFolder() {
        const QString dir = path("sites");
        QVERIFY(QDir().mkpath(dir));
        const std::vector<std::pair<double, double>> points{{52.5, 13.25}, {48.75, 2.25}, {-33.75, 151.25}};
        std::map<QString, QString> texts;
        for (std::size_t p = 0; p < points.size(); ++p) {
            QString text = "valid_time,t2m,u10,latitude,longitude\n";
            for (int h = 0; h < 24; ++h) {
                text += QDateTime(QDate(2023, 12, 31), QTime(12, 0), Qt::UTC)
                            .addSecs(h * 3600)
                            .toString("yyyy-MM-dd HH:mm:ss") +
                        "," + QString::number(260.0 + 10.0 * static_cast<double>(p) + h * 0.5, 'g', 8) + "," +
                        QString::number(static_cast<double>(p) - h * 0.25, 'g', 8) + "," +
                        QString::number(points[p].first) + "," + QString::number(points[p].second) + "\n";
            }
            const QString file = dir + QString("/site-%1.csv").arg(p);
            writeText(file, text);
            texts[file] = text;
        }
        const CliRun run = runCli({"load", "--dsn", dsn(), "--table", "sites", dir});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        Connection conn = cluster_->connect();
        const auto rows = readRows(conn, "sites", {"temperature_2m", "zonal_wind_10m"}, nullptr);
        QCOMPARE(rows.size(), points.size() * 24);
        for (const auto& [file, text] : texts) {
            for (const CsvRow& e : readCsvText(text)) {
                const int id = test::gridLocationId(e.latitude, e.longitude, 0.25);
                const auto it = rows.find({e.micros, id});
                QVERIFY2(it != rows.end(), qPrintable(file));
                QCOMPARE(it->second[0], std::optional(converted(*e.values.at("t2m"), "K")));
                QCOMPARE(it->second[1], e.values.at("u10"));
            }
        }
        QCOMPARE(test::count(conn, "SELECT count(DISTINCT location_id) FROM sites"), std::uint64_t{3});
        const CliRun inspect = runCli({"inspect", dir});
        QVERIFY2(inspect.exitCode == 0, qPrintable(inspect.err));
        QVERIFY2(inspect.out.contains("rows:       72"), qPrintable(inspect.out));
        // Again: nothing more.
        const CliRun again = runCli({"load", "--dsn", dsn(), "--table", "sites", dir});
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QCOMPARE(test::count(conn, "SELECT count(*) FROM sites"), std::uint64_t{72});
        // A gridded file among them: refused, naming both kinds.
        const QString grid = dir + "/grid.nc";
        const CliRun synth = runCli({"synth", "--out", grid, "--hours", "2", "--region", "53,52,13,14"});
        QVERIFY2(synth.exitCode == 0, qPrintable(synth.err));
        const QString error = test::errorOf([&] { (void)Dataset::open({dir.toStdString()}); });
        QVERIFY2(error.contains("is a point series of the CDS time-series datasets and"), qPrintable(error));
        QVERIFY2(error.contains("grid.nc a gridded file"), qPrintable(error));
    }

    // Which product a CSV is, where nothing in it says: its own name, else the grid of its point
    // (52.5, 13.5 is on both: ERA5's first); never the folder it is in.
    void productOfASeries() {
        const QString text = "valid_time,t2m,latitude,longitude\n2024-01-01 00:00:00,271.5,52.5,13.5\n";
        const QString folder = path("era5-land-comparison");
        QVERIFY(QDir().mkpath(folder));
        writeText(folder + "/site.csv", text);
        writeText(path("reanalysis-era5-land-timeseries-sfc-2m-temperatureab12cd34.csv"), text);
        writeText(path("on-land-grid.csv"),
                  "valid_time,t2m,latitude,longitude\n2024-01-01 00:00:00,271.5,52.3,13.5\n");
        const Era5File byPoint = Era5File::open((folder + "/site.csv").toStdString());
        QVERIFY(!byPoint.era5Land());
        QCOMPARE(byPoint.grid().spacing(), 0.25);
        QVERIFY2(test::anyLineContains(byPoint.notes(), {"is on ERA5's 0.25 degree grid"}),
                 qPrintable(test::joinLines(byPoint.notes())));
        const Era5File byName = Era5File::open(
            path("reanalysis-era5-land-timeseries-sfc-2m-temperatureab12cd34.csv").toStdString());
        QVERIFY(byName.era5Land());
        QCOMPARE(byName.grid().spacing(), 0.1);
        QVERIFY2(test::anyLineContains(byName.notes(), {"its name says ERA5-Land"}),
                 qPrintable(test::joinLines(byName.notes())));
        const Era5File byLandGrid = Era5File::open(path("on-land-grid.csv").toStdString());
        QVERIFY(byLandGrid.era5Land());
        QCOMPARE(byLandGrid.grid().spacing(), 0.1);
    }

    // A CSV that is not one of the CDS's: refused, naming the line and what is wrong.
    void badCsvIsRefused_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        const QString row = "2024-01-01 00:00:00,280.5,52.5,13.25\n";
        QTest::newRow("another header")
            << "time,t2m,latitude,longitude\n" + row
            << "nor a CSV of the CDS time-series datasets: its first line is 'time,t2m,latitude,longitude'";
        QTest::newRow("no longitude") << "valid_time,t2m,latitude\n2024-01-01 00:00:00,280.5,52.5\n"
                                      << "line 1: the header has no longitude column";
        QTest::newRow("bad time") << "valid_time,t2m,latitude,longitude\n" + row +
                                         "2024-01-01 01:00,281,52.5,13.25\n"
                                  << "line 3: valid_time '2024-01-01 01:00' is not a time";
        QTest::newRow("no such day")
            << "valid_time,t2m,latitude,longitude\n2023-02-29 00:00:00,280,52.5,13.25\n"
            << "line 2: valid_time '2023-02-29 00:00:00' is not a time";
        QTest::newRow("bad number")
            << "valid_time,t2m,latitude,longitude\n2024-01-01 00:00:00,warm,52.5,13.25\n"
            << "line 2: t2m 'warm' is not a number";
        QTest::newRow("short row") << "valid_time,t2m,latitude,longitude\n" + row +
                                          "2024-01-01 01:00:00,281\n"
                                   << "line 3: the row has 2 fields, the header 4";
        QTest::newRow("time twice") << "valid_time,t2m,latitude,longitude\n" + row + row
                                    << "line 3: valid_time 2024-01-01 00:00:00 is not after the row before";
        QTest::newRow("two points") << "valid_time,t2m,latitude,longitude\n" + row +
                                           "2024-01-01 01:00:00,280.5,52.75,13.25\n"
                                    << "line 3: the point (52.75, 13.25) differs from the first row's";
        QTest::newRow("unknown variable")
            << "valid_time,xyzzy,latitude,longitude\n2024-01-01 00:00:00,1,52.5,13.25\n"
            << "column xyzzy of the header is not a parameter";
        QTest::newRow("no rows") << "valid_time,t2m,latitude,longitude\n"
                                 << "line 1: the header is followed by no rows";
    }
    void badCsvIsRefused() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        const QString file = path("bad.csv");
        writeText(file, text);
        const QString error = test::errorOf([&] { (void)Dataset::open({file.toStdString()}); });
        QVERIFY2(error.contains(file), qPrintable(error));
        QVERIFY2(error.contains(message), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestSeries)
#include "tst_series.moc"
