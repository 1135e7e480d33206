// The synthetic sample writer: the CDS legacy layout with plausible, deterministic values that say
// they are synthetic; regions in every longitude convention, and the regions it refuses; any catalog
// variables, within their ranges, the seed's six unchanged among them; the pressure-level layouts;
// what it refuses, and the sample command's --variables and --levels.

#include "Fixtures.h"
#include "TestUtil.h"
#include "era5/Dataset.h"
#include "era5/Era5File.h"
#include "era5/SampleWriter.h"
#include "util/Error.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <set>

using namespace isobar;

namespace {

Variable byName(const char* shortName) {
    const auto v = findVariable(shortName);
    if (!v || spec(*v).shortName != shortName) {
        throw std::runtime_error(std::string("no catalog variable ") + shortName);
    }
    return *v;
}

std::vector<Variable> byNames(std::initializer_list<const char*> names) {
    std::vector<Variable> out;
    for (const char* n : names) {
        out.push_back(byName(n));
    }
    return out;
}

// A variable's values in the units the file declares: unpacked where it is packed.
std::vector<double> physical(const QString& path, const std::string& variable) {
    std::vector<double> values = test::readStored(path, variable);
    const double scale = test::readNumberAttribute(path, variable, "scale_factor").value_or(1.0);
    const double offset = test::readNumberAttribute(path, variable, "add_offset").value_or(0.0);
    for (double& v : values) {
        v = v * scale + offset;
    }
    return values;
}

double mean(const std::vector<double>& v, std::size_t from, std::size_t count) {
    return std::accumulate(v.begin() + static_cast<long>(from), v.begin() + static_cast<long>(from + count),
                           0.0) /
           static_cast<double>(count);
}

std::set<std::string> shortNamesOf(const Era5File& f) {
    std::set<std::string> names;
    for (const FileVariable& v : f.variables()) {
        names.insert(v.column.variable ? std::string(spec(*v.column.variable).shortName) : "?" + v.name);
    }
    return names;
}

} // namespace

class TestSampleWriter : public QObject {
    Q_OBJECT

private slots:
    void init() { QVERIFY(dir_.isValid()); }

