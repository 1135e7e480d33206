// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"
#include "db/ServerStorage.h"
#include "db/TableType.h"
#include "monitor/RateReading.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace isobar {

// A separate connection that watches the server while a load runs: checkpoints, WAL written, and
// what the workers' backends wait on, so a drop in the rate can be explained. It never fails a
// load: when the server cannot be asked (a restart, a missing privilege), it has nothing to say.
class ServerMonitor {
public:
    // What the monitor watches besides the server as a whole: the target table, and the
    // filesystems the load's check found (free space, read on this machine).
    struct Target {
        std::optional<TableName> table;
        TableType type = TableType::Regular; // how its size is read (a distributed table's by Citus)
        ServerStorage storage;
        // The share of one server backend's time that reading the table's size may take: it is read
        // again once its last reading's time divided by this has passed. Tens of thousands of
        // partitions or chunks take a second to size; a plain table, a millisecond (every sample).
        double tableSizeShare = 0.05;
    };
    // How the monitor's connection shows in pg_stat_activity.
    static constexpr const char* kApplicationName = "isobar monitor";

    // Gives the connection opened for the monitor ahead, or nullptr (it then opens its own).
    using OpenedAhead = std::function<std::unique_ptr<Connection>()>;

    // `openedAhead` is asked at the first sample, on the sampler's thread.
    ServerMonitor(std::string conninfo, Target target, OpenedAhead openedAhead = {});
    ~ServerMonitor();
    ServerMonitor(const ServerMonitor&) = delete;
    ServerMonitor& operator=(const ServerMonitor&) = delete;

    // A sample at `elapsed` seconds into the load; the table's size in it is -1 where it was not
    // read this time (see Target::tableSizeShare), and always read in the `last` one.
    std::optional<ServerReading> sample(double elapsed, bool last = false);

private:
    void sampleStorage(ServerReading& s, bool last);
    void sampleFreeSpace(ServerReading& s);
    // What can be said while the server does not answer: the free space (nothing asked of it).
    std::optional<ServerReading> unanswered(double elapsed);

    std::string conninfo_;
    Target target_;
    OpenedAhead openedAhead_;
    std::unique_ptr<Connection> conn_;
    bool checkpointer_ = false;      // PostgreSQL 17 moved the checkpoint counters to pg_stat_checkpointer
    bool checkpointerKnown_ = false; // asked on this connection
    bool haveBaseline_ = false;
    double baseTimed_ = 0;
    double baseRequested_ = 0;
    double baseWal_ = 0;
    double lastWal_ = 0;
    double lastElapsed_ = 0;
    bool haveArchiveBase_ = false;
    std::optional<ServerReading> last_; // the last sample the server answered
    double tableSizeDue_ = 0;           // when the table's size is read next (elapsed seconds)
    std::uint64_t baseArchiveFailures_ = 0;
};

} // namespace isobar
