// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/ServerProbe.h"

#include "db/AutovacuumPause.h"
#include "db/TableType.h"
#include "util/Text.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace isobar {

namespace {

// What Isobar reads of pg_settings. Settings an older server lacks are simply absent.
constexpr const char* kSettingNames =
    "{fsync,full_page_writes,synchronous_commit,wal_level,max_wal_size,min_wal_size,checkpoint_timeout,"
    "checkpoint_completion_target,shared_buffers,wal_buffers,wal_compression,maintenance_work_mem,"
    "max_connections,superuser_reserved_connections,reserved_connections,autovacuum,"
    "shared_preload_libraries,archive_mode,data_checksums,work_mem,effective_io_concurrency,"
    "max_worker_processes,max_wal_senders,huge_pages,huge_page_size,shared_memory_size_in_huge_pages}";

// The settings a durability toggle changes with ALTER SYSTEM.
constexpr const char* kServerWideToggles[] = {"fsync", "full_page_writes"};

RoleInfo probeRole(Connection& conn, int versionNumber) {
    RoleInfo role;
    const bool v15 = versionNumber >= 150000;
    // pg_checkpoint and GRANT ALTER SYSTEM ON PARAMETER exist since PostgreSQL 15; before, only a
    // superuser may do either.
    const Result r = conn.query(
        std::string("SELECT current_user, r.rolsuper, has_function_privilege('pg_catalog.pg_reload_conf()', "
                    "'EXECUTE'), ") +
        (v15 ? "r.rolsuper OR pg_has_role(current_user, 'pg_checkpoint', 'MEMBER'), " : "r.rolsuper, ") +
        "has_table_privilege('pg_catalog.pg_file_settings', 'SELECT') AND "
        "has_function_privilege('pg_catalog.pg_show_all_file_settings()', 'EXECUTE'), "
        "r.rolsuper OR pg_has_role(current_user, 'pg_execute_server_program', 'MEMBER') "
        "FROM pg_roles r WHERE r.rolname = current_user");
    role.name = r.text(0, 0);
    role.superuser = r.text(0, 1) == "t";
    role.reloadConf = r.text(0, 2) == "t";
    role.checkpoint = r.text(0, 3) == "t";
    role.readFileSettings = r.text(0, 4) == "t";
    role.serverPrograms = r.text(0, 5) == "t";
    for (const char* setting : kServerWideToggles) {
        bool may = role.superuser;
        if (!may && v15) {
            may = conn.query("SELECT has_parameter_privilege($1, 'ALTER SYSTEM')", {std::string(setting)})
                      .text(0, 0) == "t";
        }
        if (may) {
            role.alterSystem.emplace_back(setting);
        }
    }
    return role;
}

TableInfo probeTable(Connection& conn, const TableName& table, const std::string& oid) {
    TableInfo t;
    t.name = table.display();
    t.quoted = table.quoted(conn);
    const Result rel = conn.query(
        "SELECT relkind, relpersistence, (SELECT option_value FROM pg_options_to_table(reloptions) "
        "WHERE option_name = 'autovacuum_enabled') FROM pg_class WHERE oid = $1::oid",
        {oid});
    t.relkind = rel.text(0, 0).empty() ? 'r' : rel.text(0, 0)[0];
    t.persistence = rel.text(0, 1).empty() ? 'p' : rel.text(0, 1)[0];
    if (const auto option = rel.optionalText(0, 2)) {
        t.autovacuumEnabled = *option == "true" || *option == "on" || *option == "1";
        t.autovacuumPausedByLoad = !*t.autovacuumEnabled && autovacuumPausedByLoad(conn, oid);
    }
    const TableType type = existingTableType(conn, table);
    t.hypertable = type == TableType::Hypertable;
    t.distributed = type == TableType::Distributed;
    const Result indexes = conn.query(
        "SELECT x.indexrelid::regclass::text, pg_get_indexdef(x.indexrelid), coalesce((SELECT "
        "quote_ident(conname) FROM pg_constraint c WHERE c.conindid = x.indexrelid AND c.conrelid = "
        "x.indrelid AND c.contype IN ('p', 'u', 'x') LIMIT 1), '') FROM pg_index x WHERE x.indrelid = "
        "$1::oid ORDER BY 1",
        {oid});
    for (int i = 0; i < indexes.rows(); ++i) {
        t.indexes.push_back(TableIndex{indexes.text(i, 0), indexes.text(i, 1), indexes.text(i, 2)});
    }
    // User triggers only: not the ones PostgreSQL makes for constraints, nor the ones an extension
    // installs for its own bookkeeping (TimescaleDB's insert blocker, Citus' truncate trigger).
    const Result triggers = conn.query(
        "SELECT quote_ident(t.tgname), pg_get_triggerdef(t.oid) FROM pg_trigger t WHERE t.tgrelid = $1::oid "
        "AND NOT "
        "t.tgisinternal AND t.tgenabled <> 'D' AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = "
        "'pg_proc'::regclass AND d.objid = t.tgfoid AND d.deptype = 'e') ORDER BY 1",
        {oid});
    for (int i = 0; i < triggers.rows(); ++i) {
        t.triggers.push_back(triggers.text(i, 0) + ": " + triggers.text(i, 1));
    }
    const Result constraints = conn.query("SELECT quote_ident(conname), contype, pg_get_constraintdef(oid) "
                                          "FROM pg_constraint WHERE conrelid = $1::oid AND "
                                          "contype IN ('f', 'c') ORDER BY 1",
                                          {oid});
    for (int i = 0; i < constraints.rows(); ++i) {
        auto& list = constraints.text(i, 1) == "f" ? t.foreignKeys : t.checks;
        list.push_back(constraints.text(i, 0) + ": " + constraints.text(i, 2));
    }
    return t;
}

} // namespace

