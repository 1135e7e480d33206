// SPDX-License-Identifier: GPL-3.0-or-later

// Pressure levels (issue 11): files in the legacy and the 2024 CDS layouts into a pressure-level
// table, every column of every row compared with values worked out here from what the test wrote; the
// ledger's units one level each, a second load that resumes, and a surface file refused.

#include "TestCluster.h"
#include "TestUtil.h"
#include "VariableFixtures.h"
#include "db/Connection.h"
#include "era5/Era5File.h"
#include "ingest/Loader.h"

#include <QtTest>

#include <map>
#include <string>
#include <vector>

using namespace isobar;
using test::ColumnExpectation;
using test::columnNamesOf;
using test::compareColumnRows;
using test::expectedColumnRows;
using test::FixtureSpec;
using test::kelvinToCelsius;
using test::pressureLevelFile;
using test::readColumnRows;

namespace {

// The column and the conversion of each of pressureLevelFile's variables (built on first use: a
// map at namespace scope could throw before main, cert-err58-cpp).
const std::map<std::string, ColumnExpectation>& levelColumns() {
    static const std::map<std::string, ColumnExpectation> columns{
        {"t", {"t", kelvinToCelsius}}, {"z", {"z"}}, {"q", {"q"}}, {"r", {"r"}}, // r stays in %
    };
    return columns;
}

} // namespace

class TestPressureLevels : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }
    void cleanupTestCase() { cluster_.reset(); }

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
        QCOMPARE(QString::fromStdString(columnNamesOf(conn, table)),
                 QString("time,pressure_level,location_id,latitude,longitude,z,t,q,r"));
        QCOMPARE(test::scalar(
                     conn, "SELECT format_type(atttypid, atttypmod) || ' ' || attnotnull FROM pg_attribute "
                           "WHERE attrelid = '" +
                               table + "'::regclass AND attname = 'pressure_level'"),
                 QString("real true"));
        const QString diff =
            compareColumnRows(readColumnRows(conn, table), expectedColumnRows(spec, micros, levelColumns()));
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

private:
    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestPressureLevels)
#include "tst_pressure_levels.moc"
