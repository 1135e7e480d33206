// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// What the threads of one load share (see Pipeline.cpp, CopyWorker.cpp). Not a public API.

#include "db/Ledger.h"
#include "db/WarmConnections.h"
#include "ingest/BoundedQueue.h"
#include "ingest/Loader.h"
#include "plan/LoadPlan.h"
#include "rows/UnitSource.h"

#include <chrono>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace isobar {

// How long a unit keeps being retried after its first transient failure (while attempts remain)
// unless told: long enough for a server or a Citus worker node to restart, crash recovery included.
inline constexpr std::chrono::milliseconds kRetryBudgetDefault{120'000};

// A unit read by the reader stage, waiting for a worker to decode and send it.
struct QueuedUnit {
    std::size_t planIndex = 0;
    RawUnit raw;
};

// The inputs every thread reads (never writes), the queue between the reader and the workers,
// the run's one stop source, the sink (calls serialized) and the first error.
class EngineShared {
public:
    EngineShared(const LoadRequest& request_, const LoadPlan& plan_, const UnitSource& source_,
                 LedgerTarget ledger_, BoundedQueue<QueuedUnit>& queue_, std::stop_source& stop_,
                 LoadSink& sink_)
        : request(request_)
        , plan(plan_)
        , source(source_)
        , ledger(std::move(ledger_))
        , queue(queue_)
        , stop(stop_)
        , sink(sink_) {}

    const LoadRequest& request;
    const LoadPlan& plan;
    const UnitSource& source;
    const LedgerTarget ledger;
    BoundedQueue<QueuedUnit>& queue;
    std::stop_source& stop; // stops every thread of the run
    LoadSink& sink;
    // How long a unit is retried after its first transient failure (see CopyWorker::load).
    std::chrono::milliseconds retryBudget = kRetryBudgetDefault;
    // The rows a transaction takes at most (0: the request's --rows-per-transaction, else
    // LoadPlan::kDefaultRowsPerTransaction); the target may want fewer (direct compress).
    std::uint64_t rowsPerTransaction = 0;
    // The workers the run starts with (more may join with --workers auto).
    int workers = 1;
    // The statements every worker's session runs first for this run's target (a distributed
    // table: Citus' cached connections), learned once before the workers start.
    std::vector<std::string> sessionSettings;
    // Connections opened for the first workers and the monitor while the table was prepared
    // (workerApplicationName(id), ServerMonitor::kApplicationName); may be null.
    WarmConnections* warm = nullptr;

    // Sink calls never overlap.
    template <typename F>
    void emit(F&& f) {
        std::lock_guard lock(sinkMutex_);
        f(sink);
    }

    // The first error wins and stops the run; later ones are consequences.
    void fail(LoadError error) {
        {
            std::lock_guard lock(errorMutex_);
            if (!error_) {
                error_ = std::move(error);
            }
        }
        stop.request_stop();
    }
    std::optional<LoadError> error() const {
        std::lock_guard lock(errorMutex_);
        return error_;
    }

    // Raw buffers go round: a worker done with a unit's hands them back, and the reader reads the
    // next unit into them. A read into fresh memory pays its page faults and zeroing first (13 % of
    // the client's time in a 4-hour load), and no more units exist than the queue and the workers
    // hold.
    void recycle(RawUnit raw) {
        std::lock_guard lock(spareMutex_);
        if (spare_.size() < queue.capacity()) {
            spare_.push_back(std::move(raw));
        }
    }
    RawUnit reuse() {
        std::lock_guard lock(spareMutex_);
        if (spare_.empty()) {
            return {};
        }
        RawUnit raw = std::move(spare_.back());
        spare_.pop_back();
        return raw;
    }

private:
    std::mutex sinkMutex_;
    mutable std::mutex errorMutex_;
    std::optional<LoadError> error_;
    std::mutex spareMutex_;
    std::vector<RawUnit> spare_;
};

} // namespace isobar
