// SPDX-License-Identifier: GPL-3.0-or-later

// Durability traded for one run, against real clusters: toggles applied and restored with the exact
// original values and sources (postgresql.conf, postgresql.auto.conf, defaults), consent, recovery
// after kill -9 and Ctrl-C, a role without rights refused before anything changes, one with
// granted rights allowed, an unwritable journal, and two Isobar runs that must not change or
// restore what the other owns.

#include "SettingsHarness.h"

using namespace isobar;
using namespace isobar::test;

class TestDurability : public SettingsHarness {
    Q_OBJECT

private slots:
    void initTestCase() { setUp(true); }
    void cleanupTestCase() { tearDown(); }
    void cleanup() { resetSettings(); }

    // A run's toggles, wherever the original value came from: during the run the server has what
    // was asked; afterwards value, source, file and postgresql.auto.conf are exactly as before.
    void durabilityRestoresExactly_data() {
        QTest::addColumn<QString>("setting");
        QTest::addColumn<QString>("autoConfBefore"); // empty: no ALTER SYSTEM before the run
        QTest::addColumn<bool>("on");                // what the run asks for
        QTest::newRow("default") << "full_page_writes"
                                 << "" << false;
        QTest::newRow("postgresql.conf") << "fsync"
                                         << "" << true; // isobar.conf, included by postgresql.conf
        QTest::newRow("postgresql.auto.conf") << "fsync"
                                              << "on" << false;
        QTest::newRow("auto.conf repeating the default") << "full_page_writes"
                                                         << "on" << false;
    }
    void durabilityRestoresExactly() {
        QFETCH(QString, setting);
        QFETCH(QString, autoConfBefore);
        QFETCH(bool, on);
        const std::string name = setting.toStdString();
        if (!autoConfBefore.isEmpty()) {
            alterSystem(conninfo_, name, autoConfBefore.toStdString(), autoConfBefore);
        }
        const QString before = seen(conninfo_, name);
        const QString autoBefore = autoConf(conninfo_);
        const QString applied = on ? "on" : "off";
        QVERIFY2(before.section(" | ", 0, 0) != applied, qPrintable(before));

        LoadRequest request;
        request.conninfo = conninfo_;
        request.table = TableName::parse("exact_" + std::to_string(++tables_));
        request.replace = true;
        request.files = {small_.toStdString()};
        request.workers = 2;
        (name == "fsync" ? request.durability.fsync : request.durability.fullPageWrites) = on;
        request.durability.consent = true;
        WatchingSink sink(conninfo_, {name});
        ReportRecorder recorder(sink, request);
        const LoadSummary summary = runLoad(request, {}, recorder);
        QVERIFY2(summary.status == LoadStatus::Completed, qPrintable(sink.error));
        QCOMPARE(sink.during[name], applied);
        QCOMPARE(seen(conninfo_, name), before);
        QCOMPARE(autoConf(conninfo_), autoBefore);
        QVERIFY(summary.durability.restored);
        QVERIFY(summary.durability.checkpointed);
        QCOMPARE(summary.durability.changes.size(), std::size_t(1));
        QCOMPARE(QString::fromStdString(summary.durability.changes[0].applied), applied);
        QVERIFY2(sink.notes.filter("restored " + setting).size() == 1, qPrintable(sink.notes.join('\n')));
        QVERIFY(QDir(journalDir()).entryList(QDir::Files).isEmpty());

        // The report keeps the settings as the load found them, the warnings, and the trade.
        const RunReport report = parseReportJson(renderReportJson(recorder.finish(summary)));
        QCOMPARE(QString::fromStdString(report.durabilityRequested), setting + "=" + applied);
        QCOMPARE(report.durability.changes.size(), std::size_t(1));
        QVERIFY(report.durability.restored && report.durability.checkpointed);
        QVERIFY(!report.settingWarnings.empty()); // fsync=off or full_page_writes... at least max_wal_size
        bool found = false;
        for (const auto& s : report.settings) {
            found =
                found || (s.name == name && QString::fromStdString(s.value) == before.section(" | ", 0, 0));
        }
        QVERIFY2(found, "the report records the value before the run's change");
    }

    // fsync, full_page_writes and synchronous_commit off only with consent; nothing changes without.
    void durabilityNeedsConsent() {
        LoadRequest request;
        request.conninfo = conninfo_;
        request.table = TableName::parse("no_consent");
        request.files = {small_.toStdString()};
        request.durability = *DurabilityRequest::preset("fast");
        test::RecordingSink sink;
        const LoadSummary summary = runLoad(request, {}, sink);
        QCOMPARE(int(summary.status), int(LoadStatus::Failed));
        VERIFY_MESSAGE(QString::fromStdString(summary.error->message), "consent", "fsync=off",
                       "every database");
        QCOMPARE(valueSeen(conninfo_, "full_page_writes"), QString("on"));
        Connection c = cluster_->connect();
        QCOMPARE(test::scalar(c, "SELECT to_regclass('no_consent') IS NULL"), QString("t"));
        const CliRun cli =
            runCli({"load", "--dsn", QString::fromStdString(conninfo_), "--durability", "fast", small_});
        QCOMPARE(cli.exitCode, 2);
        VERIFY_MESSAGE(cli.err, "--yes", "full_page_writes=off");
    }

