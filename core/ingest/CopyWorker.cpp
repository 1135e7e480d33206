// SPDX-License-Identifier: GPL-3.0-or-later

#include "ingest/CopyWorker.h"

#include "util/Error.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <unistd.h>

namespace isobar {

namespace {

using Clock = std::chrono::steady_clock;

// A unit is encoded and sent in pieces of about this size: each goes out while it is still in the
// cache, the buffer stays small, and the server has the first rows before the whole unit is encoded.
constexpr std::size_t kPieceBytes = 1u << 20;

// A transaction stops taking more units once it has been open this long, so progress is
// committed (and shown) at least this often however slow the server.
constexpr auto kTransactionTime = std::chrono::seconds(10);
// ... and holds at most this many units: each has a ledger row, claimed in one statement, and a
// point series has a unit per hour (a folder of site downloads held 3 GB of pending units and
// claims at 88,000 units a transaction).
constexpr std::size_t kMaxUnitsPerTransaction = 20'000;

// How long an open transaction waits for the reader's next unit before it commits without it.
constexpr auto kLateReader = std::chrono::milliseconds(250);

// Sleeps for `d` unless a stop is requested first.
void sleepFor(std::chrono::milliseconds d, const std::stop_token& stop) {
    std::mutex m;
    std::condition_variable_any cv;
    std::unique_lock lock(m);
    cv.wait_for(lock, stop, d, [] { return false; });
}

// Adds the time since `t0` to `nanos` when it goes out of scope.
class Timed {
public:
    explicit Timed(std::atomic<std::uint64_t>& nanos)
        : nanos_(nanos)
        , t0_(Clock::now()) {}
    Timed(const Timed&) = delete;
    Timed& operator=(const Timed&) = delete;
    ~Timed() {
        nanos_ += static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0_).count());
    }

private:
    std::atomic<std::uint64_t>& nanos_;
    Clock::time_point t0_;
};

} // namespace

std::string workerApplicationName(int id) {
    return "isobar worker " + std::to_string(id) + " pid " + std::to_string(::getpid());
}

Connection openWorkerConnection(const LoadRequest& request, int id) {
    Connection conn = Connection::open(request.conninfo, workerApplicationName(id));
    // A durability choice for this run's own connections (validated by DurabilitySession).
    if (const std::string& sync = request.durability.synchronousCommit; !sync.empty()) {
        conn.exec("SET synchronous_commit = " + conn.quoteLiteral(sync));
    }
    return conn;
}

CopyWorker::CopyWorker(int id, EngineShared& shared, WorkerCounters& counters,
                       std::unique_ptr<Transport> method)
    : id_(id)
    , shared_(shared)
    , counters_(counters)
    , method_(std::move(method))
    , buffer_(2 * kPieceBytes) {}

CopyWorker::~CopyWorker() = default;

Connection& CopyWorker::connection() {
    if (!conn_ || !conn_->connected()) {
        conn_.reset();
        // The first time, the one opened while the table was prepared, if it opened.
        std::unique_ptr<Connection> conn =
            shared_.warm ? shared_.warm->take(workerApplicationName(id_)) : nullptr;
        if (!conn) {
            conn = std::make_unique<Connection>(openWorkerConnection(shared_.request, id_));
        }
        // What the target needs of every session (a distributed table: Citus's cached connections).
        for (const std::string& set : shared_.sessionSettings) {
            conn->exec(set);
        }
        conn_ = std::move(conn);
    }
    return *conn_;
}

void CopyWorker::prepare(Pending& unit) {
    const WorkUnit& work = shared_.plan.units()[unit.planIndex];
    const Timed timed(counters_.decodeNanos);
    if (!unit.raw) { // read again: the transaction is redone
        unit.raw.emplace(shared_.reuse());
        shared_.source.fetch(work, *unit.raw);
    }
    shared_.source.decode(*unit.raw, decoded_);
    shared_.recycle(std::move(*unit.raw));
    unit.raw.reset(); // memory stays one unit per worker, however long the transaction
    unit.print = shared_.source.print(work, decoded_);
    // All missing: recorded with no rows, so a rerun knows the unit is done (of a unit of hours,
    // the hours all missing are left out, as units of one such hour would be).
    unit.rows = shared_.source.rowsToSend(work, decoded_, skipMissing());
}

