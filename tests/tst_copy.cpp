// SPDX-License-Identifier: GPL-3.0-or-later

// The binary COPY encoder and the COPY stream, against a real PostgreSQL.

#include "TestCluster.h"
#include "copy/BinaryCopyBuffer.h"
#include "copy/WeatherRowEncoder.h"
#include "db/CopyStream.h"
#include "util/Error.h"
#include "util/LargeMemory.h"

#include <QtTest>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>

using namespace isobar;

namespace {

// What the server itself writes for `COPY (SELECT <selectList>) TO STDOUT (FORMAT binary)`.
QByteArray serverCopyOut(Connection& conn, const std::string& selectList) {
    QByteArray out;
    copyOut(conn, "COPY (SELECT " + selectList + ") TO STDOUT (FORMAT binary)", "COPY TO STDOUT",
            [&out](std::span<const char> piece) {
                out.append(piece.data(), static_cast<qsizetype>(piece.size()));
            });
    return out;
}

QByteArray encoded(const std::function<void(BinaryCopyBuffer&)>& fields, std::int16_t fieldCount) {
    BinaryCopyBuffer buffer(64);
    buffer.writeHeader();
    buffer.reserve(1024);
    buffer.beginTuple(fieldCount);
    fields(buffer);
    buffer.writeTrailer();
    return QByteArray(buffer.data(), static_cast<qsizetype>(buffer.size()));
}

struct EncoderCase {
    const char* name;
    const char* select; // one row, `fieldCount` columns
    std::int16_t fieldCount;
    std::function<void(BinaryCopyBuffer&)> encode;
};

constexpr std::int64_t kMinTimestamp = -211'813'488'000'000'000LL;  // 4714-11-24 00:00:00+00 BC
constexpr std::int64_t kMaxTimestamp = 9'223'371'331'199'999'999LL; // 294276-12-31 23:59:59.999999+00

const std::vector<EncoderCase>& cases() {
    static const std::vector<EncoderCase> all = {
        {"int4 zero, one, minus one", "0::int4, 1::int4, (-1)::int4", 3,
         [](BinaryCopyBuffer& b) {
             b.addInt32(0);
             b.addInt32(1);
             b.addInt32(-1);
         }},
        {"int4 extremes", "(-2147483648)::int4, 2147483647::int4", 2,
         [](BinaryCopyBuffer& b) {
             b.addInt32(std::numeric_limits<std::int32_t>::min());
             b.addInt32(std::numeric_limits<std::int32_t>::max());
         }},
        {"int8 extremes", "(-9223372036854775808)::int8, 9223372036854775807::int8", 2,
         [](BinaryCopyBuffer& b) {
             b.addInt64(std::numeric_limits<std::int64_t>::min());
             b.addInt64(std::numeric_limits<std::int64_t>::max());
         }},
        {"NULLs of every type", "NULL::int4, NULL::float4, NULL::timestamptz, NULL::text", 4,
         [](BinaryCopyBuffer& b) {
             b.addNull();
             b.addNull();
             b.addNull();
             b.addNull();
         }},
        {"float4 zero and negative zero", "'0'::float4, '-0'::float4", 2,
         [](BinaryCopyBuffer& b) {
             b.addFloat4(0.0f);
             b.addFloat4(-0.0f);
         }},
        {"float4 NaN and infinities", "'NaN'::float4, 'Infinity'::float4, '-Infinity'::float4", 3,
         [](BinaryCopyBuffer& b) {
             b.addFloat4(std::numeric_limits<float>::quiet_NaN());
             b.addFloat4(std::numeric_limits<float>::infinity());
             b.addFloat4(-std::numeric_limits<float>::infinity());
         }},
        {"float4 extremes and denormals",
         "'3.4028235e+38'::float4, '1.17549435e-38'::float4, '1e-45'::float4, "
         "'-3.4028235e+38'::float4",
         4,
         [](BinaryCopyBuffer& b) {
             b.addFloat4(std::numeric_limits<float>::max());
             b.addFloat4(std::numeric_limits<float>::min());
             b.addFloat4(std::numeric_limits<float>::denorm_min());
             b.addFloat4(std::numeric_limits<float>::lowest());
         }},
        {"float4 ordinary values", "'-13.961206'::float4, '0.1'::float4, '273.15'::float4", 3,
         [](BinaryCopyBuffer& b) {
             b.addFloat4(-13.961206f);
             b.addFloat4(0.1f);
             b.addFloat4(273.15f);
         }},
        {"float8", "'-0'::float8, 'NaN'::float8, '0.1'::float8, '1e308'::float8", 4,
         [](BinaryCopyBuffer& b) {
             b.addFloat8(-0.0);
             b.addFloat8(std::numeric_limits<double>::quiet_NaN());
             b.addFloat8(0.1);
             b.addFloat8(1e308);
         }},
        {"timestamptz epochs",
         "'2000-01-01 00:00:00+00'::timestamptz, '1970-01-01 00:00:00+00'::timestamptz, "
         "'1900-01-01 00:00:00+00'::timestamptz",
         3,
         [](BinaryCopyBuffer& b) {
             b.addTimestamptz(PgTimestamp{0});
             b.addTimestamptz(PgTimestamp{-946'684'800'000'000LL});
             b.addTimestamptz(PgTimestamp{-3'155'673'600'000'000LL});
         }},
        {"timestamptz microseconds and offsets",
         "'2024-02-29 12:34:56.789012+00'::timestamptz, '2024-02-29 14:34:56.789012+02'::timestamptz", 2,
         [](BinaryCopyBuffer& b) {
             b.addTimestamptz(PgTimestamp{762'525'296'789'012LL});
             b.addTimestamptz(PgTimestamp{762'525'296'789'012LL});
         }},
        {"timestamptz extremes",
         "'4714-11-24 00:00:00+00 BC'::timestamptz, "
         "'294276-12-31 23:59:59.999999+00'::timestamptz",
         2,
         [](BinaryCopyBuffer& b) {
             b.addTimestamptz(PgTimestamp{kMinTimestamp});
             b.addTimestamptz(PgTimestamp{kMaxTimestamp});
         }},
        {"timestamptz infinities", "'infinity'::timestamptz, '-infinity'::timestamptz", 2,
         [](BinaryCopyBuffer& b) {
             b.addTimestamptz(PgTimestamp{std::numeric_limits<std::int64_t>::max()});
             b.addTimestamptz(PgTimestamp{std::numeric_limits<std::int64_t>::min()});
         }},
        {"text and bool", "''::text, 'h\xc3\xa9llo ''quoted'''::text, true, false", 4,
         [](BinaryCopyBuffer& b) {
             b.addText("");
             b.addText("h\xc3\xa9llo 'quoted'");
             b.addBool(true);
             b.addBool(false);
         }},
    };
    return all;
}

} // namespace

class TestCopy : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }
    void cleanupTestCase() { cluster_.reset(); }

