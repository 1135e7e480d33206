// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "ingest/CopyWorker.h"
#include "ingest/EngineShared.h"
#include "ingest/Transport.h"
#include "monitor/WorkerCounters.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <thread>
#include <vector>

namespace isobar {

// The COPY workers of one load. It has a slot for each worker the load may run, each slot with its
// counters from the start (the sampler reads them all, whether the slot runs or not); a slot's
// worker, with its connection and thread, exists only while the slot runs. resize() starts slots,
// or asks the highest running ones to leave: a leaving worker takes no more units, commits the
// transaction it is in, and closes its connection. A slot that left is started again only once its
// thread has ended, so a worker number is never two connections at once.
class WorkerPool {
public:
    // The write method of worker `id` (numbered from 1, as in the log and pg_stat_activity).
    using TransportFactory = std::function<std::unique_ptr<Transport>(int id)>;

    WorkerPool(EngineShared& shared, int slots, TransportFactory makeMethod);
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;
    ~WorkerPool(); // waits for the workers (join())

    const std::vector<std::unique_ptr<WorkerCounters>>& counters() const noexcept { return counters_; }

    // Runs `workers` workers from now on (1 to the number of slots). Called from any thread.
    void resize(int workers);
    // Workers running and not leaving.
    int running() const;
    // Slots started at least once: the per-worker figures worth showing.
    int used() const;
    // Starts what resize() asked for and could not start yet (a slot still finishing).
    void settle();

    // No more starts; waits until every worker has ended (the queue ran dry, or the run stopped).
    void join();

private:
    struct Slot {
        std::unique_ptr<CopyWorker> worker;
        std::stop_source leave;
        std::jthread thread;
        bool running = false;          // started and not asked to leave
        std::atomic<bool> ended{true}; // its thread has returned (or never ran)
    };

    void start(std::size_t slot);
    void settleLocked();

    EngineShared& shared_;
    TransportFactory makeMethod_;
    std::vector<std::unique_ptr<WorkerCounters>> counters_;
    std::vector<std::unique_ptr<Slot>> slots_;
    mutable std::mutex mutex_;
    int wanted_ = 0;
    int used_ = 0;
    bool closed_ = false;
};

} // namespace isobar