std::string ExtensionInfo::describe() const {
    if (!installedVersion.empty()) {
        return name + " " + installedVersion + " (installed)";
    }
    return name + " " + defaultVersion + " (available)";
}

bool RoleInfo::mayAlterSystem(const std::string& setting) const {
    for (const auto& s : alterSystem) {
        if (s == setting) {
            return true;
        }
    }
    return false;
}

const ServerSetting* ServerInfo::find(const std::string& name) const {
    for (const auto& s : settings) {
        if (s.name == name) {
            return &s;
        }
    }
    return nullptr;
}

std::string ServerInfo::value(const std::string& name) const {
    const ServerSetting* s = find(name);
    return s != nullptr ? s->value : std::string();
}

const ExtensionInfo* ServerInfo::extension(const std::string& name) const {
    for (const auto& e : extensions) {
        if (e.name == name) {
            return &e;
        }
    }
    return nullptr;
}

std::vector<std::string> ServerInfo::extensionLines() const {
    std::vector<std::string> lines;
    for (const auto& e : extensions) {
        lines.push_back(e.describe());
    }
    return lines;
}

ServerInfo probeServer(Connection& conn, const TableName* table) {
    ServerInfo info;
    // What needs no other answer, in one round trip: a remote server's round trips are what the
    // start of a load is made of. The data directory is a superuser-only setting, missing from
    // pg_settings for other roles (NULL here).
    const Result first = conn.query(
        "SELECT version(), (SELECT setting FROM pg_settings WHERE name = 'data_directory'), "
        "has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE'), (SELECT count(*) FROM "
        "pg_stat_activity WHERE backend_type = 'client backend'), pg_backend_pid(), to_regclass($1)::oid",
        {table != nullptr ? std::optional<std::string>(table->quoted(conn)) : std::nullopt});
    info.version = first.text(0, 0);
    info.versionNumber = conn.serverVersion();
    if (const auto dir = first.optionalText(0, 1)) {
        info.dataDirectory = *dir;
    }
    const Result r = conn.query(
        "SELECT name, current_setting(name), source, coalesce(sourcefile, '') FROM pg_settings WHERE name = "
        "ANY ($1) ORDER BY name",
        {kSettingNames});
    for (int i = 0; i < r.rows(); ++i) {
        info.settings.push_back(ServerSetting{r.text(i, 0), r.text(i, 1), r.text(i, 2), r.text(i, 3)});
    }
    if (first.text(0, 2) == "t") {
        info.systemIdentifier =
            conn.query("SELECT system_identifier::text FROM pg_control_system()").text(0, 0);
    }
    info.role = probeRole(conn, info.versionNumber);
    info.connectionsInUse = static_cast<int>(first.integer(0, 3));
    const Result ext = conn.query(
        "SELECT name, coalesce(default_version, ''), coalesce(installed_version, '') FROM "
        "pg_available_extensions WHERE name IN ('timescaledb', 'citus') OR installed_version IS NOT NULL "
        "ORDER BY name");
    for (int i = 0; i < ext.rows(); ++i) {
        info.extensions.push_back(ExtensionInfo{ext.text(i, 0), ext.text(i, 1), ext.text(i, 2)});
    }
    info.onThisMachine = probeServerFileAccess(conn).onThisMachine;
    if (*info.onThisMachine) {
        info.hugePages = probeHugePages(static_cast<int>(first.integer(0, 4)));
        if (info.hugePages) {
            const std::string needed = info.value("shared_memory_size_in_huge_pages");
            info.hugePages->needed = needed.empty() ? -1 : std::atoll(needed.c_str());
        }
    }
    if (table != nullptr && !first.isNull(0, 5)) {
        info.table = probeTable(conn, *table, first.text(0, 5));
    }
    return info;
}

