#pragma once

#include "db/Connection.h"

#include <string>
#include <vector>

namespace isobar {

struct ServerSetting {
    std::string name;
    std::string value;  // as SHOW prints it ("16GB", "on")
    std::string source; // pg_settings.source: default, configuration file, override, ...
    std::string file;   // the configuration file that set it, when readable
};

// What a run report records of the server, and what the settings warnings are made from.
struct ServerInfo {
    std::string version;   // "PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu, ..."
    int versionNumber = 0; // 150018
    std::vector<ServerSetting> settings;
    std::vector<std::string> extensions; // "timescaledb 2.28.3 (installed)", "citus 13.2 (available)"
    const ServerSetting* find(const std::string& name) const;
};

// The settings that matter for bulk loading (durability, WAL and checkpoints, memory, connections,
// preloaded libraries, archiving, checksums) and the extensions Isobar can use.
ServerInfo probeServer(Connection& conn);

} // namespace isobar
