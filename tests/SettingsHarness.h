// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// What the server-settings tests share: a throwaway cluster reset to its own settings after each
// test, synthetic files to load, and ways to read a setting as a fresh connection sees it.

#include "TestCluster.h"
#include "TestUtil.h"
#include "db/Durability.h"
#include "db/ServerProbe.h"
#include "db/SettingsAdvice.h"
#include "ingest/Loader.h"
#include "report/ReportRecorder.h"

#include <QtTest>

#include <signal.h>

namespace isobar::test {

// A setting as a fresh connection sees it: value, source, file.
inline QString seen(const std::string& conninfo, const std::string& name) {
    Connection c = Connection::open(conninfo);
    const Result r = c.query("SELECT current_setting(name) || ' | ' || source || ' | ' || "
                             "coalesce(sourcefile, '') FROM pg_settings "
                             "WHERE name = $1",
                             {name});
    return QString::fromStdString(r.text(0, 0));
}

inline QString valueSeen(const std::string& conninfo, const std::string& name) {
    return seen(conninfo, name).section(" | ", 0, 0);
}

// ALTER SYSTEM (or RESET with an empty value) and reload, then wait until new backends see it.
inline void alterSystem(const std::string& conninfo, const std::string& name, const std::string& value,
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
inline void runFix(Connection& c, const std::string& fix) {
    const QString sql = QString::fromStdString(fix).section("-- ", 0, 0);
    for (const QString& statement : sql.split(';', Qt::SkipEmptyParts)) {
        if (!statement.trimmed().isEmpty()) {
            c.exec(statement.trimmed().toStdString());
        }
    }
}

inline QString autoConf(const std::string& conninfo) {
    Connection c = Connection::open(conninfo);
    return QString::fromStdString(c.query("SELECT pg_read_file('postgresql.auto.conf')").text(0, 0));
}

inline const SettingWarning* findWarning(const std::vector<SettingWarning>& warnings,
                                         const std::string& subject, const QString& containing = {}) {
    for (const auto& w : warnings) {
        if (w.subject == subject && QString::fromStdString(w.message).contains(containing)) {
            return &w;
        }
    }
    return nullptr;
}

inline QString describe(const std::vector<SettingWarning>& warnings) {
    QStringList lines;
    for (const auto& w : warnings) {
        lines << QString::fromStdString(std::string(severityName(w.severity)) + " " + w.subject + ": " +
                                        w.message);
    }
    return lines.join('\n');
}

inline std::vector<SettingWarning> warningsOf(const std::string& conninfo, const LoadIntent& intent = {},
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

// The base of the settings test classes: setUp() in initTestCase, tearDown() in cleanupTestCase,
// resetSettings() in cleanup.
class SettingsHarness : public QObject {
protected:
    // `large`: also a 24-hour file, for loads long enough to interrupt.
    void setUp(bool large) {
        cluster_ = std::make_unique<TestCluster>();
        conninfo_ = cluster_->conninfo();
        small_ = cluster_->workDir() + "/small.nc";
        CliRun sample = runCli({"synth", "--out", small_, "--hours", "2", "--region", "10,0,0,10"});
        QVERIFY2(sample.exitCode == 0, qPrintable(sample.err));
        if (!large) {
            return;
        }
        large_ = cluster_->workDir() + "/large.nc";
        sample = runCli({"synth", "--out", large_, "--hours", "24", "--region", "30,0,0,60"});
        QVERIFY2(sample.exitCode == 0, qPrintable(sample.err));
    }
    void tearDown() { cluster_.reset(); }
    // Every test starts from the cluster as TestCluster made it: nothing in postgresql.auto.conf.
    void resetSettings() {
        Connection c = Connection::open(conninfo_);
        c.exec("ALTER SYSTEM RESET ALL");
        c.exec("SELECT pg_reload_conf()");
        waitFor([&] { return valueSeen(conninfo_, "fsync") == "off"; }, std::chrono::seconds(10));
    }

    std::unique_ptr<TestCluster> cluster_;
    std::string conninfo_;
    int tables_ = 0;
    QString small_;
    QString large_;
};

} // namespace isobar::test
