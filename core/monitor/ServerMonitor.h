#pragma once

#include "db/Connection.h"
#include "monitor/RateSample.h"

#include <memory>
#include <optional>
#include <string>

namespace isobar {

// A separate connection that watches the server while a load runs: checkpoints, WAL written, and
// what the workers' backends wait on, so a drop in the rate can be explained. It never fails a
// load: when the server cannot be asked (a restart, a missing privilege), it has nothing to say.
class ServerMonitor {
public:
    explicit ServerMonitor(std::string conninfo);
    ~ServerMonitor();
    ServerMonitor(const ServerMonitor&) = delete;
    ServerMonitor& operator=(const ServerMonitor&) = delete;

    std::optional<ServerSample> sample(double elapsed);

private:
    std::string conninfo_;
    std::unique_ptr<Connection> conn_;
    bool checkpointer_ = false; // PostgreSQL 17 moved the checkpoint counters to pg_stat_checkpointer
    bool haveBaseline_ = false;
    double baseTimed_ = 0;
    double baseRequested_ = 0;
    double baseWal_ = 0;
    double lastWal_ = 0;
    double lastElapsed_ = 0;
};

} // namespace isobar
