// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace isobar {

struct WorkerRate {
    int worker = 0;
    double rowsPerSecond = 0.0; // over the last interval
    std::uint64_t rows = 0;     // sent so far
};

// What the sampler reports 4-10 times a second while a load runs.
struct RateReading {
    double elapsed = 0.0;   // seconds since the load started
    std::uint64_t rows = 0; // rows sent to the server
    std::uint64_t committedRows = 0;
    std::uint64_t bytes = 0;   // COPY bytes sent
    double intervalRate = 0.0; // rows/s since the previous sample
    double overallRate = 0.0;  // rows/s since the start
    std::vector<WorkerRate> workers;
    std::size_t queueDepth = 0; // decoded units waiting for a worker
    std::size_t queueCapacity = 0;
    std::uint64_t plannedRows = 0; // rows this run loads (units already committed excluded)
    double percent = 0.0;          // of plannedRows, committed
    double etaSeconds = -1.0;      // -1 while unknown

    // Reader-bound when the workers wait for data (the queue runs empty), server-bound when the
    // reader waits for the workers (the queue is full).
    std::string bottleneck() const {
        if (queueCapacity == 0) {
            return "unknown";
        }
        if (queueDepth == 0) {
            return "reader";
        }
        return queueDepth >= queueCapacity ? "server" : "balanced";
    }
};

inline constexpr const char* kNotConnected = "not connected";

// What the monitor connection sees of the server, once a second.
struct ServerReading {
    double elapsed = 0.0;
    std::uint64_t checkpointsTimed = 0;     // since the load started
    std::uint64_t checkpointsRequested = 0; // since the load started (max_wal_size reached, ...)
    std::uint64_t walBytes = 0;             // WAL written since the load started
    double walBytesPerSecond = 0.0;         // over the last interval
    // What worker N's server process waits on, at [N-1]: "IO:DataFileExtend", "" when running,
    // kNotConnected when it has no connection at the moment (reconnecting, or finished).
    std::vector<std::string> waitEvents;

    // The disk as the load fills it. -1 where it cannot be seen (a server on another machine, a
    // role that may not look, a table not there yet).
    double tableBytes = -1;   // the target table with its partitions/chunks, indexes and TOAST
    double bytesPerRow = -1;  // the table's growth per row committed by this run
    double freeBytes = -1;    // free for the server on the filesystem of its data directory
    double walFreeBytes = -1; // free on pg_wal's filesystem when that is another one
    double walDirBytes = -1;  // the size of pg_wal
    // Seconds until the disk is full at the current rate; -1 unless that comes before the end of
    // the load.
    double secondsToFull = -1;
    std::int64_t archiveBacklog = -1;  // WAL segments waiting for the archiver (-1: not archiving)
    std::uint64_t archiveFailures = 0; // failed archive_command runs since the load started
    struct Standby {
        std::string name;     // application_name, else the client address
        std::string state;    // streaming, catchup, ...
        double writeLag = -1; // seconds (pg_stat_replication); -1 when the server has no figure
        double flushLag = -1;
        double replayLag = -1;
        double replayBytes = -1; // WAL bytes the standby has yet to replay
    };
    std::vector<Standby> standbys;
    int workers = 0; // COPY workers running at this moment
    // False when the server could not be asked (down, restarting): the free space is fresh, the
    // server's figures are the last it gave (its rates 0, its sizes -1).
    bool answered = true;
};

// A change of the worker count while loading (--workers auto), and why.
struct WorkerChange {
    double elapsed = 0.0;
    int from = 0;
    int to = 0;
    std::string reason; // "rate 1.21M rows/s at 2, 1.02M at 1: +19 %"
};

} // namespace isobar
