// SPDX-License-Identifier: GPL-3.0-or-later

// ERA5 files: grid arithmetic, time units, reading and decoding, and bad input.

#include "Fixtures.h"
#include "TestUtil.h"
#include "domain/Grid.h"
#include "era5/BandReader.h"
#include "era5/ClassicHeader.h"
#include "era5/Dataset.h"
#include "era5/Era5File.h"
#include "era5/TimeUnits.h"
#include "era5/ValueDecoder.h"
#include "util/Error.h"

#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

using namespace isobar;
using test::errorOf;

class TestEra5 : public QObject {
    Q_OBJECT

private slots:
    void init() { QVERIFY(dir_.isValid()); }

    // The seed's formula: lat_index * 1440 + lon_index + 1, with lat_index = (lat + 90) / 0.25 and
    // lon_index = (lon + 179.75) / 0.25 after normalizing lon to (-180, 180]. Expected ids below are
    // worked out by hand.
    void seedLocationIds_data() {
        QTest::addColumn<double>("lat");
        QTest::addColumn<double>("lon");
        QTest::addColumn<int>("expected");
        QTest::newRow("south pole, first column") << -90.0 << -179.75 << 1;
        QTest::newRow("south pole, lon 0") << -90.0 << 0.0 << 720;
        QTest::newRow("north pole, lon 0") << 90.0 << 0.0 << 1037520;
        QTest::newRow("north pole, date line 180") << 90.0 << 180.0 << 1038240;
        QTest::newRow("north pole, date line -180") << 90.0 << -180.0 << 1038240;
        QTest::newRow("equator, prime meridian") << 0.0 << 0.0 << 519120;
        QTest::newRow("equator, just east of 0") << 0.0 << 0.25 << 519121;
        QTest::newRow("equator, 359.75 is -0.25") << 0.0 << 359.75 << 519119;
        QTest::newRow("equator, -0.25") << 0.0 << -0.25 << 519119;
        QTest::newRow("equator, date line 180") << 0.0 << 180.0 << 519840;
        QTest::newRow("equator, date line -180") << 0.0 << -180.0 << 519840;
        QTest::newRow("equator, 180.25 is -179.75") << 0.0 << 180.25 << 518401;
        QTest::newRow("equator, -179.75") << 0.0 << -179.75 << 518401;
        QTest::newRow("mid-latitude") << 45.5 << 10.75 << 781243;
        QTest::newRow("float32 coordinate") << static_cast<double>(45.5f) << static_cast<double>(349.25f)
                                            << 781157; // 542 * 1440 + (-10.75 + 179.75) / 0.25 + 1
    }
    void seedLocationIds() {
        QFETCH(double, lat);
        QFETCH(double, lon);
        QFETCH(int, expected);
        QCOMPARE(seedLocationId(lat, lon).value, expected);
    }

    void normalizesLongitude_data() {
        QTest::addColumn<double>("lon");
        QTest::addColumn<double>("expected");
        QTest::newRow("0") << 0.0 << 0.0;
        QTest::newRow("180 stays") << 180.0 << 180.0;
        QTest::newRow("-180 becomes 180") << -180.0 << 180.0;
        QTest::newRow("180.25") << 180.25 << -179.75;
        QTest::newRow("359.75") << 359.75 << -0.25;
        QTest::newRow("360") << 360.0 << 0.0;
        QTest::newRow("-30") << -30.0 << -30.0;
    }
    void normalizesLongitude() {
        QFETCH(double, lon);
        QFETCH(double, expected);
        QCOMPARE(normalizeLongitude(lon), expected);
    }

    // Expected microseconds since 2000-01-01 UTC computed with Python's datetime.
    void timeUnits_data() {
        QTest::addColumn<QString>("units");
        QTest::addColumn<QString>("calendar");
        QTest::addColumn<qint64>("value");
        QTest::addColumn<qint64>("expected");
        QTest::newRow("CDS legacy hours") << "hours since 1900-01-01 00:00:00.0"
                                          << "gregorian" << qint64{1086000} << qint64{753926400000000};
        QTest::newRow("CDS 2024 seconds")
            << "seconds since 1970-01-01"
            << "proleptic_gregorian" << qint64{1748390400} << qint64{801705600000000};
        QTest::newRow("days since 1940") << "days since 1940-01-01 00:00:00"
                                         << "standard" << qint64{30000} << qint64{698544000000000};
        QTest::newRow("minutes, ISO T and offset") << "minutes since 2024-01-01T00:00:00+02:00"
                                                   << "" << qint64{90} << qint64{757380600000000};
        QTest::newRow("negative offset value") << "hours since 1900-01-01"
                                               << "gregorian" << qint64{-1} << qint64{-3155677200000000};
        QTest::newRow("Z and fraction") << "seconds since 1940-01-01T12:30:15.25Z"
                                        << "standard" << qint64{0} << qint64{-1893410984750000};
        QTest::newRow("gregorian cutover") << "days since 1582-10-15"
                                           << "gregorian" << qint64{0} << qint64{-13165977600000000};
    }
    void timeUnits() {
        QFETCH(QString, units);
        QFETCH(QString, calendar);
        QFETCH(qint64, value);
        QFETCH(qint64, expected);
        const TimeUnits u = TimeUnits::parse(units.toStdString(), calendar.toStdString());
        QCOMPARE(u.fromInteger(value).value().micros, expected);
        QCOMPARE(u.fromDouble(static_cast<double>(value)).value().micros, expected);
    }

