// SPDX-License-Identifier: GPL-3.0-or-later

// Catalog variables in synthetic files: any of them, within their ranges and plausible together,
// the seed's six unchanged among them; in every layout that takes them, every variable a layout can
// hold at once; and the geopotential at single levels.

#include "SyntheticTestUtil.h"
#include "era5/Dataset.h"
#include "era5/Era5File.h"
#include "synth/SyntheticFiles.h"

#include <QtTest>

#include <algorithm>

using namespace isobar;
using test::byName;
using test::byNames;
using test::mean;
using test::physical;
using test::shortNamesOf;

class TestSyntheticVariables : public QObject {
    Q_OBJECT

private slots:
    void init() { QVERIFY(dir_.isValid()); }

    // Twelve variables at single levels: the reader finds each with its catalog column, units and
    // conversion; every value lies in its variable's range; the seed's six are what a six-variable
    // sample of the seed holds.
    void writesManyVariables_data() {
        QTest::addColumn<QString>("layout");
        QTest::newRow("cds-legacy") << "cds-legacy";
        QTest::newRow("cds-2024") << "cds-2024";
    }
    void writesManyVariables() {
        QFETCH(QString, layout);
        const std::vector<Variable> twelve =
            byNames({"t2m", "u10", "v10", "tcc", "tp", "sf", "d2m", "sp", "msl", "ssrd", "u100", "swvl1"});
        SyntheticOptions options;
        options.layout = *parseSyntheticLayout(layout.toStdString());
        options.out = dir_.filePath("twelve.nc").toStdString();
        options.hours = 3;
        options.region = SyntheticRegion::parse("60,20,-20,40");
        options.seed = 7;
        options.start = pgTimestampFromUnixMicros((1'704'067'200LL + 10 * 3600) * 1'000'000); // 2024-01-01T10
        options.variables = twelve;
        const SyntheticInfo info = writeSynthetic(options);
        QCOMPARE(info.variables, twelve);
        QVERIFY(info.levels.empty());
        const QString path = dir_.filePath("twelve.nc");

        const Era5File f = Era5File::open(options.out);
        QCOMPARE(f.variables().size(), size_t{12});
        QCOMPARE(f.vertical(), Vertical::Surface);
        QCOMPARE(f.rowCount(), std::uint64_t{3 * 161 * 241});
        for (Variable v : twelve) {
            const FileVariable* fv = f.find(v);
            QVERIFY2(fv, spec(v).shortName.data());
            QVERIFY(fv->column.variable == v);
            QCOMPARE(fv->column.column, std::string(spec(v).column));
            QCOMPARE(fv->conversion, spec(v).conversion);
        }
        QCOMPARE(f.find(byName("t2m"))->column.column, std::string("temperature_2m"));
        QCOMPARE(f.find(byName("d2m"))->column.column, std::string("d2m"));
        QCOMPARE(f.find(byName("d2m"))->conversion, Conversion::KelvinToCelsius);
        QCOMPARE(f.find(byName("d2m"))->units, std::string("K"));
        QCOMPARE(f.find(byName("ssrd"))->conversion, Conversion::None);
        QCOMPARE(f.find(byName("ssrd"))->units, std::string("J m**-2"));
        QCOMPARE(f.find(byName("ssrd"))->column.accumulated, true);
        QCOMPARE(f.find(byName("sp"))->conversion, Conversion::None);
        QCOMPARE(f.find(byName("sp"))->units, std::string("Pa"));
        QCOMPARE(f.find(byName("tp"))->conversion, Conversion::MetresToMillimetres);
        QCOMPARE(f.find(byName("swvl1"))->units, std::string("m**3 m**-3"));

        // In range (within one int16 step where packed), and not a constant.
        for (Variable v : twelve) {
            const VariableSpec& s = spec(v);
            const std::vector<double> values = physical(path, std::string(s.shortName));
            const double step = (s.typicalMax - s.typicalMin) / 65532.0;
            const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
            QVERIFY2(*lo >= s.typicalMin - step && *hi <= s.typicalMax + step,
                     qPrintable(QString("%1: %2..%3 outside %4..%5")
                                    .arg(s.shortName.data())
                                    .arg(*lo)
                                    .arg(*hi)
                                    .arg(s.typicalMin)
                                    .arg(s.typicalMax)));
            QVERIFY2(*hi > *lo, s.shortName.data());
        }
        // Plausible together: dew point below the temperature, surface pressure at most the sea
        // level's; the winter sun (10-12 UTC) stronger at 20 N than at 60 N.
        const auto t2m = physical(path, "t2m");
        const auto d2m = physical(path, "d2m");
        const auto sp = physical(path, "sp");
        const auto msl = physical(path, "msl");
        const double tolerance = 2 * (335.0 - 180.0) / 65532.0;
        for (size_t k = 0; k < t2m.size(); ++k) {
            QVERIFY(d2m[k] <= t2m[k] + tolerance);
            QVERIFY(sp[k] <= msl[k] + 10.0);
        }
        const auto ssrd = physical(path, "ssrd");
        const size_t row = 241;
        QVERIFY(mean(ssrd, 160 * row, row) > 2.0 * mean(ssrd, 0, row));
        QVERIFY(*std::max_element(ssrd.begin(), ssrd.end()) > 1.0e6);

        // The seed's six as a sample of only them holds them.
        options.out = dir_.filePath("six.nc").toStdString();
        options.variables.clear();
        writeSynthetic(options);
        for (Variable v : kSeedVariables) {
            const std::string name(spec(v).shortName);
            QVERIFY2(test::readStored(dir_.filePath("six.nc"), name) == test::readStored(path, name),
                     name.c_str());
        }
    }

    // The other layouts take other variables too: ZIP members by step type, the expver dimension,
    // NCAR's file per variable (forecast files for accumulations and mean rates).
    void otherLayoutsTakeMoreVariables_data() {
        QTest::addColumn<QString>("layout");
        QTest::addColumn<int>("files");
        QTest::newRow("cds-2024-zip") << "cds-2024-zip" << 1;
        QTest::newRow("cds-expver") << "cds-expver" << 1;
        QTest::newRow("ncar") << "ncar" << 10;
    }
    void otherLayoutsTakeMoreVariables() {
        QFETCH(QString, layout);
        QFETCH(int, files);
        SyntheticOptions options;
        options.layout = *parseSyntheticLayout(layout.toStdString());
        options.out = dir_.filePath("more-" + layout).toStdString();
        options.hours = 2;
        options.region = SyntheticRegion::parse("10,8,0,2");
        options.variables = byNames({"t2m", "tp", "d2m", "sp", "ssrd", "u100", "cp", "mtpr", "mx2t", "blh"});
        const SyntheticInfo info = writeSynthetic(options);
        QCOMPARE(static_cast<int>(info.files.size()), files);
        const Dataset d = Dataset::open({options.out});
        QCOMPARE(d.variables().size(), size_t{10});
        if (options.layout == SyntheticLayout::Cds2024Zip) {
            // instant, accum, avg, max
            QCOMPARE(d.files().size(), size_t{4});
        }
    }

    // Every variable a layout can hold, at once, in range.
    void writesEveryVariable_data() {
        QTest::addColumn<QString>("layout");
        QTest::newRow("cds-2024") << "cds-2024";
        QTest::newRow("cds-legacy-pl") << "cds-legacy-pl";
    }
    void writesEveryVariable() {
        QFETCH(QString, layout);
        SyntheticOptions options;
        options.layout = *parseSyntheticLayout(layout.toStdString());
        options.out = dir_.filePath("every.nc").toStdString();
        options.region = SyntheticRegion::parse("70,-70,0,0");
        options.start = pgTimestampFromUnixMicros(1'719'835'200LL * 1'000'000); // 2024-07-01T12
        options.variables = allSyntheticVariables(options.layout);
        options.levels = {1000, 500, 10};
        if (!isPressureLevelLayout(options.layout)) {
            options.levels.clear();
        }
        QVERIFY(options.variables.size() > (isPressureLevelLayout(options.layout) ? 15u : 100u));
        const SyntheticInfo info = writeSynthetic(options);
        const QString path = dir_.filePath("every.nc");
        for (Variable v : info.variables) {
            const VariableSpec& s = spec(v);
            int ncid = -1;
            QCOMPARE(nc_open(QFile::encodeName(path).constData(), NC_NOWRITE, &ncid), NC_NOERR);
            // cfgrib names mean rates avg_*: find the variable by its GRIB_paramId.
            std::string name;
            int nvars = 0;
            nc_inq_nvars(ncid, &nvars);
            for (int id = 0; id < nvars; ++id) {
                long long param = 0;
                char n[NC_MAX_NAME + 1];
                nc_inq_varname(ncid, id, n);
                if (std::string(n) == s.shortName ||
                    (nc_get_att_longlong(ncid, id, "GRIB_paramId", &param) == NC_NOERR &&
                     param == s.paramId)) {
                    name = n;
                }
            }
            nc_close(ncid);
            QVERIFY2(!name.empty(), s.shortName.data());
            const auto values = physical(path, name);
            const double step = (s.typicalMax - s.typicalMin) / 65532.0;
            for (double x : values) {
                QVERIFY2(x >= s.typicalMin - step && x <= s.typicalMax + step,
                         qPrintable(QString("%1 = %2").arg(s.shortName.data()).arg(x)));
                if (s.accumulated && s.typicalMin >= 0.0) {
                    QVERIFY(x >= -step);
                }
            }
        }
        if (isPressureLevelLayout(options.layout)) {
            QCOMPARE(Era5File::open(options.out).variables().size(), info.variables.size());
        }
    }

    // z is on both: at single levels the surface's geopotential, >= 0 over the made-up continents.
    void geopotentialAtSingleLevels() {
        SyntheticOptions options;
        options.out = dir_.filePath("z.nc").toStdString();
        options.region = SyntheticRegion::parse("60,-60,0,359.75");
        options.variables = byNames({"z", "lsm"});
        writeSynthetic(options);
        const auto z = physical(dir_.filePath("z.nc"), "z");
        const auto lsm = physical(dir_.filePath("z.nc"), "lsm");
        const double zStep = (500000.0 + 5000.0) / 65532.0;
        QVERIFY(std::all_of(z.begin(), z.end(), [&](double x) { return x >= -zStep && x < 9.80665 * 6000; }));
        QVERIFY(*std::max_element(z.begin(), z.end()) > 9.80665 * 1000); // mountains
        const auto land = std::count_if(lsm.begin(), lsm.end(), [](double x) { return x > 0.5; });
        QVERIFY(land > static_cast<long>(lsm.size()) / 10 && land < static_cast<long>(lsm.size()) / 2);
        const Era5File f = Era5File::open(options.out);
        QCOMPARE(f.vertical(), Vertical::Surface);
        QCOMPARE(shortNamesOf(f), (std::set<std::string>{"z", "lsm"}));
    }

private:
    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestSyntheticVariables)
#include "tst_synthetic_variables.moc"
