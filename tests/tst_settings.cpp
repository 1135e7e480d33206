// SPDX-License-Identifier: GPL-3.0-or-later

// Server settings against real clusters: the probe, and every warning triggered by a real setting
// (and gone once its fix SQL has run), from startup-only settings and from the target table.

#include "SettingsHarness.h"
#include "db/Compression.h"

using namespace isobar;
using namespace isobar::test;

class TestSettings : public SettingsHarness {
    Q_OBJECT

private slots:
    void initTestCase() { setUp(false); }
    void cleanupTestCase() { tearDown(); }
    void cleanup() { resetSettings(); }

    // The advice to preload an extension keeps every library already there, Citus first; applying
    // TimescaleDB's advice and then Citus' (one list for both) drops neither.
    void preloadAdviceKeepsWhatIsThere() {
        QCOMPARE(preloadListWith("", "citus"), std::string("citus"));
        QCOMPARE(preloadListWith("timescaledb", "citus"), std::string("citus,timescaledb"));
        QCOMPARE(preloadListWith("pg_stat_statements, timescaledb", "timescaledb"),
                 std::string("pg_stat_statements,timescaledb"));
        QCOMPARE(preloadListWith("citus", "timescaledb"), std::string("citus,timescaledb"));
        QCOMPARE(preloadListWith("auto_explain,citus", "citus"), std::string("citus,auto_explain"));
        ServerInfo server;
        server.settings.push_back(
            {"shared_preload_libraries", "pg_stat_statements", "configuration file", ""});
        server.extensions.push_back({"timescaledb", "2.28.3", ""});
        server.extensions.push_back({"citus", "13.2-1", ""});
        LoadIntent intent;
        intent.workers = 2;
        intent.newTableType = TableType::Distributed;
        std::vector<SettingWarning> preload;
        for (const SettingWarning& w : adviseSettings(server, intent)) {
            if (w.subject == "shared_preload_libraries") {
                preload.push_back(w);
            }
        }
        QCOMPARE(preload.size(), std::size_t(2));
        for (const SettingWarning& w : preload) {
            QVERIFY2(w.fix.find("'citus,pg_stat_statements,timescaledb'") != std::string::npos,
                     w.fix.c_str());
            VERIFY_MESSAGE(QString::fromStdString(w.message), "(pg_stat_statements)", "server restart");
        }
        // Citus is what the load needs: that one stops it; TimescaleDB's is said for information.
        const auto citus = std::find_if(preload.begin(), preload.end(), [](const SettingWarning& w) {
            return w.message.rfind("Citus", 0) == 0;
        });
        QVERIFY(citus != preload.end());
        QCOMPARE(citus->severity, Severity::Error);
        VERIFY_MESSAGE(QString::fromStdString(citus->message), "distributed tables cannot be used");
    }

