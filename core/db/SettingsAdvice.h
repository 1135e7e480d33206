// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/ServerProbe.h"
#include "db/TableType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace isobar {

enum class Severity : std::uint8_t {
    Error,  // the load cannot run like this: refused before it starts
    Danger, // a crash can destroy data
    Slows,  // the load will be slower than it could be
    Info,   // worth knowing, nothing to fix for the load
};

// "error", "danger", "slows the load", "info"
std::string_view severityName(Severity severity);
std::optional<Severity> parseSeverity(std::string_view name);

// One finding about the server or the target table, in words a user can act on.
struct SettingWarning {
    Severity severity = Severity::Info;
    std::string subject; // the setting ("fsync") or object ("table weather") concerned
    std::string message; // one line: what is set, what it means, what to do
    std::string fix;     // SQL that would fix it; empty when SQL cannot (a restart, initdb)
};

// What the warnings are about: a load with this many workers into this table.
struct LoadIntent {
    int workers = 0; // 0: no load planned (only the server is looked at)
    // The type of the table the load creates when it is missing; nullopt: it exists or unknown.
    std::optional<TableType> newTableType;
    // Connections the load opens besides its workers (the monitor, the durability control).
    int extraConnections = 2;
};

// The server's connections as a load sees them.
struct ConnectionSlots {
    int max = 0;      // max_connections
    int reserved = 0; // of those, reserved for superusers (0 for a superuser)
    int inUse = 0;    // by other sessions
    int available() const { return max - reserved - inUse; }
};
// nullopt when the server does not show max_connections.
std::optional<ConnectionSlots> connectionSlots(const ServerInfo& server);

// The server's settings and the target table turned into warnings, the worst first.
std::vector<SettingWarning> adviseSettings(const ServerInfo& server, const LoadIntent& intent);

} // namespace isobar
