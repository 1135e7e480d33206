// SPDX-License-Identifier: GPL-3.0-or-later

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
    // Committed units that replaced earlier ones (ERA5T by final ERA5, or --overlap replace), and
    // the earlier rows they deleted.
    std::atomic<std::uint64_t> era5tReplacedUnits{0};
    std::atomic<std::uint64_t> overlapReplacedUnits{0};
    std::atomic<std::uint64_t> replacedRows{0};
    std::atomic<std::uint64_t> retries{0};
    std::atomic<std::uint64_t> transactions{0}; // committed, each holding one or more units

    // Where the worker's time went, in nanoseconds (see LoadPhases).
    std::atomic<std::uint64_t> waitNanos{0};   // waiting for the reader's next unit
    std::atomic<std::uint64_t> decodeNanos{0}; // decoding (and re-reading units to retry them)
    std::atomic<std::uint64_t> encodeNanos{0};
    std::atomic<std::uint64_t> sendNanos{0};    // handing rows to the server (COPY data)
    std::atomic<std::uint64_t> copyEndNanos{0}; // the end of the COPY, until the server's count
    std::atomic<std::uint64_t> ledgerNanos{0};  // BEGIN, the ledger claim
    std::atomic<std::uint64_t> commitNanos{0};

    // Rows of the plan this worker has accounted for: committed, skipped, or found committed by
    // another run (what the progress counts).
    std::uint64_t rowsDone() const {
        return rowsCommitted.load() + skippedRows.load() + concurrentRows.load();
    }
};

} // namespace isobar