    // synchronous_commit alone is a setting of the load's own connections: no journal, no
    // server-wide change, and the commits are flushed at the end.
    void synchronousCommitStaysWithTheLoad() {
        LoadRequest request;
        request.conninfo = conninfo_;
        request.table = TableName::parse("async_commits");
        request.replace = true;
        request.files = {small_.toStdString()};
        request.durability.synchronousCommit = "off";
        request.durability.consent = true;
        WatchingSink sink(conninfo_, {"synchronous_commit"});
        const LoadSummary summary = runLoad(request, {}, sink);
        QVERIFY2(summary.status == LoadStatus::Completed, qPrintable(sink.error));
        QCOMPARE(sink.during["synchronous_commit"], QString("on")); // the server's, unchanged
        QVERIFY(summary.durability.changes.empty());
        QCOMPARE(summary.durability.sessionSettings, std::string("synchronous_commit=off"));
        QVERIFY2(sink.notes.filter("flushed the WAL").size() == 1, qPrintable(sink.notes.join('\n')));
        QVERIFY(QDir(journalDir()).entryList(QDir::Files).isEmpty());
    }

    // A role that may not change settings learns why before anything is created or changed.
    void roleWithoutRightsIsRefused() {
        Connection c = cluster_->connect();
        c.exec("CREATE ROLE plain_loader LOGIN");
        LoadRequest request;
        request.conninfo = conninfo_ + " user=plain_loader";
        request.table = TableName::parse("plain_table");
        request.files = {small_.toStdString()};
        request.durability.fullPageWrites = false;
        request.durability.consent = true;
        test::RecordingSink sink;
        const LoadSummary summary = runLoad(request, {}, sink);
        QCOMPARE(int(summary.status), int(LoadStatus::Failed));
        VERIFY_MESSAGE(QString::fromStdString(summary.error->message), "role plain_loader may not change",
                       "ALTER SYSTEM of full_page_writes", "pg_reload_conf()", "Nothing was changed");
        QCOMPARE(valueSeen(conninfo_, "full_page_writes"), QString("on"));
        QCOMPARE(test::scalar(c, "SELECT to_regclass('plain_table') IS NULL"), QString("t"));
        QVERIFY(QDir(journalDir()).entryList(QDir::Files).isEmpty());
    }

    // PostgreSQL 15's GRANT ALTER SYSTEM ON PARAMETER and friends are enough.
    void grantedRoleMayTrade() {
        Connection c = cluster_->connect();
        c.exec("CREATE ROLE granted_loader LOGIN");
        c.exec("GRANT ALTER SYSTEM ON PARAMETER full_page_writes TO granted_loader");
        c.exec("GRANT EXECUTE ON FUNCTION pg_reload_conf() TO granted_loader");
        c.exec("GRANT SELECT ON pg_file_settings TO granted_loader");
        c.exec("GRANT EXECUTE ON FUNCTION pg_show_all_file_settings() TO granted_loader");
        c.exec("GRANT EXECUTE ON FUNCTION pg_control_system() TO granted_loader");
        c.exec("GRANT pg_checkpoint TO granted_loader");
        const std::string conninfo = conninfo_ + " user=granted_loader";
        DurabilityRequest request;
        request.fullPageWrites = false;
        request.consent = true;
        QStringList notes;
        {
            DurabilitySession session(conninfo, request,
                                      [&notes](const std::string& n) { notes << QString::fromStdString(n); });
            QCOMPARE(valueSeen(conninfo_, "full_page_writes"), QString("off"));
            const DurabilityOutcome outcome = session.restore();
            QVERIFY2(outcome.restored && outcome.checkpointed, outcome.problem.c_str());
        }
        QCOMPARE(seen(conninfo_, "full_page_writes"), QString("on | default | "));
        // Asking for fsync too, which it was not granted: refused, naming the grant.
        request.fsync = false;
        VERIFY_MESSAGE(errorOf([&] { DurabilitySession s(conninfo, request, {}); }),
                       "GRANT ALTER SYSTEM ON PARAMETER fsync");
        QCOMPARE(valueSeen(conninfo_, "full_page_writes"), QString("on"));
    }

