// Every ERA5 variable and pressure levels (issue 11): a 12-variable surface file, packed and
// float, with a variable the catalog does not know; ERA5-Land accumulations beyond tp and sf;
// pressure-level files in the legacy and the 2024 CDS layouts. Every column of every row is compared
// with values worked out here from what the test wrote, and the columns say what they hold
// (COMMENT ON COLUMN, isobar.table_columns). Then what is refused, and why.

#include "Fixtures.h"
#include "GribFixtures.h"
#include "TestCluster.h"
#include "TestUtil.h"
#include "db/Connection.h"
#include "era5/Dataset.h"
#include "era5/Era5File.h"
#include "ingest/Loader.h"

#include <QtTest>

#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

using namespace isobar;
using test::FixtureSpec;
using test::FixtureVariable;

namespace {

constexpr qint64 kHour = test::kMicrosPerHour;

// What one variable of a fixture becomes in the table: its column and the conversion from the
// units written (worked out here, not asked of Isobar).
struct Expect {
    std::string column;
    std::function<double(double)> convert = [](double x) {
        return x;
    };
};

const auto kToCelsius = [](double k) {
    return k - 273.15;
};
const auto kToMillimetres = [](double m) {
    return m * 1000.0;
};

// A variable of a fixture: name, units, long name, values from a formula of (step, level, row, col).
FixtureVariable variable(const std::string& name, const std::string& units, const std::string& longName,
                         std::function<double(std::size_t, std::size_t, std::size_t, std::size_t)> value) {
    FixtureVariable v;
    v.name = name;
    v.units = units;
    v.longName = longName;
    v.value = std::move(value);
    return v;
}

// Packs a variable into int16 over [lo, hi] as grib_to_netcdf does; the formula is the physical
// value, the stored one is its packed integer.
void pack(FixtureVariable& v, double lo, double hi) {
    const double scale = (hi - lo) / 65532.0;
    const double offset = lo + 32766.0 * scale;
    v.type = NC_SHORT;
    v.scaleFactor = scale;
    v.addOffset = offset;
    v.fillValue = -32767;
    v.missingValue = -32767;
    auto physical = v.value;
    v.value = [physical, scale, offset](std::size_t t, std::size_t l, std::size_t r, std::size_t c) {
        return std::round((physical(t, l, r, c) - offset) / scale);
    };
}

// A row of a weather table: values by column, NULL as nullopt.
using Row = std::map<std::string, std::optional<float>>;
// (time in microseconds since 2000, pressure level in thousandths of a hPa or -1, location_id).
using Key = std::tuple<qint64, qint64, int>;

// The rows a fixture must become: per step, level and point, each variable through its
// expectation (stored * scale + offset, then the conversion), as float4.
std::map<Key, Row> expectedRows(const FixtureSpec& spec, const std::vector<qint64>& stepMicros,
                                const std::map<std::string, Expect>& expect) {
    std::map<Key, Row> rows;
    const std::size_t levels = std::max<std::size_t>(spec.levels.size(), 1);
    for (std::size_t t = 0; t < stepMicros.size(); ++t) {
        for (std::size_t l = 0; l < levels; ++l) {
            for (std::size_t r = 0; r < spec.latitudes.size(); ++r) {
                for (std::size_t c = 0; c < spec.longitudes.size(); ++c) {
                    const qint64 level = spec.levels.empty() ? -1 : std::llround(spec.levels[l] * 1000.0);
                    Row& row = rows[{stepMicros[t], level,
                                     test::gridLocationId(spec.latitudes[r], spec.longitudes[c])}];
                    row["latitude"] = test::tableLatitude(spec, spec.latitudes[r]);
                    row["longitude"] = test::tableLongitude(spec, spec.longitudes[c]);
                    for (const FixtureVariable& v : spec.variables) {
                        const Expect& e = expect.at(v.name);
                        const double stored = test::storedAs(v.type, v.value(t, l, r, c));
                        if (std::isnan(stored) || (v.fillValue && stored == *v.fillValue)) {
                            row[e.column] = std::nullopt;
                            continue;
                        }
                        const double unpacked =
                            stored * v.scaleFactor.value_or(1.0) + v.addOffset.value_or(0.0);
                        row[e.column] = static_cast<float>(e.convert(unpacked));
                    }
                }
            }
        }
    }
    return rows;
}

// Every row of `table`, every column of it but time, location_id and pressure_level by name.
std::map<Key, Row> readRows(Connection& conn, const std::string& table) {
    const Result cols =
        conn.query("SELECT attname FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 "
                   "AND NOT attisdropped ORDER BY attnum",
                   {table});
    std::vector<std::string> values;
    bool levels = false;
    for (int i = 0; i < cols.rows(); ++i) {
        const std::string name = cols.text(i, 0);
        levels = levels || name == "pressure_level";
        if (name != "time" && name != "location_id" && name != "pressure_level") {
            values.push_back(name);
        }
    }
    std::string sql = "SELECT (extract(epoch FROM time - '2000-01-01 00:00:00+00') * 1000000)::bigint, " +
                      std::string(levels ? "(pressure_level * 1000)::bigint" : "-1") + ", location_id";
    for (const auto& v : values) {
        sql += ", " + v;
    }
    const Result r = conn.query(sql + " FROM " + table);
    std::map<Key, Row> rows;
    for (int i = 0; i < r.rows(); ++i) {
        const Key key{std::stoll(r.text(i, 0)), std::stoll(r.text(i, 1)), std::stoi(r.text(i, 2))};
        if (rows.count(key) > 0) {
            throw std::runtime_error(table + " holds two rows for one (time, level, location)");
        }
        Row& row = rows[key];
        for (std::size_t v = 0; v < values.size(); ++v) {
            const int c = static_cast<int>(3 + v);
            row[values[v]] = r.isNull(i, c)
                                 ? std::nullopt
                                 : std::optional<float>(std::strtof(r.text(i, c).c_str(), nullptr));
        }
    }
    return rows;
}

// Empty when equal; else the first differences.
QString compare(const std::map<Key, Row>& actual, const std::map<Key, Row>& expected) {
    QString out;
    int shown = 0;
    if (actual.size() != expected.size()) {
        out += QString("%1 rows, expected %2\n").arg(actual.size()).arg(expected.size());
    }
    for (const auto& [key, row] : expected) {
        const auto it = actual.find(key);
        const auto [micros, level, id] = key;
        const QString where = QString("time %1 level %2 id %3").arg(micros).arg(level).arg(id);
        if (it == actual.end()) {
            out += where + ": missing\n";
        } else if (it->second != row) {
            for (const auto& [column, value] : row) {
                const auto a = it->second.find(column);
                if (a == it->second.end() || a->second != value) {
                    out += where + " " + QString::fromStdString(column) + ": " +
                           (a == it->second.end() ? QString("no such column")
                            : a->second           ? QString::number(*a->second, 'g', 9)
                                                  : QString("NULL")) +
                           ", expected " + (value ? QString::number(*value, 'g', 9) : QString("NULL")) + "\n";
                }
            }
            if (it->second.size() != row.size()) {
                out += where + QString(": %1 columns, expected %2\n").arg(it->second.size()).arg(row.size());
            }
        }
        if (!out.isEmpty() && ++shown > 8) {
            break;
        }
    }
    return out;
}

std::string columnsOf(Connection& conn, const std::string& table) {
    return test::scalar(
               conn, "SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_attribute WHERE attrelid = '" +
                         table + "'::regclass AND attnum > 0 AND NOT attisdropped")
        .toStdString();
}

// Twelve variables of a surface download (the seed's t2m and u10, humidity, pressure, radiation,
// 100 m wind, soil water, evaporation, boundary layer height, column water vapour) and one the
// catalog does not know.
FixtureSpec twelveVariableFile(bool packed) {
    const std::vector<qint64> micros{test::pgMicros(2024, 3, 1, 6), test::pgMicros(2024, 3, 1, 7)};
    FixtureSpec spec =
        test::cds2024Fixture(test::range(50.0, 49.25, 0.25), test::range(5.0, 6.0, 0.25), micros);
    if (packed) {
        spec = FixtureSpec{};
        spec.latitudes = test::range(50.0, 49.25, 0.25);
        spec.longitudes = test::range(5.0, 6.0, 0.25);
        spec.times = test::timesSince(micros, test::pgMicros(1900, 1, 1), kHour);
    }
    const auto f = [](double base, double amp) {
        return [base, amp](std::size_t t, std::size_t, std::size_t r, std::size_t c) {
            return base + amp * (0.3 * static_cast<double>(t) + 0.17 * static_cast<double>(r) -
                                 0.11 * static_cast<double>(c) + 0.05 * static_cast<double>(r * c % 3));
        };
    };
    spec.variables = {
        variable("t2m", "K", "2 metre temperature", f(280.0, 3.0)),
        variable("u10", "m s**-1", "10 metre U wind component", f(-2.0, 4.0)),
        variable("d2m", "K", "2 metre dewpoint temperature", f(275.0, 2.0)),
        variable("sp", "Pa", "Surface pressure", f(98000.0, 300.0)),
        variable("msl", "Pa", "Mean sea level pressure", f(101300.0, 250.0)),
        variable("ssrd", "J m**-2", "Surface solar radiation downwards", f(900000.0, 200000.0)),
        variable("u100", "m s**-1", "100 metre U wind component", f(3.0, 5.0)),
        variable("swvl1", "m**3 m**-3", "Volumetric soil water layer 1", f(0.3, 0.05)),
        variable("e", "m of water equivalent", "Evaporation", f(-0.0002, 0.0001)),
        variable("blh", "m", "Boundary layer height", f(800.0, 150.0)),
        variable("tcwv", "kg m**-2", "Total column water vapour", f(15.0, 3.0)),
        variable("wind_power_index", "1", "Local wind power index (a user's own field)", f(0.5, 0.1)),
    };
    const std::map<std::string, std::pair<double, double>> ranges{
        {"t2m", {220, 330}},      {"u10", {-40, 40}},  {"d2m", {220, 320}}, {"sp", {50000, 105000}},
        {"msl", {94000, 106000}}, {"ssrd", {0, 4e6}},  {"u100", {-50, 50}}, {"swvl1", {0, 0.8}},
        {"e", {-0.002, 0.001}},   {"blh", {10, 5000}}, {"tcwv", {0, 80}},   {"wind_power_index", {0, 1}},
    };
    for (auto& v : spec.variables) {
        if (packed) {
            pack(v, ranges.at(v.name).first, ranges.at(v.name).second);
        } else {
            v.type = NC_FLOAT;
            v.fillValue = std::nan("");
        }
    }
    return spec;
}

const std::map<std::string, Expect> kTwelve{
    {"t2m", {"temperature_2m", kToCelsius}},
    {"u10", {"zonal_wind_10m"}},
    {"d2m", {"d2m", kToCelsius}},
    {"sp", {"sp"}},
    {"msl", {"msl"}},
    {"ssrd", {"ssrd"}},
    {"u100", {"u100"}},
    {"swvl1", {"swvl1"}},
    {"e", {"e", kToMillimetres}},
    {"blh", {"blh"}}, // m, but not of water
    {"tcwv", {"tcwv"}},
    {"wind_power_index", {"wind_power_index"}},
};

// A pressure-level file in the legacy CDS layout (level in millibars, int16 packed) or the 2024 one
// (pressure_level in hPa, descending, float32).
FixtureSpec pressureLevelFile(bool legacy, const std::vector<qint64>& micros) {
    FixtureSpec spec = test::cds2024Fixture(test::range(45.0, 44.5, 0.25), {-1.0, -0.75, -0.5}, micros);
    if (legacy) {
        spec = FixtureSpec{};
        spec.latitudes = test::range(45.0, 44.5, 0.25);
        spec.longitudes = {-1.0, -0.75, -0.5};
        spec.levels = {500, 850, 1000};
        spec.levelName = "level";
        spec.levelType = NC_INT;
        spec.levelText = {{"units", "millibars"}, {"long_name", "pressure_level"}};
        spec.times = test::timesSince(micros, test::pgMicros(1900, 1, 1), kHour);
    } else {
        spec.levels = {1000, 850, 500};
        spec.levelName = "pressure_level";
        spec.levelType = NC_DOUBLE;
        spec.levelText = {{"units", "hPa"}, {"long_name", "pressure"}, {"standard_name", "air_pressure"}};
    }
    spec.dimOrder = {"time", "level", "lat", "lon"};
    const auto byLevel = [&spec](double surface, double perHpa, double amp) {
        const std::vector<double> levels = spec.levels;
        return [=](std::size_t t, std::size_t l, std::size_t r, std::size_t c) {
            return surface - perHpa * (1000.0 - levels[l]) +
                   amp * (0.2 * static_cast<double>(t) + 0.3 * static_cast<double>(r) -
                          0.1 * static_cast<double>(c));
        };
    };
    spec.variables = {
        variable("t", "K", "Temperature", byLevel(288.0, 0.13, 1.0)),
        variable("z", "m**2 s**-2", "Geopotential", byLevel(1000.0, -110.0, 20.0)),
        variable("q", "kg kg**-1", "Specific humidity", byLevel(0.008, 0.000012, 0.0003)),
        variable("r", "%", "Relative humidity", byLevel(80.0, 0.05, 2.0)),
    };
    const std::map<std::string, std::pair<double, double>> ranges{
        {"t", {180, 320}}, {"z", {-5000, 500000}}, {"q", {0, 0.03}}, {"r", {0, 110}}};
    for (auto& v : spec.variables) {
        if (legacy) {
            pack(v, ranges.at(v.name).first, ranges.at(v.name).second);
        } else {
            v.type = NC_FLOAT;
            v.fillValue = std::nan("");
        }
    }
    return spec;
}

const std::map<std::string, Expect> kLevels{
    {"t", {"t", kToCelsius}}, {"z", {"z"}}, {"q", {"q"}}, {"r", {"r"}}, // r stays in %
};

} // namespace

