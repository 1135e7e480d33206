// SPDX-License-Identifier: GPL-3.0-or-later

// Every ERA5 variable in a column of its own (issue 11): a 12-variable surface file, packed and
// float, with a variable the catalog does not know, into a new table and into the seed's; ERA5-Land
// accumulations beyond tp and sf; --variables by any name a variable goes by. Every column of every
// row is compared with values worked out here from what the test wrote, and the columns say what they
// hold (COMMENT ON COLUMN, isobar.table_columns).

#include "GribFixtures.h"
#include "TestCluster.h"
#include "TestUtil.h"
#include "VariableFixtures.h"
#include "db/Connection.h"
#include "era5/Dataset.h"
#include "ingest/Loader.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

using namespace isobar;
using test::ColumnExpectation;
using test::columnNamesOf;
using test::ColumnRow;
using test::ColumnRows;
using test::compareColumnRows;
using test::expectedColumnRows;
using test::FixtureSpec;
using test::fixtureVariable;
using test::kelvinToCelsius;
using test::metresToMillimetres;
using test::readColumnRows;
using test::twelveVariableFile;

namespace {

constexpr qint64 kHour = test::kMicrosPerHour;

// The column and the conversion of each of twelveVariableFile's variables (built on first use: a
// map at namespace scope could throw before main, cert-err58-cpp).
const std::map<std::string, ColumnExpectation>& twelveColumns() {
    static const std::map<std::string, ColumnExpectation> columns{
        {"t2m", {"temperature_2m", kelvinToCelsius}},
        {"u10", {"zonal_wind_10m"}},
        {"d2m", {"d2m", kelvinToCelsius}},
        {"sp", {"sp"}},
        {"msl", {"msl"}},
        {"ssrd", {"ssrd"}},
        {"u100", {"u100"}},
        {"swvl1", {"swvl1"}},
        {"e", {"e", metresToMillimetres}},
        {"blh", {"blh"}}, // m, but not of water
        {"tcwv", {"tcwv"}},
        {"wind_power_index", {"wind_power_index"}},
    };
    return columns;
}

} // namespace

