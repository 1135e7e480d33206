// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/SettingsAdvice.h"

#include "db/Compression.h"
#include "util/Format.h"
#include "util/Text.h"

#include <algorithm>
#include <cmath>

namespace isobar {

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr double kMiB = 1024.0 * 1024;

// Where a setting comes from decides how it is fixed: ALTER SYSTEM overrides postgresql.conf and
// the defaults, but not the server's command line, nor per-database or per-role settings.
class Advisor {
public:
    Advisor(const ServerInfo& server, const LoadIntent& intent)
        : s_(server)
        , intent_(intent) {}

    std::vector<SettingWarning> run() {
        durability();
        walAndCheckpoints();
        memory();
        connections();
        extensions();
        maintenance();
        table();
        std::stable_sort(out_.begin(), out_.end(), [](const SettingWarning& a, const SettingWarning& b) {
            return static_cast<int>(a.severity) < static_cast<int>(b.severity);
        });
        return std::move(out_);
    }

private:
    void add(Severity severity, std::string subject, std::string message, std::string fix = {}) {
        out_.push_back(SettingWarning{severity, std::move(subject), std::move(message), std::move(fix)});
    }

    // SQL that sets `name` server-wide, or empty with `where` filled in when the value comes from
    // somewhere ALTER SYSTEM cannot override.
    std::string alterSystem(const std::string& name, const std::string& value, bool reload,
                            std::string* where = nullptr) const {
        const ServerSetting* setting = s_.find(name);
        const std::string source = setting != nullptr ? setting->source : std::string();
        if (source == "command line" || source == "environment variable") {
            if (where != nullptr) {
                *where = " (set on the server's " + source + ": change it there)";
            }
            return {};
        }
        if ((source == "database" || source == "user" || source == "database user") && where != nullptr) {
            *where = " (set for this " + source + ": ALTER " +
                     (source == "database" ? std::string("DATABASE") : std::string("ROLE")) + " ... RESET " +
                     name + " as well)";
        }
        return "ALTER SYSTEM SET " + name + " = " + singleQuoted(value) + "; " +
               (reload ? "SELECT pg_reload_conf();" : "-- then restart the server");
    }

    void durability() {
        std::string where;
        if (s_.value("fsync") == "off") {
            const std::string fix = alterSystem("fsync", "on", true, &where);
            add(Severity::Danger, "fsync",
                "fsync=off: an operating-system crash or power loss can corrupt the whole cluster - every "
                "database on this server, not only this table; turn it back on" +
                    where,
                fix);
        }
        where.clear();
        if (s_.value("full_page_writes") == "off") {
            const std::string fix = alterSystem("full_page_writes", "on", true, &where);
            add(Severity::Danger, "full_page_writes",
                "full_page_writes=off: a crash while a page is half written leaves it torn, and recovery "
                "cannot repair it (silent corruption); turn it back on" +
                    where,
                fix);
        }
        where.clear();
        if (s_.value("synchronous_commit") == "off") {
            const std::string fix = alterSystem("synchronous_commit", "on", true, &where);
            add(Severity::Info, "synchronous_commit",
                "synchronous_commit=off: a crash may lose the last commits of the last fraction of a second, "
                "never corrupts; Isobar's ledger commits with the rows, so rerunning the load reloads what "
                "was lost" +
                    where,
                fix);
        }
        if (s_.value("data_checksums") == "off") {
            add(Severity::Info, "data_checksums",
                "data checksums are off: pages damaged by a disk or memory fault are read back without "
                "complaint (pg_checksums --enable turns them on while the server is stopped)");
        }
    }