bool CopyWorker::skipMissing() const {
    return shared_.request.allMissing == AllMissingPolicy::Skip;
}

void CopyWorker::send(const Pending& unit, Connection& conn, bool& copying, const std::stop_token& stop) {
    const WorkUnit& work = shared_.plan.units()[unit.planIndex];
    const std::size_t pieceRows = shared_.source.rowsPerPiece(work, kPieceBytes);
    const std::size_t span = work.hours > 1 ? work.hours : work.rows; // latitude rows, or hours
    for (std::size_t first = 0; first < span; first += pieceRows) {
        const std::size_t count = std::min<std::size_t>(pieceRows, span - first);
        std::size_t encoded = 0;
        {
            const Timed timed(counters_.encodeNanos);
            buffer_.clear();
            encoded = shared_.source.encode(work, decoded_, first, count, buffer_, skipMissing());
        }
        if (encoded == 0) {
            continue;
        }
        const Timed timed(counters_.sendNanos);
        if (!copying) {
            method_->begin(conn);
            copying = true;
        }
        method_->send(buffer_.bytes(), encoded, stop, [this](std::uint64_t bytes, std::uint64_t rows) {
            counters_.bytes += bytes;
            counters_.rowsSent += rows;
        });
    }
}

bool CopyWorker::replaceEarlier(Pending& unit, Connection& conn) {
    const WorkUnit& work = shared_.plan.units()[unit.planIndex];
    std::vector<std::string> keys;
    for (const ReplacedUnit& r : work.replaces) {
        keys.push_back(r.key);
    }
    // The ledger rows first: a run replacing the same units waits here for this one to end, then
    // finds them gone.
    if (forgetUnits(conn, shared_.ledger, keys) < keys.size()) {
        return false;
    }
    const std::string table = shared_.request.table.quoted(conn);
    // The time index, however few statistics the table has: a table a load just made has none,
    // and the planner then reads all of it (5.3 s for a unit of a 100-hour table, 0.2 s through
    // a BRIN index on time). No JIT for a statement of a fraction of a second.
    conn.exec("SET LOCAL enable_seqscan = off; SET LOCAL jit = off");
    unit.deleted = 0;
    for (const ReplacedUnit& r : work.replaces) {
        unit.deleted += static_cast<std::uint64_t>(
            conn.query("WITH d AS (DELETE FROM " + table + " WHERE " +
                       placeCondition(conn, r.place, shared_.source.dataset().grid(),
                                      r.place.level.has_value()) +
                       " RETURNING 1) SELECT count(*) FROM d")
                .integer(0, 0));
    }
    return true;
}

