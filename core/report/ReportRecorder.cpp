// SPDX-License-Identifier: GPL-3.0-or-later

#include "report/ReportRecorder.h"

#include "Version.h"
#include "db/ConnInfo.h"
#include "db/Connection.h"
#include "db/Ledger.h"
#include "util/Format.h"

#include <algorithm>
#include <chrono>
#include <ctime>

namespace isobar {

std::string utcNow() {
    return formatUtcNow("%Y-%m-%dT%H:%M:%SZ");
}

ReportRecorder::ReportRecorder(LoadSink& inner, const LoadRequest& request)
    : inner_(inner)
    , request_(request) {
    report_.tool = std::string("isobar ") + kVersion;
    report_.startedAt = utcNow();
    report_.target = redactConnInfo(request.conninfo);
    report_.table = request.table.display();
    report_.tableType = std::string(tableTypeName(request.tableOptions.type.value_or(TableType::Regular)));
    if (request.durability.any()) {
        report_.durabilityRequested = request.durability.describe();
    }
}

void ReportRecorder::settingsChecked(const ServerInfo& server, const std::vector<SettingWarning>& warnings) {
    // The settings as the load found them, before any durability change for the run.
    report_.serverVersion = server.version;
    report_.settings = server.settings;
    report_.extensions = server.extensionLines();
    report_.settingWarnings = warnings;
    inner_.settingsChecked(server, warnings);
}

void ReportRecorder::started(const LoadStart& s) {
    for (std::size_t i = 0; i < s.files.size(); ++i) {
        report_.files.push_back({s.files[i], i < s.fileLayouts.size() ? s.fileLayouts[i] : "", ""});
    }
    report_.variables = s.variables;
    report_.product = s.product;
    report_.timeRule = s.timeRule;
    report_.grid = s.grid;
    report_.extent = s.extent;
    report_.tableType = s.tableType.empty() ? report_.tableType : s.tableType;
    report_.plannedRows = s.plannedRows;
    report_.units = s.units;
    report_.workers = s.workers;
    report_.autoWorkers = s.autoWorkers;
    report_.maxWorkers = s.maxWorkers;
    report_.forecast = s.forecast;
    inner_.started(s);
}

void ReportRecorder::warning(const std::string& message) {
    report_.warnings.push_back(message);
    inner_.warning(message);
}

void ReportRecorder::note(const std::string& message) {
    report_.notes.push_back(message);
    inner_.note(message);
}

void ReportRecorder::rateMeasured(const RateReading& s) {
    RunReport::Sample sample{s.elapsed,    s.rows, s.committedRows, s.intervalRate, s.overallRate,
                             s.queueDepth, {}};
    for (const auto& w : s.workers) {
        sample.workerRows.push_back(w.rows);
    }
    samples_.add(report_.samples, sample);
    report_.workerRows.clear();
    for (const auto& w : s.workers) {
        report_.workerRows.push_back(w.rows);
    }
    inner_.rateMeasured(s);
}

namespace {

// Each standby once, with the most it fell behind over the run.
void recordStandbys(std::vector<RunReport::Standby>& seen, const std::vector<ServerReading::Standby>& now) {
    for (const auto& standby : now) {
        auto it = std::find_if(seen.begin(), seen.end(),
                               [&](const RunReport::Standby& s) { return s.name == standby.name; });
        if (it == seen.end()) {
            it = seen.insert(seen.end(), RunReport::Standby{standby.name, standby.state, -1, -1});
        }
        it->state = standby.state;
        it->maxReplayLag = std::max(it->maxReplayLag, standby.replayLag);
        it->maxReplayBytes = std::max(it->maxReplayBytes, standby.replayBytes);
    }
}

} // namespace

void ReportRecorder::serverMeasured(const ServerReading& s) {
    recordStandbys(report_.standbys, s.standbys);
    server_.add(report_.server, RunReport::Server::of(s));
    report_.checkpoints = s.checkpointsTimed + s.checkpointsRequested;
    report_.walBytes = s.walBytes;
    inner_.serverMeasured(s);
}

void ReportRecorder::workersChanged(const WorkerChange& c) {
    report_.workerChanges.push_back(c);
    inner_.workersChanged(c);
}

void ReportRecorder::unitCommitted(const UnitEvent& e) {
    inner_.unitCommitted(e);
}

void ReportRecorder::finished(const LoadSummary& s) {
    inner_.finished(s);
}

void ReportRecorder::failed(const LoadError& e) {
    inner_.failed(e);
}

RunReport ReportRecorder::finish(const LoadSummary& summary) {
    RunReport r = report_;
    if (server_.pending()) { // the last samples, merged while waiting for their turn
        r.server.push_back(*server_.pending());
    }
    r.finishedAt = utcNow();
    r.status = summary.status == LoadStatus::Completed   ? "completed"
               : summary.status == LoadStatus::Cancelled ? "cancelled"
                                                         : "failed";
    r.workers = summary.workers;
    r.rows = summary.rows;
    r.resumedRows = summary.resumedRows;
    r.skippedRows = summary.skippedRows;
    r.bytes = summary.bytes;
    r.unitsCommitted = summary.unitsCommitted;
    r.unitsResumed = summary.unitsResumed;
    r.overlap = summary.overlap;
    r.retries = summary.retries;
    r.seconds = summary.seconds;
    r.meanRate = summary.seconds > 0 ? static_cast<double>(summary.rows) / summary.seconds : 0;
    r.computeSustainedRates();
    r.durability = summary.durability;
    r.phases = summary.phases;
    r.compression = summary.compression;
    if (summary.error) {
        r.error = summary.error->message;
        r.errorSqlState = summary.error->sqlState;
        r.errorUnit = summary.error->unit;
    }
    if (!summary.verification.empty() && !r.settings.empty()) { // the load checked itself
        r.ledgerRows = summary.ledgerRows;
        r.countedRows = summary.countedRows;
        r.verification = summary.verification;
        return r;
    }
    try {
        Connection conn = Connection::open(request_.conninfo);
        conn.exec("SET application_name = 'isobar report'");
        if (r.settings.empty()) { // the run ended before it looked at the server
            const ServerInfo info = probeServer(conn);
            r.serverVersion = info.version;
            r.settings = info.settings;
            r.extensions = info.extensionLines();
        }
        if (!conn.query("SELECT to_regclass($1)", {request_.table.quoted(conn)}).isNull(0, 0)) {
            const auto t0 = std::chrono::steady_clock::now();
            r.verification = verifyLoad(conn, request_, summary, r.ledgerRows, r.countedRows);
            r.phases.run.push_back(
                {"verify", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()});
        } else {
            r.verification = "the table does not exist";
        }
    } catch (const std::exception& e) {
        r.verification = std::string("the server could not be asked after the run: ") + e.what();
    }
    return r;
}

} // namespace isobar
