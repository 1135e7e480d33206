// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "monitor/RateReading.h"
#include "monitor/ServerMonitor.h"
#include "monitor/WorkerCounters.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

namespace isobar {

// The one sampler of a load: reads the workers' counters at a fixed interval (4-10 Hz is what a
// UI wants) and emits a RateReading; once a second it asks the server (ServerMonitor, its own
// connection) and emits a ServerReading. It runs on a thread of its own and only reads counters.
class RateSampler {
public:
    struct Events {
        std::function<void(const RateReading&)> rate;
        std::function<void(const ServerReading&)> server;
        // The server's disk will be full within seconds: the load must stop now (said once); or,
        // when the server does not answer (`serverDown`), it is full already.
        std::function<void(const std::string& why, bool serverDown)> diskShort;
    };
    // How full the queue between the reader and the workers is, and how many workers run.
    struct Gauges {
        std::function<std::size_t()> queueDepth;
        std::size_t queueCapacity = 0;
        // Workers running now; empty: one per counter.
        std::function<int()> workersRunning;
        // Workers started so far (the first N counters): the per-worker rates go that far.
        std::function<int()> workersUsed;
    };

    // `monitorOpenedAhead`: the ServerMonitor's connection, opened ahead (see ServerMonitor).
    RateSampler(const std::vector<std::unique_ptr<WorkerCounters>>& counters, std::uint64_t plannedRows,
                std::chrono::milliseconds interval, std::string conninfo, ServerMonitor::Target target,
                Gauges gauges, Events events, ServerMonitor::OpenedAhead monitorOpenedAhead = {});

    // The thread body: samples until `stop`, then once more for the final state.
    void run(const std::stop_token& stop);

private:
    using Clock = std::chrono::steady_clock;

    void sampleRates();
    void sampleServer(bool last = false);
    // Bytes per row, time to full and the stop before the disk is full, from the free space.
    void watchDisk(ServerReading& s);

    const std::vector<std::unique_ptr<WorkerCounters>>& counters_;
    std::uint64_t plannedRows_;
    std::chrono::milliseconds interval_;
    std::string dataPath_; // the filesystems watched, for the stop's reason
    std::string walPath_;
    ServerMonitor monitor_;
    Gauges gauges_;
    Events events_;
    std::vector<std::uint64_t> lastRows_;
    std::uint64_t lastTotal_ = 0;
    std::uint64_t lastCommitted_ = 0;
    double lastEta_ = -1; // seconds to the end of the load, -1 while unknown
    double firstTableBytes_ = -1;
    std::uint64_t rowsAtFirstTable_ = 0;
    // (elapsed, bytes free) of the last seconds, on the data filesystem and pg_wal's.
    std::vector<std::pair<double, double>> freeHistory_;
    std::vector<std::pair<double, double>> walFreeHistory_;
    bool diskShortSaid_ = false;
    Clock::time_point t0_ = Clock::now();
    Clock::time_point lastTime_ = t0_;
};

} // namespace isobar