    void rejectsTimeUnits_data() {
        QTest::addColumn<QString>("units");
        QTest::addColumn<QString>("calendar");
        QTest::addColumn<QString>("says");
        QTest::newRow("unknown unit") << "fortnights since 1900-01-01"
                                      << ""
                                      << "unknown unit";
        QTest::newRow("no since") << "hours after 1900-01-01"
                                  << ""
                                  << "since";
        QTest::newRow("YYYYMMDD") << "day as %Y%m%d.%f"
                                  << ""
                                  << "since";
        QTest::newRow("noleap") << "days since 2000-01-01"
                                << "noleap"
                                << "noleap";
        QTest::newRow("360_day") << "days since 2000-01-01"
                                 << "360_day"
                                 << "360_day";
        QTest::newRow("julian era") << "days since 1500-01-01"
                                    << "standard"
                                    << "1582";
        QTest::newRow("bad month") << "days since 2000-13-01"
                                   << ""
                                   << "out of range";
    }
    void rejectsTimeUnits() {
        QFETCH(QString, units);
        QFETCH(QString, calendar);
        QFETCH(QString, says);
        const QString message =
            errorOf([&] { TimeUnits::parse(units.toStdString(), calendar.toStdString()); });
        QVERIFY2(message.contains(says), qPrintable(message));
    }

    void formatsTimestamps() {
        QCOMPARE(QString::fromStdString(formatTimestamp(PgTimestamp{753926400000000})),
                 QString("2023-11-22 00:00:00+00"));
        QCOMPARE(QString::fromStdString(formatTimestamp(PgTimestamp{-1893410984750000})),
                 QString("1940-01-01 12:30:15.250000+00"));
        QCOMPARE(QString::fromStdString(formatTimestamp(PgTimestamp{0})), QString("2000-01-01 00:00:00+00"));
    }

    // A classic CDS-shaped file written with netcdf-c: everything the reader reports.
    void readsClassicFixture() {
        const auto lats = test::range(60.0, 58.0, 0.25);
        const auto lons = test::range(-1.5, 1.25, 0.25); // crosses the prime meridian
        auto spec = test::classicFixture(lats, lons, 3, 4);
        const QString path = dir_.filePath("classic.nc");
        test::writeFixture(path, spec);

        const Era5File f = Era5File::open(path.toStdString());
        QCOMPARE(QString::fromStdString(f.format()), QString("netCDF3 64-bit offset"));
        QCOMPARE(f.latitudes().size(), size_t{9});
        QCOMPARE(f.longitudes().size(), size_t{12});
        QCOMPARE(f.latitudes().front(), 60.0);
        QCOMPARE(f.steps().size(), size_t{3});
        QCOMPARE(f.steps()[0].time.micros, qint64{753926400000000});
        QCOMPARE(f.steps()[2].time.micros - f.steps()[0].time.micros, qint64{2} * 3600 * 1000000);
        QCOMPARE(f.rowCount(), std::uint64_t{3 * 9 * 12});
        QCOMPARE(f.variables().size(), size_t{6});
        QVERIFY(f.ignoredVariables().empty());
        const FileVariable* t2m = f.find(Variable::T2m);
        QVERIFY(t2m != nullptr);
        QCOMPARE(t2m->type, NC_SHORT);
        QVERIFY(t2m->packed);
        QCOMPARE(t2m->scale, 0.0017);
        QCOMPARE(t2m->offset, 268.5);
        QCOMPARE(t2m->conversion, Conversion::KelvinToCelsius);
        QCOMPARE(f.find(Variable::Tp)->conversion, Conversion::MetresToMillimetres);
        QCOMPARE(f.find(Variable::Sf)->conversion, Conversion::MetresToMillimetres);
        QCOMPARE(f.find(Variable::U10)->conversion, Conversion::None);

        // Every value of a band decodes as the CF rules say, computed here independently.
        const Dataset dataset = Dataset::open({path.toStdString()});
        const BandReader reader(dataset);
        RawUnit raw;
        DecodedBand band;
        for (size_t t = 0; t < 3; ++t) {
            reader.fetch(t, 2, 5, raw);
            reader.decode(raw, band);
            for (const auto& var : f.variables()) {
                const Variable v = *var.column.variable;
                const auto& fixtureVar = spec.variables[index(v)];
                const float* decoded = band.values[index(v)]; // the seed's six: columns in catalog order
                QVERIFY(decoded != nullptr);
                for (size_t k = 0; k < 5 * 12; ++k) {
                    const double stored = fixtureVar.stored[t * 9 * 12 + 2 * 12 + k];
                    if (stored == -32767) {
                        QVERIFY(std::isnan(decoded[k]));
                        continue;
                    }
                    double expected = stored * *fixtureVar.scaleFactor + *fixtureVar.addOffset;
                    if (v == Variable::T2m) {
                        expected -= 273.15;
                    } else if (v == Variable::Tp || v == Variable::Sf) {
                        expected *= 1000.0;
                    }
                    QCOMPARE(decoded[k], static_cast<float>(expected));
                }
            }
        }
    }