namespace {

// "4GB" -> 4 x the factor of "GB" in `units`; nullopt for a unit not there or no number.
std::optional<double> scaledSetting(const std::string& value,
                                    std::initializer_list<std::pair<const char*, double>> units) {
    std::size_t used = 0;
    double number = 0;
    try {
        number = std::stod(value, &used);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    const std::string unit = trim(value.substr(used));
    for (const auto& [name, factor] : units) {
        if (unit == name) {
            return number * factor;
        }
    }
    return std::nullopt;
}

} // namespace

ServerFileAccess probeServerFileAccess(Connection& conn) {
    const Result r =
        conn.query("SELECT inet_server_addr() IS NULL OR inet_server_addr() <<= '127.0.0.0/8'::inet OR "
                   "inet_server_addr() = '::1'::inet, "
                   "(SELECT rolsuper FROM pg_roles WHERE rolname = current_user) OR "
                   "pg_has_role(current_user, 'pg_read_server_files', 'member')");
    return ServerFileAccess{r.text(0, 0) == "t", r.text(0, 1) == "t"};
}

std::optional<double> settingBytes(const std::string& value, double unitBytes) {
    constexpr double kKiB = 1024.0;
    return scaledSetting(value, {{"", unitBytes},
                                 {"B", 1.0},
                                 {"kB", kKiB},
                                 {"MB", kKiB * kKiB},
                                 {"GB", kKiB * kKiB * kKiB},
                                 {"TB", kKiB * kKiB * kKiB * kKiB}});
}

std::optional<double> settingSeconds(const std::string& value) {
    return scaledSetting(
        value,
        {{"", 1.0}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}, {"min", 60.0}, {"h", 3600.0}, {"d", 86400.0}});
}

std::optional<std::string> serverFilesUnusable(Connection& conn, const std::filesystem::path& dir) {
    const ServerFileAccess access = probeServerFileAccess(conn);
    if (!access.onThisMachine) {
        return std::string("the server is on another machine");
    }
    if (!access.mayReadFiles) {
        return std::string("the role may not read server files (superuser or pg_read_server_files)");
    }
    const std::filesystem::path probe = dir / "probe";
    {
        std::ofstream out(probe);
        out << "x";
    }
    std::filesystem::permissions(
        probe, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                   std::filesystem::perms::group_read | std::filesystem::perms::others_read);
    try {
        conn.exec("SAVEPOINT isobar_probe");
        conn.query("SELECT pg_read_binary_file($1, 0, 1)", {probe.string()});
        conn.exec("RELEASE SAVEPOINT isobar_probe");
    } catch (const DbError& e) {
        conn.exec("ROLLBACK TO SAVEPOINT isobar_probe");
        return std::string("the server cannot read ") + dir.string() + ": " + e.what();
    }
    return std::nullopt;
}

} // namespace isobar