    // The synthetic sample: CDS legacy layout, plausible values, deterministic, says it is synthetic.
    void writesSyntheticSample() {
        SampleOptions options;
        options.out = dir_.filePath("global.nc").toStdString();
        options.hours = 2;
        const SampleInfo info = writeSample(options);
        QCOMPARE(info.rows(), std::uint64_t{2 * 721 * 1440});
        const QString path = QString::fromStdString(options.out.string());

        int ncid = -1;
        QCOMPARE(nc_open(QFile::encodeName(path).constData(), NC_NOWRITE, &ncid), NC_NOERR);
        int format = 0;
        nc_inq_format(ncid, &format);
        QCOMPARE(format, NC_FORMAT_64BIT_OFFSET);
        int unlimited = -1;
        nc_inq_unlimdim(ncid, &unlimited);
        char name[NC_MAX_NAME + 1];
        nc_inq_dimname(ncid, unlimited, name);
        QCOMPARE(QString(name), QString("time"));
        size_t len = 0;
        QCOMPARE(nc_inq_attlen(ncid, NC_GLOBAL, "isobar_synthetic", &len), NC_NOERR);
        std::string synthetic(len, '\0');
        nc_get_att_text(ncid, NC_GLOBAL, "isobar_synthetic", synthetic.data());
        QVERIFY(QString::fromStdString(synthetic).contains("made up"));
        nc_inq_attlen(ncid, NC_GLOBAL, "title", &len);
        std::string title(len, '\0');
        nc_get_att_text(ncid, NC_GLOBAL, "title", title.data());
        QVERIFY(QString::fromStdString(title).contains("SYNTHETIC"));
        int timeVar = -1;
        nc_inq_varid(ncid, "time", &timeVar);
        nc_type timeType = NC_NAT;
        nc_inq_vartype(ncid, timeVar, &timeType);
        QCOMPARE(timeType, NC_INT);
        int t2mVar = -1;
        nc_inq_varid(ncid, "t2m", &t2mVar);
        nc_type t2mType = NC_NAT;
        nc_inq_vartype(ncid, t2mVar, &t2mType);
        QCOMPARE(t2mType, NC_SHORT);
        nc_close(ncid);

        const auto lats = test::readCoordinate(path, "latitude");
        const auto lons = test::readCoordinate(path, "longitude");
        const auto times = test::readCoordinate(path, "time");
        QCOMPARE(lats.size(), size_t{721});
        QCOMPARE(lats.front(), 90.0);
        QCOMPARE(lats.back(), -90.0);
        QCOMPARE(lons.size(), size_t{1440});
        QCOMPARE(lons.front(), 0.0);
        QCOMPARE(lons.back(), 359.75);
        QCOMPARE(times, (std::vector<double>{1086960, 1086961})); // 2024-01-01T00, T01

        // Plausible: t2m 200-330 K, warmer at the equator than at the poles; tp mostly zero.
        const auto t2m = test::readStored(path, "t2m");
        const double scale = *test::readNumberAttribute(path, "t2m", "scale_factor");
        const double offset = *test::readNumberAttribute(path, "t2m", "add_offset");
        double equator = 0;
        double poles = 0;
        for (size_t j = 0; j < 1440; ++j) {
            equator += t2m[360 * 1440 + j] * scale + offset;
            poles += t2m[j] * scale + offset;
        }
        QVERIFY(equator / 1440 > 290.0);
        QVERIFY(poles / 1440 < 260.0);
        for (double v : t2m) {
            const double kelvin = v * scale + offset;
            QVERIFY(kelvin > 200.0 && kelvin < 330.0);
        }
        const auto tp = test::readStored(path, "tp");
        const double tpScale = *test::readNumberAttribute(path, "tp", "scale_factor");
        const double tpOffset = *test::readNumberAttribute(path, "tp", "add_offset");
        size_t zero = 0;
        for (double v : tp) {
            const double metres = v * tpScale + tpOffset;
            QVERIFY(metres > -1e-9 && metres < 0.05);
            zero += std::fabs(metres) < 1e-9 ? 1 : 0;
        }
        QVERIFY(zero > tp.size() / 2);
        QVERIFY(zero < tp.size());

        // Deterministic per seed.
        options.out = dir_.filePath("global-again.nc").toStdString();
        options.hours = 1;
        writeSample(options);
        const auto again = test::readStored(dir_.filePath("global-again.nc"), "t2m");
        QVERIFY(std::equal(again.begin(), again.end(), t2m.begin()));
        options.out = dir_.filePath("global-seed2.nc").toStdString();
        options.seed = 2;
        writeSample(options);
        const auto other = test::readStored(dir_.filePath("global-seed2.nc"), "t2m");
        QVERIFY(!std::equal(other.begin(), other.end(), t2m.begin()));

        // And the reader takes it.
        const Era5File f = Era5File::open(dir_.filePath("global.nc").toStdString());
        QCOMPARE(f.variables().size(), size_t{6});
        QCOMPARE(f.rowCount(), std::uint64_t{2 * 721 * 1440});
    }

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
        SampleOptions options;
        options.layout = *parseSampleLayout(layout.toStdString());
        options.out = dir_.filePath("twelve.nc").toStdString();
        options.hours = 3;
        options.region = SampleRegion::parse("60,20,-20,40");
        options.seed = 7;
        options.start = pgTimestampFromUnixMicros((1'704'067'200LL + 10 * 3600) * 1'000'000); // 2024-01-01T10
        options.variables = twelve;
        const SampleInfo info = writeSample(options);
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
        writeSample(options);
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
        SampleOptions options;
        options.layout = *parseSampleLayout(layout.toStdString());
        options.out = dir_.filePath("more-" + layout).toStdString();
        options.hours = 2;
        options.region = SampleRegion::parse("10,8,0,2");
        options.variables = byNames({"t2m", "tp", "d2m", "sp", "ssrd", "u100", "cp", "mtpr", "mx2t", "blh"});
        const SampleInfo info = writeSample(options);
        QCOMPARE(static_cast<int>(info.files.size()), files);
        const Dataset d = Dataset::open({options.out});
        QCOMPARE(d.variables().size(), size_t{10});
        if (options.layout == SampleLayout::Cds2024Zip) {
            // instant, accum, avg, max
            QCOMPARE(d.files().size(), size_t{4});
        }
    }

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
        SampleOptions options;
        options.layout = *parseSampleLayout(layout.toStdString());
        options.out = dir_.filePath("pl.nc").toStdString();
        options.hours = 2;
        options.region = SampleRegion::parse("40,0,0,20");
        options.levels.assign(asked.begin(), asked.end());
        const SampleInfo info = writeSample(options);
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

    // Every variable a layout can hold, at once, in range.
    void writesEveryVariable_data() {
        QTest::addColumn<QString>("layout");
        QTest::newRow("cds-2024") << "cds-2024";
        QTest::newRow("cds-legacy-pl") << "cds-legacy-pl";
    }
    void writesEveryVariable() {
        QFETCH(QString, layout);
        SampleOptions options;
        options.layout = *parseSampleLayout(layout.toStdString());
        options.out = dir_.filePath("every.nc").toStdString();
        options.region = SampleRegion::parse("70,-70,0,0");
        options.start = pgTimestampFromUnixMicros(1'719'835'200LL * 1'000'000); // 2024-07-01T12
        options.variables = allSampleVariables(options.layout);
        options.levels = {1000, 500, 10};
        if (!isPressureLevelLayout(options.layout)) {
            options.levels.clear();
        }
        QVERIFY(options.variables.size() > (isPressureLevelLayout(options.layout) ? 15u : 100u));
        const SampleInfo info = writeSample(options);
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

    // The refusals, by their messages, and nothing written for them.
    void refusesWhatDoesNotFit_data() {
        QTest::addColumn<QString>("layout");
        QTest::addColumn<QStringList>("variables");
        QTest::addColumn<QList<double>>("levels");
        QTest::addColumn<QStringList>("message");
        QTest::newRow("pressure-level variable at single levels")
            << "cds-legacy" << QStringList{"t2m", "t"} << QList<double>{}
            << QStringList{"t (Temperature)", "pressure-level variable", "cds-legacy", "cds-legacy-pl"};
        QTest::newRow("single-level variable on pressure levels")
            << "cds-2024-pl" << QStringList{"t", "t2m"} << QList<double>{}
            << QStringList{"t2m", "single-level variable", "cds-2024-pl"};
        QTest::newRow("levels at single levels") << "cds-2024" << QStringList{} << QList<double>{500}
                                                 << QStringList{"--levels", "single levels", "cds-2024"};
        QTest::newRow("level below the ground") << "cds-legacy-pl" << QStringList{} << QList<double>{1100}
                                                << QStringList{"--levels", "1100 hPa", "1 to 1000"};
        QTest::newRow("level 0") << "cds-2024-pl" << QStringList{} << QList<double>{500, 0}
                                 << QStringList{"--levels", "0 hPa", "1 to 1000"};
        QTest::newRow("level twice") << "cds-2024-pl" << QStringList{} << QList<double>{500, 850, 500}
                                     << QStringList{"500 hPa", "twice"};
        QTest::newRow("fractional level in int32")
            << "cds-legacy-pl" << QStringList{} << QList<double>{2.5} << QStringList{"2.5 hPa", "whole"};
        QTest::newRow("variable twice") << "cds-legacy" << QStringList{"t2m", "tp", "t2m"} << QList<double>{}
                                        << QStringList{"t2m", "twice"};
        QTest::newRow("no NCAR file for it")
            << "ncar" << QStringList{"t2m", "tcrw"} << QList<double>{} << QStringList{"tcrw", "NCAR"};
    }
    void refusesWhatDoesNotFit() {
        QFETCH(QString, layout);
        QFETCH(QStringList, variables);
        QFETCH(QList<double>, levels);
        QFETCH(QStringList, message);
        SampleOptions options;
        options.layout = *parseSampleLayout(layout.toStdString());
        options.out = dir_.filePath("refused.nc").toStdString();
        options.region = SampleRegion::parse("1,0,0,1");
        for (const QString& name : variables) {
            options.variables.push_back(byName(name.toStdString().c_str()));
        }
        options.levels.assign(levels.begin(), levels.end());
        const QString m = test::errorOf([&] { writeSample(options); });
        VERIFY_MESSAGE(m, message);
        QCOMPARE(test::errorOf([&] { sampleContents(options); }), m);
        QVERIFY(!QFileInfo::exists(dir_.filePath("refused.nc")));
        QVERIFY(!QFileInfo::exists(dir_.filePath("refused.nc.part")));
    }

    // z is on both: at single levels the surface's geopotential, >= 0 over the made-up continents.
    void geopotentialAtSingleLevels() {
        SampleOptions options;
        options.out = dir_.filePath("z.nc").toStdString();
        options.region = SampleRegion::parse("60,-60,0,359.75");
        options.variables = byNames({"z", "lsm"});
        writeSample(options);
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

    // The command: --variables and --levels, the summary line, usage errors (exit 2) before
    // anything is written.
    void sampleCommand() {
        const QString file = dir_.filePath("cli.nc");
        test::CliRun run = test::runCli({"sample", "--out", file, "--hours", "2", "--region", "10,9,0,1",
                                         "--variables", "t2m,d2m,2t_is_not,sp"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("'2t_is_not' is not in the variable catalog"), qPrintable(run.err));
        run = test::runCli({"sample", "--out", file, "--hours", "2", "--region", "10,9,0,1", "--variables",
                            "t2m,d2m,sp,ssrd"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains("4 variable(s) (t2m d2m sp ssrd)"), qPrintable(run.out));
        QCOMPARE(Era5File::open(file.toStdString()).variables().size(), size_t{4});

        const QString pl = dir_.filePath("cli-pl.nc");
        run = test::runCli({"sample", "--out", pl, "--hours", "1", "--region", "10,9,0,1", "--layout",
                            "cds-2024-pl", "--variables", "t,z", "--levels", "500,1000,250"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains("3 level(s) (1000 500 250 hPa)"), qPrintable(run.out));
        QVERIFY2(run.out.contains("2 variable(s) (t z)"), qPrintable(run.out));
        QCOMPARE(Era5File::open(pl.toStdString()).levels(), (std::vector<double>{1000, 500, 250}));

        run = test::runCli({"sample", "--out", pl, "--hours", "1", "--layout", "cds-legacy-pl"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains("(500 850 1000 hPa)") && run.out.contains("(t u v z q r)"),
                 qPrintable(run.out));

        const QString refused = dir_.filePath("refused-cli.nc");
        const struct {
            QStringList args;
            const char* message;
        } usage[] = {
            {{"--variables", "t2m,t"}, "pressure-level variable"},
            {{"--layout", "cds-2024-pl", "--variables", "sp"}, "single-level variable"},
            {{"--levels", "500"}, "single levels"},
            {{"--layout", "cds-legacy-pl", "--levels", "500,high"}, "'high' is not a pressure level"},
            {{"--layout", "cds-legacy-pl", "--levels", "5000"}, "1 to 1000"},
            {{"--variables", ","}, "at least one name"},
        };
        for (const auto& u : usage) {
            run = test::runCli(
                QStringList{"sample", "--out", refused, "--hours", "1", "--region", "1,0,0,1"} + u.args);
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.err.contains(u.message), qPrintable(run.err));
            QVERIFY(!QFileInfo::exists(refused));
        }
        run = test::runCli({"sample", "--help"});
        QVERIFY(run.out.contains("--variables") && run.out.contains("--levels") &&
                run.out.contains("cds-2024-pl"));
    }

    void sampleRegions_data() {
        QTest::addColumn<QString>("region");
        QTest::addColumn<double>("firstLat");
        QTest::addColumn<double>("lastLat");
        QTest::addColumn<double>("firstLon");
        QTest::addColumn<double>("lastLon");
        QTest::addColumn<int>("lonCount");
        QTest::newRow("0..360 box") << "30,60,10,20" << 60.0 << 30.0 << 10.0 << 20.0 << 41;
        QTest::newRow("across the prime meridian") << "40,50,-10,10" << 50.0 << 40.0 << -10.0 << 10.0 << 81;
        QTest::newRow("across the date line") << "-5,5,170,-170" << 5.0 << -5.0 << 170.0 << 190.0 << 81;
    }
    void sampleRegions() {
        QFETCH(QString, region);
        QFETCH(double, firstLat);
        QFETCH(double, lastLat);
        QFETCH(double, firstLon);
        QFETCH(double, lastLon);
        QFETCH(int, lonCount);
        SampleOptions options;
        options.out = dir_.filePath("region.nc").toStdString();
        options.region = SampleRegion::parse(region.toStdString());
        writeSample(options);
        const auto lats = test::readCoordinate(dir_.filePath("region.nc"), "latitude");
        const auto lons = test::readCoordinate(dir_.filePath("region.nc"), "longitude");
        QCOMPARE(lats.front(), firstLat);
        QCOMPARE(lats.back(), lastLat);
        QCOMPARE(lons.front(), firstLon);
        QCOMPARE(lons.back(), lastLon);
        QCOMPARE(static_cast<int>(lons.size()), lonCount);
        const Era5File f = Era5File::open(options.out);
        QCOMPARE(f.longitudes().size(), static_cast<size_t>(lonCount));
    }

    void rejectsBadRegions_data() {
        QTest::addColumn<QString>("region");
        QTest::newRow("three numbers") << "1,2,3";
        QTest::newRow("not a number") << "a,2,3,4";
        QTest::newRow("off grid") << "10.1,20,30,40";
        QTest::newRow("latitude beyond pole") << "95,20,30,40";
    }
    void rejectsBadRegions() {
        QFETCH(QString, region);
        QVERIFY_THROWS_EXCEPTION(Error, SampleRegion::parse(region.toStdString()));
    }

private:
    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestSampleWriter)
#include "tst_samplewriter.moc"