    // The int16 lookup table equals the direct formula for all 65536 stored values.
    void decoderTableMatchesFormula() {
        FileVariable var;
        var.type = NC_SHORT;
        var.packed = true;
        var.scale = 0.00137818208002075;
        var.offset = 265.216229854273;
        var.missingValues = {-32767, -32767};
        var.conversion = Conversion::KelvinToCelsius;
        RawBand raw;
        raw.type = NC_SHORT;
        raw.rows = 1;
        raw.cols = 65536;
        for (int v = -32768; v <= 32767; ++v) {
            raw.shorts.push_back(static_cast<std::int16_t>(v));
        }
        std::vector<float> out(raw.count());
        ValueDecoder(var).decodeInto(raw, false, {ColumnRun{0, 0, raw.cols, 1}}, raw.cols, out.data());
        for (size_t k = 0; k < raw.count(); ++k) {
            const double stored = raw.shorts[k];
            if (stored == -32767) {
                QVERIFY(std::isnan(out[k]));
            } else {
                QCOMPARE(out[k], static_cast<float>(stored * var.scale + var.offset - 273.15));
            }
        }
    }

    // Float files: NaN and _FillValue are missing; no packing.
    void decodesFloatsWithNaNFill() {
        FileVariable var;
        var.type = NC_FLOAT;
        var.missingValues = {std::numeric_limits<double>::quiet_NaN(), 9.969209968386869e+36};
        var.conversion = Conversion::MetresToMillimetres;
        RawBand raw;
        raw.type = NC_FLOAT;
        raw.floats = {0.0f, 0.0123f, std::numeric_limits<float>::quiet_NaN(), 9.96921e+36f, -0.0f};
        raw.rows = 1;
        raw.cols = raw.floats.size();
        std::vector<float> out(raw.count());
        ValueDecoder(var).decodeInto(raw, false, {ColumnRun{0, 0, raw.cols, 1}}, raw.cols, out.data());
        QCOMPARE(out[0], 0.0f);
        QCOMPARE(out[1], static_cast<float>(static_cast<double>(0.0123f) * 1000.0));
        QVERIFY(std::isnan(out[2]));
        QVERIFY(std::isnan(out[3]));
        QCOMPARE(out[4], 0.0f);
    }

    void acceptsCelsiusAndNetcdf4() {
        auto spec = test::classicFixture({10.0, 9.75}, {20.0, 20.25}, 1, 0);
        spec.format = NC_NETCDF4;
        spec.timeName = "valid_time";
        spec.timeType = NC_INT64;
        spec.timeUnits = "seconds since 1970-01-01";
        spec.calendar = "proleptic_gregorian";
        spec.times = {1748390400};
        spec.variables.resize(1);
        spec.variables[0].units = "degC";
        const QString path = dir_.filePath("celsius.nc");
        test::writeFixture(path, spec);
        const Era5File f = Era5File::open(path.toStdString());
        QCOMPARE(QString::fromStdString(f.format()), QString("netCDF4 (HDF5)"));
        QCOMPARE(f.steps()[0].time.micros, qint64{801705600000000});
        QCOMPARE(f.find(Variable::T2m)->conversion, Conversion::None);
    }

