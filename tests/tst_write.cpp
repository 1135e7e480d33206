// SPDX-License-Identifier: GPL-3.0-or-later

// The write methods (how a transaction's rows reach the server) through their interface, against a
// real PostgreSQL: the stream and the server-file transport, which writes files in turns and lets
// the server read one while the next is written.

#include "SmallDisk.h"
#include "TestCluster.h"
#include "TestUtil.h"
#include "copy/BinaryCopyBuffer.h"
#include "ingest/Transport.h"
#include "util/Error.h"
#include "util/TempDir.h"

#include <QtTest>

#include <chrono>
#include <filesystem>
#include <stop_token>
#include <sys/stat.h>
#include <thread>

using namespace isobar;

namespace {

// Rows first..first+count-1 of a one-column table, on the binary COPY wire (no header, no trailer).
BinaryCopyBuffer rowsFrom(int first, int count) {
    BinaryCopyBuffer buffer(64);
    for (int i = first; i < first + count; ++i) {
        buffer.reserve(16);
        buffer.beginTuple(1);
        buffer.addInt32(i);
    }
    return buffer;
}

// Sends `pieces` pieces of `rowsPerPiece` rows (0, 1, 2, ... in order) through `method`.
void sendPieces(Transport& method, int pieces, int rowsPerPiece, const std::stop_token& stop = {}) {
    for (int p = 0; p < pieces; ++p) {
        const BinaryCopyBuffer rows = rowsFrom(p * rowsPerPiece, rowsPerPiece);
        method.send(rows.bytes(), static_cast<std::uint64_t>(rowsPerPiece), stop,
                    [](std::uint64_t, std::uint64_t) {});
    }
}

// One transaction of `pieces` pieces through `method`, committed; the server's count of its COPY.
std::uint64_t copyOnce(Transport& method, Connection& conn, int pieces, int rowsPerPiece) {
    conn.exec("BEGIN");
    method.begin(conn);
    sendPieces(method, pieces, rowsPerPiece);
    const std::uint64_t copied = method.finish({});
    conn.exec("COMMIT");
    return copied;
}

} // namespace

class TestWrite : public QObject {
    Q_OBJECT

    std::unique_ptr<test::TestCluster> cluster_;
    std::unique_ptr<TempDir> dir_;

    std::unique_ptr<Transport> fileMethod(const std::string& table, std::uint64_t rowsPerFile) {
        return makeServerFileTransport("COPY " + table + " (a) FROM ", dir_->path() / "unit-1.bin",
                                       rowsPerFile);
    }

private slots:
    void initTestCase() {
        cluster_ = std::make_unique<test::TestCluster>();
        dir_ = std::make_unique<TempDir>("isobar-units", 0711); // the server reads the files by name
    }
    void cleanupTestCase() {
        dir_.reset();
        cluster_.reset();
    }

    // Both methods load every row once, in one transaction, and return the server's count.
    void bothMethodsLoadEveryRow_data() {
        QTest::addColumn<bool>("byFile");
        QTest::newRow("stream") << false;
        QTest::newRow("file") << true;
    }
    void bothMethodsLoadEveryRow() {
        QFETCH(bool, byFile);
        const std::string table = byFile ? "w_file" : "w_stream";
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE " + table + " (a int4 PRIMARY KEY)");
        // Files of 1000 rows: 20 pieces of 333 rows fill 7 of them, the last one short.
        auto method = byFile ? fileMethod(table, 1000)
                             : makeStreamTransport("COPY " + table + " (a) FROM STDIN (FORMAT binary)");
        QCOMPARE(copyOnce(*method, conn, 20, 333), std::uint64_t{6660});
        QCOMPARE(test::scalar(conn, "SELECT count(*) || '/' || sum(a) || '/' || max(a) FROM " + table),
                 QString("6660/22174470/6659"));
        // A second COPY on the same method and connection (the next transaction).
        conn.exec("BEGIN");
        method->begin(conn);
        const BinaryCopyBuffer more = rowsFrom(10000, 5);
        method->send(more.bytes(), 5, {}, [](std::uint64_t, std::uint64_t) {});
        QCOMPARE(method->finish({}), std::uint64_t{5});
        conn.exec("COMMIT");
        QCOMPARE(test::count(conn, "SELECT count(*) FROM " + table), std::uint64_t{6665});
    }

