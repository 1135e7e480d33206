// SPDX-License-Identifier: GPL-3.0-or-later

// What is refused of variables and levels (issue 11), and why: surface and pressure-level files in
// one load or in the other's table, model levels, ensemble members, two file variables for one column,
// units that do not fit the parameter, and a variable the catalog does not know in other units than its
// column's.

#include "TestCluster.h"
#include "TestUtil.h"
#include "VariableFixtures.h"
#include "db/Connection.h"
#include "era5/Era5File.h"
#include "ingest/Loader.h"

#include <QtTest>

#include <vector>

using namespace isobar;
using test::FixtureSpec;
using test::pressureLevelFile;
using test::twelveVariableFile;

class TestVariableRefusals : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }
    void cleanupTestCase() { cluster_.reset(); }

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

private:
    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestVariableRefusals)
#include "tst_variable_refusals.moc"
