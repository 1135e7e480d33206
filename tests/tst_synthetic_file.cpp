// SPDX-License-Identifier: GPL-3.0-or-later

// The synthetic file as written by default: the CDS legacy layout, global, with plausible values,
// deterministic per seed, that say they are synthetic; regions in every longitude convention, and the
// regions it refuses.

#include "Fixtures.h"
#include "era5/Era5File.h"
#include "synth/SyntheticFiles.h"
#include "util/Error.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace isobar;

class TestSyntheticFile : public QObject {
    Q_OBJECT

private slots:
    void init() { QVERIFY(dir_.isValid()); }

    // The synthetic sample: CDS legacy layout, plausible values, deterministic, says it is synthetic.
    void writesSyntheticSample() {
        SyntheticOptions options;
        options.out = dir_.filePath("global.nc").toStdString();
        options.hours = 2;
        const SyntheticInfo info = writeSynthetic(options);
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
        writeSynthetic(options);
        const auto again = test::readStored(dir_.filePath("global-again.nc"), "t2m");
        QVERIFY(std::equal(again.begin(), again.end(), t2m.begin()));
        options.out = dir_.filePath("global-seed2.nc").toStdString();
        options.seed = 2;
        writeSynthetic(options);
        const auto other = test::readStored(dir_.filePath("global-seed2.nc"), "t2m");
        QVERIFY(!std::equal(other.begin(), other.end(), t2m.begin()));

        // And the reader takes it.
        const Era5File f = Era5File::open(dir_.filePath("global.nc").toStdString());
        QCOMPARE(f.variables().size(), size_t{6});
        QCOMPARE(f.rowCount(), std::uint64_t{2 * 721 * 1440});
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
        SyntheticOptions options;
        options.out = dir_.filePath("region.nc").toStdString();
        options.region = SyntheticRegion::parse(region.toStdString());
        writeSynthetic(options);
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
        QVERIFY_THROWS_EXCEPTION(Error, SyntheticRegion::parse(region.toStdString()));
    }

private:
    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestSyntheticFile)
#include "tst_synthetic_file.moc"