std::set<std::string> CopyWorker::commitTogether(std::vector<Pending>& units, bool grow,
                                                 const std::stop_token& stop) {
    std::uint64_t rowLimit = shared_.request.rowsPerTransaction > 0 ? shared_.request.rowsPerTransaction
                             : shared_.rowsPerTransaction > 0       ? shared_.rowsPerTransaction
                                                                    : LoadPlan::kDefaultRowsPerTransaction;
    auto timeLimit = std::chrono::duration_cast<std::chrono::milliseconds>(kTransactionTime);
    // The first transaction of worker k of the N the run starts with ends after k/N of the usual
    // rows and time. The workers' commits then fall at different moments, and while one ends its
    // COPY and waits for the WAL to be flushed the others keep the server busy. In step, every
    // commit left the server without rows: over 100 hours with 2 workers the per-interval rate
    // fell to 2-10 % at each of them, and to nothing for 0.6 s at one.
    if (firstTransaction_ && grow && id_ < shared_.workers) {
        rowLimit = std::max<std::uint64_t>(1, rowLimit * static_cast<std::uint64_t>(id_) /
                                                  static_cast<std::uint64_t>(shared_.workers));
        timeLimit = timeLimit * id_ / shared_.workers;
    }
    firstTransaction_ = false;
    const auto opened = Clock::now();
    Connection& conn = connection();
    {
        const Timed timed(counters_.ledgerNanos);
        conn.exec(kBeginReadCommitted);
        holdLedgerForClaims(conn, shared_.ledger);
    }
    bool copying = false;
    std::uint64_t planned = 0;
    std::uint64_t sent = 0; // in the COPY running
    // Ends the COPY running: a unit that replaces others deletes their rows between two COPYs.
    const auto endCopy = [&] {
        const Timed timed(counters_.copyEndNanos);
        copying = false;
        const std::uint64_t copied = method_->finish(stop);
        if (copied != sent) {
            throw Error("the server reports " + std::to_string(copied) + " rows copied, but " +
                        std::to_string(sent) + " were sent");
        }
        sent = 0;
    };
    try {
        for (std::size_t i = 0;; ++i) {
            if (i == units.size()) {
                if (!grow || planned >= rowLimit || Clock::now() - opened >= timeLimit ||
                    units.size() >= kMaxUnitsPerTransaction) {
                    break;
                }
                // A reader a moment late (the first units, a slow read) does not end the
                // transaction: a new one would leave the server idle until its first rows.
                std::optional<QueuedUnit> next;
                {
                    const Timed timed(counters_.waitNanos);
                    next = shared_.queue.popFor(kLateReader, stop);
                }
                if (!next) {
                    break;
                }
                units.push_back(Pending{next->planIndex, std::move(next->raw), 0});
            }
            Pending& unit = units[i];
            const WorkUnit& work = shared_.plan.units()[unit.planIndex];
            planned += work.rowCount;
            prepare(unit);
            if (!work.replaces.empty()) {
                if (copying) {
                    endCopy();
                }
                const Timed timed(counters_.ledgerNanos);
                if (!replaceEarlier(unit, conn)) {
                    // Replaced by another run meanwhile: its rows are the table's now.
                    conn.exec("ROLLBACK");
                    return {work.key};
                }
            }
            if (unit.rows == 0) {
                continue; // all missing: only its ledger row (counted as skipped once committed)
            }
            send(unit, conn, copying, stop);
            sent += unit.rows;
        }
        if (copying) {
            endCopy();
        }
    } catch (...) {
        if (copying) {
            method_->abort();
        }
        throw;
    }
    std::vector<UnitRecord> claims;
    claims.reserve(units.size());
    for (const Pending& u : units) {
        const WorkUnit& work = shared_.plan.units()[u.planIndex];
        const UnitOrigin& origin = shared_.plan.originOf(work);
        UnitRecord& r = claims.emplace_back();
        r.key = work.key;
        r.rows = u.rows;
        r.place = work.place;
        r.files = origin.files;
        r.bytes = origin.bytes;
        r.filesPrint = origin.filesPrint;
        r.valuesPrint = u.print;
        r.expver = origin.expver;
        r.product = origin.product;
        r.columns = origin.columns;
    }
    // In key order: two runs claiming some of the same units then wait for each other in one
    // order instead of deadlocking.
    std::sort(claims.begin(), claims.end(),
              [](const UnitRecord& a, const UnitRecord& b) { return a.key < b.key; });
    Claims claimed;
    {
        const Timed timed(counters_.ledgerNanos);
        claimed = claimUnits(conn, shared_.ledger, claims);
    }
    if (!claimed.overlapped.empty()) {
        conn.exec("ROLLBACK");
        const auto& [key, other] = *claimed.overlapped.begin();
        throw OverlappedMeanwhile(
            "unit " + key + " overlaps unit " + other + ", which another run committed to table " +
            shared_.request.table.display() +
            " while this one loaded (of other hours or another box, so neither run saw the other's rows "
            "before it began): nothing of it was written. Run the same load again: it compares the "
            "table's rows now and loads only what is missing");
    }
    if (claimed.claimed.size() < claims.size()) {
        conn.exec("ROLLBACK");
        std::set<std::string> taken;
        for (const UnitRecord& c : claims) {
            if (claimed.claimed.count(c.key) == 0) {
                taken.insert(c.key);
            }
        }
        return taken;
    }
    const Timed timed(counters_.commitNanos);
    conn.exec("COMMIT");
    return {};
}

