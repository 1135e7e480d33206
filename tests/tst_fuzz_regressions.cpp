// SPDX-License-Identifier: GPL-3.0-or-later

// The parsers the fuzzers of tests/fuzz reach: their in-memory entry points
// agree with the path ones (the seam the fuzzers use), and each input a fuzzer
// found harmful, built here byte by byte, is refused with a message instead of
// crashing.

#include "Fixtures.h"
#include "GribFixtures.h"
#include "TestUtil.h"
#include "era5/ClassicHeader.h"
#include "era5/Era5File.h"
#include "era5/Grib.h"
#include "era5/ZipArchive.h"
#include "util/Error.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <netcdf.h>

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

using namespace isobar;
using test::errorOf;

namespace {

std::vector<std::byte> bytesOf(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        return {};
    }
    const QByteArray data = f.readAll();
    const auto* first = reinterpret_cast<const std::byte*>(data.constData());
    return {first, first + data.size()};
}

void nc(int status) {
    if (status != NC_NOERR) {
        throw Error(std::string("netcdf-c: ") + nc_strerror(status));
    }
}

void textAttribute(int ncid, int varid, const char* name, const std::string& value) {
    nc(nc_put_att_text(ncid, varid, name, value.size(), value.c_str()));
}

// The file writePointFile is defining.
struct PointFile {
    int ncid = -1;
    int time = -1; // the valid_time dimension, -1 when there is none
    int latitude = -1;
    int longitude = -1;
};

// A one-point t2m file in `format` (netcdf-c's NC_64BIT_OFFSET, NC_NETCDF4):
// latitude 10, longitude 20, t2m(valid_time, latitude, longitude), or
// t2m(latitude, longitude) without a valid_time dimension. `define` adds what
// the case needs (the time coordinate among it) before the values are written.
void writePointFile(const QString& path, int format, bool timeDimension,
                    const std::function<void(const PointFile&)>& define) {
    PointFile f;
    nc(nc_create(path.toUtf8().constData(), NC_CLOBBER | format, &f.ncid));
    if (timeDimension) {
        nc(nc_def_dim(f.ncid, "valid_time", 1, &f.time));
    }
    nc(nc_def_dim(f.ncid, "latitude", 1, &f.latitude));
    nc(nc_def_dim(f.ncid, "longitude", 1, &f.longitude));
    int lat = -1;
    int lon = -1;
    int t2m = -1;
    nc(nc_def_var(f.ncid, "latitude", NC_DOUBLE, 1, &f.latitude, &lat));
    textAttribute(f.ncid, lat, "units", "degrees_north");
    nc(nc_def_var(f.ncid, "longitude", NC_DOUBLE, 1, &f.longitude, &lon));
    textAttribute(f.ncid, lon, "units", "degrees_east");
    const std::vector<int> dims = timeDimension ? std::vector<int>{f.time, f.latitude, f.longitude}
                                                : std::vector<int>{f.latitude, f.longitude};
    nc(nc_def_var(f.ncid, "t2m", NC_FLOAT, static_cast<int>(dims.size()), dims.data(), &t2m));
    textAttribute(f.ncid, t2m, "units", "K");
    define(f);
    nc(nc_enddef(f.ncid));
    const double one[] = {10.0, 20.0};
    const float kelvin = 280.0f;
    nc(nc_put_var_double(f.ncid, lat, &one[0]));
    nc(nc_put_var_double(f.ncid, lon, &one[1]));
    nc(nc_put_var_float(f.ncid, t2m, &kelvin));
    nc(nc_close(f.ncid));
}

// A valid_time variable along `dims` (seconds since 1970), every value
// 2024-01-01 00 UTC.
void defineTime(int ncid, const std::vector<int>& dims) {
    int varid = -1;
    nc(nc_def_var(ncid, "valid_time", NC_DOUBLE, static_cast<int>(dims.size()), dims.data(), &varid));
    textAttribute(ncid, varid, "units", "seconds since 1970-01-01");
    // Never written: every value is the fill value.
    const double fill = 1'704'067'200.0;
    nc(nc_put_att_double(ncid, varid, "_FillValue", NC_DOUBLE, 1, &fill));
}

} // namespace

