// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"
#include "db/HugePages.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace isobar {

struct ServerSetting {
    std::string name;
    std::string value;  // as SHOW prints it ("16GB", "on")
    std::string source; // pg_settings.source: default, configuration file, override, ...
    std::string file;   // the configuration file that set it, when the role may see it
};

struct ExtensionInfo {
    std::string name;
    std::string defaultVersion;   // what CREATE EXTENSION would install; empty: not available
    std::string installedVersion; // in the connected database; empty: not installed
    // "timescaledb 2.28.3 (installed)", "citus 13.2-1 (available)"
    std::string describe() const;
};

// What the connected role may do to the server's settings.
struct RoleInfo {
    std::string name;
    bool superuser = false;
    // Settings the role may change with ALTER SYSTEM (superuser, or GRANT ALTER SYSTEM ON PARAMETER
    // since PostgreSQL 15), of the ones Isobar toggles (fsync, full_page_writes).
    std::vector<std::string> alterSystem;
    bool reloadConf = false;       // may call pg_reload_conf()
    bool checkpoint = false;       // may run CHECKPOINT (superuser, pg_checkpoint)
    bool readFileSettings = false; // may read pg_file_settings (where each setting is written)
    bool serverPrograms = false;   // may run COPY ... TO PROGRAM (superuser, pg_execute_server_program)
    bool mayAlterSystem(const std::string& setting) const;
};

struct TableIndex {
    std::string name;       // as SQL needs it: quoted, schema-qualified when not on the search path
    std::string definition; // CREATE INDEX ...
    std::string constraint; // the PRIMARY KEY or UNIQUE constraint it belongs to, if any
};

// The target table as it is before the load: what will slow COPY down.
struct TableInfo {
    std::string name;       // as the user wrote it
    std::string quoted;     // for SQL
    char relkind = 'r';     // r table, p partitioned table
    char persistence = 'p'; // p permanent, u unlogged
    bool hypertable = false;
    bool distributed = false;
    std::vector<TableIndex> indexes;
    std::vector<std::string> triggers;     // "audit: CREATE TRIGGER ..." (user triggers, enabled)
    std::vector<std::string> foreignKeys;  // "weather_loc_fk: FOREIGN KEY (location_id) REFERENCES ..."
    std::vector<std::string> checks;       // "positive_tp: CHECK (...)"
    std::optional<bool> autovacuumEnabled; // the table's autovacuum_enabled option, when set
    bool autovacuumPausedByLoad = false;   // off because a load paused it (AutovacuumPause.h)
};

// What a run report records of the server, and what the settings warnings are made from.
struct ServerInfo {
    std::string version;   // "PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu, ..."
    int versionNumber = 0; // 150018
    // pg_control_system(): the same for every connection to one cluster, different for another
    // cluster (empty when the role may not read it).
    std::string systemIdentifier;
    std::string dataDirectory; // empty when the role may not see it
    std::vector<ServerSetting> settings;
    std::vector<ExtensionInfo> extensions;
    RoleInfo role;
    int connectionsInUse = 0;       // client connections, this one included
    std::optional<TableInfo> table; // the target table, when asked for and it exists
    // For a server on this machine (a unix socket or a loopback address): its huge pages, as
    // /proc shows them; nullopt for a server elsewhere.
    std::optional<HugePages> hugePages;
    // Whether the server runs on this machine (probeServerFileAccess), as probeServer() found it;
    // nullopt in a ServerInfo it did not make.
    std::optional<bool> onThisMachine;

    const ServerSetting* find(const std::string& name) const;
    // The setting's value, or "" when the server does not have it (older versions) or hides it.
    std::string value(const std::string& name) const;
    const ExtensionInfo* extension(const std::string& name) const;
    // "timescaledb 2.28.3 (installed)" for each extension Isobar can use or the database has.
    std::vector<std::string> extensionLines() const;
};

// The settings that matter for bulk loading (durability, WAL and checkpoints, memory, connections,
// autovacuum, preloaded libraries, archiving, checksums), what the role may change, the extensions
// Isobar can use, and - given a table - what on it slows a load down.
ServerInfo probeServer(Connection& conn, const TableName* table = nullptr);

// Whether the server may read files this process writes: it runs on this machine (a unix socket
// or a loopback address), and the role may read server files (superuser, pg_read_server_files).
struct ServerFileAccess {
    bool onThisMachine = false;
    bool mayReadFiles = false;
};
ServerFileAccess probeServerFileAccess(Connection& conn);

// A setting's size in bytes ("4GB", "128MB", "8kB"; a bare number of `unitBytes`), or nullopt.
std::optional<double> settingBytes(const std::string& value, double unitBytes = 1.0);
// A setting's duration in seconds ("5min", "30s", "1h"), or nullopt.
std::optional<double> settingSeconds(const std::string& value);

// Whether the server on `conn` can read unit files written into `dir` (on this machine, allowed
// to read server files, and able to reach the directory: checked by reading a probe file inside a
// savepoint of the open transaction). The reason when not.
std::optional<std::string> serverFilesUnusable(Connection& conn, const std::filesystem::path& dir);

} // namespace isobar
