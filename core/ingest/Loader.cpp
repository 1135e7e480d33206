// SPDX-License-Identifier: GPL-3.0-or-later

#include "ingest/Loader.h"

#include "db/AutovacuumPause.h"
#include "db/CitusCluster.h"
#include "db/ConnInfo.h"
#include "db/FinishTable.h"
#include "db/Ledger.h"
#include "db/ServerProbe.h"
#include "db/ServerStorage.h"
#include "db/TableType.h"
#include "db/WarmConnections.h"
#include "db/WeatherSchema.h"
#include "ingest/CopyWorker.h"
#include "ingest/EngineShared.h"
#include "ingest/LoadCompression.h"
#include "ingest/Pipeline.h"
#include "ingest/RoomCheck.h"
#include "ingest/TargetPreparation.h"
#include "ingest/Transport.h"
#include "ingest/WorkerPool.h"
#include "monitor/ServerMonitor.h"
#include "rows/UnitSource.h"
#include "util/Error.h"
#include "util/Format.h"
#include "util/TempDir.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <thread>

namespace isobar {

int defaultWorkerCount() {
    const unsigned cores = std::thread::hardware_concurrency();
    return static_cast<int>(std::clamp(cores == 0 ? 2U : cores, 1U, 8U));
}

int autoWorkerLimit() {
    const unsigned cores = std::thread::hardware_concurrency();
    return static_cast<int>(std::clamp(2 * (cores == 0 ? 1U : cores), 2U, 16U));
}

namespace {

using Clock = std::chrono::steady_clock;

// How the load's own connection (checks, preparation, finishing) shows in pg_stat_activity.
constexpr const char* kControlApplicationName = "isobar";

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Appends each stage of the run to `phases` as it ends.
class PhaseClock {
public:
    explicit PhaseClock(std::vector<LoadPhases::Phase>& phases)
        : phases_(phases)
        , last_(Clock::now()) {}
    void done(std::string name) {
        const auto now = Clock::now();
        phases_.push_back({std::move(name), std::chrono::duration<double>(now - last_).count()});
        last_ = now;
    }

private:
    std::vector<LoadPhases::Phase>& phases_;
    Clock::time_point last_;
};

void reportInput(const Dataset& dataset, LoadSink& sink) {
    for (const Era5File& f : dataset.files()) {
        spdlog::debug("{}: {}, {}", f.name(), f.layout(), f.format());
        for (const auto& n : f.notes()) {
            sink.note(f.name() + ": " + n);
        }
        if (!f.ignoredVariables().empty()) {
            std::string names;
            for (const auto& n : f.ignoredVariables()) {
                names += (names.empty() ? "" : ", ") + n;
            }
            sink.warning(f.name() + ": ignoring variables that are not fields on the grid: " + names);
        }
    }
    for (const auto& n : dataset.notes()) {
        sink.note(n);
    }
}

// The units of the plan that are not committed yet, in plan order; the committed ones count as
// resumed in `summary`.
std::vector<std::size_t> pendingUnits(const LoadPlan& plan, const PreparedTarget& prepared,
                                      LoadSummary& summary, std::uint64_t& plannedRows) {
    std::vector<std::size_t> todo;
    plannedRows = 0;
    for (std::size_t i = 0; i < plan.units().size(); ++i) {
        if (prepared.committed.count(plan.units()[i].key) > 0) {
            summary.resumedRows += plan.units()[i].rowCount;
            ++summary.unitsResumed;
        } else {
            todo.push_back(i);
            plannedRows += plan.units()[i].rowCount;
        }
    }
    return todo;
}

LoadStart describeStart(const LoadRequest& request, const Dataset& dataset, const LoadPlan& plan,
                        const PreparedTarget& prepared, const LoadSummary& summary) {
    LoadStart start;
    for (const Era5File& f : dataset.files()) {
        start.files.push_back(f.name());
        start.fileLayouts.push_back(f.layout() + ", " + f.format());
    }
    for (std::size_t c = 0; c < dataset.columns().size(); ++c) {
        const ValueColumn& column = dataset.columns()[c];
        start.variables.push_back((dataset.columnVariables()[c] ? column.key : "(not in the files)") +
                                  " -> " + column.column);
    }
    start.product = dataset.productName();
    start.timeRule = dataset.timeRule();
    start.grid = dataset.grid().describe();
    start.extent = dataset.extent();
    start.tableType = std::string(tableTypeName(prepared.type));
    start.target = redactConnInfo(request.conninfo);
    start.table = request.table.display();
    start.plannedRows = plan.totalRows();
    start.resumedRows = summary.resumedRows;
    start.units = plan.units().size();
    start.resumedUnits = summary.unitsResumed;
    start.workers = summary.workers;
    start.maxWorkers = summary.workers;
    return start;
}

// How many workers the load starts with and may run: a fixed count, or --workers auto's start
// and bound (the server's max_connections bounds both).
struct WorkerCount {
    int first = 1;
    int most = 1;
};
WorkerCount chooseWorkers(const LoadRequest& request, const ServerCheck& check, int workers) {
    if (!request.autoWorkers) {
        return {workers, workers};
    }
    const int most = std::max(1, std::min(workers, check.maxWorkers));
    return {std::min(defaultWorkerCount(), most), most};
}

// The connections of the workers the load starts with and of its monitor, opened while the
// control connection prepares the table (a worker that joins later opens its own).
std::vector<std::pair<std::string, WarmConnections::Opener>> loadConnections(const LoadRequest& request,
                                                                             int workers) {
    std::vector<std::pair<std::string, WarmConnections::Opener>> openers;
    for (int id = 1; id <= workers; ++id) {
        openers.emplace_back(workerApplicationName(id),
                             [&request, id] { return openWorkerConnection(request, id); });
    }
    openers.emplace_back(ServerMonitor::kApplicationName, [conninfo = request.conninfo] {
        return Connection::open(conninfo, ServerMonitor::kApplicationName);
    });
    return openers;
}

// The write method of each worker, as the request's transport asks. The server-file transport
// writes its unit files into `unitFiles`, which the caller keeps until the workers are done.
WorkerPool::TransportFactory makeTransports(Connection& conn, const LoadRequest& request,
                                            const TableLayout& layout, std::optional<TempDir>& unitFiles,
                                            LoadSink& sink) {
    std::string copy =
        "COPY " + request.table.quoted(conn) + " " + weatherColumnList(conn, layout) + " FROM ";
    if (request.transport == TransportKind::Stream) {
        return [copy](int) {
            return makeStreamTransport(copy + "STDIN (FORMAT binary)");
        };
    }
    unitFiles.emplace("isobar-units", 0711); // the server's account reads the files by name
    conn.exec("BEGIN");
    const auto unusable = serverFilesUnusable(conn, unitFiles->path());
    conn.exec("ROLLBACK");
    if (unusable) {
        throw Error("--transport file is not possible: " + *unusable);
    }
    sink.note("units go to the server as files (COPY ... FROM 'file'), not through the connection");
    const std::uint64_t rowsPerFile =
        request.rowsPerServerFile > 0 ? request.rowsPerServerFile : kRowsPerServerFile;
    return [copy, dir = unitFiles->path(), rowsPerFile](int id) {
        return makeServerFileTransport(copy, dir / ("unit-" + std::to_string(id) + ".bin"), rowsPerFile);
    };
}

// A failure whose cause may be the disk: a server that ran out of space (its WAL could not be
// written: it stops, and the workers only see the connection go) says so only in its own log.
// The free space, read again, names the likely cause on the failure itself.
void blameTheDisk(LoadError& error, ServerStorage storage) {
    if ((error.worker == 0 && error.sqlState == "53100") || !storage.seen()) {
        return; // the monitor's stop (worker 0) named the disk already
    }
    refreshFreeSpace(storage);
    for (const ServerFilesystem* fs : {&storage.data, storage.wal ? &*storage.wal : nullptr}) {
        if (fs != nullptr && fs->freeBytes >= 0 && fs->freeBytes < kDiskReserveBytes) {
            error.message += "; the server's disk is full or nearly (" +
                             formatBytes(static_cast<std::uint64_t>(fs->freeBytes)) + " free on " +
                             fs->path.string() +
                             "): that is the likely cause. Free some space and run the same load again: "
                             "it resumes where it stopped";
            return;
        }
    }
}

// Drops the index a load made to find the rows it replaces (prepareTimeLookup) when the load ends,
// on a connection of its own (the control connection may be the one that failed): kept, it would
// cost every row of later loads.
class TimeLookupGuard {
public:
    TimeLookupGuard(std::string conninfo, LoadSink& sink)
        : conninfo_(std::move(conninfo))
        , sink_(sink) {}
    TimeLookupGuard(const TimeLookupGuard&) = delete;
    TimeLookupGuard& operator=(const TimeLookupGuard&) = delete;
    ~TimeLookupGuard() {
        if (lookup_.index.empty()) {
            return;
        }
        try {
            Connection conn = Connection::open(conninfo_, kControlApplicationName);
            dropTimeLookup(conn, lookup_);
        } catch (const std::exception& e) {
            sink_.warning("the index " + lookup_.index +
                          " made to find the rows replaced could not be dropped (" + e.what() +
                          "): it slows later loads; DROP INDEX " + lookup_.index);
        }
    }