    // Bad input: each gets one clear message that names the file and what is wrong.
    void badFiles() {
        const std::string missing = dir_.filePath("nope.nc").toStdString();
        EXPECT_ERROR_CONTAINING(Era5File::open(missing), "nope.nc", "no such file");

        const QString text = dir_.filePath("notes.nc");
        std::ofstream(text.toStdString()) << "these are my notes, not a NetCDF file\n";
        EXPECT_ERROR_CONTAINING(Era5File::open(text.toStdString()), "notes.nc",
                                "neither a NetCDF nor a GRIB file");

        const QString empty = dir_.filePath("empty.nc");
        std::ofstream(empty.toStdString()).close();
        EXPECT_ERROR_CONTAINING(Era5File::open(empty.toStdString()), "empty.nc", "empty");

        EXPECT_ERROR_CONTAINING(Era5File::open(dir_.path().toStdString()), "directory");

        const QString zip = dir_.filePath("download.nc");
        std::ofstream(zip.toStdString(), std::ios::binary)
            << std::string("PK\x03\x04\x14\x00\x00\x00", 8) << std::string(100, 'x');
        EXPECT_ERROR_CONTAINING(Era5File::open(zip.toStdString()), "download.nc", "ZIP archive");

        const QString grib = dir_.filePath("data.grib");
        std::ofstream(grib.toStdString(), std::ios::binary) << "GRIB" << std::string(100, '\1');
        EXPECT_ERROR_CONTAINING(Era5File::open(grib.toStdString()), "data.grib", "GRIB");
    }

    // A file cut short (an interrupted download): the header may still open, the data cannot be
    // read, and the message says so with the file, variable and time step.
    void truncatedFile() {
        auto spec = test::classicFixture(test::range(50.0, 40.0, 0.25), test::range(0.0, 10.0, 0.25), 4, 0);
        const QString path = dir_.filePath("truncated.nc");
        test::writeFixture(path, spec);
        const auto fullSize = std::filesystem::file_size(path.toStdString());
        std::filesystem::resize_file(path.toStdString(), fullSize / 2);
        const QString message = errorOf([&] {
            const Era5File f = Era5File::open(path.toStdString());
            RawBand raw;
            for (const auto& var : f.variables()) {
                for (const FileStep& step : f.steps()) {
                    f.readRaw(var, step, 0, 0, 0, f.latitudes().size(), raw);
                }
            }
        });
        QVERIFY2(message.contains("truncated.nc"), qPrintable(message));
        QVERIFY2(message.contains("truncated or corrupt"), qPrintable(message));

        // Cut inside the header: cannot even open.
        std::filesystem::resize_file(path.toStdString(), 40);
        EXPECT_ERROR_CONTAINING(Era5File::open(path.toStdString()), "truncated.nc", "truncated or corrupt");
    }

    // The classic-header parser behind the truncation check accounts for the bytes of complete
    // files: ours (one and several records, several formats) and the CDS's own.
    void classicHeaderDeclaresExactSize() {
        QStringList files;
        for (int format : {NC_CLASSIC_MODEL, NC_64BIT_OFFSET, NC_64BIT_DATA}) {
            for (int hours : {1, 3}) {
                auto spec = test::classicFixture({10.0, 9.75, 9.5}, {20.0, 20.25}, hours, 0);
                spec.format = format == NC_CLASSIC_MODEL ? 0 : format;
                if (hours == 1) {
                    spec.variables.resize(1); // a lone record variable is laid out without padding
                    spec.variables[0].type = NC_SHORT;
                }
                const QString path = dir_.filePath(QString("exact-%1-%2.nc").arg(format).arg(hours));
                test::writeFixture(path, spec);
                files << path;
            }
        }
        if (const QString samples = test::samplesDir(); !samples.isEmpty()) {
            for (const char* name : {"cds-legacy_grid-0.25_neg-lon_t2m.nc", "cds-legacy_global-20deg_t2m.nc",
                                     "cds-legacy_point-offgrid_1day-hourly_multivar.nc"}) {
                files << samples + "/" + name;
            }
        }
        for (const QString& path : files) {
            const auto layout = classicLayout(path.toStdString());
            QVERIFY2(layout.has_value(), qPrintable(path));
            QVERIFY(!layout->headerTruncated);
            // Exact, but for the padding some writers add after the last record (up to 4 bytes).
            const auto size = std::filesystem::file_size(path.toStdString());
            QVERIFY2(size >= layout->declaredSize && size - layout->declaredSize < 4,
                     qPrintable(
                         QString("%1: declared %2, size %3").arg(path).arg(layout->declaredSize).arg(size)));
        }
        QVERIFY(!classicLayout(dir_.filePath("nothing-here.nc").toStdString()).has_value());
    }