    void walAndCheckpoints() {
        const auto maxWal = settingBytes(s_.value("max_wal_size"), kMiB);
        if (maxWal && *maxWal < 4 * kGiB) {
            std::string where;
            const std::string fix = alterSystem("max_wal_size", "16GB", true, &where);
            add(Severity::Slows, "max_wal_size",
                "max_wal_size=" + s_.value("max_wal_size") +
                    ": a bulk load writes that much WAL in seconds, so checkpoints follow each other "
                    "(checkpoint storms), each writing every changed page again and restarting full-page "
                    "images; raise it to 16GB for the load (pg_wal then needs up to that much disk)" +
                    where,
                fix);
        }
        const auto timeout = settingSeconds(s_.value("checkpoint_timeout"));
        if (timeout && *timeout < 600) {
            std::string where;
            const std::string fix = alterSystem("checkpoint_timeout", "30min", true, &where);
            add(Severity::Slows, "checkpoint_timeout",
                "checkpoint_timeout=" + s_.value("checkpoint_timeout") +
                    ": a long load checkpoints that often, and the first change of each page after a "
                    "checkpoint writes the whole page to WAL again; 30min suits bulk loads" +
                    where,
                fix);
        }
        const std::string target = s_.value("checkpoint_completion_target");
        if (!target.empty() && std::atof(target.c_str()) < 0.9) {
            add(Severity::Info, "checkpoint_completion_target",
                "checkpoint_completion_target=" + target +
                    ": checkpoints write in bursts instead of spreading the writes out (0.9 is the default "
                    "since PostgreSQL 14)",
                alterSystem("checkpoint_completion_target", "0.9", true));
        }
        if (s_.value("archive_mode") == "on" || s_.value("archive_mode") == "always") {
            add(Severity::Slows, "archive_mode",
                "archive_mode=" + s_.value("archive_mode") +
                    ": every WAL segment the load writes is also copied to the archive, so the archive grows "
                    "by about as much WAL as the load writes (roughly the table's size), and a slow "
                    "archive_command makes pg_wal grow until it keeps up");
        }
        if (s_.value("wal_level") == "logical") {
            add(Severity::Info, "wal_level",
                "wal_level=logical: each row writes a little more WAL than with replica (needed only for "
                "logical replication or decoding)");
        }
        if (s_.value("wal_compression") != "off" && !s_.value("wal_compression").empty()) {
            add(Severity::Info, "wal_compression",
                "wal_compression=" + s_.value("wal_compression") +
                    ": full-page images are compressed - less WAL to write, more server CPU per page");
        }
    }

    void memory() {
        const ServerSetting* buffers = s_.find("shared_buffers");
        const auto shared = buffers != nullptr ? settingBytes(buffers->value, 8192) : std::nullopt;
        if (shared && *shared <= 128 * kMiB) {
            add(Severity::Info, "shared_buffers",
                "shared_buffers=" + buffers->value +
                    " (the initdb default): COPY writes through a small ring of buffers whatever this is, "
                    "but the server's other work and the index builds after a load want more; about a "
                    "quarter "
                    "of the server's RAM is usual",
                alterSystem("shared_buffers", "4GB", false));
        }
        if (shared && *shared >= kGiB) {
            hugePages(buffers->value, *shared);
        }
        const ServerSetting* walBuffers = s_.find("wal_buffers");
        const auto wal = walBuffers != nullptr ? settingBytes(walBuffers->value, 8192) : std::nullopt;
        if (wal && *wal < 16 * kMiB) {
            const bool configured = walBuffers->source == "configuration file";
            add(configured ? Severity::Slows : Severity::Info, "wal_buffers",
                "wal_buffers=" + walBuffers->value +
                    (configured ? ": set explicitly below 16MB, so parallel COPY waits for WAL buffer space; "
                                  "use -1 (automatic) or 16MB to 64MB"
                                : ": sized automatically from a small shared_buffers; 16MB or more lets "
                                  "parallel COPY streams write WAL without waiting"),
                alterSystem("wal_buffers", "64MB", false));
        }
    }