void CopyWorker::reportCommitted(const std::vector<Pending>& units, int attempt) {
    ++counters_.transactions;
    for (const Pending& u : units) {
        counters_.rowsCommitted += u.rows;
        counters_.skippedRows += shared_.plan.units()[u.planIndex].rowCount - u.rows;
        ++counters_.units;
        const WorkUnit& work = shared_.plan.units()[u.planIndex];
        if (!work.replaces.empty()) {
            ++(work.finalOverEra5t ? counters_.era5tReplacedUnits : counters_.overlapReplacedUnits);
            counters_.replacedRows += u.deleted;
        }
        shared_.emit([&](LoadSink& sink) {
            sink.unitCommitted(UnitEvent{work.key, id_, u.rows, attempt, false});
        });
    }
}

void CopyWorker::failWith(const std::vector<Pending>& units, const std::string& sqlState,
                          const std::string& message) {
    const WorkUnit& work = shared_.plan.units()[units.front().planIndex];
    shared_.fail(LoadError{shared_.source.filesOf(work.step), {}, work.key, id_, sqlState, message});
}

bool CopyWorker::load(std::vector<Pending> units, const std::stop_token& stop, bool grow) {
    // When these units first failed, for the retry budget: set at attempt 1, since every way round
    // the loop is a retry after a failure or a smaller set of units starting again at attempt 1.
    Clock::time_point firstFailure;
    for (int attempt = 1;; ++attempt) {
        try {
            const std::set<std::string> taken = commitTogether(units, grow && attempt == 1, stop);
            if (taken.empty()) {
                reportCommitted(units, attempt);
                return true;
            }
            // Committed meanwhile by another run of the same load: its rows are in the table. The
            // rest go again, without them (each round drops at least one unit).
            std::vector<Pending> rest;
            for (Pending& u : units) {
                const WorkUnit& work = shared_.plan.units()[u.planIndex];
                if (taken.count(work.key) > 0) {
                    counters_.concurrentRows += work.rowCount;
                    shared_.emit([&](LoadSink& sink) {
                        sink.unitCommitted(UnitEvent{work.key, id_, 0, attempt, true});
                    });
                } else {
                    rest.push_back(Pending{u.planIndex, std::move(u.raw), 0});
                }
            }
            if (rest.empty()) {
                return true;
            }
            units = std::move(rest);
            grow = false;
            attempt = 0;
        } catch (const Cancelled&) {
            return false;
        } catch (const OverlappedMeanwhile& e) {
            failWith(units, {}, e.what());
            return false;
        } catch (const DbError& e) {
            conn_.reset(); // whatever state it is in, a fresh one is safer
            if (stop.stop_requested()) {
                return false;
            }
            const bool transient = isTransient(e.sqlState(), e.what());
            if (units.size() > 1 && !transient) {
                // The server refused something in the rows: each unit in a transaction of its own,
                // so the unit that fails again is named and the ones before it are kept.
                for (Pending& u : units) {
                    if (!loadAlone(Pending{u.planIndex, std::nullopt, 0}, stop)) {
                        return false;
                    }
                }
                return true;
            }
            const auto now = Clock::now();
            if (attempt == 1) {
                firstFailure = now;
            }
            using Millis = std::chrono::milliseconds;
            const auto failing = std::chrono::duration_cast<Millis>(now - firstFailure);
            const Millis budget = shared_.retryBudget;
            if (!transient || attempt > shared_.request.retries || failing >= budget) {
                std::string after;
                if (attempt > 1) {
                    after = fmt::format(" (after {} attempts over {:.1f} s{})", attempt,
                                        static_cast<double>(failing.count()) / 1000.0,
                                        failing >= budget
                                            ? fmt::format(", the retry budget of {} s", budget.count() / 1000)
                                            : std::string());
                }
                failWith(units, e.sqlState(), std::string(e.what()) + after);
                return false;
            }
            ++counters_.retries;
            // 0.2 s doubling up to the cap, never past the end of the budget: a short outage costs
            // little, a node's restart of a minute or two is waited out.
            const Millis backoff =
                std::min({Millis(200LL << std::min(attempt - 1, 10)), kMaxRetryWait, budget - failing});
            // Said through the sink, so that the desktop's log shows why nothing moves.
            std::string why = e.what(); // libpq's messages span lines; a log line does not
            std::replace_if(
                why.begin(), why.end(), [](char c) { return c == '\n' || c == '\t'; }, ' ');
            const std::string said = fmt::format(
                "worker {}: unit {} failed ({}); retry {} of {} in {} ms ({:.0f} s of the {} s retry "
                "budget left)",
                id_, shared_.plan.units()[units.front().planIndex].key, why, attempt, shared_.request.retries,
                backoff.count(), static_cast<double>((budget - failing).count()) / 1000.0,
                budget.count() / 1000);
            shared_.emit([&said](LoadSink& sink) { sink.warning(said); });
            sleepFor(backoff, stop);
            if (stop.stop_requested()) {
                return false;
            }
            for (Pending& u : units) {
                u.raw.reset(); // read again
            }
        } catch (const Error& e) {
            conn_.reset();
            failWith(units, {}, e.what());
            return false;
        }
    }
}