    // kill -9 while the settings are changed: they stay changed, the journal says so, and the
    // next start puts them back - `settings --restore`, or the next load on that server.
    void killedLoadIsRestoredOnNextStart_data() {
        QTest::addColumn<bool>("byNextLoad");
        QTest::newRow("settings --restore") << false;
        QTest::newRow("next load") << true;
    }
    void killedLoadIsRestoredOnNextStart() {
        QFETCH(bool, byNextLoad);
        alterSystem(conninfo_, "fsync", "on", "on"); // so that fast changes both
        const QString fsyncBefore = seen(conninfo_, "fsync");
        const QString fpwBefore = seen(conninfo_, "full_page_writes");
        const QString autoBefore = autoConf(conninfo_);
        const QString table = byNextLoad ? "killed_b" : "killed_a";
        QProcess load;
        load.start(QStringLiteral(ISOBAR_CLI_PATH), loadArgs(table, {"--durability", "fast", "--yes"}));
        QVERIFY(load.waitForStarted());
        Connection watch = cluster_->connect();
        QVERIFY2(waitFor(
                     [&] {
                         return valueSeen(conninfo_, "full_page_writes") == "off" &&
                                test::scalar(
                                    watch, "SELECT count(*) FROM isobar.ledger WHERE relid = to_regclass('" +
                                               table.toStdString() + "')")
                                        .toInt() >= 3;
                     },
                     std::chrono::seconds(60)),
                 "the load did not change full_page_writes and commit units in time");
        kill(static_cast<pid_t>(load.processId()), SIGKILL);
        QVERIFY(load.waitForFinished(30000));
        QCOMPARE(valueSeen(conninfo_, "fsync"), QString("off"));
        QCOMPARE(valueSeen(conninfo_, "full_page_writes"), QString("off"));
        QCOMPARE(QDir(journalDir()).entryList(QDir::Files).size(), 1);

        // Every start says so.
        const CliRun other = runCli({"inspect", small_});
        VERIFY_MESSAGE(other.err, "was killed left", "fsync=off (was on)", "settings --restore");
        const CliRun status = runCli({"settings", "--dsn", QString::fromStdString(conninfo_)});
        VERIFY_MESSAGE(status.out, "still in place", "gone");
        if (byNextLoad) {
            const CliRun again = runCli(loadArgs(table, {}));
            QVERIFY2(again.exitCode == 0, qPrintable(again.err));
            VERIFY_MESSAGE(again.err, "restoring", "restored", "CHECKPOINT");
            QVERIFY2(again.err.contains("resuming:"), qPrintable(again.err));
        } else {
            const CliRun restore =
                runCli({"settings", "--restore", "--dsn", QString::fromStdString(conninfo_)});
            QVERIFY2(restore.exitCode == 0, qPrintable(restore.err));
            VERIFY_MESSAGE(restore.err, "restored", "sync", "CHECKPOINT");
        }
        QCOMPARE(seen(conninfo_, "fsync"), fsyncBefore);
        QCOMPARE(seen(conninfo_, "full_page_writes"), fpwBefore);
        QCOMPARE(autoConf(conninfo_), autoBefore);
        QVERIFY(QDir(journalDir()).entryList(QDir::Files).isEmpty());
        const CliRun nothing = runCli({"settings", "--restore", "--dsn", QString::fromStdString(conninfo_)});
        QVERIFY2(nothing.exitCode == 0 && nothing.out.contains("nothing to restore"),
                 qPrintable(nothing.out));
    }

    // Ctrl-C during a fast load: the units in flight roll back and the settings go back at once.
    void cancelledLoadRestores() {
        const QString fpwBefore = seen(conninfo_, "full_page_writes");
        QProcess load;
        load.start(QStringLiteral(ISOBAR_CLI_PATH),
                   loadArgs("cancelled", {"--full-page-writes", "off", "--yes"}));
        QVERIFY(load.waitForStarted());
        Connection watch = cluster_->connect();
        QVERIFY2(waitFor(
                     [&] {
                         return valueSeen(conninfo_, "full_page_writes") == "off" &&
                                test::scalar(watch, "SELECT count(*) FROM isobar.ledger WHERE relid = "
                                                    "to_regclass('cancelled')")
                                        .toInt() >= 2;
                     },
                     std::chrono::seconds(60)),
                 "the load did not start in time");
        kill(static_cast<pid_t>(load.processId()), SIGINT);
        QVERIFY(load.waitForFinished(60000));
        const QString err = QString::fromUtf8(load.readAllStandardError());
        QCOMPARE(load.exitCode(), 130);
        VERIFY_MESSAGE(err, "cancelled", "restored full_page_writes=on", "CHECKPOINT");
        QCOMPARE(seen(conninfo_, "full_page_writes"), fpwBefore);
        QVERIFY(QDir(journalDir()).entryList(QDir::Files).isEmpty());
    }

