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

private:
    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "tst_fuzz_regressions.moc"
