#include "copy/CopyStream.h"
#include "ingest/LoadEngine.h"
#include "util/Error.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <fcntl.h>
#include <mutex>
#include <set>
#include <thread>
#include <unistd.h>

namespace isobar {

namespace {

// Rows go to libpq in chunks of this size: big enough that per-call overhead vanishes, small
// enough that a cancel is noticed quickly.
constexpr std::size_t kChunkBytes = 4u << 20;

bool allMissing(const BandValues& values, std::size_t n) {
    for (const float* column : values) {
        if (column == nullptr) {
            continue;
        }
        for (std::size_t k = 0; k < n; ++k) {
            if (!std::isnan(column[k])) {
                return false;
            }
        }
    }
    return true;
}

// Sleeps for `d` unless a stop is requested first.
void sleepFor(std::chrono::milliseconds d, const std::stop_token& stop) {
    std::mutex m;
    std::condition_variable_any cv;
    std::unique_lock lock(m);
    cv.wait_for(lock, stop, d, [] { return false; });
}

} // namespace

std::string EngineShared::filesOf(std::size_t step) const {
    std::set<std::string> names;
    for (const auto& source : dataset.steps()[step].sources) {
        if (source) {
            names.insert(dataset.files()[source->file].name());
        }
    }
    std::string out;
    for (const auto& n : names) {
        out += (out.empty() ? "" : ", ") + n;
    }
    return out;
}

bool isTransient(const std::string& sqlState) {
    return sqlState.rfind("08", 0) == 0 || sqlState == "57P01" || sqlState == "57P02" ||
           sqlState == "57P03" || sqlState == "40001" || sqlState == "40P01";
}

CopyWorker::CopyWorker(int id, EngineShared& shared, WorkerCounters& counters)
    : id_(id)
    , shared_(shared)
    , counters_(counters)
    , buffer_(kChunkBytes) {}

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
    if (rows > 0 && !shared_.fileDir.empty()) {
        // The server reads the unit from a file this worker wrote: no socket in between. The file
        // is written again on a retry, so it always holds this unit.
        const std::filesystem::path file = shared_.fileDir / ("unit-" + std::to_string(id_) + ".bin");
        writeUnitFile(file);
        const Result r(PQexec(
            conn.raw(),
            (shared_.copyFromFileSql + conn.quoteLiteral(file.string()) + " (FORMAT binary)").c_str()));
        if (r.raw() == nullptr || PQresultStatus(r.raw()) != PGRES_COMMAND_OK) {
            throwResultError(conn, r.raw(), "COPY from the unit file on " + conn.target() + " failed");
        }
        const std::uint64_t copied =
            std::stoull(PQcmdTuples(r.raw())[0] != '\0' ? PQcmdTuples(r.raw()) : "0");
        if (copied != rows) {
            throw Error("the server reports " + std::to_string(copied) + " rows copied, but the unit has " +
                        std::to_string(rows));
        }
        counters_.bytes += buffer_.size();
        counters_.rowsSent += rows;
    } else if (rows > 0) {
        CopyStream copy(conn, shared_.copySql);
        const auto bytes = buffer_.bytes();
        for (std::size_t offset = 0; offset < bytes.size(); offset += kChunkBytes) {
            if (stop.stop_requested()) {
                copy.abort("the load was stopped");
                conn.exec("ROLLBACK");
                throw Cancelled();
            }
            const std::size_t n = std::min(kChunkBytes, bytes.size() - offset);
            copy.send(bytes.subspan(offset, n));
            counters_.bytes += n;
            counters_.rowsSent += static_cast<std::uint64_t>(
                static_cast<double>(rows) * static_cast<double>(n) / static_cast<double>(bytes.size()));
        }
        const std::uint64_t copied = copy.finish();
        if (copied != rows) {
            throw Error("the server reports " + std::to_string(copied) + " rows copied, but " +
                        std::to_string(rows) + " were sent");
        }
    }
    conn.exec("COMMIT");
    return true;
}

void CopyWorker::writeUnitFile(const std::filesystem::path& file) {
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        throw Error("cannot write the unit file " + file.string() + ": " + systemErrorText(errno));
    }
    const char* p = buffer_.data();
    std::size_t left = buffer_.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, left);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            const int err = errno;
            ::close(fd);
            throw Error("cannot write the unit file " + file.string() +
                        " (is the disk full?): " + systemErrorText(err));
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
    ::close(fd);
}

void CopyWorker::run(std::stop_token stop) {
    try {
        while (auto item = shared_.queue.pop(stop)) {
            const WorkUnit& unit = shared_.plan.units()[item->planIndex];
            const DatasetStep& step = shared_.dataset.steps()[unit.step];
            shared_.reader.decode(item->raw, decoded_);
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
                encodeWeatherBand(shared_.geometries[step.geometry], step.time, unit.row0, unit.rows,
                                  decoded_.values, buffer_);
            }
            buffer_.writeTrailer();

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
                    break;
                } catch (const Cancelled&) {
                    return;
                } catch (const DbError& e) {
                    conn_.reset(); // whatever state it is in, a fresh one is safer
                    if (stop.stop_requested()) {
                        return;
                    }
                    if (!isTransient(e.sqlState()) || attempt > shared_.request.retries) {
                        shared_.fail(LoadError{
                            shared_.filesOf(unit.step),
                            {},
                            unit.key,
                            id_,
                            e.sqlState(),
                            std::string(e.what()) +
                                (attempt > 1 ? " (after " + std::to_string(attempt) + " attempts)" : "")});
                        return;
                    }
                    ++counters_.retries;
                    const auto backoff =
                        std::chrono::milliseconds(std::min(5000, 200 << std::min(attempt - 1, 5)));
                    // Said through the sink, so that the desktop's log shows why nothing moves.
                    std::string why = e.what(); // libpq's messages span lines; a log line does not
                    std::replace_if(
                        why.begin(), why.end(), [](char c) { return c == '\n' || c == '\t'; }, ' ');
                    const std::string said =
                        fmt::format("worker {}: unit {} failed ({}); retry {} of {} in {} ms", id_, unit.key,
                                    why, attempt, shared_.request.retries, backoff.count());
                    shared_.emit([&said](LoadSink& sink) { sink.warning(said); });
                    sleepFor(backoff, stop);
                    if (stop.stop_requested()) {
                        return;
                    }
                }
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