    // A server on this machine whose large shared memory is in 4 kB pages.
    void hugePages(const std::string& buffersValue, double sharedBytes) {
        if (!s_.hugePages || s_.hugePages->pageBytes <= 0) {
            return;
        }
        const HugePages& h = *s_.hugePages;
        // Without a look at the server's mappings, only "none reserved" is certain.
        if (h.serverUses.value_or(h.total > 0)) {
            return;
        }
        const std::string setting = s_.value("huge_pages");
        const std::int64_t needed =
            h.needed > 0 ? h.needed : static_cast<std::int64_t>(std::ceil(sharedBytes * 1.05 / h.pageBytes));
        const std::int64_t unclaimed = std::max<std::int64_t>(0, h.available());
        std::string state;
        std::string how;
        if (unclaimed >= needed) {
            state = std::to_string(h.total) +
                    " huge pages are reserved on this machine, enough, but the server "
                    "started without them";
        } else {
            state = h.total == 0 ? std::string("this machine has no huge pages reserved")
                                 : std::to_string(h.total) + " huge pages are reserved on this machine, " +
                                       std::to_string(unclaimed) + " of them unclaimed";
            how = "reserve " + std::to_string(needed) + " pages of " +
                  formatBytes(static_cast<std::uint64_t>(h.pageBytes)) +
                  " as root (sysctl -w vm.nr_hugepages=" + std::to_string(h.total - unclaimed + needed) +
                  ", and the same in a file in /etc/sysctl.d to keep it), ";
        }
        std::string fix;
        if (setting == "off") {
            fix = alterSystem("huge_pages", "try", false);
            how += "set huge_pages = try, ";
        }
        add(Severity::Slows, "huge_pages",
            "shared_buffers=" + buffersValue +
                " is in 4 kB pages (huge_pages=" + (setting.empty() ? "?" : setting) + "; " + state +
                "): every connection, each of a load's workers among them, faults in and walks the page "
                "tables for each buffer page it touches (on a 2-core virtual machine a 4-hour load and the "
                "server's own COPY of it each took a sixth less time with huge pages); " +
                how + "then restart the server" + (setting == "off" ? "" : " (huge_pages=try takes them)"),
            fix);
    }

    void connections() {
        if (intent_.workers <= 0) {
            return;
        }
        const auto slots = connectionSlots(s_);
        if (!slots) {
            return;
        }
        const int maxConnections = slots->max;
        const int reserved = slots->reserved;
        const int inUse = slots->inUse;
        const int available = slots->available();
        const int needed = intent_.workers + intent_.extraConnections;
        if (needed > available) {
            const int workersPossible = std::max(0, available - intent_.extraConnections);
            add(Severity::Error, "max_connections",
                std::to_string(intent_.workers) + " worker(s) need " + std::to_string(needed) +
                    " connections, but the server allows max_connections=" + std::to_string(maxConnections) +
                    (reserved > 0 ? ", " + std::to_string(reserved) + " of them reserved for superusers"
                                  : "") +
                    ", and " + std::to_string(inUse) + " are in use: " +
                    (workersPossible > 0
                         ? "use --workers " + std::to_string(workersPossible) + " or fewer, or "
                         : std::string()) +
                    "raise max_connections (takes a restart)",
                alterSystem("max_connections", std::to_string(std::max(100, needed + inUse + reserved + 10)),
                            false));
        }
    }

