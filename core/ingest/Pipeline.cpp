// SPDX-License-Identifier: GPL-3.0-or-later

#include "ingest/Pipeline.h"

#include "ingest/CopyWorker.h"
#include "monitor/RateSampler.h"
#include "monitor/WorkerTuner.h"
#include "util/Error.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

namespace isobar {

namespace {

// The reader stage's thread body: fetches the pending units in order and queues them, until the
// queue is closed or the run stops.
void readUnits(EngineShared& shared, const std::vector<std::size_t>& todo) {
    std::size_t current = 0;
    try {
        for (std::size_t i : todo) {
            current = i;
            if (shared.stop.stop_requested()) {
                break;
            }
            QueuedUnit item{i, shared.reuse()};
            shared.source.fetch(shared.plan.units()[i], item.raw);
            if (!shared.queue.push(std::move(item), shared.stop.get_token())) {
                break;
            }
        }
    } catch (const Error& e) {
        const WorkUnit& unit = shared.plan.units()[current];
        shared.fail(LoadError{shared.source.filesOf(unit.step), {}, unit.key, 0, {}, e.what()});
    } catch (const std::exception& e) {
        shared.fail(LoadError{{}, {}, {}, 0, {}, std::string("unexpected failure: ") + e.what()});
    }
    shared.queue.close();
}

// Rows of this run in the table (or accounted for: skipped, or committed by another run).
std::uint64_t rowsDone(const std::vector<std::unique_ptr<WorkerCounters>>& counters) {
    std::uint64_t rows = 0;
    for (const auto& c : counters) {
        rows += c->rowsDone();
    }
    return rows;
}

// What the sampler hears, turned into the run's events; with --workers auto, the tuner hears the
// rate too, and the pool follows it.
RateSampler::Events samplerEvents(EngineShared& shared, WorkerPool& pool, std::optional<WorkerTuner>& tuner,
                                  const std::atomic<bool>& allQueued, std::uint64_t plannedRows) {
    return RateSampler::Events{
        [&shared, &pool, &tuner, &allQueued](const RateReading& s) {
            shared.emit([&s](LoadSink& sink) { sink.rateMeasured(s); });
            // Once everything is queued the rate falls as the workers run out of units: nothing
            // to learn from it.
            if (tuner && !allQueued) {
                const double left =
                    s.overallRate > 0
                        ? static_cast<double>(s.plannedRows - std::min(s.plannedRows, s.rows)) / s.overallRate
                        : -1.0;
                if (const auto change = tuner->observe(s.elapsed, s.rows, left)) {
                    pool.resize(change->to);
                    shared.emit([&change](LoadSink& sink) { sink.workersChanged(*change); });
                }
            }
            pool.settle();
        },
        [&shared](const ServerReading& s) { shared.emit([&s](LoadSink& sink) { sink.serverMeasured(s); }); },
        [&shared, &pool, plannedRows](const std::string& why, bool serverDown) {
            if (rowsDone(pool.counters()) >= plannedRows && !serverDown) {
                // Every row is in: nothing left to stop. What comes after (an index, SET LOGGED,
                // compression) still needs room.
                shared.emit([&why](LoadSink& sink) {
                    sink.warning("the server's disk is nearly full: " + why +
                                 ". Every row of the load is committed; finishing the table may still need "
                                 "room");
                });
                return;
            }
            const std::string table = shared.request.table.display();
            // A server that does not answer with its disk this full went down for want of room
            // (it could not write its WAL): the workers' retries cannot help.
            shared.fail(LoadError{
                {},
                {},
                {},
                0,
                "53100",
                (serverDown ? "the server stopped answering with its disk full: "
                            : "stopped before the server's disk is full: ") +
                    why + ". The units in flight were rolled back; the committed ones stay. Free some space" +
                    (serverDown
                         ? ", start the server again,"
                         : " (VACUUM " + table + " makes the space of the rolled-back rows reusable)") +
                    " and run the same load again: it resumes where it stopped"});
        }};
}

} // namespace

void runPipeline(EngineShared& shared, const std::vector<std::size_t>& todo, std::uint64_t plannedRows,
                 const WorkerPool::TransportFactory& makeMethod, const LoadStart& start, TableType type,
                 const ServerStorage& storage, LoadSummary& summary) {
    shared.workers = start.workers;
    WorkerPool pool(shared, start.maxWorkers, makeMethod);
    std::optional<WorkerTuner> tuner;
    if (start.autoWorkers && start.maxWorkers > 1) {
        tuner.emplace(WorkerTuner::Options{start.workers, start.maxWorkers, shared.request.tuning});
    }
    std::atomic<bool> allQueued{false};
    RateSampler sampler(pool.counters(), plannedRows, shared.request.sampleInterval, shared.request.conninfo,
                        ServerMonitor::Target{shared.request.table, type, storage},
                        RateSampler::Gauges{[&shared] { return shared.queue.size(); },
                                            shared.queue.capacity(), [&pool] { return pool.running(); },
                                            [&pool] {
                                                return pool.used();
                                            }},
                        samplerEvents(shared, pool, tuner, allQueued, plannedRows), [&shared] {
                            return shared.warm ? shared.warm->take(ServerMonitor::kApplicationName) : nullptr;
                        });
    {
        // Thread boundary: the reader stage owns every netcdf-c call (serialized anyway);
        // workers decode, encode and COPY in parallel; the sampler only reads counters (and, with
        // --workers auto, resizes the pool).
        std::jthread samplerThread([&sampler](const std::stop_token& s) { sampler.run(s); });
        {
            const std::jthread reader([&shared, &todo, &allQueued] {
                readUnits(shared, todo);
                allQueued = true;
            });
            pool.resize(start.workers);
        }            // the reader has queued everything, or the run stopped
        pool.join(); // the workers have loaded what was queued
        samplerThread.request_stop();
    }
    summary.workers = tuner ? tuner->workers() : start.workers;
    const auto& counters = pool.counters();
    const auto seconds = [&counters](std::atomic<std::uint64_t> WorkerCounters::*field) {
        std::uint64_t nanos = 0;
        for (const auto& c : counters) {
            nanos += (*c.*field).load();
        }
        return static_cast<double>(nanos) / 1e9;
    };
    summary.phases.workers = {{"wait for work", seconds(&WorkerCounters::waitNanos)},
                              {"decode", seconds(&WorkerCounters::decodeNanos)},
                              {"encode", seconds(&WorkerCounters::encodeNanos)},
                              {"send", seconds(&WorkerCounters::sendNanos)},
                              {"COPY end", seconds(&WorkerCounters::copyEndNanos)},
                              {"ledger", seconds(&WorkerCounters::ledgerNanos)},
                              {"commit", seconds(&WorkerCounters::commitNanos)}};
    for (const auto& c : counters) {
        summary.phases.transactions += c->transactions.load();
        summary.rows += c->rowsCommitted.load();
        summary.bytes += c->bytes.load();
        summary.unitsCommitted += c->units.load();
        summary.skippedRows += c->skippedRows.load();
        summary.retries += c->retries.load();
        summary.resumedRows += c->concurrentRows.load();
        summary.overlap.era5tReplacedUnits += c->era5tReplacedUnits.load();
        summary.overlap.overlapReplacedUnits += c->overlapReplacedUnits.load();
        summary.overlap.replacedRows += c->replacedRows.load();
    }
}

} // namespace isobar
