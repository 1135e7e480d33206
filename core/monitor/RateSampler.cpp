#include "monitor/RateSampler.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>

namespace isobar {

RateSampler::RateSampler(const std::vector<std::unique_ptr<WorkerCounters>>& counters,
                         std::uint64_t plannedRows, std::chrono::milliseconds interval, std::string conninfo,
                         QueueGauge queue, Events events)
    : counters_(counters)
    , plannedRows_(plannedRows)
    , interval_(interval)
    , monitor_(std::move(conninfo))
    , queue_(std::move(queue))
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
    sampleServer();
}

void RateSampler::sampleServer() {
    if (const auto server = monitor_.sample(std::chrono::duration<double>(Clock::now() - t0_).count())) {
        events_.server(*server);
    }
}

void RateSampler::sampleRates() {
    RateSample s;
    const auto now = Clock::now();
    s.elapsed = std::chrono::duration<double>(now - t0_).count();
    const double dt = std::chrono::duration<double>(now - lastTime_).count();
    for (std::size_t w = 0; w < counters_.size(); ++w) {
        const WorkerCounters& c = *counters_[w];
        const std::uint64_t rows = c.rowsSent.load();
        s.rows += rows;
        s.committedRows += c.rowsCommitted.load() + c.skippedRows.load() + c.concurrentRows.load();
        s.bytes += c.bytes.load();
        s.workers.push_back(WorkerRate{static_cast<int>(w + 1),
                                       dt > 0 ? static_cast<double>(rows - lastRows_[w]) / dt : 0.0, rows});
        lastRows_[w] = rows;
    }
    s.intervalRate = dt > 0 ? static_cast<double>(s.rows - lastTotal_) / dt : 0.0;
    s.overallRate = s.elapsed > 0 ? static_cast<double>(s.rows) / s.elapsed : 0.0;
    s.queueDepth = queue_.depth ? queue_.depth() : 0;
    s.queueCapacity = queue_.capacity;
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
    events_.rate(s);
}

} // namespace isobar