    void encoderMatchesServer_data() {
        QTest::addColumn<int>("caseIndex");
        for (size_t i = 0; i < cases().size(); ++i) {
            QTest::newRow(cases()[i].name) << static_cast<int>(i);
        }
    }

    // Byte for byte what PostgreSQL itself writes for the same values.
    void encoderMatchesServer() {
        QFETCH(int, caseIndex);
        const EncoderCase& c = cases()[static_cast<size_t>(caseIndex)];
        Connection conn = cluster_->connect();
        conn.exec("SET client_encoding = 'UTF8'");
        const QByteArray expected = serverCopyOut(conn, c.select);
        const QByteArray actual = encoded(c.encode, c.fieldCount);
        QCOMPARE(actual.toHex(' '), expected.toHex(' '));
    }

    // Buffers of 2 MiB and more come aligned to 2 MiB (where transparent huge pages can map them),
    // smaller ones as operator new gives them; growing keeps what was written, across the line.
    void largeBuffersAreAligned() {
        BinaryCopyBuffer big(kLargeBytes);
        QCOMPARE(reinterpret_cast<std::uintptr_t>(big.data()) % kLargeBytes, std::uintptr_t{0});
        BinaryCopyBuffer small(64);
        small.writeHeader();
        for (std::int32_t i = 0; small.size() < 3 * kLargeBytes; ++i) {
            small.reserve(8);
            small.addInt32(i);
        }
        QVERIFY(small.capacity() >= 3 * kLargeBytes);
        QCOMPARE(reinterpret_cast<std::uintptr_t>(small.data()) % kLargeBytes, std::uintptr_t{0});
        QCOMPARE(std::string_view(small.data(), 11), std::string_view("PGCOPY\n\377\r\n\0", 11));
        const std::size_t last = (small.size() - BinaryCopyBuffer::kHeaderSize) / 8 - 1;
        std::uint32_t be = 0;
        std::memcpy(&be, small.data() + BinaryCopyBuffer::kHeaderSize + last * 8 + 4, 4);
        QCOMPARE(static_cast<std::size_t>(__builtin_bswap32(be)), last);
        std::vector<float, LargeAllocator<float>> floats(kLargeBytes / sizeof(float) + 1, 1.5F);
        QCOMPARE(reinterpret_cast<std::uintptr_t>(floats.data()) % kLargeBytes, std::uintptr_t{0});
        QCOMPARE(floats.back(), 1.5F);
    }

