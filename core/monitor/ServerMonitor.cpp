// SPDX-License-Identifier: GPL-3.0-or-later

#include "monitor/ServerMonitor.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <sstream>
#include <unistd.h>

namespace isobar {

ServerMonitor::ServerMonitor(std::string conninfo, Target target, OpenedAhead openedAhead)
    : conninfo_(std::move(conninfo))
    , target_(std::move(target))
    , openedAhead_(std::move(openedAhead)) {}

ServerMonitor::~ServerMonitor() = default;

std::optional<ServerReading> ServerMonitor::sample(double elapsed, bool last) {
    try {
        if (openedAhead_) {
            conn_ = openedAhead_();
            openedAhead_ = nullptr;
        }
        if (!conn_ || !conn_->connected()) {
            conn_ = std::make_unique<Connection>(Connection::open(conninfo_, kApplicationName));
            checkpointerKnown_ = false;
        }
        if (!checkpointerKnown_) {
            checkpointer_ = conn_->query("SELECT to_regclass('pg_catalog.pg_stat_checkpointer') IS NOT NULL")
                                .text(0, 0) == "t";
            checkpointerKnown_ = true;
        }
        const std::string counters = checkpointer_
                                         ? "SELECT num_timed, num_requested FROM pg_stat_checkpointer"
                                         : "SELECT checkpoints_timed, checkpoints_req FROM pg_stat_bgwriter";
        const Result c = conn_->query(counters);
        // This process's workers only ("isobar worker N pid P"): another load on the same server
        // has workers with the same numbers.
        const Result w = conn_->query(
            "SELECT CASE WHEN pg_is_in_recovery() THEN 0 ELSE pg_current_wal_lsn() - '0/0'::pg_lsn END, "
            "coalesce((SELECT string_agg(split_part(application_name, ' ', 3) || '=' || "
            "coalesce(wait_event_type || ':' || wait_event, ''), ',') FROM pg_stat_activity "
            "WHERE application_name ~ ('^isobar worker [0-9]+ pid ' || $1 || '$')), '')",
            {std::to_string(::getpid())});
        const double timed = std::stod(c.text(0, 0));
        const double requested = std::stod(c.text(0, 1));
        const double wal = std::stod(w.text(0, 0));
        if (!haveBaseline_) {
            haveBaseline_ = true;
            baseTimed_ = timed;
            baseRequested_ = requested;
            baseWal_ = wal;
            lastWal_ = wal;
            lastElapsed_ = elapsed;
        }
        ServerReading s;
        s.elapsed = elapsed;
        s.checkpointsTimed = static_cast<std::uint64_t>(std::max(0.0, timed - baseTimed_));
        s.checkpointsRequested = static_cast<std::uint64_t>(std::max(0.0, requested - baseRequested_));
        s.walBytes = static_cast<std::uint64_t>(std::max(0.0, wal - baseWal_));
        const double dt = elapsed - lastElapsed_;
        s.walBytesPerSecond = dt > 0 ? std::max(0.0, wal - lastWal_) / dt : 0.0;
        lastWal_ = wal;
        lastElapsed_ = elapsed;
        // "3=IO:DataFileExtend,1=,2=Lock:extend": by worker number, whatever order the server lists them.
        std::stringstream events(w.text(0, 1));
        std::string item;
        while (std::getline(events, item, ',')) {
            const auto eq = item.find('=');
            int worker = 0;
            if (eq == std::string::npos ||
                std::from_chars(item.data(), item.data() + eq, worker).ec != std::errc{} || worker < 1 ||
                worker > 4096) {
                continue;
            }
            if (s.waitEvents.size() < static_cast<std::size_t>(worker)) {
                s.waitEvents.resize(static_cast<std::size_t>(worker), kNotConnected);
            }
            s.waitEvents[static_cast<std::size_t>(worker - 1)] = item.substr(eq + 1);
        }
        sampleStorage(s, last);
        last_ = s;
        return s;
    } catch (const std::exception&) {
        conn_.reset(); // try again next time
        return unanswered(elapsed);
    }
}

std::optional<ServerReading> ServerMonitor::unanswered(double elapsed) {
    if (!target_.storage.seen()) {
        return std::nullopt; // nothing to say at all
    }
    // A server that ran out of disk goes down: its disk, read here, says why.
    ServerReading s = last_.value_or(ServerReading{});
    s.elapsed = elapsed;
    s.answered = false;
    s.walBytesPerSecond = 0;
    s.waitEvents.clear();
    s.tableBytes = -1;
    s.bytesPerRow = -1;
    s.walDirBytes = -1;
    s.archiveBacklog = -1;
    s.standbys.clear();
    sampleFreeSpace(s);
    return s;
}

void ServerMonitor::sampleFreeSpace(ServerReading& s) {
    refreshFreeSpace(target_.storage);
    if (target_.storage.seen()) {
        s.freeBytes = target_.storage.data.freeBytes;
        if (target_.storage.wal) {
            s.walFreeBytes = target_.storage.wal->freeBytes;
        }
    }
}

void ServerMonitor::sampleStorage(ServerReading& s, bool last) {
    sampleFreeSpace(s);
    if (target_.table && (last || s.elapsed >= tableSizeDue_)) {
        const auto t0 = std::chrono::steady_clock::now();
        s.tableBytes = tableBytes(*conn_, *target_.table, target_.type);
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        tableSizeDue_ = s.elapsed + took / std::max(target_.tableSizeShare, 1e-9);
    }
    s.walDirBytes = walDirBytes(*conn_);
    const WalRetention wal = probeWalRetention(*conn_);
    if (wal.archiving) {
        if (!haveArchiveBase_) {
            haveArchiveBase_ = true;
            baseArchiveFailures_ = wal.failed;
        }
        s.archiveBacklog = wal.readySegments;
        s.archiveFailures = wal.failed - std::min(wal.failed, baseArchiveFailures_);
    }
    for (const auto& w : wal.standbys) {
        s.standbys.push_back({w.name, w.state, w.writeLag, w.flushLag, w.replayLag, w.replayBytes});
    }
}

} // namespace isobar
