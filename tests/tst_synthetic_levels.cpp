// SPDX-License-Identifier: GPL-3.0-or-later

// Pressure levels in synthetic files: the level coordinate as each CDS layout writes it, the levels
// in its order, t u v z q r; temperature falls and geopotential rises with height.

#include "SyntheticTestUtil.h"
#include "era5/Era5File.h"
#include "synth/SyntheticFiles.h"

#include <QtTest>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

using namespace isobar;
using test::byName;
using test::mean;
using test::physical;
using test::shortNamesOf;

class TestSyntheticLevels : public QObject {
    Q_OBJECT

private slots:
    void init() { QVERIFY(dir_.isValid()); }

    // Pressure levels: the level coordinate as each CDS writes it, the levels in its order, t u v
    // z q r; temperature falls and geopotential rises with height.
    void writesPressureLevels_data() {
        QTest::addColumn<QString>("layout");
        QTest::addColumn<QList<double>>("asked");
        QTest::addColumn<QList<double>>("written");
        QTest::addColumn<QString>("levelName");
        QTest::addColumn<int>("levelType");
        QTest::addColumn<QString>("levelUnits");
        QTest::newRow("legacy, default levels")
            << "cds-legacy-pl" << QList<double>{} << QList<double>{500, 850, 1000} << "level" << int{NC_INT}
            << "millibars";
        QTest::newRow("2024, default levels")
            << "cds-2024-pl" << QList<double>{} << QList<double>{1000, 850, 500} << "pressure_level"
            << int{NC_DOUBLE} << "hPa";
        QTest::newRow("legacy, levels asked")
            << "cds-legacy-pl" << QList<double>{850, 1, 250, 1000} << QList<double>{1, 250, 850, 1000}
            << "level" << int{NC_INT} << "millibars";
        QTest::newRow("2024, levels asked")
            << "cds-2024-pl" << QList<double>{850, 1, 250, 1000} << QList<double>{1000, 850, 250, 1}
            << "pressure_level" << int{NC_DOUBLE} << "hPa";
    }
    void writesPressureLevels() {
        QFETCH(QString, layout);
        QFETCH(QList<double>, asked);
        QFETCH(QList<double>, written);
        QFETCH(QString, levelName);
        QFETCH(int, levelType);
        QFETCH(QString, levelUnits);
        SyntheticOptions options;
        options.layout = *parseSyntheticLayout(layout.toStdString());
        options.out = dir_.filePath("pl.nc").toStdString();
        options.hours = 2;
        options.region = SyntheticRegion::parse("40,0,0,20");
        options.levels.assign(asked.begin(), asked.end());
        const SyntheticInfo info = writeSynthetic(options);
        const std::vector<double> expected(written.begin(), written.end());
        QCOMPARE(info.levels, expected);
        QCOMPARE(info.rows(), std::uint64_t{2} * expected.size() * 161 * 81);

        const Era5File f = Era5File::open(options.out);
        QCOMPARE(f.vertical(), Vertical::PressureLevels);
        QCOMPARE(f.levels(), expected);
        QCOMPARE(shortNamesOf(f), (std::set<std::string>{"t", "u", "v", "z", "q", "r"}));
        QCOMPARE(f.rowCount(), info.rows());
        QCOMPARE(f.find(byName("t"))->conversion, Conversion::KelvinToCelsius);
        QCOMPARE(f.find(byName("z"))->units, std::string("m**2 s**-2"));

        const QString path = dir_.filePath("pl.nc");
        int ncid = -1;
        QCOMPARE(nc_open(QFile::encodeName(path).constData(), NC_NOWRITE, &ncid), NC_NOERR);
        int levelVar = -1;
        QCOMPARE(nc_inq_varid(ncid, levelName.toUtf8().constData(), &levelVar), NC_NOERR);
        nc_type type = NC_NAT;
        nc_inq_vartype(ncid, levelVar, &type);
        QCOMPARE(static_cast<int>(type), levelType);
        size_t len = 0;
        nc_inq_attlen(ncid, levelVar, "units", &len);
        std::string units(len, '\0');
        nc_get_att_text(ncid, levelVar, "units", units.data());
        QCOMPARE(QString::fromStdString(units), levelUnits);
        int tVar = -1;
        nc_inq_varid(ncid, "t", &tVar);
        int ndims = 0;
        int dimids[NC_MAX_VAR_DIMS];
        nc_inq_var(ncid, tVar, nullptr, nullptr, &ndims, dimids, nullptr);
        QCOMPARE(ndims, 4);
        char dimName[NC_MAX_NAME + 1];
        nc_inq_dimname(ncid, dimids[1], dimName);
        QCOMPARE(QString(dimName), levelName);
        nc_close(ncid);

        // Per level (the first hour): colder and higher up the column.
        const auto t = physical(path, "t");
        const auto z = physical(path, "z");
        const size_t points = 161 * 81;
        std::vector<std::pair<double, std::pair<double, double>>> byPressure; // hPa -> (mean t, mean z)
        for (size_t l = 0; l < expected.size(); ++l) {
            byPressure.push_back({expected[l], {mean(t, l * points, points), mean(z, l * points, points)}});
        }
        std::sort(byPressure.begin(), byPressure.end()); // low pressure (high up) first
        for (size_t l = 1; l < byPressure.size(); ++l) {
            const auto& [hPa, above] = byPressure[l - 1];
            const auto& below = byPressure[l].second;
            QVERIFY2(
                above.second > below.second + 9.80665 * 500,
                qPrintable(QString("z at %1 hPa: %2 vs %3").arg(hPa).arg(above.second).arg(below.second)));
            if (hPa >= 200) { // the stratosphere warms again above
                QVERIFY2(
                    above.first < below.first - 5.0,
                    qPrintable(QString("t at %1 hPa: %2 vs %3").arg(hPa).arg(above.first).arg(below.first)));
            }
        }
        // 500 hPa: about 5.5 km, at about -20 degC in the subtropics.
        if (const auto it = std::find(expected.begin(), expected.end(), 500.0); it != expected.end()) {
            const auto l = static_cast<size_t>(it - expected.begin());
            QVERIFY(mean(z, l * points, points) > 9.80665 * 5200 &&
                    mean(z, l * points, points) < 9.80665 * 6000);
            QVERIFY(mean(t, l * points, points) > 240.0 && mean(t, l * points, points) < 275.0);
        }
        for (const char* name : {"q", "r", "u", "v"}) {
            const VariableSpec& s = spec(byName(name));
            const auto values = physical(path, name);
            const double step = (s.typicalMax - s.typicalMin) / 65532.0;
            QVERIFY2(
                std::all_of(values.begin(), values.end(),
                            [&](double x) { return x >= s.typicalMin - step && x <= s.typicalMax + step; }),
                name);
        }
    }

private:
    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestSyntheticLevels)
#include "tst_synthetic_levels.moc"
