// Server settings against real clusters: every warning triggered by a real setting (and gone once
// its fix SQL has run), durability toggles applied for a run and restored with the exact original
// values and sources (postgresql.conf, postgresql.auto.conf, defaults), recovery after kill -9, a
// role without rights refused before anything changes, one with granted rights allowed, and two
// Isobar runs that must not change or restore what the other owns.

#include "TestCluster.h"
#include "TestUtil.h"
#include "db/Durability.h"
#include "db/ServerProbe.h"
#include "db/SettingsAdvice.h"
#include "ingest/Loader.h"
#include "report/ReportRecorder.h"

#include <QtTest>

#include <signal.h>

using namespace isobar;
using test::CliRun;
using test::errorOf;
using test::runCli;
using test::waitFor;

namespace {

// A setting as a fresh connection sees it: value, source, file.
QString seen(const std::string& conninfo, const std::string& name) {
    Connection c = Connection::open(conninfo);
    const Result r = c.query("SELECT current_setting(name) || ' | ' || source || ' | ' || "
                             "coalesce(sourcefile, '') FROM pg_settings "
                             "WHERE name = $1",
                             {name});
    return QString::fromStdString(r.text(0, 0));
}

QString valueSeen(const std::string& conninfo, const std::string& name) {
    return seen(conninfo, name).section(" | ", 0, 0);
}

// ALTER SYSTEM (or RESET with an empty value) and reload, then wait until new backends see it.
void alterSystem(const std::string& conninfo, const std::string& name, const std::string& value,
                 const QString& expected) {
    Connection c = Connection::open(conninfo);
    c.exec(value.empty() ? "ALTER SYSTEM RESET " + name
                         : "ALTER SYSTEM SET " + name + " = " + c.quoteLiteral(value));
    c.exec("SELECT pg_reload_conf()");
    QVERIFY2(
        waitFor([&] { return valueSeen(conninfo, name) == expected; }, std::chrono::seconds(10)),
        qPrintable(QString::fromStdString(name) + " is " + valueSeen(conninfo, name) + ", not " + expected));
}

// The SQL of a warning's fix, statement by statement (as psql would send it), without the
// comment saying what to do after the load.
void runFix(Connection& c, const std::string& fix) {
    const QString sql = QString::fromStdString(fix).section("-- ", 0, 0);
    for (const QString& statement : sql.split(';', Qt::SkipEmptyParts)) {
        if (!statement.trimmed().isEmpty()) {
            c.exec(statement.trimmed().toStdString());
        }
    }
}

QString autoConf(const std::string& conninfo) {
    Connection c = Connection::open(conninfo);
    return QString::fromStdString(c.query("SELECT pg_read_file('postgresql.auto.conf')").text(0, 0));
}

const SettingWarning* findWarning(const std::vector<SettingWarning>& warnings, const std::string& subject,
                                  const QString& containing = {}) {
    for (const auto& w : warnings) {
        if (w.subject == subject && QString::fromStdString(w.message).contains(containing)) {
            return &w;
        }
    }
    return nullptr;
}

QString describe(const std::vector<SettingWarning>& warnings) {
    QStringList lines;
    for (const auto& w : warnings) {
        lines << QString::fromStdString(std::string(severityName(w.severity)) + " " + w.subject + ": " +
                                        w.message);
    }
    return lines.join('\n');
}

std::vector<SettingWarning> warningsOf(const std::string& conninfo, const LoadIntent& intent = {},
                                       const std::string& table = {}) {
    Connection c = Connection::open(conninfo);
    const TableName name = TableName::parse(table.empty() ? "no_such_table" : table);
    return adviseSettings(probeServer(c, &name), intent);
}

// Records what the engine reports, and how one setting looked from a fresh connection while
// the rows were flowing.
class WatchingSink final : public LoadSink {
public:
    WatchingSink(std::string conninfo, std::vector<std::string> watched)
        : conninfo_(std::move(conninfo))
        , watched_(std::move(watched)) {}
    void started(const LoadStart&) override {
        for (const auto& name : watched_) {
            during[name] = valueSeen(conninfo_, name);
        }
    }
    void note(const std::string& n) override { notes << QString::fromStdString(n); }
    void warning(const std::string& w) override { notes << QString::fromStdString("warning: " + w); }
    void failed(const LoadError& e) override { error = QString::fromStdString(e.message); }
    std::map<std::string, QString> during;
    QStringList notes;
    QString error;

private:
    std::string conninfo_;
    std::vector<std::string> watched_;
};

} // namespace

class TestSettings : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        cluster_ = std::make_unique<test::TestCluster>();
        conninfo_ = cluster_->conninfo();
        small_ = cluster_->workDir() + "/small.nc";
        CliRun sample = runCli({"sample", "--out", small_, "--hours", "2", "--region", "10,0,0,10"});
        QVERIFY2(sample.exitCode == 0, qPrintable(sample.err));
        large_ = cluster_->workDir() + "/large.nc";
        sample = runCli({"sample", "--out", large_, "--hours", "24", "--region", "30,0,0,60"});
        QVERIFY2(sample.exitCode == 0, qPrintable(sample.err));
    }
    void cleanupTestCase() { cluster_.reset(); }
    void cleanup() {
        // Every test starts from the cluster as TestCluster made it: nothing in postgresql.auto.conf.
        Connection c = Connection::open(conninfo_);
        c.exec("ALTER SYSTEM RESET ALL");
        c.exec("SELECT pg_reload_conf()");
        waitFor([&] { return valueSeen(conninfo_, "fsync") == "off"; }, std::chrono::seconds(10));
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
        QStringList args{"load",
                         "--dsn",
                         QString::fromStdString(conninfo_),
                         "--table",
                         table,
                         "--workers",
                         "1",
                         "--rows-per-unit",
                         "1000",
                         "--reporting-period",
                         "0"};
        return args << extra << large_;
    }

    std::unique_ptr<test::TestCluster> cluster_;
    std::string conninfo_;
    int tables_ = 0;
    QString small_;
    QString large_;
};

QTEST_GUILESS_MAIN(TestSettings)
#include "tst_settings.moc"
