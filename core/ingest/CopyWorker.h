// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "copy/BinaryCopyBuffer.h"
#include "db/Connection.h"
#include "db/TransientError.h"
#include "ingest/EngineShared.h"
#include "ingest/Transport.h"
#include "monitor/WorkerCounters.h"
#include "rows/UnitSource.h"
#include "util/Error.h"

#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace isobar {

// The wait before retry n is 0.2 s doubled n-1 times, at most this.
inline constexpr std::chrono::milliseconds kMaxRetryWait{5000};

// How worker `id` of this process shows in pg_stat_activity: "isobar worker 2 pid 4711" (the pid
// tells this load's workers from another's on the same server).
std::string workerApplicationName(int id);
// A connection for worker `id` of the load, with the session settings of the request (a durability
// choice). Throws DbError. What the target needs of every session is the worker's to add.
Connection openWorkerConnection(const LoadRequest& request, int id);

// One COPY worker: owns one connection for its whole life (libpq's rule: one thread's world) and
// loads the units it takes from the queue. A transaction holds one or more consecutive units: one
// COPY of all their rows, then their ledger rows, then COMMIT, so each unit's rows and its ledger
// row still exist together or not at all, while the server sees long COPYs and few commits (a
// COPY's cost per row falls with its length: its bulk-insert ring is reused instead of fresh
// buffers for each short statement). Decoding and encoding happen here, on the worker's thread,
// one unit at a time, each sent in pieces as it is encoded; how the rows reach the server is its
// Transport.
// A unit not recorded because another run committed a unit of other hours or another box over
// some of its rows meanwhile (Claims::overlapped): the run stops, and its rerun compares again.
class OverlappedMeanwhile : public Error {
public:
    using Error::Error;
};

class CopyWorker {
public:
    CopyWorker(int id, EngineShared& shared, WorkerCounters& counters, std::unique_ptr<Transport> method);
    CopyWorker(const CopyWorker&) = delete;
    CopyWorker& operator=(const CopyWorker&) = delete;
    ~CopyWorker();

    // The thread body: catches everything, reports failures through EngineShared::fail(). `stop`
    // stops the run (the transaction in flight rolls back); `leave` asks this worker to take no
    // more units, to commit the transaction it is in, and to end.
    void run(std::stop_token stop, std::stop_token leave = {});

private:
    // A unit of the transaction being built: its raw values until they are sent (read again from
    // the files when the transaction must be redone), and the rows it holds once decoded (0 for an
    // all-missing unit that is skipped).
    struct Pending {
        std::size_t planIndex = 0;
        std::optional<RawUnit> raw;
        std::uint64_t rows = 0;
        std::uint64_t print = 0;   // UnitSource::print of its rows, once decoded
        std::uint64_t deleted = 0; // rows of the units it replaces, deleted in its transaction
    };
    // Loads `units` in one transaction, taking more units from the queue while they are waiting
    // and the transaction is short (`grow`). Returns the keys another run had already committed
    // (the transaction was rolled back: nothing of it is in the table), empty when it committed.
    std::set<std::string> commitTogether(std::vector<Pending>& units, bool grow, const std::stop_token& stop);
    // Loads `units`, retrying transient failures, splitting a failed transaction into units of
    // their own so a failure names its unit. Returns false when the worker must stop.
    bool load(std::vector<Pending> units, const std::stop_token& stop, bool grow);
    bool loadAlone(Pending unit, const std::stop_token& stop);
    void reportCommitted(const std::vector<Pending>& units, int attempt);
    // Decodes one unit (reading it again when it has no raw values), setting its rows and print.
    void prepare(Pending& unit);
    // --all-missing skip: units (and hours of a unit of hours) without a value are left out.
    bool skipMissing() const;
    // Deletes the rows and ledger rows of the units `unit` replaces, in the open transaction (no
    // COPY running). False when another run replaced or removed them meanwhile.
    bool replaceEarlier(Pending& unit, Connection& conn);
    // Encodes the decoded unit piece by piece into buffer_ and sends each piece, beginning the
    // COPY on `conn` first when `copying` is false.
    void send(const Pending& unit, Connection& conn, bool& copying, const std::stop_token& stop);
    Connection& connection();
    void failWith(const std::vector<Pending>& units, const std::string& sqlState, const std::string& message);

    int id_;
    bool firstTransaction_ = true; // its bounds are this worker's share of the usual ones
    EngineShared& shared_;
    WorkerCounters& counters_;
    std::unique_ptr<Transport> method_;
    std::unique_ptr<Connection> conn_;
    DecodedBand decoded_;
    BinaryCopyBuffer buffer_;
};

} // namespace isobar
