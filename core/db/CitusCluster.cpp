// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/CitusCluster.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace isobar {

namespace {

// Run on every worker node by the coordinator: the node's connections as one line,
// "max_connections reserved in_use". Reserved slots are free to a superuser only; the connection
// asking is not counted in use (it is gone when the load starts).
constexpr const char* kNodeConnections =
    "SELECT concat_ws(' ', current_setting('max_connections'), CASE WHEN (SELECT rolsuper FROM pg_roles "
    "WHERE rolname = current_user) THEN 0 ELSE current_setting('superuser_reserved_connections')::int END, "
    "(SELECT count(*) - 1 FROM pg_stat_activity WHERE backend_type = 'client backend'))";

int toInt(const std::string& text, int fallback) {
    char* end = nullptr;
    const long v = std::strtol(text.c_str(), &end, 10);
    return end != text.c_str() ? static_cast<int>(v) : fallback;
}

// A Citus setting as the coordinator applies it, or `fallback` when the role may not read it
// (citus.max_shared_pool_size is for superusers and pg_read_all_settings only).
int citusSetting(Connection& conn, const std::string& name, int fallback) {
    Result r = conn.query("SELECT setting FROM pg_settings WHERE name = $1", {name});
    return r.rows() == 1 && !r.isNull(0, 0) ? toInt(r.text(0, 0), fallback) : fallback;
}

} // namespace

int CitusCluster::shards() const {
    if (!tableDistributed) {
        return shardCount;
    }
    int all = 0;
    for (const CitusNode& node : workers) {
        all += node.shards;
    }
    return all;
}

int CitusCluster::connectionsPerSession(const CitusNode& node) const {
    return std::max(1, std::min(node.shards, poolSize));
}

int CitusCluster::connectionsNeeded(const CitusNode& node, int copySessions) const {
    const int sessions = std::max(1, copySessions);
    int needed = sessions * connectionsPerSession(node);
    if (sharedPool >= 0) {
        // Past the shared pool Citus reuses a session's connections, but each session has at
        // least one of its own on every node it writes to.
        needed = std::max(sessions, std::min(needed, sharedPool));
    }
    return needed + kCitusExtraConnections;
}

int CitusCluster::workersThatFit(const CitusNode& node) const {
    const int room = node.free() - kCitusExtraConnections;
    if (room <= 0) {
        return 0;
    }
    if (sharedPool >= 0 && sharedPool <= room) {
        return room; // the shared pool holds the connections under the room, one a session at least
    }
    return room / connectionsPerSession(node);
}

bool isCitusCoordinator(Connection& conn) {
    if (conn.query("SELECT count(*) FROM pg_extension WHERE extname = 'citus'").text(0, 0) == "0") {
        return false;
    }
    return conn.query("SELECT count(*) FROM pg_dist_node WHERE isactive AND noderole = 'primary' AND "
                      "groupid <> 0")
               .text(0, 0) != "0";
}

std::optional<CitusCluster> probeCitusCluster(Connection& conn, const TableName& table) {
    if (!isCitusCoordinator(conn)) {
        return std::nullopt;
    }
    CitusCluster cluster;
    cluster.shardCount = citusSetting(conn, "citus.shard_count", cluster.shardCount);
    cluster.poolSize =
        std::max(1, citusSetting(conn, "citus.max_adaptive_executor_pool_size", cluster.poolSize));
    const int shared = citusSetting(conn, "citus.max_shared_pool_size", 0);
    cluster.sharedPool = shared == 0 ? toInt(conn.query("SHOW max_connections").text(0, 0), -1) : shared;

    // The nodes a new table's shards go to: the workers, and the coordinator where it holds shards.
    const int shardNodes = static_cast<int>(
        conn.query("SELECT count(*) FROM pg_dist_node WHERE isactive AND noderole = 'primary' AND "
                   "shouldhaveshards")
            .integer(0, 0));
    const std::string qualified = table.quoted(conn);
    cluster.tableDistributed =
        conn.query("SELECT count(*) FROM pg_dist_partition WHERE logicalrelid = to_regclass($1)", {qualified})
            .text(0, 0) != "0";
    Result nodes = conn.query(
        "SELECT n.nodename, n.nodeport, (SELECT count(*) FROM pg_dist_placement p JOIN pg_dist_shard s USING "
        "(shardid) WHERE p.groupid = n.groupid AND s.logicalrelid = to_regclass($1)), n.shouldhaveshards "
        "FROM pg_dist_node n WHERE n.isactive AND n.noderole = 'primary' AND n.groupid <> 0 "
        "ORDER BY n.nodename, n.nodeport",
        {qualified});
    for (int i = 0; i < nodes.rows(); ++i) {
        CitusNode node;
        node.name = nodes.text(i, 0);
        node.port = static_cast<int>(nodes.integer(i, 1));
        if (cluster.tableDistributed) {
            node.shards = static_cast<int>(nodes.integer(i, 2));
        } else if (nodes.text(i, 3) == "t") {
            node.shards = (cluster.shardCount + std::max(1, shardNodes) - 1) / std::max(1, shardNodes);
        }
        cluster.workers.push_back(std::move(node));
    }
    // Each node asked in parallel; one that does not answer is reported, not raised.
    Result answers = conn.query("SELECT nodename, nodeport, success, result FROM run_command_on_workers($1)",
                                {kNodeConnections});
    std::map<std::pair<std::string, int>, std::size_t> byNode;
    for (std::size_t i = 0; i < cluster.workers.size(); ++i) {
        byNode[{cluster.workers[i].name, cluster.workers[i].port}] = i;
    }
    for (int i = 0; i < answers.rows(); ++i) {
        const auto it = byNode.find({answers.text(i, 0), static_cast<int>(answers.integer(i, 1))});
        if (it == byNode.end()) {
            continue;
        }
        CitusNode& node = cluster.workers[it->second];
        const std::string result = answers.isNull(i, 3) ? std::string() : answers.text(i, 3);
        if (answers.text(i, 2) != "t") {
            node.error = result.empty() ? "no answer" : result;
            continue;
        }
        int max = 0;
        int reserved = 0;
        int inUse = 0;
        if (std::sscanf(result.c_str(), "%d %d %d", &max, &reserved, &inUse) != 3) {
            node.error = "unexpected answer '" + result + "'";
            continue;
        }
        node.reachable = true;
        node.maxConnections = max;
        node.reserved = reserved;
        node.inUse = std::max(0, inUse);
    }
    for (CitusNode& node : cluster.workers) {
        if (!node.reachable && node.error.empty()) {
            node.error = "run_command_on_workers() did not reach it";
        }
    }
    return cluster;
}

