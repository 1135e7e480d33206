// SPDX-License-Identifier: GPL-3.0-or-later

#include "report/ReportText.h"

#include "util/Format.h"

#include <algorithm>
#include <cmath>

namespace isobar {

std::string workersText(const RunReport& r) {
    if (!r.autoWorkers) {
        return std::to_string(r.workers);
    }
    return "auto, up to " + std::to_string(r.maxWorkers) + ": " + std::to_string(r.workers) +
           " at the end, " + std::to_string(r.workerChanges.size()) + " change(s)";
}

std::string workerChangeText(const WorkerChange& c) {
    return "workers " + std::to_string(c.from) + " → " + std::to_string(c.to) + " at " +
           formatDuration(c.elapsed) + (c.reason.empty() ? "" : ": " + c.reason);
}

std::string checkpointText(const RunReport::Checkpoint& c) {
    std::string text = c.requested ? "requested (WAL reached max_wal_size, or a CHECKPOINT was run)"
                                   : "timed (checkpoint_timeout)";
    if (c.rateBefore > 0 && c.rateAfter >= 0) {
        const long change = std::lround((c.rateAfter / c.rateBefore - 1.0) * 100.0);
        text += ": " + formatCompact(c.rateBefore) + " rows/s in the 10 s before, " +
                formatCompact(c.rateAfter) + " after (" + (change >= 0 ? "+" : "") + std::to_string(change) +
                " %)";
    }
    return text;
}

std::string standbyLagText(const RunReport::Standby& s) {
    std::string text = s.state.empty() ? std::string("state unknown") : s.state;
    text += s.maxReplayLag < 0 ? ", no replay lag reported"
                               : ", replay lag up to " + formatDuration(s.maxReplayLag);
    if (s.maxReplayBytes >= 0) {
        text += ", up to " + formatBytes(static_cast<std::uint64_t>(s.maxReplayBytes)) + " behind";
    }
    return text;
}

namespace {

// The archiver's worst backlog (-1: not seen) and its failures, over the run.
std::pair<std::int64_t, std::uint64_t> archiverFigures(const RunReport& r) {
    std::int64_t backlog = -1;
    std::uint64_t failures = 0;
    for (const auto& s : r.server) {
        backlog = std::max(backlog, s.archiveBacklog);
        failures = std::max(failures, s.archiveFailures);
    }
    return {backlog, failures};
}

} // namespace

std::string archiverText(const RunReport& r) {
    const auto [backlog, failures] = archiverFigures(r);
    if (backlog < 0 && failures == 0) {
        return {};
    }
    return (backlog >= 0 ? "up to " + std::to_string(backlog) + " WAL segment(s) waiting"
                         : std::string("backlog not seen")) +
           ", " + std::to_string(failures) + " failed archive_command run(s)";
}

bool archiverFailed(const RunReport& r) {
    return archiverFigures(r).second > 0;
}

bool seesTheDisk(const RunReport& r) {
    return std::any_of(r.server.begin(), r.server.end(), [](const RunReport::Server& s) {
        return s.freeBytes >= 0 || s.walFreeBytes >= 0 || s.walDirBytes >= 0 || s.tableBytes >= 0;
    });
}

} // namespace isobar