    // A whole weather row with NULLs and odd values, through the row encoder.
    void weatherRowMatchesServer() {
        Connection conn = cluster_->connect();
        const WeatherRowEncoder encoder(GridGeometry::fromAxes({-90.0, 90.0}, {359.75, 0.0, 180.0, -180.0}));
        // Eight rows (2 latitudes x 4 longitudes); only a few values matter, the rest are NULL.
        std::vector<float> t2m(8, std::numeric_limits<float>::quiet_NaN());
        std::vector<float> tp(8, -0.0f);
        t2m[0] = -13.961206f;
        t2m[7] = 3.4028235e+38f;
        BandValues values(kSeedVariables.size(), nullptr);
        values[index(Variable::T2m)] = t2m.data();
        values[index(Variable::Tp)] = tp.data();
        BinaryCopyBuffer buffer(16);
        buffer.writeHeader();
        encoder.encode(PgTimestamp{762'525'296'789'012LL}, std::nullopt, 0, 2, values, buffer);
        buffer.writeTrailer();
        const QByteArray actual(buffer.data(), static_cast<qsizetype>(buffer.size()));

        // The expectation in the seed's own terms: longitude x - 360 where x > 180, -180 -> 180;
        // location_id = lat_index * 1440 + round((lon + 179.75) / 0.25) + 1.
        const std::string expectedSelect =
            "t, lat_index * 1440 + lon_index + 1, lat::float4, lon::float4, a, b, c, d, e, f FROM ("
            "SELECT '2024-02-29 12:34:56.789012+00'::timestamptz AS t, lat_index, lat, "
            "CASE WHEN lon > 180 THEN lon - 360 WHEN lon = -180 THEN 180 ELSE lon END AS lon, "
            "round((CASE WHEN lon > 180 THEN lon - 360 WHEN lon = -180 THEN 180 ELSE lon END + 179.75) / "
            "0.25)::int "
            "AS lon_index, "
            "CASE WHEN k = 0 THEN '-13.961206'::float4 WHEN k = 7 THEN '3.4028235e+38'::float4 END AS a, "
            "NULL::float4 AS b, NULL::float4 AS c, NULL::float4 AS d, '-0'::float4 AS e, NULL::float4 AS f, "
            "k "
            "FROM (VALUES (0, 0, -90::numeric, 359.75::numeric), (1, 0, -90, 0), (2, 0, -90, 180), (3, 0, "
            "-90, -180), "
            "(4, 720, 90, 359.75), (5, 720, 90, 0), (6, 720, 90, 180), (7, 720, 90, -180)) AS r(k, "
            "lat_index, lat, lon)"
            ") q ORDER BY k";
        const QByteArray expected = serverCopyOut(conn, expectedSelect);
        QCOMPARE(actual.toHex(' '), expected.toHex(' '));
    }

