#pragma once

#include "db/Durability.h"
#include "db/ServerProbe.h"
#include "db/SettingsAdvice.h"
#include "db/TableType.h"

#include <optional>
#include <string>
#include <vector>

namespace isobar::ui {

// Where the desktop app loads to: the embedded cluster (started when needed) or a server the
// user describes. The password lives only in memory; ~/.pgpass works as for psql.
struct ConnectionChoice {
    bool embedded = true;
    std::string conninfo; // when not embedded
};

// What the app shows about a target before a load: the server, its warnings for this load, which
// table types it can do (and why not), and durability changes a killed run left there.
struct ServerCheck {
    std::string conninfo; // what to load to (the embedded cluster's, once started)
    std::optional<std::string> error;
    ServerInfo info;
    std::vector<SettingWarning> warnings;
    ExtensionStatus timescaledb;
    ExtensionStatus citus;
    int maxWorkers = 64; // what max_connections leaves for workers
    std::vector<DurabilityJournal> pendingRestores;
};

// Connects (starting the embedded cluster when chosen) and looks. Never throws: a failure is in
// `error`, worded for the user. Blocking: call it off the GUI thread.
ServerCheck checkServer(const ConnectionChoice& choice, const std::string& table, int workers,
                        std::optional<TableType> newTableType);

} // namespace isobar::ui