class TestFuzzRegressions : public QObject {
    Q_OBJECT

private slots:
    void init() { QVERIFY(dir_.isValid()); }

    // classicLayout on bytes reads the header as it reads the file; bytes that
    // end inside the header are a header cut short, as a file that does.
    void classicHeaderFromBytes() {
        for (int format : {NC_CLASSIC_MODEL, NC_64BIT_OFFSET, NC_64BIT_DATA}) {
            auto spec = test::classicFixture({10.0, 9.75, 9.5}, {20.0, 20.25}, 3, 0);
            spec.format = format == NC_CLASSIC_MODEL ? 0 : format;
            const QString path = dir_.filePath(QString("classic-%1.nc").arg(format));
            test::writeFixture(path, spec);
            const auto bytes = bytesOf(path);
            QVERIFY(!bytes.empty());

            const auto fromFile = classicLayout(path.toStdString());
            const auto fromBytes = classicLayout(std::span(bytes));
            QVERIFY(fromFile && fromBytes);
            QVERIFY(!fromBytes->headerTruncated);
            QCOMPARE(fromBytes->declaredSize, fromFile->declaredSize);
            QVERIFY(fromBytes->declaredSize <= bytes.size());

            const auto cut = classicLayout(std::span(bytes).first(40));
            QVERIFY(cut.has_value());
            QVERIFY(cut->headerTruncated);
        }
        const std::vector<std::byte> notNetcdf(64, std::byte{'x'});
        QVERIFY(!classicLayout(std::span(notNetcdf)).has_value());
    }

    // scanGrib on bytes finds the messages, the padding and the damage it finds
    // in the file.
    void gribScanFromBytes() {
        const QString path = dir_.filePath("legacy.grib");
        test::writeGribFixture(path, test::seedFields(1, test::box(50.0, 10.0, 3, 4), test::marchHours(2)),
                               120);
        const auto bytes = bytesOf(path);
        const GribScan fromFile = scanGrib(path.toStdString(), "legacy.grib");
        const GribScan fromBytes = scanGrib(std::span(bytes), "legacy.grib");
        QCOMPARE(fromBytes.messages.size(), fromFile.messages.size());
        QCOMPARE(fromBytes.fileSize, fromFile.fileSize);
        QCOMPARE(fromBytes.paddingBytes, fromFile.paddingBytes);
        QVERIFY(fromBytes.paddingBytes > 0);
        for (std::size_t i = 0; i < fromFile.messages.size(); ++i) {
            QCOMPARE(fromBytes.messages[i].offset, fromFile.messages[i].offset);
            QCOMPARE(fromBytes.messages[i].length, fromFile.messages[i].length);
            QCOMPARE(fromBytes.messages[i].shortName, fromFile.messages[i].shortName);
        }

        std::vector<std::byte> tail = bytes;
        for (char c : std::string("<html>")) {
            tail.push_back(static_cast<std::byte>(c));
        }
        QVERIFY(
            errorOf([&] { scanGrib(std::span(tail), "joined.grib"); }).contains("a tail that is not GRIB"));
        const auto cut = std::span(bytes).first(bytes.size() / 2 + 7);
        QVERIFY(errorOf([&] { scanGrib(cut, "cut.grib"); }).contains("cut short"));
        QVERIFY(errorOf([&] {
                    scanGrib(std::span<const std::byte>(), "empty.grib");
                }).contains("empty.grib: no GRIB message"));
    }