    // Huge pages: /proc's words read, and the advice for a large shared_buffers in 4 kB pages with
    // what to reserve; nothing once the server has them, or for a small shared_buffers.
    void hugePagesAdvice() {
        const auto pages = parseMeminfo("MemTotal:       24000000 kB\nHugePages_Total:    2300\n"
                                        "HugePages_Free:     2245\nHugePages_Rsvd:     2052\n"
                                        "HugePages_Surp:        0\nHugepagesize:       2048 kB\n");
        QVERIFY(pages.has_value());
        QCOMPARE(pages->total, std::int64_t{2300});
        QCOMPARE(pages->available(), std::int64_t{2245 - 2052});
        QCOMPARE(pages->pageBytes, 2048.0 * 1024);
        QVERIFY(!parseMeminfo("MemTotal: 1000 kB\n").has_value());
        const char* small = "7f17061b7000-7f180d695000 rw-s 00000000 00:01 1032    /dev/zero (deleted)\n"
                            "7f1811222000-7f1811223000 rw-s 00000000 00:01 6       /SYSV001167e5 (deleted)\n";
        const char* huge = "7f1811222000-7f1811223000 rw-s 00000000 00:01 6       /SYSV001167e5 (deleted)\n"
                           "7f1600000000-7f1710000000 rw-s 00000000 00:10 2052    /anon_hugepage (deleted)\n";
        QCOMPARE(mapsShowHugePages(small), std::optional<bool>(false));
        QCOMPARE(mapsShowHugePages(huge), std::optional<bool>(true));
        QCOMPARE(mapsShowHugePages("55d9093d0000-55d9093d1000 r--p 00000000 08:01 12 /usr/bin/x\n"),
                 std::optional<bool>());

        const auto adviceFor = [](const std::string& buffers, const std::string& setting, HugePages h) {
            ServerInfo server;
            server.settings.push_back({"shared_buffers", buffers, "configuration file", ""});
            server.settings.push_back({"huge_pages", setting, "default", ""});
            server.hugePages = h;
            LoadIntent intent;
            intent.workers = 2;
            const auto warnings = adviseSettings(server, intent);
            const SettingWarning* w = findWarning(warnings, "huge_pages");
            return w != nullptr ? std::optional<SettingWarning>(*w) : std::nullopt;
        };
        HugePages none;
        none.pageBytes = 2048.0 * 1024;
        none.serverUses = false;
        none.needed = 2100;
        auto w = adviceFor("4GB", "try", none);
        QVERIFY(w.has_value());
        QCOMPARE(w->severity, Severity::Slows);
        VERIFY_MESSAGE(QString::fromStdString(w->message), "shared_buffers=4GB", "no huge pages reserved",
                       "vm.nr_hugepages=2100", "restart the server");
        QVERIFY(w->fix.empty()); // a sysctl, not SQL
        w = adviceFor("4GB", "off", none);
        QVERIFY(w.has_value());
        QVERIFY2(w->fix.find("huge_pages = 'try'") != std::string::npos, w->fix.c_str());
        HugePages some = none; // reserved, but too few left for this server
        some.total = 1000;
        some.free = 600;
        some.reserved = 100;
        w = adviceFor("4GB", "try", some);
        QVERIFY(w.has_value());
        VERIFY_MESSAGE(QString::fromStdString(w->message), "1000 huge pages are reserved",
                       "500 of them unclaimed", "vm.nr_hugepages=2600");
        HugePages enough = none; // reserved after the server started
        enough.total = enough.free = 2200;
        w = adviceFor("4GB", "try", enough);
        QVERIFY(w.has_value());
        VERIFY_MESSAGE(QString::fromStdString(w->message), "enough, but the server started without them");
        QVERIFY2(w->message.find("sysctl") == std::string::npos, w->message.c_str());
        HugePages used = enough;
        used.serverUses = true;
        QVERIFY(!adviceFor("4GB", "try", used));
        QVERIFY(!adviceFor("512MB", "try", none)); // small: little to gain
        HugePages unseen = none;                   // another user's server: only "none reserved" is certain
        unseen.serverUses.reset();
        QVERIFY(adviceFor("4GB", "try", unseen));
        unseen.total = 2200;
        QVERIFY(!adviceFor("4GB", "try", unseen));

        // `cluster status` says it: running, as the postmaster's mappings show; stopped, what its
        // next start needs (postgres -C shared_memory_size_in_huge_pages).
        const QString running = QString::fromStdString(cluster_->cluster().status().sharedMemory);
        QVERIFY2(running.startsWith("in huge pages (") || running.startsWith("in 4 kB pages: needs "),
                 qPrintable(running));
        test::TestCluster own;
        QVERIFY(own.cluster().stop());
        const QString stopped = QString::fromStdString(own.cluster().status().sharedMemory);
        QVERIFY2(QRegularExpression(R"(^needs \d+ huge pages of 2\.0 MiB, this machine has )")
                     .match(stopped)
                     .hasMatch(),
                 qPrintable(stopped));
    }

