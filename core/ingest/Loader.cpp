#include "ingest/Loader.h"

#include "db/ConnInfo.h"
#include "db/ServerProbe.h"
#include "db/SettingsAdvice.h"
#include "db/TableMetadata.h"
#include "db/WeatherSchema.h"
#include "ingest/LoadEngine.h"
#include "monitor/ServerMonitor.h"
#include "util/Error.h"
#include "util/TempDir.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <optional>
#include <thread>

namespace isobar {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

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
            sink.warning(f.name() + ": ignoring variables Isobar does not load: " + names);
        }
    }
    for (const auto& n : dataset.notes()) {
        sink.note(n);
    }
}

// Creates or checks the table and the bookkeeping, in one transaction, before any worker starts.
struct Prepared {
    bool tableCreated = false;
    TableType type = TableType::Regular;
    LedgerTarget ledger;
    std::set<std::string> committed;
};

Prepared prepareTarget(const LoadRequest& request, const Dataset& dataset) {
    Connection conn = Connection::open(request.conninfo);
    conn.exec("SET application_name = 'isobar'");
    ensureMetadataSchema(conn);
    Prepared p;
    conn.exec(kBeginReadCommitted);
    lockTablePreparation(conn, request.table);
    p.type = ensureTargetTable(conn, request.table, request.tableOptions, p.tableCreated);
    // The ledger lock before any lock on the table (TRUNCATE, new partitions), as every run takes
    // them: held to COMMIT, it keeps other runs' claims out while the ledger is put in order.
    p.ledger = ledgerFor(conn, request.table);
    lockLedgerMove(conn, p.ledger.relid);
    adoptStrayLedgerRows(conn, p.ledger);
    if (p.type == TableType::Partitioned) {
        std::vector<PgTimestamp> times;
        for (const DatasetStep& step : dataset.steps()) {
            times.push_back(step.time);
        }
        createPartitions(conn, request.table, request.tableOptions.partitionInterval, times);
    }
    forgetDroppedTables(conn);
    if (request.replace && !p.tableCreated) {
        conn.exec("TRUNCATE " + request.table.quoted(conn));
    }
    // A table created just now holds nothing, whatever an old ledger row with a reused OID says.
    if (request.replace || request.restart || p.tableCreated) {
        clearLedger(conn, p.ledger);
    }
    checkTableGrid(conn, request.table,
                   TableGrid{dataset.grid().step(), dataset.grid().describe(), dataset.productName(),
                             dataset.selection()});
    p.committed = committedUnits(conn, p.ledger);
    conn.exec("COMMIT");
    return p;
}

// Emits RateSample at the request's interval and ServerSample once a second until told to stop.
class Sampler {
public:
    Sampler(EngineShared& shared, const std::vector<std::unique_ptr<WorkerCounters>>& counters,
            std::uint64_t plannedRows, std::chrono::milliseconds interval)
        : shared_(shared)
        , counters_(counters)
        , plannedRows_(plannedRows)
        , interval_(interval)
        , monitor_(shared.request.conninfo)
        , lastRows_(counters.size(), 0) {}