    void extensions() {
        const std::string preload = s_.value("shared_preload_libraries");
        // One list for both: applying one advice and then the other must not drop the first.
        std::string list = preload;
        for (const char* name : {"timescaledb", "citus"}) {
            const ExtensionInfo* e = s_.extension(name);
            if (e != nullptr && !e->defaultVersion.empty() && preload.find(name) == std::string::npos) {
                list = preloadListWith(list, name);
            }
        }
        const auto advise = [&](const char* name, const char* product, bool wanted, const char* without) {
            const ExtensionInfo* e = s_.extension(name);
            if (e == nullptr || e->defaultVersion.empty() || preload.find(name) != std::string::npos) {
                return;
            }
            add(wanted ? Severity::Error : Severity::Info, "shared_preload_libraries",
                std::string(product) + " " + e->defaultVersion +
                    " is installed on the server but not in shared_preload_libraries" +
                    (preload.empty() ? "" : " (" + preload + ")") + ": " + without +
                    " until it is preloaded, which takes a server restart",
                alterSystem("shared_preload_libraries", list, false));
        };
        advise("timescaledb", "TimescaleDB",
               intent_.newTableType == TableType::Hypertable || (s_.table && s_.table->hypertable),
               "hypertables cannot be used");
        advise("citus", "Citus",
               intent_.newTableType == TableType::Distributed || (s_.table && s_.table->distributed),
               "distributed tables cannot be used");
        // How --compress will compress a hypertable on this server.
        if (const ExtensionInfo* e = s_.extension("timescaledb");
            e != nullptr && !e->defaultVersion.empty() &&
            (intent_.newTableType == TableType::Hypertable || (s_.table && s_.table->hypertable))) {
            const std::string& version =
                e->installedVersion.empty() ? e->defaultVersion : e->installedVersion;
            add(Severity::Info, "timescaledb.enable_direct_compress_copy",
                hasDirectCompress(version)
                    ? "TimescaleDB " + version +
                          " compresses rows as COPY receives them (direct compress, a feature it calls "
                          "experimental): --compress uses it on each load's own connections; "
                          "--compress=after-load compresses the chunks after the load instead"
                    : "TimescaleDB " + version +
                          " compresses a hypertable's chunks only after the load (--compress); 2.21 and "
                          "later compress rows as COPY receives them, in about half the time",
                "");
        }
    }

    void maintenance() {
        if (s_.value("autovacuum") == "off") {
            add(Severity::Info, "autovacuum",
                "autovacuum=off: nothing will ANALYZE the loaded rows (the planner will not know them) or "
                "freeze them; run VACUUM (FREEZE, ANALYZE) on the table after the load",
                alterSystem("autovacuum", "on", true));
        }
        const auto mwm = settingBytes(s_.value("maintenance_work_mem"), 1024);
        const bool buildsIndex = intent_.newTableType == TableType::Hypertable ||
                                 (s_.table && (s_.table->hypertable || !s_.table->indexes.empty()));
        if (mwm && *mwm < 256 * kMiB && buildsIndex) {
            add(Severity::Info, "maintenance_work_mem",
                "maintenance_work_mem=" + s_.value("maintenance_work_mem") +
                    ": index builds after the load sort in that much memory; 1GB makes them several times "
                    "faster",
                alterSystem("maintenance_work_mem", "1GB", true));
        }
    }