    void take(TimeLookup lookup) {
        lookup_ = std::move(lookup);
        if (!lookup_.index.empty()) {
            sink_.note(
                fmt::format("made the index {} to find the rows this load replaces ({:.1f} s, one read "
                            "of the table); dropped when the load ends",
                            lookup_.index, lookup_.buildSeconds));
        }
    }

private:
    std::string conninfo_;
    LoadSink& sink_;
    TimeLookup lookup_;
};

// What the run's units say: the server counted each unit's COPY in the unit's transaction.
std::string unitsCounted(const LoadSummary& summary, const std::optional<std::uint64_t>& ledgerRows) {
    return "the server's row count of every COPY matched the rows sent (" + std::to_string(summary.rows) +
           " rows in " + std::to_string(summary.unitsCommitted) + " unit(s) this run); " +
           (ledgerRows ? "the ledger accounts for " + std::to_string(*ledgerRows) + " rows in the table"
                       : "the ledger holds over " + std::to_string(kSummedLedgerUnits) +
                             " units of the table (not summed)");
}

// The load itself; runLoad() adds restoring durability changes and the final event.
LoadSummary loadDataset(const LoadRequest& request, const std::stop_token& userStop, LoadSink& sink,
                        std::optional<DurabilitySession>& durability) {
    const auto t0 = Clock::now();
    LoadSummary summary;
    summary.workers = request.workers > 0   ? request.workers
                      : request.autoWorkers ? autoWorkerLimit()
                                            : defaultWorkerCount();
    std::stop_source stop;
    // The user's stop request (Ctrl-C, Cancel) stops every thread of the run.
    const std::stop_callback forward(userStop, [&stop] { stop.request_stop(); });
    PhaseClock phase(summary.phases.run);
    // The server check, until the sink has it: a failure before the run knows what it loads
    // reports it with every warning.
    std::optional<ServerCheck> unreported;
    const auto reportCheck = [&unreported, &sink] {
        if (unreported) {
            reportServerCheck(*unreported, true, sink);
            unreported.reset();
        }
    };
    try {
        Dataset dataset = Dataset::open(request.files, request.open);
        (void)dataset.match(request.variables); // a name the files lack is refused before the server is asked
        reportInput(dataset, sink);
        phase.done("open files");
        if (stop.stop_requested()) {
            throw Cancelled();
        }
        if (request.durability.needsConsent() && !request.durability.consent) {
            throw Error("loading with " + request.durability.describe() +
                        " needs the user's consent, because " + request.durability.risks());
        }
        // One connection for everything but the rows, from the first look at the server to the end.
        Connection control = Connection::open(request.conninfo, kControlApplicationName);
        // --workers auto needs one connection for a worker; it runs as many as the server leaves.
        const ServerCheck check =
            checkServerForLoad(control, request, request.autoWorkers ? 1 : summary.workers, sink);
        unreported = check;
        const WorkerCount workers = chooseWorkers(request, check, summary.workers);
        // From here the first rows wait only for the table: the other connections open meanwhile.
        WarmConnections warm(loadConnections(request, workers.first));
        phase.done("check server");
        const TableLayout layout = chooseColumns(control, request, dataset, sink);
        LoadPlan plan = LoadPlan::build(dataset, request.rowsPerUnit, request.bandRows, request.seriesUnits);
        const UnitSource source(dataset);
        const double bytesBefore = tableBytes(control, request.table);
        RoomCheck room;
        // The disk is judged with the target prepared but not committed: a load that does not fit
        // leaves nothing behind, not even a new empty table.
        const PreparedTarget prepared =
            prepareTarget(control, request, source, layout, plan, [&](const PreparedTarget& p) {
                std::uint64_t rows = 0;
                for (const WorkUnit& u : plan.units()) {
                    rows += p.committed.count(u.key) > 0 ? 0 : u.rowCount;
                }
                // Unsummed in a warehouse's table: the room is then judged by its columns' size.
                const LedgerSum summed = p.ledgerCleared
                                             ? LedgerSum{0, true}
                                             : recordedRows(control, p.ledger, kSummedLedgerUnits);
                const double before = summed.complete ? static_cast<double>(summed.rows) : 0.0;
                room = checkRoom(control, request, check, dataset,
                                 RoomRequest{rows, p.type, bytesBefore, before}, sink);
            });
        phase.done("prepare table");
        summary.tableCreated = prepared.tableCreated;
        const OverlapOutcome& overlaps = prepared.overlaps;
        summary.overlap.sameRows = overlaps.sameRows;
        summary.overlap.sameUnits = overlaps.sameUnits;
        summary.overlap.keptRows = overlaps.keptRows;
        summary.overlap.keptUnits = overlaps.keptUnits;
        summary.overlap.decisions = overlaps.lines;
        if (overlaps.legacyUnits > 0) {
            sink.note(std::to_string(overlaps.legacyUnits) + " unit(s) of " + request.table.display() +
                      " recorded by an earlier version of Isobar were given their place on the grid from "
                      "their keys");
        }
        for (const std::string& line : overlaps.lines) {
            sink.note(line);
        }
        // An index made for the replacements goes when the load ends, however it ends.
        TimeLookupGuard lookup(request.conninfo, sink);
        if (std::any_of(plan.units().begin(), plan.units().end(),
                        [](const WorkUnit& u) { return !u.replaces.empty(); })) {
            lookup.take(prepareTimeLookup(control, request.table, prepared.type));
        }
        std::optional<AutovacuumResumer> autovacuum;
        if (prepared.autovacuum != PreparedTarget::Autovacuum::AsItWas) {
            sink.note(
                prepared.autovacuum == PreparedTarget::Autovacuum::PausedNow
                    ? "autovacuum of the new table " + request.table.display() +
                          " waits for the end of the load (its VACUUM would run beside the COPYs)"
                    : "autovacuum of " + request.table.display() +
                          " is paused by a load of it that has not finished; on again when this one does");
            autovacuum.emplace(request.conninfo, request.table,
                               [&sink](bool warning, const std::string& line) {
                                   if (warning) {
                                       sink.warning(line);
                                   } else {
                                       sink.note(line);
                                   }
                               });
        }
        // --compress: how, decided before the first row (direct compress needs the table's
        // settings in place, and the workers' sessions set for it).
        std::optional<CompressionStart> compression;
        if (prepared.type == TableType::Hypertable && request.tableOptions.compressAfter) {
            compression =
                startCompression(control, request.table, request.tableOptions, compressionHint(dataset));
            sink.note("compression: " + compression->why);
        }
        if (request.durability.any()) {
            durability.emplace(request.conninfo, request.durability,
                               [&sink](const std::string& n) { sink.note(n); });
        }
        std::uint64_t plannedRows = 0;
        const std::vector<std::size_t> todo = pendingUnits(plan, prepared, summary, plannedRows);
        reportServerCheck(check, !todo.empty(), sink);
        unreported.reset();
        LoadStart start = describeStart(request, dataset, plan, prepared, summary);
        start.autoWorkers = request.autoWorkers;
        start.workers = workers.first;
        start.maxWorkers = workers.most;
        start.forecast = room.lines;
        for (const auto& line : room.lines) {
            sink.note(line);
        }
        sink.started(start);

        // One unit waiting per worker: enough to keep them busy, little enough to bound memory.
        BoundedQueue<QueuedUnit> queue(static_cast<std::size_t>(start.maxWorkers) + 1);
        std::optional<TempDir> unitFiles;
        const auto methods = makeTransports(control, request, layout, unitFiles, sink);
        phase.done("start");
        EngineShared shared{request, plan, source, prepared.ledger, queue, stop, sink};
        shared.retryBudget = request.retryBudget;
        shared.warm = &warm;
        if (prepared.type == TableType::Distributed) {
            shared.sessionSettings = citusSessionSettings(control, request.table);
        }
        if (compression) {
            shared.sessionSettings.insert(shared.sessionSettings.end(), compression->sessionSettings.begin(),
                                          compression->sessionSettings.end());
            shared.rowsPerTransaction = compression->rowsPerTransaction;
        }
        runPipeline(shared, todo, plannedRows, methods, start, prepared.type, room.storage, summary);
        phase.done(LoadPhases::kLoad);
        summary.seconds = secondsSince(t0);
        if (auto error = shared.error()) {
            blameTheDisk(*error, room.storage);
            summary.status = LoadStatus::Failed;
            summary.error = error;
            return summary;
        }
        if (userStop.stop_requested()) {
            summary.status = LoadStatus::Cancelled;
            return summary;
        }
        // Idle during the load: the server may have restarted meanwhile (the workers retried).
        try {
            control.exec("SELECT 1");
        } catch (const DbError&) {
            control = Connection::open(request.conninfo, kControlApplicationName);
        }
        if (prepared.type == TableType::Distributed && summary.retries > 0) {
            // A worker node lost mid-commit holds prepared transactions the coordinator committed:
            // their rows show once Citus recovers them (its daemon does, about once a minute).
            // On a connection of its own: the control connection's cached ones to the nodes may be
            // to the node that restarted. Not recovered now, the daemon still does it later.
            try {
                Connection::open(request.conninfo).exec("SELECT recover_prepared_transactions()");
            } catch (const DbError& e) {
                sink.warning(std::string("Citus could not recover the prepared transactions of the worker "
                                         "nodes that were lost (its maintenance daemon will): ") +
                             e.what());
            }
        }
        const FinishOutcome finished = finishTable(
            control, request.table, prepared.type, request.tableOptions, prepared.ledger,
            FinishRun{request.conninfo, summary.workers, compressionHint(dataset), compression, userStop},
            [&sink](const std::string& n) { sink.note(n); });
        if (autovacuum) {
            autovacuum->resumeOn(control);
        }
        summary.compression = finished.compression;
        if (summary.compression && summary.compression->direct && summary.compression->bytesBefore < 0) {
            estimateUncompressed(control, prepared.ledger, layout, *summary.compression);
        }
        if (finished.compression && finished.compression->grew()) {
            sink.warning("compression made " + request.table.display() +
                         " bigger: " + finished.compression->describe() +
                         ". Choose other settings (--compress-segmentby '' --compress-orderby 'location_id, "
                         "time' suit short chunks) and recompress, or decompress_chunk() the chunks");
        }
        if (finished.compression && finished.compression->chunksLeft > 0) {
            summary.seconds = secondsSince(t0);
            summary.status = LoadStatus::Cancelled;
            return summary;
        }
        summary.seconds = secondsSince(t0); // the index, compression, SET LOGGED are part of the load
        phase.done(LoadPhases::kFinishTable);
        summary.status = LoadStatus::Completed;
        summary.overlap.era5tReplacedHours = summary.overlap.era5tReplacedUnits > 0 ? overlaps.era5tHours : 0;
        // On this connection, not a new one: a connection costs the server some 20 ms. Not while
        // durability is traded for speed: the settings go back first (runLoad), and the report
        // verifies after that.
        if (!request.durability.any()) {
            try {
                summary.verification =
                    verifyLoad(control, request, summary, summary.ledgerRows, summary.countedRows);
            } catch (const std::exception&) {
                summary.ledgerRows.reset();
                summary.countedRows.reset();
                summary.verification = {}; // the report asks again on a connection of its own
            }
            phase.done("verify");
        }
        if (summary.skippedRows > 0) {
            sink.warning(
                std::to_string(summary.skippedRows) +
                " rows had every value missing and were skipped (use --all-missing load to load them as "
                "rows of NULLs)");
        }
        return summary;
    } catch (const Cancelled&) {
        reportCheck();
        summary.status = LoadStatus::Cancelled;
        summary.seconds = secondsSince(t0);
        return summary;
    } catch (const DbError& e) {
        summary.error = LoadError{{}, {}, {}, 0, e.sqlState(), e.what()};
    } catch (const OverlapRefused& e) {
        summary.error = LoadError{{}, {}, {}, 0, {}, e.what()};
        summary.error->overlap = true;
    } catch (const Error& e) {
        summary.error = LoadError{{}, {}, {}, 0, {}, e.what()};
    } catch (const std::exception& e) {
        summary.error = LoadError{{}, {}, {}, 0, {}, std::string("unexpected failure: ") + e.what()};
    }
    reportCheck();
    summary.status = LoadStatus::Failed;
    summary.seconds = secondsSince(t0);
    return summary;
}

} // namespace

std::string LoadPhases::describe(const std::vector<Phase>& phases) {
    std::string out;
    for (const Phase& p : phases) {
        out += fmt::format("{}{} {:.2f} s", out.empty() ? "" : ", ", p.name, p.seconds);
    }
    return out;
}

std::string verifyLoad(Connection& conn, const LoadRequest& request, const LoadSummary& summary,
                       std::optional<std::uint64_t>& ledgerRows, std::optional<std::uint64_t>& counted) {
    const Verification how = request.verification;
    const bool cancelled = summary.status == LoadStatus::Cancelled;
    const LedgerTarget ledger = ledgerFor(conn, request.table);
    const LedgerSum first = recordedRows(conn, ledger, kSummedLedgerUnits);
    if (first.complete) {
        ledgerRows = first.rows;
    } else if (!cancelled && (how == Verification::Full ||
                              (how == Verification::Auto && first.rows <= kCountedTableRows))) {
        ledgerRows = recordedRows(conn, ledger);
    } else {
        ledgerRows.reset();
    }
    // Not at all after a cancel: the user asked to stop (or to quit), not to wait.
    if (cancelled) {
        return "not counted: the run was cancelled";
    }
    if (how == Verification::Units ||
        (how == Verification::Auto && (!ledgerRows || *ledgerRows > kCountedTableRows))) {
        return unitsCounted(summary, ledgerRows) + "; count(*) of the table not run (--verify full runs it)";
    }
    // Asked for, it takes as long as it takes; on its own (a small table) a minute at most.
    conn.exec(how == Verification::Full ? "SET statement_timeout = 0" : "SET statement_timeout = '60s'");
    try {
        counted = static_cast<std::uint64_t>(
            conn.query("SELECT count(*) FROM " + request.table.quoted(conn)).integer(0, 0));
    } catch (const DbError& e) {
        return e.sqlState() == "57014" ? "not counted: the table is too large to count within a minute"
                                       : std::string("not counted: ") + e.what();
    }
    return *counted == *ledgerRows ? "count(*) = " + std::to_string(*counted) + ", as the ledger says"
                                   : "count(*) = " + std::to_string(*counted) + ", the ledger accounts for " +
                                         std::to_string(*ledgerRows) +
                                         " (rows loaded by other means, or skipped all-missing units)";
}

LoadSummary runLoad(const LoadRequest& request, const std::stop_token& userStop, LoadSink& sink) {
    std::optional<DurabilitySession> durability;
    LoadSummary summary = loadDataset(request, userStop, sink, durability);
    if (durability) {
        // Whatever happened to the load - completed, failed, cancelled - the settings go back now.
        summary.durability = durability->restore();
        const DurabilityOutcome& d = summary.durability;
        if (!d.changes.empty() && !d.restored) {
            if (summary.status != LoadStatus::Failed) {
                const std::string how =
                    summary.status == LoadStatus::Cancelled ? "was cancelled" : "finished";
                summary.status = LoadStatus::Failed;
                summary.error = LoadError{
                    {}, {}, {},
                    0,  {}, "the load " + how + ", but the server's settings are not restored: " + d.problem};
            } else {
                sink.warning(d.problem);
            }
        } else if (!d.problem.empty()) {
            sink.warning(d.problem);
        }
    }
    if (summary.status == LoadStatus::Failed) {
        sink.failed(*summary.error);
    } else {
        sink.finished(summary);
    }
    return summary;
}

} // namespace isobar
