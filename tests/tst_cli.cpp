// SPDX-License-Identifier: GPL-3.0-or-later

// isobar-cli's file commands, run as a user runs them: inspect (text and JSON), sample in every
// layout, and bench read.

#include "Fixtures.h"
#include "TestUtil.h"
#include "era5/BandReader.h"
#include "era5/Dataset.h"
#include "era5/Era5File.h"

#include <QtTest>

#include <cmath>

using namespace isobar;
using test::CliRun;
using test::runCli;

namespace {

// Every value of every step of a dataset, decoded, in step/row/column order per variable.
PerVariable<std::vector<float>> decodeAll(const Dataset& dataset) {
    PerVariable<std::vector<float>> out;
    const BandReader reader(dataset);
    RawUnit raw;
    DecodedBand band;
    for (std::size_t s = 0; s < dataset.steps().size(); ++s) {
        const GridBox& box = dataset.geometries()[dataset.steps()[s].geometry].box;
        reader.fetch(s, 0, box.rows, raw);
        reader.decode(raw, band);
        // By catalog variable, wherever the dataset's columns put it.
        for (std::size_t c = 0; c < band.values.size(); ++c) {
            const std::size_t n = box.rows * box.cols;
            auto& values = out[*dataset.columns()[c].variable];
            if (band.values[c] == nullptr) {
                values.insert(values.end(), n, std::numeric_limits<float>::quiet_NaN());
            } else {
                values.insert(values.end(), band.values[c], band.values[c] + n);
            }
        }
    }
    return out;
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        // What the commands write (bench reports) stays with the test, not in the user's directory.
        qputenv("ISOBAR_REPORT_DIR", QFile::encodeName(dir_.filePath("reports")));
    }
    void init() { QVERIFY(dir_.isValid()); }

