// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"
#include "db/SettingsAdvice.h"

#include <optional>
#include <string>
#include <vector>

namespace isobar {

// A Citus worker node as a load into a distributed table sees it from the coordinator.
struct CitusNode {
    std::string name; // as pg_dist_node has it: a host name, an address or a socket directory
    int port = 0;
    bool reachable = false;
    std::string error; // why the coordinator could not run a command there
    int maxConnections = 0;
    int reserved = 0; // superuser_reserved_connections, 0 when the coordinator's role is a superuser there
    int inUse = 0;    // client connections, not counting the one that asked
    int shards = 0;   // placements of the table there (for a new table: its share of citus.shard_count)

    std::string where() const { return name + ":" + std::to_string(port); }
    int free() const { return maxConnections - reserved - inUse; }
};

// The coordinator's view of its cluster for one load.
//
// How many connections a COPY opens (Citus 13, commands/multi_copy.c, CopyGetPlacementConnection):
// one per shard placement of a hash-distributed table on each node, up to
// citus.max_adaptive_executor_pool_size per node (past it, shards share the connections); across
// all the coordinator's sessions citus.max_shared_pool_size connections per node (0: the
// coordinator's max_connections, -1: no bound) after which Citus reuses the session's connections
// instead of opening more. At the end of each transaction a session keeps
// citus.max_cached_conns_per_worker of them (default 1) and closes the others.
struct CitusCluster {
    std::vector<CitusNode> workers; // the active primary worker nodes
    bool tableDistributed = false;  // the target exists as a distributed table (its placements counted)
    int shardCount = 32;            // citus.shard_count: a new table's shards
    int poolSize = 16;              // citus.max_adaptive_executor_pool_size
    int sharedPool = -1;            // citus.max_shared_pool_size as it applies (-1: no bound)

    // The shards one COPY writes to: the table's, or a new table's citus.shard_count.
    int shards() const;
    // Connections one COPY session opens on `node`.
    int connectionsPerSession(const CitusNode& node) const;
    // Connections `copySessions` concurrent COPY sessions (Isobar's workers, not Citus's worker
    // nodes) open on `node`, at most.
    int connectionsNeeded(const CitusNode& node, int copySessions) const;
    // The most COPY sessions `node` has room for (0: not even one).
    int workersThatFit(const CitusNode& node) const;
};

// Connections Citus itself may open to a node during a load besides the COPY sessions' (its
// maintenance daemon recovers prepared transactions and looks for distributed deadlocks).
inline constexpr int kCitusExtraConnections = 1;

// Whether the database on `conn` is a Citus coordinator with worker nodes (the citus extension is
// created there and pg_dist_node lists active primary workers).
bool isCitusCoordinator(Connection& conn);

// The cluster behind a coordinator for a load into `table`: each active worker node asked (through
// run_command_on_workers) for its connections; the table's placements on each, or - when the table
// does not exist yet - each node's share of citus.shard_count. nullopt when `conn` is not a Citus
// coordinator with workers. Throws DbError when the coordinator cannot be read.
std::optional<CitusCluster> probeCitusCluster(Connection& conn, const TableName& table);

// The findings for a load with `workers` COPY sessions: a node that does not answer, a node
// without room for the connections the load opens (with the largest --workers that fits, and
// how to give it room). Severity::Error stops the load before it starts.
std::vector<SettingWarning> citusClusterWarnings(const CitusCluster& cluster, int workers);

// The most COPY sessions every node of the cluster has room for (at least 1).
int citusWorkersThatFit(const CitusCluster& cluster);

// The session settings a COPY worker of a load into `table` needs on this connection: for a
// distributed table, keeping its connections to the worker nodes between transactions (a unit is a
// transaction; without it every unit opens a connection per shard again). Empty for any other
// table or server. Throws DbError.
std::vector<std::string> citusSessionSettings(Connection& conn, const TableName& table);

} // namespace isobar