    // A transaction with no rows is an empty COPY: 0 rows, nothing left behind.
    void fileMethodWithNoRows() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE w_empty (a int4)");
        auto method = fileMethod("w_empty", 1000);
        QCOMPARE(copyOnce(*method, conn, 0, 0), std::uint64_t{0});
        QCOMPARE(test::count(conn, "SELECT count(*) FROM w_empty"), std::uint64_t{0});
    }

    // A row the table refuses in a file the server reads while the next is written: the refusal
    // comes out of a later send() or finish() with the server's SQLSTATE, abort() leaves the
    // connection able to roll back, and nothing of the transaction stays.
    void fileMethodReportsARefusedRow() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE w_checked (a int4 CHECK (a <> 150))");
        auto method = fileMethod("w_checked", 100);
        conn.exec("BEGIN");
        method->begin(conn);
        std::string sqlState;
        try {
            sendPieces(*method, 10, 100); // row 150 is in the second file
            method->finish({});
        } catch (const DbError& e) {
            sqlState = e.sqlState();
            QVERIFY2(std::string(e.what()).find("w_checked_a_check") != std::string::npos, e.what());
            method->abort();
        }
        QCOMPARE(sqlState, std::string("23514"));
        conn.exec("ROLLBACK");
        QCOMPARE(test::count(conn, "SELECT count(*) FROM w_checked"), std::uint64_t{0});
    }

    // Stopped with a COPY in flight: abort() cancels it, the connection rolls back and goes on.
    void fileMethodAbortsACopyInFlight() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE w_aborted (a int4)");
        auto method = fileMethod("w_aborted", 50'000);
        conn.exec("BEGIN");
        method->begin(conn);
        sendPieces(*method, 3, 50'000); // three files handed over, the last one in flight
        method->abort();
        conn.exec("ROLLBACK");
        QCOMPARE(test::scalar(conn, "SELECT 1"), QString("1"));
        QCOMPARE(test::count(conn, "SELECT count(*) FROM w_aborted"), std::uint64_t{0});
        // The same method serves the next transaction.
        QCOMPARE(copyOnce(*method, conn, 1, 10), std::uint64_t{10});
        QCOMPARE(test::count(conn, "SELECT count(*) FROM w_aborted"), std::uint64_t{10});
    }

    // A stop request is noticed at the next piece (Cancelled), before more is written.
    void fileMethodNoticesAStop() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE w_stopped (a int4)");
        auto method = fileMethod("w_stopped", 100);
        std::stop_source stop;
        conn.exec("BEGIN");
        method->begin(conn);
        sendPieces(*method, 2, 100, stop.get_token());
        stop.request_stop();
        bool cancelled = false;
        try {
            sendPieces(*method, 1, 100, stop.get_token());
        } catch (const Cancelled&) {
            cancelled = true;
        }
        QVERIFY(cancelled);
        method->abort();
        conn.exec("ROLLBACK");
        QCOMPARE(test::count(conn, "SELECT count(*) FROM w_stopped"), std::uint64_t{0});
    }

    // A stop while finish() waits for the server (here a COPY that waits for a lock another session
    // holds) cancels the COPY and throws Cancelled instead of waiting on; nothing stays.
    void fileMethodNoticesAStopWhileFinishing() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE w_locked (a int4)");
        Connection holder = cluster_->connect();
        holder.exec("BEGIN");
        holder.exec("LOCK TABLE w_locked IN ACCESS EXCLUSIVE MODE");
        auto method = fileMethod("w_locked", 100);
        conn.exec("BEGIN");
        method->begin(conn);
        sendPieces(*method, 1, 100); // the first file handed over: its COPY waits for the lock
        std::stop_source stop;
        const std::jthread stopper([&stop] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            stop.request_stop();
        });
        bool cancelled = false;
        try {
            method->finish(stop.get_token());
        } catch (const Cancelled&) {
            cancelled = true;
        }
        QVERIFY(cancelled);
        conn.exec("ROLLBACK");
        holder.exec("ROLLBACK");
        QCOMPARE(test::count(conn, "SELECT count(*) FROM w_locked"), std::uint64_t{0});
        QCOMPARE(copyOnce(*method, conn, 1, 10), std::uint64_t{10}); // the method and connection go on
    }

    // The files go with the method: nothing is left in the directory.
    void fileMethodRemovesItsFiles() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE w_tidy (a int4)");
        {
            auto method = fileMethod("w_tidy", 10);
            QCOMPARE(copyOnce(*method, conn, 3, 10), std::uint64_t{30});
            QVERIFY(std::filesystem::exists(dir_->path() / "unit-1-a.bin"));
            QVERIFY(std::filesystem::exists(dir_->path() / "unit-1-b.bin"));
        }
        QVERIFY(std::filesystem::is_empty(dir_->path()));
    }

    // The disk fills while the server reads the previous file: the error names the file and the
    // disk, abort() cancels the COPY in flight, and the connection rolls back and goes on.
    void fileMethodOnAFullDisk() {
        test::SmallDisk disk("4M");
        if (!disk.mounted()) {
            QSKIP(qPrintable(disk.why()));
        }
        ::chmod(disk.path().toLocal8Bit().constData(), 0711); // the server reads the files by name
        const QString fill = disk.fillTo(800'000);            // room for one file of 50,000 rows, not two
        QVERIFY2(fill.isEmpty(), qPrintable(fill));
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE w_full (a int4)");
        auto method = makeServerFileTransport("COPY w_full (a) FROM ",
                                              disk.path().toStdString() + "/unit-1.bin", 50'000);
        conn.exec("BEGIN");
        method->begin(conn);
        const QString error = test::errorOf([&] { sendPieces(*method, 4, 50'000); });
        VERIFY_MESSAGE(error, "cannot write the unit file", "is the disk full?", disk.path());
        method->abort();
        conn.exec("ROLLBACK");
        QCOMPARE(test::count(conn, "SELECT count(*) FROM w_full"), std::uint64_t{0});
        disk.unfill();
        QCOMPARE(copyOnce(*method, conn, 1, 10), std::uint64_t{10});
    }

    // A file that cannot be written (the directory is gone) is named in the error.
    void fileMethodNamesAnUnwritableFile() {
        Connection conn = cluster_->connect();
        auto method =
            makeServerFileTransport("COPY nowhere (a) FROM ", dir_->path() / "missing" / "unit-1.bin");
        EXPECT_ERROR_CONTAINING(method->begin(conn), "cannot write the unit file",
                                QString::fromStdString((dir_->path() / "missing" / "unit-1-a.bin").string()));
    }
};

QTEST_GUILESS_MAIN(TestWrite)
#include "tst_write.moc"
