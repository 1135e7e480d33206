// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/ServerCheck.h"

#include <algorithm>

namespace isobar {

ServerCheck checkServer(const ServerCheckRequest& request) {
    Connection conn = Connection::open(request.conninfo);
    conn.exec("SET application_name = " + conn.quoteLiteral(request.applicationName));
    return checkServer(conn, request);
}

ServerCheck checkServer(Connection& conn, const ServerCheckRequest& request) {
    ServerCheck check;
    check.conninfo = request.conninfo;
    check.info = probeServer(conn, &request.table);
    LoadIntent intent;
    intent.workers = std::max(1, request.workers);
    if (!check.info.table) {
        intent.newTableType = request.newTableType.value_or(TableType::Regular);
    }
    check.warnings = adviseSettings(check.info, intent);
    check.wal = probeWalRetention(conn);
    auto retention = walRetentionWarnings(check.wal);
    if (!retention.empty()) {
        for (auto& w : retention) {
            check.warnings.push_back(std::move(w));
        }
        std::stable_sort(
            check.warnings.begin(), check.warnings.end(),
            [](const SettingWarning& a, const SettingWarning& b) { return a.severity < b.severity; });
    }
    check.timescaledb = timescaledbStatus(check.info);
    check.citus = citusStatus(check.info);
    if (const auto slots = connectionSlots(check.info)) {
        check.maxWorkers = std::clamp(slots->available() - intent.extraConnections, 1, 64);
    }
    // The rows of a distributed table go on to the worker nodes, each opening connections of its
    // own there: the coordinator's max_connections alone does not say whether the load fits.
    const bool distributed =
        check.info.table ? check.info.table->distributed : intent.newTableType == TableType::Distributed;
    if (distributed && !check.citus.installedVersion.empty()) {
        check.citusCluster = probeCitusCluster(conn, request.table);
        if (check.citusCluster) {
            for (auto& w : citusClusterWarnings(*check.citusCluster, intent.workers)) {
                check.warnings.push_back(std::move(w));
            }
            std::stable_sort(
                check.warnings.begin(), check.warnings.end(),
                [](const SettingWarning& a, const SettingWarning& b) { return a.severity < b.severity; });
            check.maxWorkers = std::min(check.maxWorkers, citusWorkersThatFit(*check.citusCluster));
        }
    }
    const std::string& server = check.info.systemIdentifier;
    for (auto& j : DurabilityJournal::list()) {
        if (!server.empty() && j.systemIdentifier != server) {
            continue; // another server's
        }
        if (j.systemIdentifier == server && !j.ownerAlive()) {
            check.pendingRestores.push_back(j);
        }
        check.journals.push_back(std::move(j));
    }
    return check;
}

} // namespace isobar