class TestVariables : public QObject {
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
        QCOMPARE(QString::fromStdString(columnsOf(conn, table)),
                 QString("time,location_id,latitude,longitude,temperature_2m,zonal_wind_10m,d2m,tcwv,sp,msl,"
                         "u100,blh,e,swvl1,ssrd,wind_power_index"));
        QCOMPARE(
            test::scalar(conn, "SELECT string_agg(format_type(atttypid, atttypmod), ',') FROM pg_attribute "
                               "WHERE attrelid = '" +
                                   table + "'::regclass AND attnum > 4"),
            QString("real,real,real,real,real,real,real,real,real,real,real,real"));
        const std::vector<qint64> micros{test::pgMicros(2024, 3, 1, 6), test::pgMicros(2024, 3, 1, 7)};
        const QString diff = compare(readRows(conn, table), expectedRows(spec, micros, kTwelve));
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
            variable("t2m", "K", "2 metre temperature",
                     [](std::size_t t, std::size_t, std::size_t r, std::size_t) {
                         return 290.0 + static_cast<double>(t) + 0.5 * static_cast<double>(r);
                     }),
            variable("ssrd", "J m**-2", "Surface solar radiation downwards", accumulated(250000.0)),
            variable("e", "m of water equivalent", "Evaporation", accumulated(-0.0001)),
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
        QCOMPARE(QString::fromStdString(columnsOf(conn, "land_acc")),
                 QString("time,location_id,latitude,longitude,temperature_2m,e,ssrd"));
        // Expected, worked out here: 00 UTC has no 23 UTC before it (NULL); 01 UTC as stored; 02 and
        // 03 UTC one hour's amount.
        std::map<Key, Row> expected;
        for (std::size_t t = 0; t < micros.size(); ++t) {
            for (std::size_t r = 0; r < 2; ++r) {
                for (std::size_t c = 0; c < 3; ++c) {
                    Row& row = expected[{micros[t], -1,
                                         test::gridLocationId(spec.latitudes[r], spec.longitudes[c], 0.1)}];
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
        const auto actual = readRows(conn, "land_acc");
        QCOMPARE(actual.size(), expected.size());
        for (const auto& [key, row] : expected) {
            const Row& a = actual.at(key);
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

    void pressureLevels_data() {
        QTest::addColumn<bool>("legacy");
        QTest::newRow("legacy CDS: level in millibars, int16") << true;
        QTest::newRow("CDS 2024: pressure_level in hPa, float32") << false;
    }

    // A pressure-level table: pressure_level (hPa) right after time, one row per (time, level,
    // point); t in degC, z, q and r as stored; every unit of the ledger at one level.
    void pressureLevels() {
        QFETCH(bool, legacy);
        const std::vector<qint64> micros{test::pgMicros(2023, 7, 1, 0), test::pgMicros(2023, 7, 1, 1)};
        const FixtureSpec spec = pressureLevelFile(legacy, micros);
        const QString file = cluster_->workDir() + (legacy ? "/pl-legacy.nc" : "/pl-2024.nc");
        test::writeFixture(file, spec);
        const Era5File f = Era5File::open(file.toStdString());
        QCOMPARE(f.vertical(), Vertical::PressureLevels);
        QCOMPARE(f.levels(), spec.levels);
        const std::string table = legacy ? "pl_legacy" : "pl_2024";
        const LoadSummary s = test::loadFiles(*cluster_, {file}, table);
        QVERIFY2(s.status == LoadStatus::Completed, s.error ? s.error->message.c_str() : "");
        QCOMPARE(s.rows, std::uint64_t{2 * 3 * 3 * 3});
        Connection conn = cluster_->connect();
        QCOMPARE(QString::fromStdString(columnsOf(conn, table)),
                 QString("time,pressure_level,location_id,latitude,longitude,z,t,q,r"));
        QCOMPARE(test::scalar(
                     conn, "SELECT format_type(atttypid, atttypmod) || ' ' || attnotnull FROM pg_attribute "
                           "WHERE attrelid = '" +
                               table + "'::regclass AND attname = 'pressure_level'"),
                 QString("real true"));
        const QString diff = compare(readRows(conn, table), expectedRows(spec, micros, kLevels));
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
        QCOMPARE(test::scalar(conn, "SELECT vertical FROM isobar.table_grid WHERE relid = '" + table +
                                        "'::regclass"),
                 QString("pressure levels"));
        // Units never span two levels: each ledger key names its level, and so does its record.
        QCOMPARE(test::scalar(conn, "SELECT count(DISTINCT substring(unit_key from ' ([0-9]+) hPa ')) FROM "
                                    "isobar.ledger WHERE relid = '" +
                                        table + "'::regclass"),
                 QString("3"));
        QCOMPARE(
            test::scalar(conn, "SELECT count(*) FROM isobar.ledger WHERE relid = '" + table +
                                   "'::regclass AND (unit_key NOT LIKE '% hPa lat %' OR level IS NULL OR "
                                   "unit_key NOT LIKE '% ' || level || ' hPa %')"),
            QString("0"));
        VERIFY_MESSAGE(test::scalar(conn, "SELECT col_description('" + table + "'::regclass, 2)"), "hPa");

        // Loading again resumes: nothing twice.
        const LoadSummary again = test::loadFiles(*cluster_, {file}, table);
        QVERIFY(again.status == LoadStatus::Completed);
        QCOMPARE(again.rows, std::uint64_t{0});
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM " + table), QString("54"));

        // A surface file into the pressure-level table: refused, naming both.
        const QString surface = cluster_->workDir() + "/surface-for-pl.nc";
        test::writeFixture(surface, test::classicFixture({45.0}, {-1.0}, 1, 0));
        const LoadSummary mixed = test::loadFiles(*cluster_, {surface}, table);
        QVERIFY(mixed.status == LoadStatus::Failed);
        VERIFY_MESSAGE(QString::fromStdString(mixed.error->message), table.c_str(), "pressure levels",
                       "surface", "another table");
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM " + table), QString("54"));
    }

    // Surface and pressure-level files in one load, a pressure-level file into a surface table,
    // model levels, ensemble members, two file variables for one column, units that do not fit
    // the parameter: each refused with what it is and why, nothing loaded.
    void refusals() {
        Connection conn = cluster_->connect();
        const std::vector<qint64> micros{test::pgMicros(2023, 7, 1, 0)};
        const QString levels = cluster_->workDir() + "/refuse-levels.nc";
        test::writeFixture(levels, pressureLevelFile(true, micros));
        const QString surface = cluster_->workDir() + "/refuse-surface.nc";
        test::writeFixture(surface, test::classicFixture({45.0}, {-1.0}, 1, 0));

        LoadSummary s = test::loadFiles(*cluster_, {surface, levels}, "refused_mix");
        QVERIFY(s.status == LoadStatus::Failed);
        VERIFY_MESSAGE(QString::fromStdString(s.error->message), "different levels", "refuse-surface.nc",
                       "refuse-levels.nc", "pressure levels");
        QCOMPARE(test::scalar(conn, "SELECT to_regclass('refused_mix') IS NULL"), QString("t"));

        s = test::loadFiles(*cluster_, {surface}, "surface_only");
        QVERIFY(s.status == LoadStatus::Completed);
        s = test::loadFiles(*cluster_, {levels}, "surface_only");
        QVERIFY(s.status == LoadStatus::Failed);
        VERIFY_MESSAGE(QString::fromStdString(s.error->message), "surface_only", "holds surface data",
                       "pressure levels");

        // Model levels: a level dimension that is not pressure.
        FixtureSpec model = pressureLevelFile(true, micros);
        model.levels = {1, 2, 3};
        model.levelText = {{"long_name", "model_level_number"}, {"units", "1"}};
        const QString modelFile = cluster_->workDir() + "/refuse-model.nc";
        test::writeFixture(modelFile, model);
        VERIFY_MESSAGE(test::errorOf([&] { (void)Era5File::open(modelFile.toStdString()); }),
                       "refuse-model.nc", "not pressure levels", "model_level_number",
                       "model-level files are not loaded");

        // Ensemble members.
        FixtureSpec ensemble = test::classicFixture({45.0}, {-1.0}, 1, 0);
        ensemble.dimOrder = {"time", "number", "lat", "lon"};
        ensemble.members = 3;
        const QString ensembleFile = cluster_->workDir() + "/refuse-ensemble.nc";
        test::writeFixture(ensembleFile, ensemble);
        VERIFY_MESSAGE(test::errorOf([&] { (void)Era5File::open(ensembleFile.toStdString()); }),
                       "refuse-ensemble.nc", "3 ensemble members", "deterministic reanalysis");

        // Two variables of the file claim one column: t2m, and 2t (ecCodes' name for it).
        FixtureSpec twice = test::classicFixture({45.0}, {-1.0}, 1, 0);
        twice.variables.push_back(twice.variables.front());
        twice.variables.back().name = "2t";
        const QString twiceFile = cluster_->workDir() + "/refuse-twice.nc";
        test::writeFixture(twiceFile, twice);
        VERIFY_MESSAGE(test::errorOf([&] { (void)Era5File::open(twiceFile.toStdString()); }),
                       "refuse-twice.nc", "both 't2m' and '2t'", "temperature_2m", "refusing to choose");

        // Units by the parameter: sp in hPa is not what the column (Pa, as stored) says.
        FixtureSpec hpa = twelveVariableFile(false);
        for (auto& v : hpa.variables) {
            if (v.name == "sp") {
                v.units = "hPa";
            }
        }
        const QString hpaFile = cluster_->workDir() + "/refuse-hpa.nc";
        test::writeFixture(hpaFile, hpa);
        VERIFY_MESSAGE(test::errorOf([&] { (void)Era5File::open(hpaFile.toStdString()); }), "refuse-hpa.nc",
                       "variable sp has units 'hPa'", "expected in Pa", "refusing to guess");

        // A variable the catalog does not know, in other units than its column was made for.
        FixtureSpec first = twelveVariableFile(false);
        const QString firstFile = cluster_->workDir() + "/unknown-units-1.nc";
        test::writeFixture(firstFile, first);
        s = test::loadFiles(*cluster_, {firstFile}, "unknown_units");
        QVERIFY2(s.status == LoadStatus::Completed, s.error ? s.error->message.c_str() : "");
        FixtureSpec second = twelveVariableFile(false);
        second.times =
            test::timesSince({test::pgMicros(2024, 3, 2, 6)}, test::pgMicros(1970, 1, 1), 1'000'000);
        second.variables.back().units = "%";
        const QString secondFile = cluster_->workDir() + "/unknown-units-2.nc";
        test::writeFixture(secondFile, second);
        s = test::loadFiles(*cluster_, {secondFile}, "unknown_units");
        QVERIFY(s.status == LoadStatus::Failed);
        VERIFY_MESSAGE(QString::fromStdString(s.error->message), "column wind_power_index", "in '1'",
                       "in '%'", "cannot convert");
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM unknown_units"), QString("40"));
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

QTEST_GUILESS_MAIN(TestVariables)
#include "tst_variables.moc"