bool CopyWorker::loadAlone(Pending unit, const std::stop_token& stop) {
    std::vector<Pending> one;
    one.push_back(std::move(unit));
    return load(std::move(one), stop, false);
}

void CopyWorker::run(std::stop_token stop, std::stop_token leave) {
    // Waiting for a unit ends at a stop of the run or when this worker is asked to leave.
    std::stop_source waiting;
    const std::stop_callback onStop(stop, [&waiting] { waiting.request_stop(); });
    const std::stop_callback onLeave(leave, [&waiting] { waiting.request_stop(); });
    try {
        try {
            // Connected (or handed the connection opened during the preparation) while the reader
            // reads the first units, not after: the first rows go out as soon as they are read. A
            // failure here is met again, and retried, at the first unit.
            (void)connection();
        } catch (const DbError&) {
            conn_.reset();
        }
        while (!leave.stop_requested()) {
            std::optional<QueuedUnit> item;
            {
                const Timed timed(counters_.waitNanos);
                item = shared_.queue.pop(waiting.get_token());
            }
            if (!item) {
                break; // the queue is done, the run stopped, or the worker leaves (--workers auto)
            }
            std::vector<Pending> units;
            units.push_back(Pending{item->planIndex, std::move(item->raw), 0});
            if (!load(std::move(units), stop, !leave.stop_requested())) {
                break;
            }
        }
    } catch (const Error& e) {
        shared_.fail(LoadError{{}, {}, {}, id_, {}, e.what()});
    } catch (const std::exception& e) {
        shared_.fail(LoadError{{}, {}, {}, id_, {}, std::string("unexpected failure: ") + e.what()});
    }
    // Leaving with an open transaction (a stop) would roll it back when the connection closes;
    // do it explicitly so the server side is clean at once.
    if (conn_ && conn_->inTransaction()) {
        try {
            conn_->exec("ROLLBACK");
        } catch (const std::exception&) {
        }
    }
    conn_.reset(); // the server's connection slot is free as soon as the worker is done
}

} // namespace isobar