    void probeReadsTheServer() {
        Connection c = cluster_->connect();
        const ServerInfo info = probeServer(c);
        QVERIFY(info.versionNumber >= 130000);
        QVERIFY(!info.systemIdentifier.empty());
        QCOMPARE(info.dataDirectory, cluster_->cluster().dataDir().string());
        QVERIFY(info.role.superuser);
        QVERIFY(info.role.mayAlterSystem("fsync") && info.role.mayAlterSystem("full_page_writes"));
        QVERIFY(info.role.reloadConf && info.role.checkpoint && info.role.readFileSettings);
        QVERIFY(info.connectionsInUse >= 1);
        const ServerSetting* fsync = info.find("fsync");
        QVERIFY(fsync != nullptr);
        QCOMPARE(fsync->value, std::string("off")); // the test cluster's isobar.conf
        QCOMPARE(fsync->source, std::string("configuration file"));
        QVERIFY2(QString::fromStdString(fsync->file).endsWith("isobar.conf"), fsync->file.c_str());
        for (const char* name : {"full_page_writes", "synchronous_commit", "wal_level", "max_wal_size",
                                 "checkpoint_timeout", "shared_buffers", "max_connections", "autovacuum",
                                 "shared_preload_libraries", "archive_mode", "data_checksums"}) {
            QVERIFY2(info.find(name) != nullptr, name);
        }
        // The test cluster is on this machine: its huge pages are seen, and whether it uses them.
        QVERIFY(info.hugePages.has_value());
        QVERIFY(info.hugePages->serverUses.has_value());
        if (info.hugePages->total == 0) {
            QCOMPARE(*info.hugePages->serverUses, false);
        }
        QVERIFY(info.hugePages->needed > 0); // shared_memory_size_in_huge_pages (PostgreSQL 15)
        QCOMPARE(settingBytes("4GB").value(), 4.0 * 1024 * 1024 * 1024);
        QCOMPARE(settingBytes("2048", 8192).value(), 2048.0 * 8192);
        QCOMPARE(settingSeconds("5min").value(), 300.0);
        QVERIFY(!settingBytes("lots"));
    }

