#include "ingest/CopyWorker.h"

#include "util/Error.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <unistd.h>

namespace isobar {

namespace {

// The encoding buffer starts at one chunk of the stream method and grows to the largest unit.
constexpr std::size_t kInitialBufferBytes = 4u << 20;

// Sleeps for `d` unless a stop is requested first.
void sleepFor(std::chrono::milliseconds d, const std::stop_token& stop) {
    std::mutex m;
    std::condition_variable_any cv;
    std::unique_lock lock(m);
    cv.wait_for(lock, stop, d, [] { return false; });
}

} // namespace

bool isTransient(const std::string& sqlState) {
    return sqlState.rfind("08", 0) == 0 || sqlState == "57P01" || sqlState == "57P02" ||
           sqlState == "57P03" || sqlState == "40001" || sqlState == "40P01";
}

CopyWorker::CopyWorker(int id, EngineShared& shared, WorkerCounters& counters,
                       std::unique_ptr<WriteMethod> method)
    : id_(id)
    , shared_(shared)
    , counters_(counters)
    , method_(std::move(method))
    , buffer_(kInitialBufferBytes) {}

CopyWorker::~CopyWorker() = default;

Connection& CopyWorker::connection() {
    if (!conn_ || PQstatus(conn_->raw()) != CONNECTION_OK) {
        conn_.reset();
        auto conn = std::make_unique<Connection>(Connection::open(shared_.request.conninfo));
        // Numbered as in the log; the pid tells this load's workers from another's on the same server.
        conn->exec("SET application_name = 'isobar worker " + std::to_string(id_) + " pid " +
                   std::to_string(::getpid()) + "'");
        // A durability choice for this run's own connections (validated by DurabilitySession).
        if (const std::string& sync = shared_.request.durability.synchronousCommit; !sync.empty()) {
            conn->exec("SET synchronous_commit = " + conn->quoteLiteral(sync));
        }
        conn_ = std::move(conn);
    }
    return *conn_;
}

bool CopyWorker::send(const WorkUnit& unit, std::uint64_t rows, const std::stop_token& stop) {
    Connection& conn = connection();
    conn.exec(kBeginReadCommitted);
    // The ledger row first: it claims the unit, so a concurrent run of the same load waits here
    // and then finds the unit taken instead of copying it a second time.
    if (!claimUnit(conn, shared_.ledger, unit.key, rows)) {
        conn.exec("ROLLBACK");
        return false;
    }
    if (rows > 0) {
        method_->write(conn, buffer_, rows, stop, [this](std::uint64_t bytes, std::uint64_t sentRows) {
            counters_.bytes += bytes;
            counters_.rowsSent += sentRows;
        });
    }
    conn.exec("COMMIT");
    return true;
}

bool CopyWorker::sendWithRetries(const WorkUnit& unit, std::uint64_t rows, const std::stop_token& stop) {
    for (int attempt = 1;; ++attempt) {
        try {
            const bool sent = send(unit, rows, stop);
            if (sent) {
                counters_.rowsCommitted += rows;
                ++counters_.units;
            } else {
                counters_.concurrentRows += unit.rowCount;
            }
            shared_.emit([&](LoadSink& sink) {
                sink.unitCommitted(UnitEvent{unit.key, id_, rows, attempt, !sent});
            });
            return true;
        } catch (const Cancelled&) {
            return false;
        } catch (const DbError& e) {
            conn_.reset(); // whatever state it is in, a fresh one is safer
            if (stop.stop_requested()) {
                return false;
            }
            if (!isTransient(e.sqlState()) || attempt > shared_.request.retries) {
                shared_.fail(
                    LoadError{shared_.source.filesOf(unit.step),
                              {},
                              unit.key,
                              id_,
                              e.sqlState(),
                              std::string(e.what()) +
                                  (attempt > 1 ? " (after " + std::to_string(attempt) + " attempts)" : "")});
                return false;
            }
            ++counters_.retries;
            const auto backoff = std::chrono::milliseconds(std::min(5000, 200 << std::min(attempt - 1, 5)));
            // Said through the sink, so that the desktop's log shows why nothing moves.
            std::string why = e.what(); // libpq's messages span lines; a log line does not
            std::replace_if(
                why.begin(), why.end(), [](char c) { return c == '\n' || c == '\t'; }, ' ');
            const std::string said =
                fmt::format("worker {}: unit {} failed ({}); retry {} of {} in {} ms", id_, unit.key, why,
                            attempt, shared_.request.retries, backoff.count());
            shared_.emit([&said](LoadSink& sink) { sink.warning(said); });
            sleepFor(backoff, stop);
            if (stop.stop_requested()) {
                return false;
            }
        }
    }
}

void CopyWorker::run(std::stop_token stop) {
    try {
        while (auto item = shared_.queue.pop(stop)) {
            const WorkUnit& unit = shared_.plan.units()[item->planIndex];
            shared_.source.decode(item->raw, decoded_);
            std::uint64_t rows = unit.rowCount;
            if (shared_.request.allMissing == AllMissingPolicy::Skip && allMissing(decoded_.values, rows)) {
                // Recorded with no rows, so a rerun knows the unit is done.
                counters_.skippedRows += rows;
                rows = 0;
            }
            // Encoded once: a retried unit is sent again from here.
            buffer_.clear();
            buffer_.writeHeader();
            if (rows > 0) {
                shared_.source.encode(unit, decoded_, buffer_);
            }
            buffer_.writeTrailer();
            if (!sendWithRetries(unit, rows, stop)) {
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
    if (conn_ && PQtransactionStatus(conn_->raw()) != PQTRANS_IDLE) {
        try {
            conn_->exec("ROLLBACK");
        } catch (const std::exception&) {
        }
    }
}

} // namespace isobar