    // inspect --json --scan: a good file and a broken one; the JSON parses and says what it should.
    void inspectJson() {
        auto spec = test::classicFixture({10.0, 9.75, 9.5}, {20.0, 20.25}, 2, 3);
        spec.variables.push_back({.name = "sp",
                                  .units = "Pa",
                                  .longName = "Surface pressure",
                                  .stored = std::vector<double>(12, 5.0)});
        const QString good = dir_.filePath("good.nc");
        test::writeFixture(good, spec);
        const QString bad = dir_.filePath("bad.nc");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("not netcdf at all");
        f.close();

        CliRun run = runCli({"inspect", "--json", "--scan", good});
        QCOMPARE(run.exitCode, 0);
        QJsonParseError error{};
        const QJsonDocument doc = QJsonDocument::fromJson(run.out.toUtf8(), &error);
        QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString() + "\n" + run.out));
        const QJsonObject file = doc.object()["files"].toArray().at(0).toObject();
        QCOMPARE(file["name"].toString(), good);
        QCOMPARE(file["format"].toString(), QString("netCDF3 64-bit offset"));
        QCOMPARE(file["layout"].toString(), QString("CDS legacy layout (netCDF3)"));
        QCOMPARE(file["rows"].toInt(), 12);
        QCOMPARE(file["grid"].toObject()["step"].toDouble(), 0.25);
        QCOMPARE(file["grid"].toObject()["box"].toString(),
                 QString("lat 10..9.5, lon 20..20.25 (3 x 2 points)"));
        QCOMPARE(file["time"].toObject()["steps"].toInt(), 2);
        QCOMPARE(file["time"].toObject()["first"].toString(), QString("2023-11-22 00:00:00+00"));
        QCOMPARE(file["time"].toObject()["spacing"].toString(), QString("hourly"));
        const QJsonArray vars = file["variables"].toArray();
        QCOMPARE(vars.size(), 7); // the seed's six and surface pressure
        const QJsonObject spVar = vars.at(6).toObject();
        QCOMPARE(spVar["variable"].toString(), QString("sp"));
        QCOMPARE(spVar["column"].toString(), QString("sp"));
        QCOMPARE(spVar["tableUnits"].toString(), QString("Pa"));
        QCOMPARE(spVar["conversion"].toString(), QString("none"));
        QVERIFY(spVar["inCatalog"].toBool());
        const QJsonObject t2m = vars.at(0).toObject();
        QCOMPARE(t2m["column"].toString(), QString("temperature_2m"));
        QCOMPARE(t2m["conversion"].toString(), QString("K -> degC (x - 273.15)"));
        QVERIFY(t2m["storage"].toString().startsWith("int16 packed"));
        // classicFixture puts 3 fill values in each variable, plus -32767 at positions it may
        // overwrite; the count is what the file holds.
        int fills = 0;
        for (double v : spec.variables[0].stored) {
            fills += v == -32767 ? 1 : 0;
        }
        QCOMPARE(t2m["missingCount"].toInt(), fills);
        QVERIFY(file["ignored"].toArray().isEmpty());
        const QJsonObject dataset = doc.object()["dataset"].toObject();
        QCOMPARE(dataset["rows"].toInt(), 12);
        QCOMPARE(dataset["product"].toString(), QString("ERA5 hourly"));
        QVERIFY(doc.object()["ok"].toBool());

        // A broken file: reported with its reason, the good one still described, exit status 1.
        run = runCli({"inspect", "--json", good, bad});
        QCOMPARE(run.exitCode, 1);
        const QJsonDocument both = QJsonDocument::fromJson(run.out.toUtf8());
        const QJsonArray files = both.object()["files"].toArray();
        QCOMPARE(files.size(), 2);
        QVERIFY(!files.at(0).toObject().contains("error"));
        QVERIFY(
            files.at(1).toObject()["error"].toString().contains("bad.nc: neither a NetCDF nor a GRIB file"));
        QVERIFY(both.object()["dataset"].toObject().contains("error"));
        QVERIFY(!both.object()["ok"].toBool());

        // The text form says the same things.
        run = runCli({"inspect", "--scan", good});
        QCOMPARE(run.exitCode, 0);
        for (const char* part : {"format:     netCDF3 64-bit offset", "t2m -> temperature_2m", "K -> degC",
                                 "sp -> sp (ECMWF sp, paramId 134: Surface pressure, Pa)",
                                 "found by name t2m", "rows:       12 (what a load writes)"}) {
            QVERIFY2(run.out.contains(part), qPrintable(run.out));
        }
    }

    // Every sample layout is recognised as the layout it imitates, and all carry the same weather:
    // float layouts identical, the packed ones within their packing step, the expver one equal to
    // the plain packed one (final ERA5 wins in its overlap hour, ERA5T fills its tail).
    void sampleLayoutsAgree() {
        const QString region = "10,7,-1,1";
        struct Case {
            const char* layout;
            const char* out;
            const char* detected;
        };
        const Case cases[] = {
            {"cds-legacy", "legacy.nc", "CDS legacy (grib_to_netcdf)"},
            {"cds-2024", "cf.nc", "CDS 2024 (cfgrib)"},
            {"cds-2024-zip", "cf-zip.nc", "CDS 2024 (cfgrib)"},
            {"cds-expver", "expver.nc", "CDS with expver dimension (ERA5 + ERA5T)"},
            {"ncar", "ncar", "NCAR RDA ds633.0"},
        };
        std::map<QString, PerVariable<std::vector<float>>> values;
        for (const Case& c : cases) {
            // 07 UTC + 12 h is exactly one NCAR forecast window, so every layout covers the same hours.
            const CliRun run = runCli({"synth", "--out", dir_.filePath(c.out), "--hours", "12", "--region",
                                       region, "--start", "2024-01-01T07", "--layout", c.layout});
            QVERIFY2(run.exitCode == 0, qPrintable(run.err));
            QVERIFY2(run.out.contains("SYNTHETIC"), qPrintable(run.out));
            const Dataset d = Dataset::open({dir_.filePath(c.out).toStdString()});
            QVERIFY2(QString::fromStdString(d.files().front().layout()).startsWith(c.detected),
                     qPrintable(QString::fromStdString(d.files().front().layout())));
            QCOMPARE(d.steps().size(), size_t{12});
            QCOMPARE(d.rowCount(), std::uint64_t{12 * 13 * 9});
            QCOMPARE(d.variables().size(), size_t{6});
            values[c.layout] = decodeAll(d);
        }
        for (std::size_t v = 0; v < variableCount(); ++v) {
            QCOMPARE(values["cds-2024-zip"][v], values["cds-2024"][v]);
            QCOMPARE(values["ncar"][v], values["cds-2024"][v]);
            QCOMPARE(values["cds-expver"][v], values["cds-legacy"][v]);
            const auto& packed = values["cds-legacy"][v];
            const auto& exact = values["cds-2024"][v];
            // One int16 step of the widest packing range (t2m: 155 K / 65532), converted to mm for
            // precipitation (0.05 m / 65532 * 1000).
            const double tolerance =
                v == index(Variable::Tp) ? 0.0008 : (v == index(Variable::Sf) ? 0.0004 : 0.0025);
            for (std::size_t k = 0; k < exact.size(); ++k) {
                QVERIFY2(std::fabs(packed[k] - exact[k]) <= tolerance,
                         qPrintable(QString("variable %1 value %2: %3 vs %4")
                                        .arg(v)
                                        .arg(k)
                                        .arg(packed[k])
                                        .arg(exact[k])));
            }
        }
        // Plausible weather: some precipitation, mostly none; temperatures of a tropical January.
        const auto& tp = values["cds-2024"][index(Variable::Tp)];
        const auto wet = std::count_if(tp.begin(), tp.end(), [](float x) { return x > 0.0f; });
        QVERIFY(wet > 0);
        QVERIFY(wet < static_cast<long>(tp.size()) / 2);
        for (float t : values["cds-2024"][index(Variable::T2m)]) {
            QVERIFY(t > 15.0f && t < 40.0f);
        }
    }

    void sampleRefusesBadArguments() {
        CliRun run = runCli({"synth", "--out", dir_.filePath("x.nc"), "--hours", "2", "--layout", "grib"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("--layout"), qPrintable(run.err));
        run = runCli({"synth", "--out", dir_.filePath("x.nc"), "--hours", "2", "--region", "10,20,30"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("four numbers"), qPrintable(run.err));
        run = runCli(
            {"synth", "--out", dir_.filePath("no/such/dir/x.nc"), "--hours", "1", "--region", "1,0,0,1"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("no/such/dir/x.nc"), qPrintable(run.err));
        QVERIFY(!QFile::exists(dir_.filePath("no/such/dir/x.nc.part")));
    }

    // bench read reports the three stages and a rate.
    void benchRead() {
        const QString file = dir_.filePath("bench.nc");
        QCOMPARE(runCli({"synth", "--out", file, "--hours", "2", "--region", "20,0,0,20"}).exitCode, 0);
        const CliRun run = runCli({"bench", "read", "--passes", "1", file});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        for (const char* part : {"13122 rows in 2 step(s)", "read (netcdf-c", "decode + unit conversion",
                                 "COPY encoding with location ids", "rows/s", "86.0 bytes per row"}) {
            QVERIFY2(run.out.contains(part), qPrintable(run.out));
        }
        QVERIFY2(run.err.contains(dir_.filePath("reports/bench/bench-read-")), qPrintable(run.err));
    }

private:
    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
