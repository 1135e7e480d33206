#pragma once

#include <atomic>
#include <cstdint>

namespace isobar {

// What one COPY worker has done so far. Workers only bump these (atomic increments a few times
// per unit, no locks); the rate sampler reads them from its own thread.
struct WorkerCounters {
    std::atomic<std::uint64_t> rowsSent{0}; // rows handed to libpq (retries count again)
    std::atomic<std::uint64_t> rowsCommitted{0};
    std::atomic<std::uint64_t> bytes{0};
    std::atomic<std::uint64_t> units{0};
    std::atomic<std::uint64_t> skippedRows{0};    // all-missing units skipped
    std::atomic<std::uint64_t> concurrentRows{0}; // units another run committed meanwhile
    std::atomic<std::uint64_t> retries{0};
};

} // namespace isobar