    // listZipMembers on bytes lists what it lists of the file, and refuses a
    // damaged archive naming it.
    void zipDirectoryFromBytes() {
        const QString a = dir_.filePath("a.nc");
        const QString b = dir_.filePath("b.nc");
        test::writeFixture(a, test::classicFixture({10.0}, {20.0}, 1, 0));
        test::writeFixture(b, test::classicFixture({10.0, 9.75}, {20.0}, 2, 0));
        const QString archive = dir_.filePath("download.zip");
        test::writeStoredZip(archive, {{"instant.nc", a}, {"accum.nc", b}});
        const auto bytes = bytesOf(archive);

        const auto fromFile = listZipMembers(archive.toStdString());
        const auto fromBytes = listZipMembers(std::span(bytes), "download.zip");
        QCOMPARE(fromBytes.size(), std::size_t{2});
        QCOMPARE(fromBytes.size(), fromFile.size());
        for (std::size_t i = 0; i < fromFile.size(); ++i) {
            QCOMPARE(fromBytes[i].name, fromFile[i].name);
            QCOMPARE(fromBytes[i].index, fromFile[i].index);
            QCOMPARE(fromBytes[i].size, fromFile[i].size);
        }
        const QString cut =
            errorOf([&] { listZipMembers(std::span(bytes).first(bytes.size() - 10), "cut.zip"); });
        QVERIFY2(cut.startsWith("cut.zip: a ZIP archive that cannot be read"), qPrintable(cut));
    }

    // netcdf-c allocates what a classic header declares before it reads it:
    // fuzz_era5_open's input, a synthetic file with one name length changed to
    // 0x80010000, made it ask for 3.3 GB (an out-of-memory under libFuzzer).
    // Isobar reads the header first and refuses it.
    void classicHeaderDamagedBeforeNetcdf() {
        const unsigned char header[] = {
            'C',  'D',  'F', 1,    // CDF-1
            0,    0,    0,   0,    // no records
            0,    0,    0,   0x0a, // the dimensions:
            0,    0,    0,   1,    // one,
            0x80, 0x01, 0,   0,    // whose name is 2147549184 bytes long
            'l',  'a',  't', 0,
        };
        const auto bytes = std::as_bytes(std::span(header));
        const auto layout = classicLayout(bytes);
        QVERIFY(layout.has_value());
        QVERIFY(!layout->headerTruncated);
        QCOMPARE(QString::fromStdString(layout->damage),
                 QString("declares a name or attribute of 2147549184 bytes"));

        const QString path = dir_.filePath("long-name.nc");
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(reinterpret_cast<const char*>(header), sizeof header);
        out.close();
        const QString error = errorOf([&] { Era5File::open(path.toStdString()); });
        QVERIFY2(error.contains(
                     "long-name.nc: the file is truncated or corrupt: its netCDF header declares a name or "
                     "attribute of 2147549184 bytes"),
                 qPrintable(error));
    }

