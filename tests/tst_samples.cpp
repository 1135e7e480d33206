// SPDX-License-Identifier: GPL-3.0-or-later

// The real files in ../shared/era5-samples, as the Copernicus CDS and others deliver them: what
// each opens as, what is refused and how. They are a sample of the wild, not all of it.

#include "Fixtures.h"
#include "TestUtil.h"
#include "era5/Dataset.h"
#include "era5/Era5File.h"
#include "util/Error.h"

#include <QtTest>

using namespace isobar;
using test::errorOf;

namespace {} // namespace

class TestSamples : public QObject {
    Q_OBJECT

private slots:
    // Real files as the CDS delivers them (a sample of the wild): what each opens as.
    void realCdsFiles_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("nearest"); // --off-grid nearest
        QTest::addColumn<QString>("variables");
        QTest::addColumn<QString>("layout");
        QTest::addColumn<double>("step");
        QTest::addColumn<int>("steps");
        QTest::newRow("legacy 0.25 grid, negative longitudes")
            << "cds-legacy_grid-0.25_neg-lon_t2m.nc" << false << "t2m"
            << "CDS legacy (grib_to_netcdf)" << 0.25 << 1;
        // Its points are points of ERA5's 0.25 deg grid, so they keep that grid's location_ids.
        QTest::newRow("legacy global 20 deg") << "cds-legacy_global-20deg_t2m.nc" << false << "t2m"
                                              << "CDS legacy (grib_to_netcdf)" << 0.25 << 1;
        QTest::newRow("2024 netCDF4 wind, valid_time")
            << "cds-2024_wind_u10v10_expver5.nc" << false << "u10 v10"
            << "CDS 2024 (cfgrib)" << 0.25 << 30;
        QTest::newRow("2024 monthly means") << "cds-2024_monthly-means_avgad_tp.nc" << false << "tp"
                                            << "CDS 2024 (cfgrib), monthly means" << 0.25 << 240;
        QTest::newRow("ERA5-Land 0.1 grid")
            << "cds-2024_era5land_nan-sea.nc" << false << "t2m u10 v10 tp d2m skt sp ssrd strd"
            << "CDS 2024 (cfgrib), ERA5-Land" << 0.1 << 1;
        QTest::newRow("legacy off-grid point, nearest")
            << "cds-legacy_point-offgrid_1day-hourly_multivar.nc" << true
            << "t2m u10 v10 sp msdwswrf msdrswrf msdwswrfcs msdrswrfcs"
            << "CDS legacy (grib_to_netcdf), single point" << 0.25 << 48;
        QTest::newRow("2024 off-grid point, nearest")
            << "cds-2024_point-offgrid_hourly_u10v10t2m.nc" << true << "t2m u10 v10 sp"
            << "CDS 2024 (cfgrib), single point" << 0.25 << 4344;
        // The CDS time-series datasets: a point snapped to the product's grid, a year of hours.
        QTest::newRow("time series CSV (ERA5)")
            << "cds-timeseries_era5_point_csv_u100v10.csv" << false << "v10 u100"
            << "CDS time series (CSV), single point" << 0.25 << 8784;
        QTest::newRow("time series netCDF (ERA5-Land)")
            << "cds-timeseries_era5land_point_nc_t2m-24h.nc" << false << "t2m"
            << "CDS time series (netCDF), ERA5-Land, single point" << 0.1 << 24;
    }
    void realCdsFiles() {
        QFETCH(QString, file);
        QFETCH(bool, nearest);
        QFETCH(QString, variables);
        QFETCH(QString, layout);
        QFETCH(double, step);
        QFETCH(int, steps);
        const QString dir = test::samplesDir();
        if (dir.isEmpty()) {
            QSKIP("../shared/era5-samples is not present next to the repository");
        }
        OpenOptions options;
        options.offGrid = nearest ? OffGridPolicy::Nearest : OffGridPolicy::Refuse;
        const Era5File f = Era5File::open((dir + "/" + file).toStdString(), options);
        QStringList names;
        for (const auto& v : f.variables()) {
            names << QString::fromStdString(v.column.key);
        }
        QCOMPARE(names.join(' '), variables);
        QCOMPARE(QString::fromStdString(f.layout()), layout);
        QCOMPARE(f.grid().spacing(), step);
        QCOMPARE(static_cast<int>(f.steps().size()), steps);
        QCOMPARE(f.offGrid(), nearest);
    }

    // Off-grid single points are refused by default, naming the point.
    void realOffGridPointsAreRefused_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("point");
        QTest::newRow("legacy") << "cds-legacy_point-offgrid_1day-hourly_multivar.nc"
                                << "latitude 55.695, longitude 12.495";
        QTest::newRow("2024") << "cds-2024_point-offgrid_hourly_u10v10t2m.nc"
                              << "latitude 35, longitude -118.3";
    }
    void realOffGridPointsAreRefused() {
        QFETCH(QString, file);
        QFETCH(QString, point);
        const QString dir = test::samplesDir();
        if (dir.isEmpty()) {
            QSKIP("../shared/era5-samples is not present next to the repository");
        }
        const QString message = errorOf([&] { (void)Era5File::open((dir + "/" + file).toStdString()); });
        QVERIFY2(message.contains(file), qPrintable(message));
        QVERIFY2(message.contains(point), qPrintable(message));
        QVERIFY2(message.contains("--off-grid nearest"), qPrintable(message));
    }

    // The ZIP the new CDS sends for mixed requests: opened member by member, the instant member (sst)
    // and the accumulated one (radiation and heat fluxes) merged into one dataset of five columns.
    void realZipArchive() {
        const QString dir = test::samplesDir();
        if (dir.isEmpty()) {
            QSKIP("../shared/era5-samples is not present next to the repository");
        }
        const Dataset d = Dataset::open({(dir + "/zip-disguised-as-nc_fluxes.nc").toStdString()});
        QCOMPARE(d.files().size(), size_t{2});
        QStringList keys;
        for (const ValueColumn& c : d.variables()) {
            keys << QString::fromStdString(c.key);
        }
        QCOMPARE(keys.join(' '), QString("sst ssr str slhf sshf"));
        for (const ValueColumn& c : d.variables()) {
            QVERIFY(c.variable.has_value()); // all in the catalog
        }
        QCOMPARE(QString::fromStdString(d.variables()[0].units), QString("degC"));    // sst from K
        QCOMPARE(QString::fromStdString(d.variables()[1].units), QString("J m**-2")); // ssr as stored
        QVERIFY2(test::anyLineContains(d.notes(), {"ZIP archive", "2 member(s)"}),
                 qPrintable(test::joinLines(d.notes())));
    }

    // The same archive damaged as downloads get damaged: the message names the file and what is
    // wrong with it.
    void brokenZipArchives_data() {
        QTest::addColumn<qint64>("keep");   // bytes kept from the start (-1: all)
        QTest::addColumn<qint64>("zeroAt"); // four bytes zeroed there (-1: none)
        QTest::addColumn<QString>("reason");
        QTest::newRow("cut short") << qint64{200000} << qint64{-1} << "no end-of-archive record";
        // Inside the first member's data (it starts at byte 0 and is 93,598 bytes compressed).
        QTest::newRow("damaged member")
            << qint64{-1} << qint64{50000} << "data_stream-oper_stepType-instant.nc fails its CRC-32";
    }
    void brokenZipArchives() {
        QFETCH(qint64, keep);
        QFETCH(qint64, zeroAt);
        QFETCH(QString, reason);
        const QString dir = test::samplesDir();
        if (dir.isEmpty()) {
            QSKIP("../shared/era5-samples is not present next to the repository");
        }
        QFile original(dir + "/zip-disguised-as-nc_fluxes.nc");
        QVERIFY(original.open(QIODevice::ReadOnly));
        QByteArray bytes = original.readAll();
        if (keep >= 0) {
            bytes.truncate(keep);
        }
        if (zeroAt >= 0) {
            bytes.replace(zeroAt, 4, QByteArray(4, '\0'));
        }
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString path = tmp.filePath("download.nc");
        QFile damaged(path);
        QVERIFY(damaged.open(QIODevice::WriteOnly) && damaged.write(bytes) == bytes.size());
        damaged.close();
        EXPECT_ERROR_CONTAINING(Dataset::open({path.toStdString()}), path,
                                "a ZIP archive that cannot be read", reason,
                                "the download may be incomplete");
    }
};

QTEST_GUILESS_MAIN(TestSamples)
#include "tst_samples.moc"