    // A journal that cannot be written (a full disk, a read-only directory) stops the run before
    // anything changes: without it, a crash would leave settings nobody knows to restore.
    void unwritableJournalChangesNothing() {
        const QByteArray saved = qgetenv("ISOBAR_STATE_DIR");
        qputenv("ISOBAR_STATE_DIR", "/proc/isobar-cannot-be-here");
        DurabilityRequest request;
        request.fullPageWrites = false;
        request.consent = true;
        const QString error = errorOf([&] { DurabilitySession s(conninfo_, request, {}); });
        qputenv("ISOBAR_STATE_DIR", saved);
        VERIFY_MESSAGE(error, "/proc/isobar-cannot-be-here");
        QCOMPARE(valueSeen(conninfo_, "full_page_writes"), QString("on"));
    }

    // While one run owns durability changes on a server, another neither changes nor restores them.
    void concurrentRunsKeepToTheirOwn() {
        DurabilityRequest request;
        request.fullPageWrites = false;
        request.consent = true;
        auto first = std::make_unique<DurabilitySession>(conninfo_, request, DurabilityNote{});
        QCOMPARE(valueSeen(conninfo_, "full_page_writes"), QString("off"));
        // In this process: another session refuses.
        VERIFY_MESSAGE(errorOf([&] { DurabilitySession second(conninfo_, request, {}); }),
                       "another Isobar run owns durability changes on this server");
        // Other processes: a load asking for changes refuses, --restore refuses, a load without
        // changes runs.
        const CliRun load = runCli({"load", "--dsn", QString::fromStdString(conninfo_), "--table", "second",
                                    "--full-page-writes", "off", "--yes", small_});
        QCOMPARE(load.exitCode, 1);
        VERIFY_MESSAGE(load.err, "another Isobar run");
        const CliRun restore = runCli({"settings", "--restore", "--dsn", QString::fromStdString(conninfo_)});
        QCOMPARE(restore.exitCode, 1);
        VERIFY_MESSAGE(restore.err, "belong to a running Isobar");
        QCOMPARE(valueSeen(conninfo_, "full_page_writes"), QString("off"));
        const CliRun plain =
            runCli({"load", "--dsn", QString::fromStdString(conninfo_), "--table", "plain", small_});
        QVERIFY2(plain.exitCode == 0, qPrintable(plain.err));
        VERIFY_MESSAGE(plain.err, "[danger] full_page_writes=off");
        // The owner restores; then the next one may.
        QVERIFY(first->restore().restored);
        first.reset();
        QCOMPARE(valueSeen(conninfo_, "full_page_writes"), QString("on"));
        DurabilitySession next(conninfo_, request, {});
        QCOMPARE(valueSeen(conninfo_, "full_page_writes"), QString("off"));
        QVERIFY(next.restore().restored);
    }

    // The journal survives as JSON; a damaged one is named, not ignored.
    void journalReadsBackAndNamesDamage() {
        DurabilityJournal j;
        j.systemIdentifier = "7312345678901234567";
        j.dataDirectory = "/srv/pg";
        j.target = "host=/run/pg port=5432";
        j.host = "somewhere";
        j.pid = 4242;
        j.processStart = 123456;
        j.startedAt = "2026-11-30T01:02:03Z";
        j.changes = {
            {"fsync", "on", "default", "", std::nullopt, "off"},
            {"full_page_writes", "on", "configuration file", "/srv/pg/postgresql.auto.conf", "on", "off"}};
        const QString path = cluster_->workDir() + "/journal.json";
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromStdString(j.render()));
        f.close();
        const DurabilityJournal back = DurabilityJournal::read(path.toStdString());
        QCOMPARE(back.render(), j.render());
        QVERIFY(!back.changes[0].autoConfValue);
        QCOMPARE(back.changes[1].autoConfValue.value(), std::string("on"));
        QVERIFY(back.ownerAlive()); // another machine's: cannot tell, so assumed running
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write("{\"kind\": \"isobar durability journal\", \"changes\": [");
        f.close();
        VERIFY_MESSAGE(errorOf([&] { DurabilityJournal::read(path.toStdString()); }), path,
                       "unreadable durability journal");
    }

private:
    static QString journalDir() { return QString::fromStdString(DurabilityJournal::directory().string()); }

    QStringList loadArgs(const QString& table, const QStringList& extra) const {
        QStringList args{"load", "--dsn", QString::fromStdString(conninfo_), "--table", table, "--workers",
                         "1", "--rows-per-unit", "1000",
                         // Commits every few units, so a kill or a cancel comes in the middle.
                         "--rows-per-transaction", "5000", "--reporting-period", "0"};
        return args << extra << large_;
    }
};

QTEST_GUILESS_MAIN(TestDurability)
#include "tst_durability.moc"