    void run(std::stop_token stop) {
        auto nextServer = Clock::now();
        while (!stop.stop_requested()) {
            sampleOnce();
            if (Clock::now() >= nextServer) {
                nextServer = Clock::now() + std::chrono::seconds(1);
                if (const auto server = monitor_.sample(secondsSince(t0_))) {
                    shared_.emit([&](LoadSink& sink) { sink.serverSampled(*server); });
                }
            }
            std::mutex m;
            std::condition_variable_any cv;
            std::unique_lock lock(m);
            cv.wait_for(lock, stop, interval_, [] { return false; });
        }
        sampleOnce(); // the final state
        if (const auto server = monitor_.sample(secondsSince(t0_))) {
            shared_.emit([&](LoadSink& sink) { sink.serverSampled(*server); });
        }
    }

private:
    void sampleOnce() {
        RateSample s;
        const auto now = Clock::now();
        s.elapsed = std::chrono::duration<double>(now - t0_).count();
        const double dt = std::chrono::duration<double>(now - lastTime_).count();
        for (std::size_t w = 0; w < counters_.size(); ++w) {
            const WorkerCounters& c = *counters_[w];
            const std::uint64_t rows = c.rowsSent.load();
            s.rows += rows;
            s.committedRows += c.rowsCommitted.load() + c.skippedRows.load() + c.concurrentRows.load();
            s.bytes += c.bytes.load();
            s.workers.push_back(WorkerRate{
                static_cast<int>(w + 1), dt > 0 ? static_cast<double>(rows - lastRows_[w]) / dt : 0.0, rows});
            lastRows_[w] = rows;
        }
        s.intervalRate = dt > 0 ? static_cast<double>(s.rows - lastTotal_) / dt : 0.0;
        s.overallRate = s.elapsed > 0 ? static_cast<double>(s.rows) / s.elapsed : 0.0;
        s.queueDepth = shared_.queue.size();
        s.queueCapacity = shared_.queue.capacity();
        s.plannedRows = plannedRows_;
        s.percent = plannedRows_ > 0
                        ? 100.0 * static_cast<double>(s.committedRows) / static_cast<double>(plannedRows_)
                        : 100.0;
        const double committedRate = s.elapsed > 0 ? static_cast<double>(s.committedRows) / s.elapsed : 0.0;
        s.etaSeconds =
            committedRate > 0
                ? static_cast<double>(plannedRows_ - std::min(plannedRows_, s.committedRows)) / committedRate
                : -1.0;
        lastTotal_ = s.rows;
        lastTime_ = now;
        shared_.emit([&](LoadSink& sink) { sink.rateSampled(s); });
    }

    EngineShared& shared_;
    const std::vector<std::unique_ptr<WorkerCounters>>& counters_;
    std::uint64_t plannedRows_;
    std::chrono::milliseconds interval_;
    ServerMonitor monitor_;
    std::vector<std::uint64_t> lastRows_;
    std::uint64_t lastTotal_ = 0;
    Clock::time_point t0_ = Clock::now();
    Clock::time_point lastTime_ = Clock::now();
};

// Whether the server can read unit files written into `dir`: on this machine, allowed to read
// server files, and able to reach the directory (checked by reading a probe file). The reason
// when not.
std::optional<std::string> serverFilesUnusable(Connection& conn, const std::filesystem::path& dir) {
    const ServerFileAccess access = probeServerFileAccess(conn);
    if (!access.onThisMachine) {
        return std::string("the server is on another machine");
    }
    if (!access.mayReadFiles) {
        return std::string("the role may not read server files (superuser or pg_read_server_files)");
    }
    const std::filesystem::path probe = dir / "probe";
    {
        std::ofstream out(probe);
        out << "x";
    }
    std::filesystem::permissions(
        probe, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                   std::filesystem::perms::group_read | std::filesystem::perms::others_read);
    try {
        conn.exec("SAVEPOINT isobar_probe");
        conn.query("SELECT pg_read_binary_file($1, 0, 1)", {probe.string()});
        conn.exec("RELEASE SAVEPOINT isobar_probe");
    } catch (const DbError& e) {
        conn.exec("ROLLBACK TO SAVEPOINT isobar_probe");
        return std::string("the server cannot read ") + dir.string() + ": " + e.what();
    }
    return std::nullopt;
}

} // namespace

int defaultWorkerCount() {
    const unsigned cores = std::thread::hardware_concurrency();
    return static_cast<int>(std::clamp(cores == 0 ? 2U : cores, 1U, 8U));
}

