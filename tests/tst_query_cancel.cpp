// SPDX-License-Identifier: GPL-3.0-or-later

// Cancelling a connection's query from another thread (db::CancelHandle, what the desktop's map and
// audit use when the user stops a read or closes its window), against a real PostgreSQL server the
// test starts.

#include "TestCluster.h"
#include "db/Connection.h"
#include "util/Error.h"

#include <QtTest>

#include <memory>
#include <string>
#include <thread>

using namespace isobar;

class TestQueryCancel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }
    void cleanupTestCase() { cluster_.reset(); }

    // A query cancelled from another thread ends at once, as Cancelled (not a DbError a user
    // would read as a failure), and the connection sends nothing more: a later query throws
    // Cancelled without reaching the server, also when the cancel came between two queries (which
    // the server itself ignores).
    void cancelStopsTheQueryAndEveryLaterOne() {
        Connection watcher = cluster_->connect();
        const auto activity = [&watcher](const std::string& application) {
            return test::scalar(watcher, "SELECT state || ': ' || query FROM pg_stat_activity WHERE "
                                         "application_name = '" +
                                             application + "'");
        };
        Connection conn = Connection::open(cluster_->conninfo(), "isobar cancel test");
        const CancelHandle handle = conn.cancelHandle();
        QVERIFY(!handle.requested());
        std::string outcome;
        QElapsedTimer clock;
        clock.start();
        std::thread worker([&conn, &outcome] {
            try {
                conn.query("SELECT pg_sleep(60)");
                outcome = "returned";
            } catch (const Cancelled&) {
                outcome = "cancelled";
            } catch (const std::exception& e) {
                outcome = e.what();
            }
        });
        const auto joinWorker = qScopeGuard([&] {
            if (worker.joinable()) {
                handle.cancel();
                worker.join();
            }
        });
        QTRY_COMPARE_WITH_TIMEOUT(activity("isobar cancel test"), QString("active: SELECT pg_sleep(60)"),
                                  10'000);
        QVERIFY(handle.cancel());
        worker.join();
        QCOMPARE(QString::fromStdString(outcome), QString("cancelled"));
        QVERIFY2(clock.elapsed() < 10'000, qPrintable(QString::number(clock.elapsed()))); // not 60 s
        QVERIFY(conn.cancelRequested());
        QTRY_COMPARE_WITH_TIMEOUT(activity("isobar cancel test"), QString("idle: SELECT pg_sleep(60)"),
                                  5'000);
        QVERIFY_THROWS_EXCEPTION(Cancelled, conn.query("SELECT 1"));
        QVERIFY_THROWS_EXCEPTION(Cancelled, conn.exec("SELECT 2"));
        QCOMPARE(activity("isobar cancel test"), QString("idle: SELECT pg_sleep(60)")); // nothing sent

        // Between two queries: the server has nothing to interrupt, the next query is not sent.
        Connection idle = Connection::open(cluster_->conninfo(), "isobar idle cancel test");
        QCOMPARE(test::scalar(idle, "SELECT 'before'"), QString("before"));
        QVERIFY(idle.cancelHandle().cancel());
        QVERIFY_THROWS_EXCEPTION(Cancelled, idle.query("SELECT 'after'"));
        QCOMPARE(activity("isobar idle cancel test"), QString("idle: SELECT 'before'"));
        // Other connections go on; a handle outlives its connection harmlessly.
        CancelHandle orphan;
        {
            Connection brief = cluster_->connect();
            orphan = brief.cancelHandle();
        }
        orphan.cancel();
        QVERIFY(orphan.requested());
        QCOMPARE(test::scalar(watcher, "SELECT 'still here'"), QString("still here"));
    }

private:
    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestQueryCancel)
#include "tst_query_cancel.moc"