    // ecCodes allocates the length a GRIB message's section 0 declares before it
    // reads the message: fuzz_grib_scan's input, the synthetic GRIB2 file with
    // octets 10-11 of the sixth message's total length 0xffff, made it ask for
    // 0xffff00000000ee bytes (an abort under AddressSanitizer; where malloc says
    // no, a vague "cannot be read"). Isobar reads section 0 first, and says the
    // file is cut short.
    void gribDeclaredLengthCheckedFirst() {
        const QString path = dir_.filePath("edition2.grib");
        test::writeGribFixture(path, test::seedFields(2, test::box(50.0, 10.0, 3, 4), test::marchHours(1)));
        const auto good = bytesOf(path);
        QCOMPARE(static_cast<int>(good[7]), 2);
        QVERIFY(errorOf([&] { scanGrib(std::span(good), "edition2.grib"); }).isEmpty());

        auto huge = good;
        huge[9] = std::byte{0xff};
        huge[10] = std::byte{0xff};
        std::uint64_t declared = 0; // octets 9-16, big-endian
        for (std::size_t i = 8; i < 16; ++i) {
            declared = declared << 8 | static_cast<std::uint64_t>(huge[i]);
        }
        QVERIFY(declared > (std::uint64_t{1} << 50));
        QString error = errorOf([&] { scanGrib(std::span(huge), "huge.grib"); });
        QVERIFY2(error.contains(QString("huge.grib: GRIB message 1 (at byte 0) is cut short (it declares %1 "
                                        "bytes): the file ends at byte %2")
                                    .arg(declared)
                                    .arg(good.size())),
                 qPrintable(error));
        // Edition 3 (experimental), which ecCodes reads as 2: fuzz_grib_scan's second input of the
        // kind, a GRIB1 message with its edition octet set to 3, whose section 1 then reads as a
        // length of 57 TB.
        const QString grib1 = dir_.filePath("edition1.grib");
        test::writeGribFixture(grib1, test::seedFields(1, test::box(50.0, 10.0, 3, 4), test::marchHours(1)));
        auto edition3 = bytesOf(grib1);
        edition3[7] = std::byte{3};
        std::uint64_t section1 = 0; // octets 9-16, big-endian
        for (std::size_t i = 8; i < 16; ++i) {
            section1 = section1 << 8 | static_cast<std::uint64_t>(edition3[i]);
        }
        error = errorOf([&] { scanGrib(std::span(edition3), "edition3.grib"); });
        QVERIFY2(error.contains(
                     QString("edition3.grib: GRIB message 1 (at byte 0) is cut short (it declares %1 bytes)")
                         .arg(section1)),
                 qPrintable(error));
        // The same check for a message after others.
        const std::size_t messages = scanGrib(std::span(good), "edition2.grib").messages.size();
        auto after = good;
        after.insert(after.end(), huge.begin(), huge.end());
        error = errorOf([&] { scanGrib(std::span(after), "after.grib"); });
        QVERIFY2(error.contains(QString("GRIB message %1 (at byte %2) is cut short (it declares")
                                    .arg(messages + 1)
                                    .arg(good.size())),
                 qPrintable(error));
    }

