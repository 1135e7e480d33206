// SPDX-License-Identifier: GPL-3.0-or-later

// Table names and the weather table's schema check, against a real PostgreSQL: names parsed and
// refused, the seed's table created and found, a table that does not fit refused with its
// differences.

#include "TestCluster.h"
#include "db/WeatherSchema.h"
#include "util/Error.h"

#include <QtTest>

using namespace isobar;

class TestWeatherSchema : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }
    void cleanupTestCase() { cluster_.reset(); }

    void parsesTableNames_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("schema");
        QTest::addColumn<QString>("name");
        QTest::newRow("plain") << "weather"
                               << ""
                               << "weather";
        QTest::newRow("folded") << "Weather"
                                << ""
                                << "weather";
        QTest::newRow("qualified") << "era5.Weather"
                                   << "era5"
                                   << "weather";
        QTest::newRow("quoted") << "\"Era5\".\"My.Table\""
                                << "Era5"
                                << "My.Table";
        QTest::newRow("escaped quote") << "\"a\"\"b\""
                                       << ""
                                       << "a\"b";
    }
    void parsesTableNames() {
        QFETCH(QString, text);
        QFETCH(QString, schema);
        QFETCH(QString, name);
        const TableName t = TableName::parse(text.toStdString());
        QCOMPARE(QString::fromStdString(t.schema), schema);
        QCOMPARE(QString::fromStdString(t.name), name);
    }
    void rejectsBadTableNames_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << "";
        QTest::newRow("three parts") << "a.b.c";
        QTest::newRow("unterminated") << "\"abc";
        QTest::newRow("trailing dot") << "abc.";
    }
    void rejectsBadTableNames() {
        QFETCH(QString, text);
        QVERIFY_THROWS_EXCEPTION(Error, TableName::parse(text.toStdString()));
    }

    void createsAndChecksWeatherTable() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE SCHEMA era5");
        const TableName t = TableName::parse("era5.\"Weather Table\"");
        QCOMPARE(ensureWeatherTable(conn, t, seedLayout()), true);
        QCOMPARE(ensureWeatherTable(conn, t, seedLayout()), false);
        const QString columns = test::scalar(
            conn,
            "SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod) || "
            "CASE WHEN attnotnull THEN ' not null' ELSE '' END, ', ' ORDER BY attnum) FROM pg_attribute "
            "WHERE attrelid = 'era5.\"Weather Table\"'::regclass AND attnum > 0");
        QCOMPARE(columns,
                 QString("time timestamp with time zone not null, location_id integer, latitude real, "
                         "longitude real, temperature_2m real, zonal_wind_10m real, meridional_wind_10m "
                         "real, total_cloud_cover real, total_precipitation real, snowfall real"));
    }

    void refusesMismatchedTableWithDiff() {
        Connection conn = cluster_->connect();
        conn.exec(
            "CREATE TABLE wrong_weather (time timestamptz, location_id bigint, latitude float4, "
            "temperature_2m float8, zonal_wind_10m float4, meridional_wind_10m float4, total_cloud_cover "
            "float4, total_precipitation float4, snowfall float4, station text NOT NULL)");
        try {
            ensureWeatherTable(conn, TableName::parse("wrong_weather"), seedLayout());
            QFAIL("expected a refusal");
        } catch (const Error& e) {
            const std::string m = e.what();
            QVERIFY2(m.find("column location_id is bigint, expected integer") != std::string::npos, e.what());
            QVERIFY2(m.find("missing column longitude real") != std::string::npos, e.what());
            QVERIFY2(m.find("column temperature_2m is double precision, expected real") != std::string::npos,
                     e.what());
            QVERIFY2(m.find("extra column station text is NOT NULL without a default") != std::string::npos,
                     e.what());
        }
        // Extra nullable columns are fine: COPY names its columns.
        conn.exec(
            "CREATE TABLE extra_weather (time timestamptz NOT NULL, location_id int, latitude float4, "
            "longitude float4, temperature_2m float4, zonal_wind_10m float4, meridional_wind_10m float4, "
            "total_cloud_cover float4, total_precipitation float4, snowfall float4, note text, "
            "loaded_at timestamptz NOT NULL DEFAULT now())");
        QCOMPARE(ensureWeatherTable(conn, TableName::parse("extra_weather"), seedLayout()), false);
    }

private:
    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestWeatherSchema)
#include "tst_weather_schema.moc"
