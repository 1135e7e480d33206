// SPDX-License-Identifier: GPL-3.0-or-later

#include "monitor/RateSampler.h"

#include "util/Format.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>

namespace isobar {

RateSampler::RateSampler(const std::vector<std::unique_ptr<WorkerCounters>>& counters,
                         std::uint64_t plannedRows, std::chrono::milliseconds interval, std::string conninfo,
                         ServerMonitor::Target target, Gauges gauges, Events events,
                         ServerMonitor::OpenedAhead monitorOpenedAhead)
    : counters_(counters)
    , plannedRows_(plannedRows)
    , interval_(interval)
    , dataPath_(target.storage.data.path.string())
    , walPath_(target.storage.wal ? target.storage.wal->path.string() : std::string())
    , monitor_(std::move(conninfo), std::move(target), std::move(monitorOpenedAhead))
    , gauges_(std::move(gauges))
    , events_(std::move(events))
    , lastRows_(counters.size(), 0) {}

void RateSampler::run(const std::stop_token& stop) {
    auto nextServer = Clock::now();
    while (!stop.stop_requested()) {
        sampleRates();
        if (Clock::now() >= nextServer) {
            nextServer = Clock::now() + std::chrono::seconds(1);
            sampleServer();
        }
        std::mutex m;
        std::condition_variable_any cv;
        std::unique_lock lock(m);
        cv.wait_for(lock, stop, interval_, [] { return false; });
    }
    sampleRates(); // the final state
    sampleServer(true);
}

void RateSampler::sampleServer(bool last) {
    if (auto server = monitor_.sample(std::chrono::duration<double>(Clock::now() - t0_).count(), last)) {
        server->workers =
            gauges_.workersRunning ? gauges_.workersRunning() : static_cast<int>(counters_.size());
        watchDisk(*server);
        events_.server(*server);
    }
}

namespace {

// How fast free space falls, in bytes/s, over the history (oldest first); 0 when it does not.
double consumption(const std::vector<std::pair<double, double>>& history) {
    if (history.size() < 2) {
        return 0;
    }
    const double dt = history.back().first - history.front().first;
    return dt > 0 ? std::max(0.0, (history.front().second - history.back().second) / dt) : 0.0;
}

void remember(std::vector<std::pair<double, double>>& history, double elapsed, double freeBytes) {
    constexpr double kWindow = 5.0; // seconds of history the rate is measured over
    history.emplace_back(elapsed, freeBytes);
    while (history.size() > 2 && history.back().first - history.front().first > kWindow) {
        history.erase(history.begin());
    }
}

} // namespace

void RateSampler::watchDisk(ServerReading& s) {
    if (s.tableBytes >= 0) {
        if (firstTableBytes_ < 0) {
            firstTableBytes_ = s.tableBytes;
            rowsAtFirstTable_ = lastTotal_;
        } else if (lastTotal_ > rowsAtFirstTable_) {
            s.bytesPerRow =
                (s.tableBytes - firstTableBytes_) / static_cast<double>(lastTotal_ - rowsAtFirstTable_);
        }
    }
    // Seconds from the reserve on each filesystem, at the rate it fills.
    const auto check = [&](double freeBytes, std::vector<std::pair<double, double>>& history,
                           const std::string& what) -> double {
        if (freeBytes < 0) {
            return -1;
        }
        remember(history, s.elapsed, freeBytes);
        const double rate = consumption(history);
        const double toFull = rate > 0 ? freeBytes / rate : -1;
        // Stop while the reserve (and what the next seconds write) is still free: the units in
        // flight roll back, the server keeps running. A load about to end writes only what is left
        // of it, and that may well fit.
        constexpr double kLeadSeconds = 3.0;
        const double ahead = rate * (lastEta_ >= 0 ? std::min(kLeadSeconds, lastEta_) : kLeadSeconds);
        if (!diskShortSaid_ && freeBytes < kDiskReserveBytes + ahead && events_.diskShort) {
            diskShortSaid_ = true;
            events_.diskShort(
                formatBytes(static_cast<std::uint64_t>(freeBytes)) + " free on " + what +
                    (rate > 0 ? ", falling by " + formatBytes(static_cast<std::uint64_t>(rate)) + "/s"
                              : std::string()),
                !s.answered);
        }
        return toFull;
    };
    const double dataToFull =
        check(s.freeBytes, freeHistory_, "the server's data filesystem (" + dataPath_ + ")");
    const double walToFull = check(s.walFreeBytes, walFreeHistory_, "pg_wal's filesystem (" + walPath_ + ")");
    double toFull = dataToFull;
    if (walToFull >= 0 && (toFull < 0 || walToFull < toFull)) {
        toFull = walToFull;
    }
    // Said only when the disk runs out before the load ends.
    s.secondsToFull = toFull >= 0 && (lastEta_ < 0 || toFull < lastEta_) ? toFull : -1;
}

void RateSampler::sampleRates() {
    RateReading s;
    const auto now = Clock::now();
    s.elapsed = std::chrono::duration<double>(now - t0_).count();
    const double dt = std::chrono::duration<double>(now - lastTime_).count();
    const std::size_t shown =
        gauges_.workersUsed ? static_cast<std::size_t>(gauges_.workersUsed()) : counters_.size();
    for (std::size_t w = 0; w < counters_.size(); ++w) {
        const WorkerCounters& c = *counters_[w];
        const std::uint64_t rows = c.rowsSent.load();
        s.rows += rows;
        s.committedRows += c.rowsDone();
        s.bytes += c.bytes.load();
        if (w < shown) {
            s.workers.push_back(WorkerRate{
                static_cast<int>(w + 1), dt > 0 ? static_cast<double>(rows - lastRows_[w]) / dt : 0.0, rows});
        }
        lastRows_[w] = rows;
    }
    s.intervalRate = dt > 0 ? static_cast<double>(s.rows - lastTotal_) / dt : 0.0;
    s.overallRate = s.elapsed > 0 ? static_cast<double>(s.rows) / s.elapsed : 0.0;
    s.queueDepth = gauges_.queueDepth ? gauges_.queueDepth() : 0;
    s.queueCapacity = gauges_.queueCapacity;
    s.plannedRows = plannedRows_;
    s.percent = plannedRows_ > 0
                    ? 100.0 * static_cast<double>(s.committedRows) / static_cast<double>(plannedRows_)
                    : 100.0;
    const double committedRate = s.elapsed > 0 ? static_cast<double>(s.committedRows) / s.elapsed : 0.0;
    s.etaSeconds =
        committedRate > 0
            ? static_cast<double>(plannedRows_ - std::min(plannedRows_, s.committedRows)) / committedRate
            : -1.0;
    lastTotal_ = s.rows;
    lastTime_ = now;
    lastCommitted_ = s.committedRows;
    // Before the first commit the ETA is unknown; the rows sent tell roughly when the load ends.
    lastEta_ = s.etaSeconds >= 0 || s.overallRate <= 0
                   ? s.etaSeconds
                   : static_cast<double>(plannedRows_ - std::min(plannedRows_, s.rows)) / s.overallRate;
    events_.rate(s);
}

} // namespace isobar
