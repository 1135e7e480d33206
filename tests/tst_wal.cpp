// SPDX-License-Identifier: GPL-3.0-or-later

// What keeps WAL on the server's disk, against real clusters: an inactive replication slot, a
// failing archiver and a streaming standby, each as the probe sees it and as the server check says
// it; the slot and the archiver also in how much of a load's WAL the forecast says stays.

#include "TestCluster.h"
#include "TestUtil.h"
#include "db/ServerCheck.h"
#include "db/ServerStorage.h"
#include "util/Process.h"

#include <QScopeGuard>
#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

using namespace isobar;
namespace fs = std::filesystem;

namespace {

ServerCheck checkOf(const std::string& conninfo) {
    ServerCheckRequest request;
    request.conninfo = conninfo;
    return checkServer(request);
}

const SettingWarning* warningAbout(const std::vector<SettingWarning>& warnings, const std::string& subject) {
    const auto w = std::find_if(warnings.begin(), warnings.end(),
                                [&subject](const SettingWarning& x) { return x.subject == subject; });
    return w == warnings.end() ? nullptr : &*w;
}

} // namespace

class TestWal : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }
    void cleanupTestCase() { cluster_.reset(); }

    // An inactive slot keeps all the WAL a load writes: the probe, the server check (with the
    // DROP that fixes it) and the forecast say so; after the DROP nothing does.
    void inactiveSlotIsReported() {
        Connection conn = cluster_->connect();
        conn.exec("SELECT pg_create_physical_replication_slot('isobar_test_slot', true)");
        const auto drop = qScopeGuard([&conn] {
            conn.exec(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = "
                "'isobar_test_slot'");
        });
        const std::string lsn = test::scalar(conn, "SELECT pg_current_wal_lsn()").toStdString();
        conn.exec("CREATE TABLE slot_wal AS SELECT i, md5(i::text) AS m FROM generate_series(1, 20000) i");
        const double written = std::stod(
            test::scalar(conn, "SELECT pg_current_wal_lsn() - '" + lsn + "'::pg_lsn").toStdString());
        QVERIFY(written > 1e6);

        const WalRetention wal = probeWalRetention(conn);
        QCOMPARE(wal.replicationSlots.size(), std::size_t{1});
        const WalRetention::Slot& slot = wal.replicationSlots.front();
        QCOMPARE(slot.name, std::string("isobar_test_slot"));
        QCOMPARE(slot.type, std::string("physical"));
        QVERIFY(!slot.active);
        QCOMPARE(slot.walStatus, std::string("reserved"));
        QVERIFY2(slot.retainedBytes >= written, qPrintable(QString::number(slot.retainedBytes)));

        const ServerCheck check = checkOf(cluster_->conninfo());
        const SettingWarning* w = warningAbout(check.warnings, "slot isobar_test_slot");
        QVERIFY(w != nullptr);
        QCOMPARE(int(w->severity), int(Severity::Danger));
        VERIFY_MESSAGE(QString::fromStdString(w->message),
                       "replication slot isobar_test_slot (physical) is inactive",
                       "stays in pg_wal until its consumer comes back or the slot is dropped");
        QCOMPARE(w->fix, std::string("SELECT pg_drop_replication_slot('isobar_test_slot');"));

        ForecastInput in;
        in.rows = 1'000'000;
        in.shape = RowShape{6, false, false};
        const StorageForecast f = forecastLoad(in, check.info, check.wal, {});
        QCOMPARE(f.walKeptBytes, f.walBytes);
        QCOMPARE(f.walKeptWhy, std::string("all of it stays: replication slot isobar_test_slot is inactive"));

        conn.exec(w->fix);
        QVERIFY(warningAbout(checkOf(cluster_->conninfo()).warnings, "slot isobar_test_slot") == nullptr);
        conn.exec("DROP TABLE slot_wal");
    }

    // archive_command fails: the probe sees the failures and the segment, the check warns.
    void failingArchiverIsReported() {
        LocalClusterOptions options;
        options.settings = {{"archive_mode", "on"}, {"archive_command", "'false'"}};
        test::TestCluster archiving(options);
        Connection conn = archiving.connect();
        conn.exec("CREATE TABLE archived AS SELECT generate_series(1, 1000) AS i");
        const std::string segment =
            test::scalar(conn, "SELECT pg_walfile_name(pg_switch_wal())").toStdString();
        QVERIFY2(
            test::waitFor([&] { return test::count(conn, "SELECT failed_count FROM pg_stat_archiver") > 0; },
                          std::chrono::seconds(10)),
            "the archiver did not try within 10 s");
        // The archiver tries the oldest segment first, and again and again.
        const std::string oldest =
            test::scalar(conn, "SELECT left(min(name), 24) FROM pg_ls_archive_statusdir() "
                               "WHERE name LIKE '%.ready'")
                .toStdString();
        QVERIFY2(oldest <= segment, oldest.c_str());
        const WalRetention wal = probeWalRetention(conn);
        QVERIFY(wal.archiving);
        QCOMPARE(wal.archiveCommand, std::string("false"));
        QVERIFY(wal.failing);
        QVERIFY(wal.failed >= 1);
        QCOMPARE(wal.archived, std::uint64_t{0});
        QCOMPARE(wal.lastFailedWal, oldest);
        QVERIFY(wal.readySegments >= 1);

        const ServerCheck check = checkOf(archiving.conninfo());
        const SettingWarning* w = warningAbout(check.warnings, "archiver");
        QVERIFY(w != nullptr);
        QCOMPARE(int(w->severity), int(Severity::Danger));
        VERIFY_MESSAGE(QString::fromStdString(w->message), "the WAL archiver is failing (",
                       "last " + QString::fromStdString(oldest) + ", archive_command 'false'",
                       "the server keeps every WAL segment the load writes");
        ForecastInput in;
        in.rows = 1000;
        in.shape = RowShape{6, false, false};
        QCOMPARE(forecastLoad(in, check.info, check.wal, {}).walKeptWhy,
                 std::string("all of it stays: the archiver is failing"));
    }

    // A streaming standby of the test cluster (pg_basebackup -R, its own port and socket):
    // listed with its state, and said by the check.
    void standbyIsListed() {
        LocalCluster& primary = cluster_->cluster();
        const fs::path dir = cluster_->root().toStdString() + "/standby";
        const fs::path socket = cluster_->root().toStdString() + "/standby-socket";
        for (const auto& d : {dir, socket}) {
            fs::create_directory(d);
            if (primary.runAs()) {
                QCOMPARE(::chown(d.c_str(), primary.runAs()->uid, primary.runAs()->gid), 0);
            }
            fs::permissions(d, fs::perms::owner_all);
        }
        ProcessOptions as;
        as.runAs = primary.runAs();
        as.timeout = std::chrono::seconds(30);
        as.unsetEnvironment = {"PG*"};
        const ProcessResult backup =
            runProcess(primary.binDir() / "pg_basebackup",
                       {"-D", dir.string(), "-R", "-X", "stream", "-c", "fast", "-d",
                        "host=" + primary.socketDir().string() + " port=" + std::to_string(primary.port()) +
                            " user=" + primary.superuser() + " application_name=isobar_standby"},
                       as);
        QVERIFY2(backup.ok(), backup.output.c_str());
        const auto stop = qScopeGuard([&] {
            runProcess(primary.binDir() / "pg_ctl", {"stop", "-D", dir.string(), "-m", "immediate", "-w"},
                       as);
        });
        const ProcessResult started = runProcess(
            primary.binDir() / "pg_ctl",
            {"start", "-D", dir.string(), "-l", (dir / "standby.log").string(), "-w", "-t", "20", "-o",
             "-c port=" + std::to_string(primary.port() + 1) + " -c unix_socket_directories='" +
                 socket.string() + "'"},
            as);
        QVERIFY2(started.ok(), started.output.c_str());

        Connection conn = cluster_->connect();
        QVERIFY2(test::waitFor(
                     [&] {
                         const WalRetention wal = probeWalRetention(conn);
                         return wal.standbys.size() == 1 && wal.standbys.front().state == "streaming" &&
                                wal.standbys.front().replayBytes >= 0;
                     },
                     std::chrono::seconds(15)),
                 "no streaming standby within 15 s");
        const WalRetention wal = probeWalRetention(conn);
        const WalRetention::Standby& s = wal.standbys.front();
        QCOMPARE(s.name, std::string("isobar_standby"));
        const std::vector<SettingWarning> warnings = walRetentionWarnings(wal);
        QCOMPARE(warnings.size(), std::size_t{1});
        const SettingWarning* w = warningAbout(warnings, "standby isobar_standby");
        QVERIFY(w != nullptr);
        QCOMPARE(int(w->severity), int(Severity::Info));
        VERIFY_MESSAGE(QString::fromStdString(w->message), "standby isobar_standby (streaming, replay lag",
                       "receives all the WAL of the load");
        // The standby answers on its own socket, in recovery.
        Connection standby =
            Connection::open("host=" + socket.string() + " port=" + std::to_string(primary.port() + 1) +
                             " dbname=isobar user=" + primary.superuser());
        QCOMPARE(test::scalar(standby, "SELECT pg_is_in_recovery()"), QString("t"));
    }

private:
    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestWal)
#include "tst_wal.moc"
