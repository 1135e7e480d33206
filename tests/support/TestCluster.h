// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "Fixtures.h"
#include "db/Connection.h"
#include "db/LocalCluster.h"
#include "ingest/Loader.h"

#include <QTemporaryDir>

#include <cstdint>
#include <memory>
#include <string>

namespace isobar::test {

// A throwaway PostgreSQL cluster for one test executable, started through the same LocalCluster
// class the product uses (so the root -> postgres path is exercised whenever tests run as root).
// It lives in a fresh temporary directory that is removed when the object goes away, and clusters
// left behind by a test process that was killed are stopped and removed by the next one.
class TestCluster {
public:
    explicit TestCluster(LocalClusterOptions extra = {});
    TestCluster(const TestCluster&) = delete;
    TestCluster& operator=(const TestCluster&) = delete;
    ~TestCluster();

    LocalCluster& cluster() { return *cluster_; }
    std::string conninfo() const { return cluster_->connectionString(); }
    Connection connect() const { return Connection::open(conninfo()); }
    // A directory next to the cluster for the test's own files (fixtures, reports).
    QString workDir() const;
    // The temporary root holding everything of this cluster.
    QString root() const { return dir_.path(); }

    // Removes /tmp/isobar-test-* directories whose owning test process is gone, stopping any server
    // still running in them.
    static void reapStale();

private:
    // A shell that waits for this process to end, however it ends (a failed test, a crash, kill -9),
    // then stops the server and removes the directory: a fresh CI machine has no later run to
    // reap what a dead test left behind.
    void startWatchdog();

    QTemporaryDir dir_;
    std::unique_ptr<LocalCluster> cluster_;
    int watchdogPipe_ = -1;
    pid_t watchdogPid_ = -1;
};

// Query helper for tests: the single value of a one-row, one-column query, as text.
QString scalar(Connection& conn, const std::string& sql);
// The same value as a number (0 when it is not one), for counts and sizes.
std::uint64_t count(Connection& conn, const std::string& sql);

// Every row of a weather table (seed columns), keyed by (time, location_id); a key seen twice
// throws isobar::Error. Time is read as microseconds since 2000-01-01 UTC.
WeatherRows readWeatherRows(Connection& conn, const std::string& table);
// The same rows as a list, ordered by time, latitude descending, longitude (a global file's order).
std::vector<WeatherRow> readWeatherRowsInOrder(Connection& conn, const std::string& table);

// Every value decoded through Dataset + BandReader, then every column of every row loaded and read
// back, against the expected rows (checkEveryRow); fails the test function on a difference. For
// test classes with a `cluster_` member.
#define CHECK_EVERY_ROW(...)                                                                                 \
    do {                                                                                                     \
        const QString diff_ = ::isobar::test::checkEveryRow(*cluster_, __VA_ARGS__);                         \
        QVERIFY2(diff_.isEmpty(), qPrintable(diff_));                                                        \
    } while (false)

// Records what a load reports.
class RecordingSink final : public LoadSink {
public:
    void warning(const std::string& w) override { warnings.push_back(w); }
    void note(const std::string& n) override { notes.push_back(n); }
    std::vector<std::string> warnings;
    std::vector<std::string> notes;
};

// runLoad of `files` into `table` of the cluster, two latitude rows per band (so that every step
// spans several bands, the last one often shorter).
LoadSummary loadFiles(const TestCluster& cluster, const std::vector<QString>& files, const std::string& table,
                      const OpenOptions& open = {}, RecordingSink* sink = nullptr,
                      AllMissingPolicy allMissing = AllMissingPolicy::Skip);

// Every value of `files` decoded through Dataset + BandReader, then every column of every row
// loaded into `table` and read back, each compared with `expected` (location_ids on the grid of
// spacing `step`). Empty when everything agrees, else what differs (or what was thrown).
QString checkEveryRow(const TestCluster& cluster, const std::vector<QString>& files, const std::string& table,
                      const WeatherRows& expected, const OpenOptions& open = {}, double step = 0.25);

} // namespace isobar::test