    // Rows sent through CopyStream arrive, and the server's count is returned.
    void copyStreamLoadsRows() {
        Connection conn = cluster_->connect();
        conn.exec("SET timezone = 'UTC'");
        conn.exec("CREATE TABLE copy_ok (a int4, b float4, t timestamptz)");
        BinaryCopyBuffer buffer;
        buffer.writeHeader();
        for (int i = 0; i < 100000; ++i) {
            buffer.reserve(64);
            buffer.beginTuple(3);
            buffer.addInt32(i);
            buffer.addFloat4(static_cast<float>(i) / 4.0f);
            buffer.addTimestamptz(PgTimestamp{static_cast<std::int64_t>(i) * 3'600'000'000LL});
        }
        buffer.writeTrailer();
        CopyStream copy(conn, "COPY copy_ok (a, b, t) FROM STDIN (FORMAT binary)");
        // Several sends of odd sizes: the format does not care where chunks split.
        auto bytes = buffer.bytes();
        while (!bytes.empty()) {
            const size_t n = std::min<size_t>(bytes.size(), 77777);
            copy.send(bytes.first(n));
            bytes = bytes.subspan(n);
        }
        QCOMPARE(copy.finish(), std::uint64_t{100000});
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM copy_ok"), QString("100000"));
        QCOMPARE(test::scalar(
                     conn, "SELECT sum(a)::text || '/' || max(b)::text || '/' || max(t)::text FROM copy_ok"),
                 QString("4999950000/24999.75/2011-05-29 15:00:00+00")); // 99999 h after 2000-01-01
    }

    // A row the table refuses: the error carries the SQLSTATE and the server's message, nothing
    // is left in the table and the connection is usable afterwards.
    void copyStreamReportsConstraintViolation() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE copy_checked (a int4 CHECK (a < 10))");
        conn.exec("BEGIN");
        BinaryCopyBuffer buffer;
        buffer.writeHeader();
        for (int i = 0; i < 20; ++i) {
            buffer.reserve(16);
            buffer.beginTuple(1);
            buffer.addInt32(i);
        }
        buffer.writeTrailer();
        bool threw = false;
        try {
            CopyStream copy(conn, "COPY copy_checked (a) FROM STDIN (FORMAT binary)");
            copy.send(buffer.bytes());
            copy.finish();
        } catch (const DbError& e) {
            threw = true;
            QCOMPARE(e.sqlState(), std::string("23514"));
            QVERIFY2(std::string(e.what()).find("copy_checked_a_check") != std::string::npos, e.what());
        }
        QVERIFY(threw);
        conn.exec("ROLLBACK");
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM copy_checked"), QString("0"));
    }

    // Garbage instead of the binary format: refused with the server's reason.
    void copyStreamReportsBadData() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE copy_bad (a int4)");
        bool threw = false;
        try {
            CopyStream copy(conn, "COPY copy_bad (a) FROM STDIN (FORMAT binary)");
            const std::string junk = "this is not PGCOPY";
            copy.send(junk);
            copy.finish();
        } catch (const DbError& e) {
            threw = true;
            QCOMPARE(e.sqlState(), std::string("22P04")); // bad_copy_file_format
        }
        QVERIFY(threw);
        QCOMPARE(test::scalar(conn, "SELECT 1"), QString("1"));
    }

    // A COPY abandoned halfway (an exception, a cancel) discards what was sent.
    void abandonedCopyLeavesNothing() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE copy_abandoned (a int4)");
        {
            CopyStream copy(conn, "COPY copy_abandoned (a) FROM STDIN (FORMAT binary)");
            BinaryCopyBuffer buffer;
            buffer.writeHeader();
            buffer.reserve(16);
            buffer.beginTuple(1);
            buffer.addInt32(7);
            copy.send(buffer.bytes());
            QVERIFY(copy.active());
            // destroyed without finish()
        }
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM copy_abandoned"), QString("0"));
    }

    // COPY into a table that does not exist fails at the start with the SQLSTATE.
    void copyIntoMissingTable() {
        Connection conn = cluster_->connect();
        bool threw = false;
        try {
            CopyStream copy(conn, "COPY no_such_table (a) FROM STDIN (FORMAT binary)");
        } catch (const DbError& e) {
            threw = true;
            QCOMPARE(e.sqlState(), std::string("42P01"));
        }
        QVERIFY(threw);
    }

    // The connection dies mid-COPY (the server ends our backend): a clear error, not a hang.
    void serverGoneDuringCopy() {
        Connection conn = cluster_->connect();
        Connection admin = cluster_->connect();
        conn.exec("CREATE TABLE copy_killed (a int4)");
        const std::string pid = test::scalar(conn, "SELECT pg_backend_pid()").toStdString();
        CopyStream copy(conn, "COPY copy_killed (a) FROM STDIN (FORMAT binary)");
        BinaryCopyBuffer buffer;
        buffer.writeHeader();
        copy.send(buffer.bytes());
        admin.query("SELECT pg_terminate_backend($1::int)", {pid});
        bool threw = false;
        try {
            buffer.clear();
            for (int i = 0; i < 200000; ++i) {
                buffer.reserve(16);
                buffer.beginTuple(1);
                buffer.addInt32(i);
            }
            // Keep sending until libpq notices the broken connection.
            for (int round = 0; round < 50; ++round) {
                copy.send(buffer.bytes());
            }
            copy.finish();
        } catch (const DbError& e) {
            threw = true;
            QVERIFY2(!std::string(e.what()).empty(), "an error message");
        }
        QVERIFY(threw);
        QCOMPARE(test::scalar(admin, "SELECT count(*) FROM copy_killed"), QString("0"));
    }

private:
    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestCopy)
#include "tst_copy.moc"