namespace {

// The server as the load finds it: its settings and the target table turned into warnings for
// the sink; what would make the load fail (too few connections, a hypertable without its
// preloaded library) stops it here, before anything is created or changed.
void checkServer(const LoadRequest& request, int workers, LoadSink& sink) {
    Connection conn = Connection::open(request.conninfo);
    conn.exec("SET application_name = 'isobar'");
    const ServerInfo info = probeServer(conn, &request.table);
    LoadIntent intent;
    intent.workers = workers;
    if (!info.table) {
        intent.newTableType = request.tableOptions.type.value_or(TableType::Regular);
    }
    const std::vector<SettingWarning> warnings = adviseSettings(info, intent);
    sink.settingsChecked(info, warnings);
    checkDurabilityRights(info, request.durability);
    std::string errors;
    for (const SettingWarning& w : warnings) {
        if (w.severity == Severity::Error) {
            errors += (errors.empty() ? "" : "; ") + w.message;
        }
    }
    if (!errors.empty()) {
        throw Error(errors);
    }
}

// The load itself; runLoad() adds restoring durability changes and the final event.
LoadSummary loadDataset(const LoadRequest& request, const std::stop_token& userStop, LoadSink& sink,
                        std::optional<DurabilitySession>& durability) {
    const auto t0 = Clock::now();
    LoadSummary summary;
    summary.workers = request.workers > 0 ? request.workers : defaultWorkerCount();
    std::stop_source stop;
    // The user's stop request (Ctrl-C, Cancel) stops every thread of the run.
    const std::stop_callback forward(userStop, [&stop] { stop.request_stop(); });
    try {
        Dataset dataset = Dataset::open(request.files, request.open);
        if (!request.variables.empty()) {
            dataset.keepOnly(request.variables);
        }
        reportInput(dataset, sink);
        const LoadPlan plan = LoadPlan::build(dataset, request.rowsPerUnit, request.bandRows);
        if (stop.stop_requested()) {
            throw Cancelled();
        }
        if (request.durability.needsConsent() && !request.durability.consent) {
            throw Error("loading with " + request.durability.describe() +
                        " needs the user's consent, because " + request.durability.risks());
        }
        checkServer(request, summary.workers, sink);
        const Prepared prepared = prepareTarget(request, dataset);
        summary.tableCreated = prepared.tableCreated;
        if (request.durability.any()) {
            durability.emplace(request.conninfo, request.durability,
                               [&sink](const std::string& n) { sink.note(n); });
        }

        std::vector<std::size_t> todo;
        std::uint64_t plannedRows = 0;
        for (std::size_t i = 0; i < plan.units().size(); ++i) {
            if (prepared.committed.count(plan.units()[i].key) > 0) {
                summary.resumedRows += plan.units()[i].rowCount;
                ++summary.unitsResumed;
            } else {
                todo.push_back(i);
                plannedRows += plan.units()[i].rowCount;
            }
        }
        LoadStart start;
        for (const Era5File& f : dataset.files()) {
            start.files.push_back(f.name());
            start.fileLayouts.push_back(f.layout() + ", " + f.format());
        }
        for (Variable v : dataset.variables()) {
            start.variables.push_back(std::string(spec(v).shortName) + " -> " + std::string(spec(v).column));
        }
        start.product = dataset.productName();
        start.grid = dataset.grid().describe();
        start.tableType = std::string(tableTypeName(prepared.type));
        start.target = redactConnInfo(request.conninfo);
        start.table = request.table.display();
        start.plannedRows = plan.totalRows();
        start.resumedRows = summary.resumedRows;
        start.units = plan.units().size();
        start.resumedUnits = summary.unitsResumed;
        start.workers = summary.workers;
        sink.started(start);

        std::vector<GridGeometry> geometries;
        for (const DatasetGeometry& g : dataset.geometries()) {
            geometries.push_back(GridGeometry::forBox(dataset.grid(), g.box.northRow, g.box.westColumn,
                                                      g.latitudes, g.longitudes));
        }
        const BandReader reader(dataset);
        // One unit waiting per worker: enough to keep them busy, little enough to bound memory.
        BoundedQueue<QueuedUnit> queue(static_cast<std::size_t>(summary.workers) + 1);
        std::string copySql;
        {
            Connection quoting = Connection::open(request.conninfo);
            copySql = "COPY " + request.table.quoted(quoting) + " " + weatherColumnList(quoting) +
                      " FROM STDIN (FORMAT binary)";
        }
        EngineShared shared{request, dataset,         plan,  reader, geometries,
                            copySql, prepared.ledger, queue, stop,   sink};
        std::optional<TempDir> unitFiles;
        if (request.transport != Transport::Stream) {
            unitFiles.emplace("isobar-units", 0711); // the server's account reads the files by name
            Connection probe = Connection::open(request.conninfo);
            probe.exec("BEGIN");
            const auto unusable = serverFilesUnusable(probe, unitFiles->path());
            probe.exec("ROLLBACK");
            if (!unusable) {
                shared.fileDir = unitFiles->path();
                shared.copyFromFileSql =
                    "COPY " + request.table.quoted(probe) + " " + weatherColumnList(probe) + " FROM ";
                sink.note(
                    "units go to the server as files (COPY ... FROM 'file'), not through the connection");
            } else {
                throw Error("--transport file is not possible: " + *unusable);
            }
        }

        std::vector<std::unique_ptr<WorkerCounters>> counters;
        std::vector<std::unique_ptr<CopyWorker>> workers;
        for (int w = 0; w < summary.workers; ++w) {
            counters.push_back(std::make_unique<WorkerCounters>());
            workers.push_back(std::make_unique<CopyWorker>(w + 1, shared, *counters.back()));
        }
        Sampler sampler(shared, counters, plannedRows, request.sampleInterval);
        {
            // Thread boundary: the reader stage owns every netcdf-c call (serialized anyway);
            // workers decode, encode and COPY in parallel; the sampler only reads counters.
            std::jthread samplerThread([&sampler](std::stop_token s) { sampler.run(s); });
            {
                std::vector<std::jthread> threads;
                threads.emplace_back([&] {
                    std::size_t current = 0;
                    try {
                        for (std::size_t i : todo) {
                            current = i;
                            if (stop.stop_requested()) {
                                break;
                            }
                            QueuedUnit item{i, {}};
                            const WorkUnit& unit = plan.units()[i];
                            reader.fetch(unit.step, unit.row0, unit.rows, item.raw);
                            if (!queue.push(std::move(item), stop.get_token())) {
                                break;
                            }
                        }
                    } catch (const Error& e) {
                        shared.fail(LoadError{shared.filesOf(plan.units()[current].step),
                                              {},
                                              plan.units()[current].key,
                                              0,
                                              {},
                                              e.what()});
                    } catch (const std::exception& e) {
                        shared.fail(
                            LoadError{{}, {}, {}, 0, {}, std::string("unexpected failure: ") + e.what()});
                    }
                    queue.close();
                });
                for (auto& worker : workers) {
                    threads.emplace_back([&worker, &stop] { worker->run(stop.get_token()); });
                }
            } // joins the reader and the workers
            samplerThread.request_stop();
        }
        for (const auto& c : counters) {
            summary.rows += c->rowsCommitted.load();
            summary.bytes += c->bytes.load();
            summary.unitsCommitted += c->units.load();
            summary.skippedRows += c->skippedRows.load();
            summary.retries += c->retries.load();
            summary.resumedRows += c->concurrentRows.load();
        }
        summary.seconds = secondsSince(t0);
        if (const auto error = shared.error()) {
            summary.status = LoadStatus::Failed;
            summary.error = error;
            return summary;
        }
        if (userStop.stop_requested()) {
            summary.status = LoadStatus::Cancelled;
            return summary;
        }
        {
            Connection conn = Connection::open(request.conninfo);
            conn.exec("SET application_name = 'isobar'");
            finishTable(conn, request.table, prepared.type, request.tableOptions, prepared.ledger,
                        [&sink](const std::string& n) { sink.note(n); });
            summary.seconds = secondsSince(t0); // the index, compression, SET LOGGED are part of the load
        }
        if (summary.skippedRows > 0) {
            sink.warning(
                std::to_string(summary.skippedRows) +
                " rows had every value missing and were skipped (use --all-missing load to load them as "
                "rows of NULLs)");
        }
        summary.status = LoadStatus::Completed;
        return summary;
    } catch (const Cancelled&) {
        summary.status = LoadStatus::Cancelled;
        summary.seconds = secondsSince(t0);
        return summary;
    } catch (const DbError& e) {
        summary.error = LoadError{{}, {}, {}, 0, e.sqlState(), e.what()};
    } catch (const Error& e) {
        summary.error = LoadError{{}, {}, {}, 0, {}, e.what()};
    } catch (const std::exception& e) {
        summary.error = LoadError{{}, {}, {}, 0, {}, std::string("unexpected failure: ") + e.what()};
    }
    summary.status = LoadStatus::Failed;
    summary.seconds = secondsSince(t0);
    return summary;
}

} // namespace

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