    void table() {
        if (!s_.table) {
            return;
        }
        const TableInfo& t = *s_.table;
        if (t.autovacuumPausedByLoad) {
            add(Severity::Info, "table " + t.name,
                "autovacuum of " + t.name +
                    " is paused by a load of it that has not finished (one still running, or one whose "
                    "process ended first); the load of it that completes turns it on again",
                "ALTER TABLE " + t.quoted + " RESET (autovacuum_enabled);");
        } else if (t.autovacuumEnabled && !*t.autovacuumEnabled) {
            add(Severity::Info, "table " + t.name,
                "autovacuum is off for " + t.name +
                    ": nothing will ANALYZE or freeze the loaded rows; run VACUUM (FREEZE, ANALYZE) " +
                    t.name + " after the load, or turn it back on",
                "ALTER TABLE " + t.quoted + " RESET (autovacuum_enabled);");
        }
        if (!t.indexes.empty()) {
            std::vector<std::string> names;
            std::string drop;
            std::string recreate;
            for (const TableIndex& i : t.indexes) {
                names.push_back(i.name + (i.constraint.empty() ? "" : " (" + i.constraint + ")"));
                if (i.constraint.empty()) {
                    drop += "DROP INDEX " + i.name + "; ";
                    recreate += i.definition + "; ";
                } else {
                    drop += "ALTER TABLE " + t.quoted + " DROP CONSTRAINT " + i.constraint + "; ";
                    recreate += "ALTER TABLE " + t.quoted + " ADD CONSTRAINT " + i.constraint + " ... ; ";
                }
            }
            const std::string own = t.name.substr(t.name.rfind('.') + 1) + "_time_idx";
            const std::string& only = t.indexes.front().name;
            const bool ownIndex = t.hypertable && t.indexes.size() == 1 && only.size() >= own.size() &&
                                  only.compare(only.size() - own.size(), own.size(), own) == 0;
            add(Severity::Slows, "table " + t.name,
                t.name + " has " + std::to_string(t.indexes.size()) + " index(es), " + join(names, ", ") +
                    ": every row updates each of them, which is several times slower than building them "
                    "once after the load" +
                    (ownIndex
                         ? " (Isobar's own index on time: dropped before a large load, it is built again "
                           "once every row is in)"
                         : ""),
                drop + "-- after the load: " + recreate);
        }
        if (!t.triggers.empty()) {
            std::vector<std::string> names;
            std::string disable;
            for (const auto& trigger : t.triggers) {
                const std::string name = trigger.substr(0, trigger.find(':'));
                names.push_back(name);
                disable += "ALTER TABLE " + t.quoted + " DISABLE TRIGGER " + name + "; ";
            }
            add(Severity::Slows, "table " + t.name,
                t.name + " has " + std::to_string(t.triggers.size()) + " trigger(s), " + join(names, ", ") +
                    ": each fires for every row; disable them for the load only if what they do is not "
                    "needed "
                    "for these rows",
                disable + "-- after the load: ENABLE TRIGGER ...");
        }
        if (!t.foreignKeys.empty()) {
            std::vector<std::string> names;
            for (const auto& fk : t.foreignKeys) {
                names.push_back(fk.substr(0, fk.find(':')));
            }
            add(Severity::Slows, "table " + t.name,
                t.name + " has foreign key(s) " + join(names, ", ") +
                    ": every row is looked up in the referenced table; drop them for the load and add them "
                    "back after (checked once, in bulk)");
        }
        if (!t.checks.empty()) {
            std::vector<std::string> names;
            for (const auto& c : t.checks) {
                names.push_back(c.substr(0, c.find(':')));
            }
            add(Severity::Info, "table " + t.name,
                t.name + " has check constraint(s) " + join(names, ", ") +
                    ": each row is checked (cheap); a row that fails rolls back its whole work unit");
        }
    }

    const ServerInfo& s_;
    const LoadIntent& intent_;
    std::vector<SettingWarning> out_;
};

} // namespace

std::string_view severityName(Severity severity) {
    switch (severity) {
    case Severity::Error:
        return "error";
    case Severity::Danger:
        return "danger";
    case Severity::Slows:
        return "slows the load";
    case Severity::Info:
        return "info";
    }
    return "info";
}

std::optional<Severity> parseSeverity(std::string_view name) {
    for (Severity s : {Severity::Error, Severity::Danger, Severity::Slows, Severity::Info}) {
        if (severityName(s) == name) {
            return s;
        }
    }
    return std::nullopt;
}

std::optional<ConnectionSlots> connectionSlots(const ServerInfo& server) {
    ConnectionSlots slots;
    slots.max = std::atoi(server.value("max_connections").c_str());
    if (slots.max <= 0) {
        return std::nullopt;
    }
    // Superusers may use the reserved slots; everyone else may not.
    if (!server.role.superuser) {
        slots.reserved = std::atoi(server.value("superuser_reserved_connections").c_str()) +
                         std::atoi(server.value("reserved_connections").c_str());
    }
    // The probe's own connection is counted in use; a load does not keep it.
    slots.inUse = std::max(0, server.connectionsInUse - 1);
    return slots;
}

std::vector<SettingWarning> adviseSettings(const ServerInfo& server, const LoadIntent& intent) {
    return Advisor(server, intent).run();
}

} // namespace isobar