    // Each reloadable setting in turn: set it on the server, the warning appears with its
    // severity; run the SQL the warning gives, the warning is gone.
    void warningFromARealSetting_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("seenAs");
        QTest::addColumn<int>("severity");
        QTest::addColumn<bool>("fixable");
        QTest::newRow("fsync") << "fsync"
                               << "off"
                               << "off" << int(Severity::Danger) << true;
        QTest::newRow("full_page_writes") << "full_page_writes"
                                          << "off"
                                          << "off" << int(Severity::Danger) << true;
        QTest::newRow("synchronous_commit") << "synchronous_commit"
                                            << "off"
                                            << "off" << int(Severity::Info) << true;
        QTest::newRow("max_wal_size") << "max_wal_size"
                                      << "1GB"
                                      << "1GB" << int(Severity::Slows) << true;
        QTest::newRow("checkpoint_timeout") << "checkpoint_timeout"
                                            << "5min"
                                            << "5min" << int(Severity::Slows) << true;
        QTest::newRow("checkpoint_completion_target") << "checkpoint_completion_target"
                                                      << "0.5"
                                                      << "0.5" << int(Severity::Info) << true;
        QTest::newRow("autovacuum") << "autovacuum"
                                    << "off"
                                    << "off" << int(Severity::Info) << true;
        QTest::newRow("maintenance_work_mem") << "maintenance_work_mem"
                                              << "64MB"
                                              << "64MB" << int(Severity::Info) << true;
        QTest::newRow("wal_compression") << "wal_compression"
                                         << "on"
                                         << "pglz" << int(Severity::Info) << false;
    }
    void warningFromARealSetting() {
        QFETCH(QString, name);
        QFETCH(QString, value);
        QFETCH(QString, seenAs);
        QFETCH(int, severity);
        QFETCH(bool, fixable);
        alterSystem(conninfo_, name.toStdString(), value.toStdString(), seenAs);
        LoadIntent intent;
        intent.workers = 2;
        intent.newTableType = TableType::Hypertable; // index builds after the load: maintenance_work_mem
        auto warnings = warningsOf(conninfo_, intent);
        const SettingWarning* w = findWarning(warnings, name.toStdString());
        QVERIFY2(w != nullptr, qPrintable(describe(warnings)));
        QCOMPARE(int(w->severity), severity);
        QVERIFY2(QString::fromStdString(w->message).contains(name), w->message.c_str());
        if (!fixable) {
            QVERIFY(w->fix.empty());
            return;
        }
        QVERIFY2(!w->fix.empty(), "a reloadable setting comes with the SQL that fixes it");
        Connection c = Connection::open(conninfo_);
        runFix(c, w->fix);
        QVERIFY2(
            waitFor([&] { return findWarning(warningsOf(conninfo_, intent), name.toStdString()) == nullptr; },
                    std::chrono::seconds(10)),
            qPrintable("after `" + QString::fromStdString(w->fix) + "`:\n" +
                       describe(warningsOf(conninfo_, intent))));
    }

    // What only a restart changes, on a cluster started that way: archiving, a small explicit
    // wal_buffers, wal_level=logical, the default shared_buffers, too few connections for the
    // workers, and TimescaleDB installed but not preloaded.
    void warningsFromStartupSettings() {
        LocalClusterOptions options;
        options.settings = {{"archive_mode", "on"},    {"archive_command", "'/bin/true'"},
                            {"wal_buffers", "'1MB'"},  {"wal_level", "logical"},
                            {"max_connections", "12"}, {"shared_preload_libraries", "''"}};
        test::TestCluster other(options);
        const std::string conninfo = other.conninfo();
        LoadIntent intent;
        intent.workers = 2;
        auto warnings = warningsOf(conninfo, intent);
        const auto expect = [&](const std::string& subject, Severity severity) {
            const SettingWarning* w = findWarning(warnings, subject);
            QVERIFY2(w != nullptr,
                     qPrintable(QString::fromStdString(subject) + " missing in\n" + describe(warnings)));
            QCOMPARE(int(w->severity), int(severity));
        };
        expect("archive_mode", Severity::Slows);
        expect("wal_buffers", Severity::Slows);
        expect("wal_level", Severity::Info);
        expect("shared_buffers", Severity::Info);
        QVERIFY2(findWarning(warnings, "max_connections") == nullptr, qPrintable(describe(warnings)));

        // 12 connections, 3 reserved for superusers (the role is one), 1 in use besides the probe.
        intent.workers = 11;
        warnings = warningsOf(conninfo, intent);
        const SettingWarning* tooMany = findWarning(warnings, "max_connections");
        QVERIFY2(tooMany != nullptr, qPrintable(describe(warnings)));
        QCOMPARE(int(tooMany->severity), int(Severity::Error));
        VERIFY_MESSAGE(QString::fromStdString(tooMany->message), "11 worker(s) need 13 connections",
                       "max_connections=12", "--workers");
        // A load with that many workers stops before it creates anything.
        LoadRequest request;
        request.conninfo = conninfo;
        request.table = TableName::parse("never_created");
        request.files = {small_.toStdString()};
        request.workers = 11;
        test::RecordingSink sink;
        const LoadSummary summary = runLoad(request, {}, sink);
        QCOMPARE(int(summary.status), int(LoadStatus::Failed));
        VERIFY_MESSAGE(QString::fromStdString(summary.error->message), "max_connections=12",
                       "worker(s) need");
        Connection c = other.connect();
        QCOMPARE(test::scalar(c, "SELECT to_regclass('never_created') IS NULL"), QString("t"));

        Connection probe = other.connect();
        if (probe.query("SELECT count(*) FROM pg_available_extensions WHERE name = 'timescaledb'")
                .integer(0, 0) == 0) {
            QSKIP("TimescaleDB is not installed for this PostgreSQL (it is not a Debian package): the "
                  "'installed but not preloaded' warning is checked where it is");
        }
        intent.workers = 2;
        warnings = warningsOf(conninfo, intent);
        expect("shared_preload_libraries", Severity::Info);
        intent.newTableType = TableType::Hypertable;
        warnings = warningsOf(conninfo, intent);
        expect("shared_preload_libraries", Severity::Error);
        // How --compress will compress the hypertable: as COPY receives the rows where the
        // version has it (2.21+, which TimescaleDB calls experimental), else after the load.
        expect("timescaledb.enable_direct_compress_copy", Severity::Info);
        const std::string version =
            probe.query("SELECT default_version FROM pg_available_extensions WHERE name = 'timescaledb'")
                .text(0, 0);
        const QString said =
            QString::fromStdString(findWarning(warnings, "timescaledb.enable_direct_compress_copy")->message);
        if (hasDirectCompress(version)) {
            VERIFY_MESSAGE(said,
                           "TimescaleDB " + QString::fromStdString(version) +
                               " compresses rows as COPY receives them",
                           "experimental", "--compress=after-load");
        } else {
            VERIFY_MESSAGE(said, "compresses a hypertable's chunks only after the load", "2.21 and later");
        }
    }

    // Indexes, triggers, foreign keys, checks and autovacuum on the target table, each named.
    void warningsFromTheTargetTable() {
        Connection c = cluster_->connect();
        c.exec("DROP TABLE IF EXISTS tw; DROP TABLE IF EXISTS ref_station;");
        c.exec("CREATE TABLE ref_station (id integer PRIMARY KEY)");
        c.exec("CREATE TABLE tw (time timestamptz NOT NULL, location_id integer REFERENCES ref_station (id), "
               "temperature_2m real CONSTRAINT plausible CHECK (temperature_2m > -100), PRIMARY KEY (time, "
               "location_id)) WITH (autovacuum_enabled = false)");
        c.exec("CREATE INDEX tw_loc ON tw (location_id)");
        c.exec("CREATE FUNCTION tw_audit() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$");
        c.exec("CREATE TRIGGER tw_audit BEFORE INSERT ON tw FOR EACH ROW EXECUTE FUNCTION tw_audit()");
        LoadIntent intent;
        intent.workers = 1;
        auto warnings = warningsOf(conninfo_, intent, "tw");
        const SettingWarning* indexes = findWarning(warnings, "table tw", "index");
        QVERIFY2(indexes != nullptr, qPrintable(describe(warnings)));
        QCOMPARE(int(indexes->severity), int(Severity::Slows));
        VERIFY_MESSAGE(QString::fromStdString(indexes->message), "2 index(es)", "tw_loc", "tw_pkey");
        const SettingWarning* triggers = findWarning(warnings, "table tw", "trigger");
        QVERIFY2(triggers != nullptr, qPrintable(describe(warnings)));
        VERIFY_MESSAGE(QString::fromStdString(triggers->message), "tw_audit");
        const SettingWarning* fk = findWarning(warnings, "table tw", "foreign key");
        QVERIFY2(fk != nullptr, qPrintable(describe(warnings)));
        VERIFY_MESSAGE(QString::fromStdString(fk->message), "tw_location_id_fkey");
        const SettingWarning* check = findWarning(warnings, "table tw", "check constraint");
        QVERIFY2(check != nullptr && check->severity == Severity::Info, qPrintable(describe(warnings)));
        VERIFY_MESSAGE(QString::fromStdString(check->message), "plausible");
        const SettingWarning* vacuum = findWarning(warnings, "table tw", "autovacuum is off");
        QVERIFY2(vacuum != nullptr, qPrintable(describe(warnings)));

        // The SQL each gives works, and its warning goes.
        for (const SettingWarning* w : {indexes, triggers, vacuum}) {
            runFix(c, w->fix);
        }
        warnings = warningsOf(conninfo_, intent, "tw");
        QVERIFY2(findWarning(warnings, "table tw", "index") == nullptr, qPrintable(describe(warnings)));
        QVERIFY2(findWarning(warnings, "table tw", "trigger") == nullptr, qPrintable(describe(warnings)));
        QVERIFY2(findWarning(warnings, "table tw", "autovacuum") == nullptr, qPrintable(describe(warnings)));
        // `isobar-cli settings` prints the same findings.
        const CliRun cli = runCli({"settings", "--dsn", QString::fromStdString(conninfo_), "--table", "tw"});
        QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
        QVERIFY2(cli.out.contains("[danger] fsync=off") && cli.out.contains("tw_location_id_fkey") &&
                     cli.out.contains("fix: ALTER SYSTEM SET fsync = 'on'"),
                 qPrintable(cli.out));
        c.exec("DROP TABLE tw; DROP TABLE ref_station; DROP FUNCTION tw_audit()");
    }
};

QTEST_GUILESS_MAIN(TestSettings)
#include "tst_settings.moc"