    void refusesWhatItCannotLoad() {
        // Units by the parameter: surface pressure that claims to be in K is refused, not loaded
        // "as stored" into a column that says Pa.
        auto spec = test::classicFixture({10.0}, {20.0}, 1, 0);
        spec.variables.resize(2);
        spec.variables[0].name = "sp";
        spec.variables[0].longName = "Surface pressure";
        spec.variables[1].name = "sst";
        spec.variables[1].longName = "Sea surface temperature";
        QString path = dir_.filePath("other-vars.nc");
        test::writeFixture(path, spec);
        EXPECT_ERROR_CONTAINING(Era5File::open(path.toStdString()), "other-vars.nc",
                                "variable sp has units 'K'", "expected in Pa");

        // Wrong units: refused rather than guessed.
        spec = test::classicFixture({10.0}, {20.0}, 1, 0);
        spec.variables[0].units = "furlongs";
        path = dir_.filePath("bad-units.nc");
        test::writeFixture(path, spec);
        EXPECT_ERROR_CONTAINING(Era5File::open(path.toStdString()), "bad-units.nc", "t2m", "furlongs", "K");

        // Empty time dimension.
        spec = test::classicFixture({10.0}, {20.0}, 1, 0);
        spec.times.clear();
        for (auto& v : spec.variables) {
            v.stored.clear();
        }
        path = dir_.filePath("no-times.nc");
        test::writeFixture(path, spec);
        EXPECT_ERROR_CONTAINING(Era5File::open(path.toStdString()), "no-times.nc", "no time steps");

        // Off the 0.25 grid.
        spec = test::classicFixture({55.695}, {12.495}, 1, 0);
        path = dir_.filePath("off-grid.nc");
        test::writeFixture(path, spec);
        EXPECT_ERROR_CONTAINING(Era5File::open(path.toStdString()), "off-grid.nc", "55.69",
                                "not on the 0.25");

        // Bad time units.
        spec = test::classicFixture({10.0}, {20.0}, 1, 0);
        spec.timeUnits = "hours";
        path = dir_.filePath("bad-time.nc");
        test::writeFixture(path, spec);
        EXPECT_ERROR_CONTAINING(Era5File::open(path.toStdString()), "bad-time.nc", "time", "since");

        // Same grid column twice (0 and 360).
        spec = test::classicFixture({10.0}, {0.0, 360.0}, 1, 0);
        path = dir_.filePath("lon-twice.nc");
        test::writeFixture(path, spec);
        EXPECT_ERROR_CONTAINING(Era5File::open(path.toStdString()), "lon-twice.nc",
                                "longitude 0 appears twice");
    }

    void pressureLevelFileIsExplained() {
        const QString path = dir_.filePath("levels.nc");
        int ncid = -1;
        QCOMPARE(nc_create(QFile::encodeName(path).constData(), NC_CLOBBER | NC_64BIT_OFFSET, &ncid),
                 NC_NOERR);
        int dims[4];
        nc_def_dim(ncid, "time", 1, &dims[0]);
        nc_def_dim(ncid, "level", 2, &dims[1]);
        nc_def_dim(ncid, "latitude", 1, &dims[2]);
        nc_def_dim(ncid, "longitude", 1, &dims[3]);
        int v = -1;
        nc_def_var(ncid, "time", NC_INT, 1, &dims[0], &v);
        const char* units = "hours since 1900-01-01";
        nc_put_att_text(ncid, v, "units", std::strlen(units), units);
        nc_def_var(ncid, "level", NC_INT, 1, &dims[1], &v);
        nc_def_var(ncid, "latitude", NC_FLOAT, 1, &dims[2], &v);
        nc_def_var(ncid, "longitude", NC_FLOAT, 1, &dims[3], &v);
        int t2m = -1;
        nc_def_var(ncid, "t2m", NC_FLOAT, 4, dims, &t2m);
        nc_put_att_text(ncid, t2m, "units", 1, "K");
        nc_enddef(ncid);
        const float zero = 0.0f;
        int coord = -1;
        nc_inq_varid(ncid, "latitude", &coord);
        nc_put_var_float(ncid, coord, &zero);
        nc_inq_varid(ncid, "longitude", &coord);
        nc_put_var_float(ncid, coord, &zero);
        QCOMPARE(nc_close(ncid), NC_NOERR);
        // A level dimension whose coordinate does not say hPa or Pa is not taken for pressure levels.
        EXPECT_ERROR_CONTAINING(Era5File::open(path.toStdString()), "levels.nc", "not pressure levels",
                                "model-level files are not loaded");
    }

private:
    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestEra5)
#include "tst_era5.moc"
