#pragma once

#include "db/Connection.h"
#include "db/LocalCluster.h"

#include <QTemporaryDir>

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

} // namespace isobar::test
