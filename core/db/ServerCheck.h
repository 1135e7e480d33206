// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/CitusCluster.h"
#include "db/Durability.h"
#include "db/ServerProbe.h"
#include "db/ServerStorage.h"
#include "db/SettingsAdvice.h"
#include "db/TableType.h"

#include <optional>
#include <string>
#include <vector>

namespace isobar {

// What a server is checked for: a load with this many workers into this table.
struct ServerCheckRequest {
    std::string conninfo;
    TableName table{{}, "weather"};
    int workers = 1;
    // The type the load would create the table with when it is missing (regular when not said).
    std::optional<TableType> newTableType;
    std::string applicationName = "isobar"; // how the check's connection shows in pg_stat_activity
};

// A server as a load sees it before it starts: its settings and the target table, the warnings
// they make for this load, which table types it can make (and why not), how many workers its
// connections leave room for, and durability changes Isobar runs left in place there.
struct ServerCheck {
    std::string conninfo; // the server checked
    ServerInfo info;
    std::vector<SettingWarning> warnings; // the worst first; an Error stops a load before it starts
    WalRetention wal; // archiving, replication slots, standbys (their warnings are in `warnings`)
    ExtensionStatus timescaledb;
    ExtensionStatus citus;
    int maxWorkers = 64; // what max_connections leaves for workers (and, on a Citus coordinator, the nodes)
    // A load into a distributed table (or one to be created) on a Citus coordinator: its worker
    // nodes, their connections and the table's shards on each (their findings are in `warnings`).
    std::optional<CitusCluster> citusCluster;
    // The durability journals on this machine for this server: every one of them when the role may
    // not read which server this is.
    std::vector<DurabilityJournal> journals;
    // Of those, the ones surely of this server whose run is gone: settings a killed run left changed,
    // which restoreAbandoned(conninfo) puts back.
    std::vector<DurabilityJournal> pendingRestores;
};

// Connects to request.conninfo and looks. Blocking (a server that does not answer takes the
// connect timeout); throws isobar::Error (DbError with its SQLSTATE) when the server cannot be
// reached or read. Starting the embedded cluster first is the caller's part
// (startEmbeddedCluster()).
ServerCheck checkServer(const ServerCheckRequest& request);
// The same on a connection the caller holds (request.conninfo only names it).
ServerCheck checkServer(Connection& conn, const ServerCheckRequest& request);

} // namespace isobar
