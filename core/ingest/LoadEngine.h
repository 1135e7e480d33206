#pragma once

// The parts of the load engine that its threads share (see Loader.cpp, CopyWorker.cpp). Not a
// public API.

#include "copy/WeatherRowEncoder.h"
#include "db/Ledger.h"
#include "era5/BandReader.h"
#include "ingest/BoundedQueue.h"
#include "ingest/Loader.h"
#include "plan/LoadPlan.h"

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <vector>

namespace isobar {

// A unit read by the reader stage, waiting for a worker to decode and send it.
struct QueuedUnit {
    std::size_t planIndex = 0;
    RawUnit raw;
};

// Workers only bump these; the sampler reads them.
struct WorkerCounters {
    std::atomic<std::uint64_t> rowsSent{0}; // rows handed to libpq (retries count again)
    std::atomic<std::uint64_t> rowsCommitted{0};
    std::atomic<std::uint64_t> bytes{0};
    std::atomic<std::uint64_t> units{0};
    std::atomic<std::uint64_t> skippedRows{0};    // all-missing units skipped
    std::atomic<std::uint64_t> concurrentRows{0}; // units another run committed meanwhile
    std::atomic<std::uint64_t> retries{0};
};

struct EngineShared {
    EngineShared(const LoadRequest& request_, const Dataset& dataset_, const LoadPlan& plan_,
                 const BandReader& reader_, const std::vector<GridGeometry>& geometries_,
                 std::string copySql_, LedgerTarget ledger_, BoundedQueue<QueuedUnit>& queue_,
                 std::stop_source& stop_, LoadSink& sink_)
        : request(request_)
        , dataset(dataset_)
        , plan(plan_)
        , reader(reader_)
        , geometries(geometries_)
        , copySql(std::move(copySql_))
        , ledger(std::move(ledger_))
        , queue(queue_)
        , stop(stop_)
        , sink(sink_) {}

    const LoadRequest& request;
    const Dataset& dataset;
    const LoadPlan& plan;
    const BandReader& reader;
    const std::vector<GridGeometry>& geometries;
    std::string copySql;
    LedgerTarget ledger;
    // Server-file transport (a server on this machine): units are written here and the server
    // reads them with COPY ... FROM 'file'. Empty: rows stream over the connection.
    std::filesystem::path fileDir;
    std::string copyFromFileSql; // "COPY t (cols) FROM " - the quoted path and options follow
    BoundedQueue<QueuedUnit>& queue;
    std::stop_source& stop; // stops every thread of the run
    LoadSink& sink;

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

    // "a.nc, b.nc": the files behind a step, for messages.
    std::string filesOf(std::size_t step) const;

private:
    std::mutex sinkMutex_;
    mutable std::mutex errorMutex_;
    std::optional<LoadError> error_;
};

// SQLSTATEs after which the same unit may well succeed on a new connection: the connection broke,
// the server shut down or restarted, a serialization conflict.
bool isTransient(const std::string& sqlState);

// One COPY worker: owns one connection for its whole life (libpq's rule: one thread's world) and
// loads the units it takes from the queue, each in its own transaction with the unit's ledger row.
class CopyWorker {
public:
    CopyWorker(int id, EngineShared& shared, WorkerCounters& counters);
    CopyWorker(const CopyWorker&) = delete;
    CopyWorker& operator=(const CopyWorker&) = delete;
    ~CopyWorker();

    // The thread body: catches everything, reports failures through EngineShared::fail().
    void run(std::stop_token stop);

private:
    // Sends one encoded unit in one transaction. Returns false when it was already committed.
    bool send(const WorkUnit& unit, std::uint64_t rows, const std::stop_token& stop);
    void writeUnitFile(const std::filesystem::path& file);
    Connection& connection();

    int id_;
    EngineShared& shared_;
    WorkerCounters& counters_;
    std::unique_ptr<Connection> conn_;
    DecodedBand decoded_;
    BinaryCopyBuffer buffer_;
};

} // namespace isobar