int citusWorkersThatFit(const CitusCluster& cluster) {
    int fit = 64;
    for (const CitusNode& node : cluster.workers) {
        if (node.reachable) {
            fit = std::min(fit, cluster.workersThatFit(node));
        }
    }
    return std::max(1, fit);
}

std::vector<SettingWarning> citusClusterWarnings(const CitusCluster& cluster, int workers) {
    std::vector<SettingWarning> out;
    int fitEverywhere = 64;
    for (const CitusNode& node : cluster.workers) {
        if (node.reachable) {
            fitEverywhere = std::min(fitEverywhere, cluster.workersThatFit(node));
        }
    }
    for (const CitusNode& node : cluster.workers) {
        const std::string subject = "worker node " + node.where();
        if (!node.reachable) {
            std::string why = node.error;
            std::replace(why.begin(), why.end(), '\n', ' ');
            out.push_back({Severity::Error,
                           subject,
                           "the Citus worker node " + node.where() + " does not answer the coordinator (" +
                               why +
                               "): the distributed table's shards there cannot be written. Start the node, "
                               "or take it out of the cluster (citus_disable_node, citus_remove_node)",
                           {}});
            continue;
        }
        const int needed = cluster.connectionsNeeded(node, workers);
        if (needed <= node.free()) {
            continue;
        }
        const int perSession = cluster.connectionsPerSession(node);
        const int fit = std::min(fitEverywhere, cluster.workersThatFit(node));
        // Room for this load and what is in use now, with a margin for the others.
        const int enough = std::max(100, needed + node.inUse + node.reserved + 10);
        std::string message =
            "the Citus worker node " + node.where() + " has " + std::to_string(std::max(0, node.free())) +
            " free connections (max_connections=" + std::to_string(node.maxConnections) +
            (node.reserved > 0 ? ", " + std::to_string(node.reserved) + " reserved for superusers" : "") +
            ", " + std::to_string(node.inUse) + " in use), but " + std::to_string(std::max(1, workers)) +
            " worker(s) open up to " + std::to_string(needed) +
            " there (each COPY a connection per shard: " + std::to_string(node.shards) +
            " shard(s) of the table on the node, at most " + std::to_string(cluster.poolSize) +
            " by citus.max_adaptive_executor_pool_size, so " + std::to_string(perSession) + " a worker" +
            (cluster.sharedPool >= 0 ? "; " + std::to_string(cluster.sharedPool) +
                                           " by citus.max_shared_pool_size for all sessions"
                                     : std::string()) +
            "; and " + std::to_string(kCitusExtraConnections) + " for Citus itself): " +
            (fit > 0 ? "use --workers " + std::to_string(fit) + " or fewer, or " : std::string()) +
            "on that node run ALTER SYSTEM SET max_connections = " + std::to_string(enough) +
            " and restart it";
        std::string fix;
        if (const int room = node.free() - kCitusExtraConnections; room >= std::max(1, workers)) {
            // Citus then shares connections between shards instead of opening more: the load fits,
            // at some cost in parallelism on the node.
            message += ", or bound Citus's connections to each node from the coordinator (the SQL below)";
            fix = "ALTER SYSTEM SET citus.max_shared_pool_size = " + std::to_string(room) +
                  "; SELECT pg_reload_conf();";
        }
        out.push_back({Severity::Error, subject, message, fix});
    }
    return out;
}

std::vector<std::string> citusSessionSettings(Connection& conn, const TableName& table) {
    if (conn.query("SELECT count(*) FROM pg_extension WHERE extname = 'citus'").text(0, 0) == "0") {
        return {};
    }
    // The most shards of the table on one node, and what the COPY opens for them there.
    Result r = conn.query(
        "SELECT coalesce(max(n), 0), current_setting('citus.max_adaptive_executor_pool_size')::int FROM "
        "(SELECT count(*) AS n FROM pg_dist_placement p JOIN pg_dist_shard s USING (shardid) WHERE "
        "s.logicalrelid = to_regclass($1) GROUP BY p.groupid) placed",
        {table.quoted(conn)});
    const long long shards = r.integer(0, 0);
    if (shards == 0) {
        return {}; // not distributed
    }
    const long long perNode = std::max(1LL, std::min(shards, r.integer(0, 1)));
    // Kept open between this session's transactions: a unit's COPY then finds the connections of
    // the one before it (opening a connection costs the worker node a backend's start each time).
    return {"SET citus.max_cached_conns_per_worker = " + std::to_string(perNode)};
}

} // namespace isobar