    // GRIB2 gives Ni and Nj in 32 bits each: their product, compared with the
    // number of points, overflowed a long (signed overflow, undefined behaviour;
    // found by reading, confirmed with fuzz_grib_scan's
    // UndefinedBehaviorSanitizer). Without the sanitizer the wrapped product
    // happened to differ from the points too, so this fails before the fix under
    // the asan preset.
    void gribGridOfMoreThanALongHolds() {
        const QString path = dir_.filePath("huge-grid.grib");
        test::writeGribFixture(path, test::seedFields(2, test::box(50.0, 10.0, 3, 4), test::marchHours(1)));
        auto bytes = bytesOf(path);
        const auto be = [&](std::size_t at, std::size_t n) {
            std::uint64_t v = 0;
            for (std::size_t i = 0; i < n; ++i) {
                v = v << 8 | static_cast<std::uint64_t>(bytes[at + i]);
            }
            return v;
        };
        // Every message's section 3 (template 3.0: Ni at octets 31-34, Nj at
        // 35-38), so that the grid stays the same from message to message.
        int patched = 0;
        for (std::size_t message = 0; message + 16 <= bytes.size(); message += be(message + 8, 8)) {
            for (std::size_t at = message + 16; at + 5 <= bytes.size() && be(at, 4) != 0x37373737;
                 at += be(at, 4)) {
                if (static_cast<int>(bytes[at + 4]) == 3) {
                    for (std::size_t i = 30; i < 38; ++i) {
                        bytes[at + i] = (i - 30) % 4 == 0 ? std::byte{0xf0} : std::byte{0};
                    }
                    ++patched;
                }
            }
        }
        QVERIFY(patched > 0);
        {
            QFile out(path);
            QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
            out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<qint64>(bytes.size()));
        }
        const QString error = errorOf([&] { Era5File::open(path.toStdString()); });
        QVERIFY2(error.contains("has 12 values on a 4026531840 x 4026531840 grid: not a complete regular "
                                "latitude/longitude grid"),
                 qPrintable(error));
    }

    // A GRIB1 message of century 0 has a negative dataDate (ecCodes: -759699 for
    // 2024-01-01), which the description of the message, made before the date was
    // checked, turned into days with a month past four billion and overflowed
    // (signed overflow found by fuzz_grib_scan's UndefinedBehaviorSanitizer;
    // without it, a made-up date in the message).
    void gribDateOfNoCentury() {
        const QString path = dir_.filePath("century-0.grib");
        test::writeGribFixture(path, test::seedFields(1, test::box(50.0, 10.0, 3, 4), test::marchHours(1)));
        auto bytes = bytesOf(path);
        QCOMPARE(static_cast<int>(bytes[7]), 1);
        bytes[8 + 24] = std::byte{0}; // section 1, octet 25: the century of the reference time
        {
            QFile out(path);
            QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Truncate));
            out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<qint64>(bytes.size()));
        }
        const QString error = errorOf([&] { Era5File::open(path.toStdString()); });
        const QRegularExpression expected(
            R"(: message 1 \([^,]+, paramId \d+, dataDate -\d+ dataTime 0 \+ [^)]*\) has no valid date and time)");
        QVERIFY2(expected.match(error).hasMatch(), qPrintable(error));
    }

    // A coordinate variable must lie along its dimension alone: netcdf-c reads a
    // whole variable into the buffer it is given, so a latitude(latitude, x) of 2
    // x 5000 values overran the 2 the latitude dimension has room for (a heap
    // overflow found by reading, confirmed with fuzz_era5_open; before the fix
    // the classic file crashed in ncx_getn_double_double).
    void coordinateAlongOtherDimensions_data() {
        QTest::addColumn<int>("format");
        QTest::newRow("netCDF3 64-bit offset") << NC_64BIT_OFFSET;
        QTest::newRow("netCDF-4") << NC_NETCDF4;
    }
    void coordinateAlongOtherDimensions() {
        QFETCH(int, format);
        const QString path = dir_.filePath("latitude-2d.nc");
        int ncid = -1;
        nc(nc_create(path.toUtf8().constData(), NC_CLOBBER | format, &ncid));
        int time = -1;
        int lat = -1;
        int lon = -1;
        int x = -1;
        nc(nc_def_dim(ncid, "valid_time", 1, &time));
        nc(nc_def_dim(ncid, "latitude", 2, &lat));
        nc(nc_def_dim(ncid, "longitude", 1, &lon));
        nc(nc_def_dim(ncid, "x", 5000, &x));
        int varid = -1;
        const int latX[] = {lat, x};
        nc(nc_def_var(ncid, "latitude", NC_DOUBLE, 2, latX, &varid));
        textAttribute(ncid, varid, "units", "degrees_north");
        nc(nc_def_var(ncid, "longitude", NC_DOUBLE, 1, &lon, &varid));
        textAttribute(ncid, varid, "units", "degrees_east");
        defineTime(ncid, {time});
        const int data[] = {time, lat, lon};
        nc(nc_def_var(ncid, "t2m", NC_FLOAT, 3, data, &varid));
        textAttribute(ncid, varid, "units", "K");
        nc(nc_close(ncid));

        const QString error = errorOf([&] { Era5File::open(path.toStdString()); });
        QVERIFY2(error.contains(
                     "the latitude coordinate 'latitude' has the dimensions (latitude, x), not (latitude)"),
                 qPrintable(error));
    }

    // The same for the time axis, and for a file without one whose valid_time
    // holds several times (it was read into one double).
    void timeCoordinateOfSeveralValues() {
        const QString path = dir_.filePath("time-2d.nc");
        writePointFile(path, NC_64BIT_OFFSET, true, [](const PointFile& f) {
            int x = -1;
            nc(nc_def_dim(f.ncid, "x", 300, &x));
            defineTime(f.ncid, {f.time, x});
        });
        QString error = errorOf([&] { Era5File::open(path.toStdString()); });
        QVERIFY2(error.contains("the time coordinate 'valid_time' has the dimensions (valid_time, x)"),
                 qPrintable(error));

        const QString scalar = dir_.filePath("time-not-scalar.nc");
        writePointFile(scalar, NC_64BIT_OFFSET, false, [](const PointFile& f) {
            int x = -1;
            nc(nc_def_dim(f.ncid, "x", 300, &x));
            defineTime(f.ncid, {x});
        });
        error = errorOf([&] { Era5File::open(scalar.toStdString()); });
        QVERIFY2(error.contains("the time coordinate 'valid_time' is not a single time"), qPrintable(error));
    }

    // A time coordinate of 2e9 days, or 1e30 seconds, overflowed the microseconds it became (signed
    // overflow found by reading, confirmed by fuzz_era5_open's UndefinedBehaviorSanitizer) and
    // was loaded as a time in the year 216727; a reference year of six digits overflowed as well.
    // They are refused, naming the value.
    void timeValuesOutOfRange() {
        const auto openWithTime = [&](const QString& name, nc_type type, const std::string& units,
                                      double value) {
            const QString path = dir_.filePath(name);
            writePointFile(path, NC_64BIT_OFFSET, true, [&](const PointFile& f) {
                int varid = -1;
                nc(nc_def_var(f.ncid, "valid_time", type, 1, &f.time, &varid));
                textAttribute(f.ncid, varid, "units", units);
                // Never written: the value is the fill value.
                if (type == NC_INT) {
                    const int fill = static_cast<int>(value);
                    nc(nc_put_att_int(f.ncid, varid, "_FillValue", NC_INT, 1, &fill));
                } else {
                    nc(nc_put_att_double(f.ncid, varid, "_FillValue", NC_DOUBLE, 1, &value));
                }
            });
            return errorOf([&] { Era5File::open(path.toStdString()); });
        };
        QString error = openWithTime("days.nc", NC_INT, "days since 1900-01-01", 2e9);
        QVERIFY2(error.contains("the time coordinate 'valid_time' holds 2000000000 days since 1900-01-01 at "
                                "position 0, which is not a time of the years 1 to 9999"),
                 qPrintable(error));
        error = openWithTime("seconds.nc", NC_DOUBLE, "seconds since 1970-01-01", 1e30);
        QVERIFY2(
            error.contains("the time coordinate 'valid_time' holds ") &&
                error.contains("seconds since 1970-01-01 at position 0, which is not a time of the years 1 "
                               "to 9999"),
            qPrintable(error));
        error = openWithTime("year.nc", NC_DOUBLE, "hours since 999999-01-01", 0.0);
        QVERIFY2(error.contains("the reference year 999999 is out of range"), qPrintable(error));
    }

    // An expver of text along an empty unlimited dimension: labels of no
    // characters, of which the reader took one, moved on by none, and took
    // another, without end (a hang that ate memory, found by reading, confirmed
    // with fuzz_era5_open). isobar-cli inspects it in a process of its own, with
    // its memory capped, so that before the fix this failed rather than hung.
    void expverOfEmptyLabels() {
        const QString path = dir_.filePath("expver-empty.nc");
        writePointFile(path, NC_NETCDF4, true, [](const PointFile& f) {
            defineTime(f.ncid, {f.time});
            int chars = -1;
            int varid = -1;
            nc(nc_def_dim(f.ncid, "nchar", NC_UNLIMITED, &chars));
            nc(nc_def_var(f.ncid, "expver", NC_CHAR, 1, &chars, &varid));
        });
        // Built with a sanitizer, isobar-cli reserves terabytes of address space at start, so
        // only the time limit holds it there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
        const char* script = "exec \"$0\" inspect \"$1\"";
#else
        const char* script = "ulimit -v 4000000; exec \"$0\" inspect \"$1\"";
#endif
        QProcess p;
        p.start("sh", {"-c", QString::fromLatin1(script), QStringLiteral(ISOBAR_CLI_PATH), path});
        const bool finished = p.waitForFinished(60'000);
        if (!finished) {
            p.kill();
            p.waitForFinished();
        }
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(finished && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
                 qPrintable(out + QString::fromUtf8(p.readAllStandardError())));
        QVERIFY2(out.contains("1 step(s), 2024-01-01"), qPrintable(out));
    }

private:
    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "tst_fuzz_regressions.moc"
