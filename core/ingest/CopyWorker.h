#pragma once

#include "copy/BinaryCopyBuffer.h"
#include "db/Connection.h"
#include "era5/BandReader.h"
#include "ingest/LoadEngine.h"
#include "ingest/WriteMethod.h"
#include "monitor/WorkerCounters.h"

#include <memory>
#include <stop_token>
#include <string>

namespace isobar {

// SQLSTATEs after which the same unit may well succeed on a new connection: the connection broke,
// the server shut down or restarted, a serialization conflict.
bool isTransient(const std::string& sqlState);

// One COPY worker: owns one connection for its whole life (libpq's rule: one thread's world) and
// loads the units it takes from the queue, each in its own transaction with the unit's ledger row.
// Decoding and encoding happen here, on the worker's thread; how the rows reach the server is
// its WriteMethod.
class CopyWorker {
public:
    CopyWorker(int id, EngineShared& shared, WorkerCounters& counters, std::unique_ptr<WriteMethod> method);
    CopyWorker(const CopyWorker&) = delete;
    CopyWorker& operator=(const CopyWorker&) = delete;
    ~CopyWorker();

    // The thread body: catches everything, reports failures through EngineShared::fail().
    void run(std::stop_token stop);

private:
    // Loads one encoded unit in one transaction. Returns false when it was already committed.
    bool send(const WorkUnit& unit, std::uint64_t rows, const std::stop_token& stop);
    // Sends the unit, retrying transient failures. Returns false when the worker must stop.
    bool sendWithRetries(const WorkUnit& unit, std::uint64_t rows, const std::stop_token& stop);
    Connection& connection();

    int id_;
    EngineShared& shared_;
    WorkerCounters& counters_;
    std::unique_ptr<WriteMethod> method_;
    std::unique_ptr<Connection> conn_;
    DecodedBand decoded_;
    BinaryCopyBuffer buffer_;
};

} // namespace isobar