class TestVariableColumns : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }
    void cleanupTestCase() { cluster_.reset(); }

    void twelveVariables_data() {
        QTest::addColumn<bool>("packed");
        QTest::newRow("legacy CDS, int16 packed") << true;
        QTest::newRow("CDS 2024, float32") << false;
    }

    // Every variable into its own column, the seed's first under the seed's names, the others by
    // short name; K to degC and m of water to mm by the parameter (blh, in m, stays in m); the
    // unknown variable as stored. Every column of every row checked.
    void twelveVariables() {
        QFETCH(bool, packed);
        const FixtureSpec spec = twelveVariableFile(packed);
        const QString file = cluster_->workDir() + (packed ? "/twelve-packed.nc" : "/twelve-float.nc");
        test::writeFixture(file, spec);
        const std::string table = packed ? "twelve_packed" : "twelve_float";
        const LoadSummary s = test::loadFiles(*cluster_, {file}, table);
        QVERIFY2(s.status == LoadStatus::Completed, s.error ? s.error->message.c_str() : "");
        Connection conn = cluster_->connect();
        QCOMPARE(QString::fromStdString(columnNamesOf(conn, table)),
                 QString("time,location_id,latitude,longitude,temperature_2m,zonal_wind_10m,d2m,tcwv,sp,msl,"
                         "u100,blh,e,swvl1,ssrd,wind_power_index"));
        QCOMPARE(
            test::scalar(conn, "SELECT string_agg(format_type(atttypid, atttypmod), ',') FROM pg_attribute "
                               "WHERE attrelid = '" +
                                   table + "'::regclass AND attnum > 4"),
            QString("real,real,real,real,real,real,real,real,real,real,real,real"));
        const std::vector<qint64> micros{test::pgMicros(2024, 3, 1, 6), test::pgMicros(2024, 3, 1, 7)};
        const QString diff =
            compareColumnRows(readColumnRows(conn, table), expectedColumnRows(spec, micros, twelveColumns()));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));

        // What each column holds, where users look: \d+ (COMMENT ON COLUMN) and isobar.table_columns.
        const auto comment = [&](const char* column) {
            return test::scalar(conn, "SELECT col_description('" + table +
                                          "'::regclass, (SELECT attnum FROM "
                                          "pg_attribute WHERE attrelid = '" +
                                          table + "'::regclass AND attname = '" + column + "'))");
        };
        VERIFY_MESSAGE(comment("d2m"), "2 metre dewpoint temperature", "ERA5 d2m", "paramId 168",
                       "units degC", "K -> degC");
        VERIFY_MESSAGE(comment("e"), "Evaporation", "paramId 182", "units mm", "m -> mm");
        VERIFY_MESSAGE(comment("blh"), "Boundary layer height", "paramId 159", "units m");
        QVERIFY2(!comment("blh").contains("converted"), qPrintable(comment("blh")));
        // The name is ECMWF's, as ecCodes' own API gives it (the CDS's files say "Surface solar
        // radiation downwards").
        const test::EcmwfOracle ssrd = test::ecmwfOracle(169);
        QVERIFY(!ssrd.name.empty());
        VERIFY_MESSAGE(comment("ssrd"), QString::fromStdString(ssrd.name), "accumulated",
                       QString::fromStdString("units " + ssrd.units));
        VERIFY_MESSAGE(comment("wind_power_index"), "Local wind power index",
                       "not in ECMWF's parameter database", "units 1");
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM isobar.table_columns WHERE relid = '" + table +
                                        "'::regclass"),
                 QString("12"));
        QCOMPARE(test::scalar(conn, "SELECT format('%s|%s|%s|%s|%s|%s', position, variable, param_id, units, "
                                    "conversion, in_catalog) FROM isobar.table_columns WHERE relid = '" +
                                        table + "'::regclass AND column_name = 'd2m'"),
                 QString("3|d2m|168|degC|K -> degC (x - 273.15)|t"));
        QCOMPARE(test::scalar(conn, "SELECT format('%s|%s|%s|%s', variable, coalesce(param_id::text, '-'), "
                                    "units, in_catalog) FROM isobar.table_columns WHERE relid = '" +
                                        table + "'::regclass AND column_name = 'wind_power_index'"),
                 QString("wind_power_index|-|1|f"));
    }

    // Into an existing table the default is the table's variables: a 12-variable file into the
    // seed's six columns loads those, lists the others as left out; a file lacking some gets NULLs.
    void existingTableKeepsItsVariables() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE seed_shaped (time timestamptz NOT NULL, location_id int, latitude real, "
                  "longitude real, temperature_2m real, zonal_wind_10m real, meridional_wind_10m real, "
                  "total_cloud_cover real, total_precipitation real, snowfall real)");
        const FixtureSpec spec = twelveVariableFile(true);
        const QString file = cluster_->workDir() + "/twelve-into-seed.nc";
        test::writeFixture(file, spec);
        test::RecordingSink sink;
        const LoadSummary s = test::loadFiles(*cluster_, {file}, "seed_shaped", {}, &sink);
        QVERIFY2(s.status == LoadStatus::Completed, s.error ? s.error->message.c_str() : "");
        QVERIFY2(
            test::anyLineContains(sink.notes, {"left out of these files: d2m, tcwv, sp, msl, u100, blh, e, "
                                               "swvl1, ssrd, wind_power_index"}),
            qPrintable(test::joinLines(sink.notes)));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM seed_shaped"), QString("40"));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM seed_shaped WHERE temperature_2m IS NULL OR "
                                    "zonal_wind_10m IS NULL"),
                 QString("0"));
        QCOMPARE(test::scalar(conn,
                              "SELECT count(*) FROM seed_shaped WHERE meridional_wind_10m IS NOT NULL OR "
                              "total_cloud_cover IS NOT NULL OR total_precipitation IS NOT NULL OR snowfall "
                              "IS NOT NULL"),
                 QString("0"));
        // The record now describes the table: its six columns.
        QCOMPARE(test::scalar(conn,
                              "SELECT string_agg(variable, ',' ORDER BY position) FROM isobar.table_columns "
                              "WHERE relid = 'seed_shaped'::regclass"),
                 QString("t2m,u10,v10,tcc,tp,sf"));
    }

    // ERA5-Land accumulates every accumulated parameter from 00 UTC: ssrd and e (not only tp)
    // become hourly amounts (01 UTC as it is, later hours the difference); evaporation keeps its
    // negative sign; t2m is instantaneous.
    void era5LandAccumulations() {
        std::vector<qint64> micros;
        micros.reserve(4);
        for (int h = 0; h < 4; ++h) {
            micros.push_back(test::pgMicros(2024, 6, 2, 0) + h * kHour); // 00 .. 03 UTC
        }
        FixtureSpec spec = test::cds2024Fixture({45.2, 45.1}, {7.0, 7.1, 7.2}, micros);
        spec.coordType = NC_DOUBLE;
        spec.globalText = {{"history", "ERA5-Land hourly data (reanalysis-era5-land)"}};
        // Accumulated since 00 UTC: hour h of the day holds the sum of hours 1..h (00 UTC: all 24).
        const auto accumulated = [&micros](double perHour) {
            return [&micros, perHour](std::size_t t, std::size_t, std::size_t r, std::size_t c) {
                const auto hour = static_cast<double>(((micros[t] / kHour) % 24 + 24) % 24);
                return perHour * (1.0 + 0.1 * static_cast<double>(r + c)) * (hour == 0 ? 24.0 : hour);
            };
        };
        spec.variables = {
            fixtureVariable("t2m", "K", "2 metre temperature",
                            [](std::size_t t, std::size_t, std::size_t r, std::size_t) {
                                return 290.0 + static_cast<double>(t) + 0.5 * static_cast<double>(r);
                            }),
            fixtureVariable("ssrd", "J m**-2", "Surface solar radiation downwards", accumulated(250000.0)),
            fixtureVariable("e", "m of water equivalent", "Evaporation", accumulated(-0.0001)),
        };
        for (auto& v : spec.variables) {
            v.type = NC_FLOAT;
            v.fillValue = std::nan("");
        }
        const QString file = cluster_->workDir() + "/land-accumulations.nc";
        test::writeFixture(file, spec);
        const LoadSummary s = test::loadFiles(*cluster_, {file}, "land_acc");
        QVERIFY2(s.status == LoadStatus::Completed, s.error ? s.error->message.c_str() : "");
        Connection conn = cluster_->connect();
        QCOMPARE(QString::fromStdString(columnNamesOf(conn, "land_acc")),
                 QString("time,location_id,latitude,longitude,temperature_2m,e,ssrd"));
        // Expected, worked out here: 00 UTC has no 23 UTC before it (NULL); 01 UTC as stored; 02 and
        // 03 UTC one hour's amount.
        ColumnRows expected;
        for (std::size_t t = 0; t < micros.size(); ++t) {
            for (std::size_t r = 0; r < 2; ++r) {
                for (std::size_t c = 0; c < 3; ++c) {
                    ColumnRow& row = expected[{
                        micros[t], -1, test::gridLocationId(spec.latitudes[r], spec.longitudes[c], 0.1)}];
                    row["latitude"] = static_cast<float>(spec.latitudes[r]);
                    row["longitude"] = static_cast<float>(spec.longitudes[c]);
                    row["temperature_2m"] = static_cast<float>(
                        static_cast<double>(static_cast<float>(290.0 + static_cast<double>(t) +
                                                               0.5 * static_cast<double>(r))) -
                        273.15);
                    const double weight = 1.0 + 0.1 * static_cast<double>(r + c);
                    const auto hourly = [&](double perHour, double factor) -> std::optional<float> {
                        if (t == 0) {
                            return std::nullopt;
                        }
                        const double now = static_cast<float>(perHour * weight * static_cast<double>(t));
                        const double before =
                            t == 1 ? 0.0 : static_cast<float>(perHour * weight * static_cast<double>(t - 1));
                        return static_cast<float>(t == 1 ? now * factor : now * factor - before * factor);
                    };
                    row["ssrd"] = hourly(250000.0, 1.0);
                    row["e"] = hourly(-0.0001, 1000.0);
                }
            }
        }
        // Differences in float4 of converted values: compare within a float's rounding.
        const auto actual = readColumnRows(conn, "land_acc");
        QCOMPARE(actual.size(), expected.size());
        for (const auto& [key, row] : expected) {
            const ColumnRow& a = actual.at(key);
            for (const auto& [column, value] : row) {
                QVERIFY2(a.at(column).has_value() == value.has_value(), column.c_str());
                if (value) {
                    const double tolerance = 1e-5 * std::max(1.0, std::fabs(static_cast<double>(*value)));
                    QVERIFY2(std::fabs(static_cast<double>(*a.at(column) - *value)) <= tolerance,
                             qPrintable(QString("%1: %2, expected %3")
                                            .arg(column.c_str())
                                            .arg(*a.at(column))
                                            .arg(*value)));
                }
            }
        }
        // Evaporation stays negative (no clamping at zero as for precipitation).
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM land_acc WHERE e < 0"), QString("18"));
    }

    // --variables by any name a variable goes by: short name, NetCDF name, long name, GRIB paramId.
    void variablesByAnyName() {
        const FixtureSpec spec = twelveVariableFile(false);
        const QString file = cluster_->workDir() + "/twelve-names.nc";
        test::writeFixture(file, spec);
        Dataset d = Dataset::open({file.toStdString()});
        const auto keysOf = [&d](const std::vector<std::string>& names) {
            QStringList out;
            for (std::size_t v : d.match(names)) {
                out << QString::fromStdString(d.variables()[v].key);
            }
            return out.join(',');
        };
        QCOMPARE(keysOf({"d2m", "2 metre dewpoint temperature", "169", "100u", "WIND_POWER_INDEX"}),
                 QString("d2m,ssrd,u100,wind_power_index"));
        QCOMPARE(keysOf({"temperature_2m", "2t", "t2m"}), QString("t2m"));
        VERIFY_MESSAGE(test::errorOf([&] {
                           (void)d.match({"d2m", "swh", "167000"});
                       }),
                       "not in these files", "'swh'", "'167000'", "they have t2m, u10, d2m");
    }

private:
    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestVariableColumns)
#include "tst_variable_columns.moc"
