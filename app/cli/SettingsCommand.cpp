// SPDX-License-Identifier: GPL-3.0-or-later

#include "Commands.h"
#include "db/ConnInfo.h"
#include "db/Durability.h"
#include "db/ServerCheck.h"
#include "util/Error.h"
#include "util/Json.h"
#include "util/Text.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace isobar::cli {

namespace {

const char* kSettingsHelp =
    R"(usage: isobar-cli settings [--dsn CONNINFO] [--table NAME] [--workers N] [options]
       isobar-cli settings --restore [--dsn CONNINFO]

Shows what matters on a server for a bulk load: its durability settings (fsync, full_page_writes,
synchronous_commit), WAL and checkpoint settings, memory, connections against the workers a load
would open, autovacuum, preloaded libraries, archiving, checksums, the extensions Isobar can use,
and the indexes, triggers and constraints of the target table. Each finding is a warning with a
severity - danger (a crash can destroy data), slows the load, info - a line to act on, and the
SQL that would fix it; an error stops a load before it starts.

It also lists the durability journals on this machine: settings that an Isobar load changed for
its run (`isobar-cli load --durability fast --yes`) and that are not restored yet. A load restores
them when it ends however it ends; if it was killed, the next start does, or --restore now.

options:
)";

std::string pad(const std::string& text, std::size_t width) {
    return text.size() >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

void printJournal(const DurabilityJournal& j) {
    std::cout << "  " << j.describeChanges() << "\n    on " << j.target << " (server " << j.systemIdentifier
              << "), since " << j.startedAt << ", by process " << j.pid << " on " << j.host << ": "
              << (j.ownerAlive() ? "still running; it restores them when its run ends"
                                 : "gone - `isobar-cli settings --restore` puts them back")
              << "\n    journal " << j.path.string() << "\n";
}

void printServer(const ServerInfo& info, const std::vector<SettingWarning>& warnings, int workers) {
    std::cout << "server       " << info.version << "\n";
    if (!info.systemIdentifier.empty()) {
        std::cout << "             system identifier " << info.systemIdentifier
                  << (info.dataDirectory.empty() ? "" : ", data directory " + info.dataDirectory) << "\n";
    }
    const RoleInfo& role = info.role;
    std::string rights;
    if (!role.alterSystem.empty() && role.reloadConf && role.readFileSettings && role.checkpoint) {
        rights = "may change " + join(role.alterSystem, ", ") + " for a run";
    } else {
        rights =
            "may not change server settings for a run (needs superuser, or ALTER SYSTEM on the parameters, "
            "pg_reload_conf(), pg_file_settings and pg_checkpoint)";
    }
    std::cout << "role         " << role.name << (role.superuser ? " (superuser)" : "") << ": " << rights
              << "\n";
    std::cout << "extensions   " << join(info.extensionLines(), ", ", "none that Isobar uses") << "\n";
    std::cout << "connections  " << info.connectionsInUse
              << " in use of max_connections=" << info.value("max_connections") << "; a load with " << workers
              << " worker(s) opens " << workers + 2 << "\n\n";
    std::cout << pad("setting", 32) << pad("value", 16) << "source\n";
    for (const ServerSetting& s : info.settings) {
        std::cout << pad(s.name, 32) << pad(s.value, 16) << s.source
                  << (s.file.empty() ? "" : " (" + s.file + ")") << "\n";
    }
    if (info.table) {
        const TableInfo& t = *info.table;
        std::cout << "\ntable " << t.name << ": "
                  << (t.hypertable       ? "hypertable"
                      : t.distributed    ? "distributed"
                      : t.relkind == 'p' ? "partitioned"
                                         : (t.persistence == 'u' ? "unlogged" : "regular"))
                  << ", " << t.indexes.size() << " index(es), " << t.triggers.size() << " trigger(s), "
                  << t.foreignKeys.size() << " foreign key(s), " << t.checks.size()
                  << " check(s), autovacuum "
                  << (t.autovacuumEnabled ? (*t.autovacuumEnabled ? "on" : "off") : "as the server") << "\n";
    }
    std::cout << "\n";
    if (warnings.empty()) {
        std::cout << "no warnings: nothing on this server endangers or slows a load\n";
    }
    for (const SettingWarning& w : warnings) {
        std::cout << formatWarning(w, true) << "\n";
    }
}

void printJson(const ServerInfo& info, const std::vector<SettingWarning>& warnings,
               const std::vector<DurabilityJournal>& journals) {
    JsonWriter j;
    j.beginObject();
    j.field("version", info.version).field("versionNumber", info.versionNumber);
    j.field("systemIdentifier", info.systemIdentifier).field("dataDirectory", info.dataDirectory);
    j.key("role").beginObject().field("name", info.role.name).field("superuser", info.role.superuser);
    j.key("alterSystem").beginArray();
    for (const auto& s : info.role.alterSystem) {
        j.value(s);
    }
    j.endArray().field("reloadConf", info.role.reloadConf).field("checkpoint", info.role.checkpoint);
    j.field("readFileSettings", info.role.readFileSettings).endObject();
    j.key("settings").beginArray();
    for (const auto& s : info.settings) {
        j.beginObject().field("name", s.name).field("value", s.value).field("source", s.source);
        j.field("file", s.file).endObject();
    }
    j.endArray();
    j.key("extensions").beginArray();
    for (const auto& e : info.extensions) {
        j.beginObject().field("name", e.name).field("available", e.defaultVersion);
        j.field("installed", e.installedVersion).endObject();
    }
    j.endArray();
    j.key("warnings").beginArray();
    for (const auto& w : warnings) {
        j.beginObject().field("severity", severityName(w.severity)).field("subject", w.subject);
        j.field("message", w.message).field("fix", w.fix).endObject();
    }
    j.endArray();
    j.key("journals").beginArray();
    for (const auto& journal : journals) {
        j.beginObject().field("systemIdentifier", journal.systemIdentifier).field("target", journal.target);
        j.field("changes", journal.describeChanges()).field("pid", static_cast<std::int64_t>(journal.pid));
        j.field("ownerAlive", journal.ownerAlive()).field("path", journal.path.string()).endObject();
    }
    j.endArray();
    j.endObject();
    std::cout << j.str() << "\n";
}

void printNote(const std::string& message) {
    std::cerr << "isobar-cli: note: " << message << "\n";
}

// --restore: this server's journal, or every abandoned one on this machine.
int restore(const ParsedArgs& parsed) {
    std::vector<std::string> targets;
    if (parsed.value("dsn")) {
        targets.push_back(targetFrom(parsed));
    } else {
        for (const auto& j : DurabilityJournal::list()) {
            // The embedded cluster may be stopped: its settings can only be restored while it runs.
            try {
                LocalCluster embedded(clusterOptionsFrom(parsed));
                std::error_code ec;
                if (!j.dataDirectory.empty() &&
                    std::filesystem::equivalent(j.dataDirectory, embedded.dataDir(), ec)) {
                    embedded.start();
                }
            } catch (const Error& e) {
                std::cerr << "isobar-cli: warning: " << e.what() << "\n";
            }
            targets.push_back(journalConnInfo(j));
        }
        if (targets.empty()) {
            std::cout << "nothing to restore: no durability journal in "
                      << DurabilityJournal::directory().string() << "\n";
            return kExitOk;
        }
    }
    int status = kExitOk;
    for (const auto& target : targets) {
        try {
            const auto outcomes = restoreAbandoned(target, printNote);
            if (outcomes.empty()) {
                std::cout << "nothing to restore on " << redactConnInfo(target) << "\n";
            }
            for (const auto& o : outcomes) {
                if (o.restored) {
                    std::cout << "restored on " << redactConnInfo(target)
                              << (o.problem.empty() ? "" : " (" + o.problem + ")") << "\n";
                } else {
                    printError(o.problem);
                    status = kExitFailed;
                }
            }
        } catch (const Error& e) {
            printError(redactConnInfo(target) + ": " + e.what());
            status = kExitFailed;
        }
    }
    return status;
}

} // namespace

std::string formatWarning(const SettingWarning& w, bool withFix) {
    std::string line = "[" + std::string(severityName(w.severity)) + "] " + w.message;
    if (withFix && !w.fix.empty()) {
        line += "\n    fix: " + w.fix;
    }
    return line;
}

std::vector<OptionSpec> durabilityOptionSpecs() {
    return {
        {"durability", "fast|safe|unchanged",
         "fast: fsync, full_page_writes and synchronous_commit off for this run only (needs --yes); safe: "
         "all on; "
         "default unchanged"},
        {"fsync", "on|off", "server-wide fsync for this run only, restored after it (off needs --yes)"},
        {"full-page-writes", "on|off", "server-wide full_page_writes for this run only (off needs --yes)"},
        {"synchronous-commit", "on|off|local|...", "synchronous_commit on the load's own connections"},
    };
}

DurabilityRequest durabilityFrom(const ParsedArgs& args) {
    const std::string presetName = args.value("durability", "unchanged");
    const auto preset = DurabilityRequest::preset(presetName);
    if (!preset) {
        throw UsageError{"--durability takes fast, safe or unchanged, not '" + presetName + "'"};
    }
    DurabilityRequest request = *preset;
    const auto onOff = [&args](const std::string& name) -> std::optional<bool> {
        const auto v = args.value(name);
        if (!v) {
            return std::nullopt;
        }
        if (*v != "on" && *v != "off") {
            throw UsageError{"--" + name + " takes on or off, not '" + *v + "'"};
        }
        return *v == "on";
    };
    if (const auto v = onOff("fsync")) {
        request.fsync = v;
    }
    if (const auto v = onOff("full-page-writes")) {
        request.fullPageWrites = v;
    }
    if (const auto v = args.value("synchronous-commit")) {
        static const char* kValues[] = {"on", "off", "local", "remote_write", "remote_apply"};
        if (std::find(std::begin(kValues), std::end(kValues), *v) == std::end(kValues)) {
            throw UsageError{
                "--synchronous-commit takes on, off, local, remote_write or remote_apply, not '" + *v + "'"};
        }
        request.synchronousCommit = *v;
    }
    request.consent = args.flag("yes");
    if (request.needsConsent() && !request.consent) {
        throw UsageError{
            "loading with " + request.describe() + " trades safety for speed: " + request.risks() +
            ". Everything is restored when the load ends, or at the next start if Isobar is killed. "
            "Add --yes to accept this."};
    }
    return request;
}

void restoreAbandonedOn(const std::string& conninfo) {
    try {
        for (const auto& outcome : restoreAbandoned(conninfo, printNote)) {
            if (!outcome.restored) {
                printError(outcome.problem);
            }
        }
    } catch (const Error& e) {
        std::cerr << "isobar-cli: warning: " << e.what() << "\n";
    }
}

void warnAbandonedJournals() {
    std::vector<std::string> problems;
    for (const auto& j : DurabilityJournal::list(&problems)) {
        if (!j.ownerAlive()) {
            std::cerr << "isobar-cli: warning: an Isobar load that was killed left " << j.describeChanges()
                      << " on " << j.target
                      << "; `isobar-cli settings --restore` puts them back (a load on that server "
                      << "does it first)\n";
        }
    }
    for (const auto& p : problems) {
        std::cerr << "isobar-cli: warning: " << p << "\n";
    }
}

int runSettingsCommand(const std::vector<std::string>& args) {
    std::vector<OptionSpec> specs = {
        {"dsn", "CONNINFO", "libpq connection string or URI (default: the embedded cluster)"},
        {"table", "NAME", "the table a load would go into (default: weather)"},
        {"table-type", "TYPE", "the type a load would create it with when it is missing (default regular)"},
        {"workers", "N", "the workers a load would use (default: the number of cores, at most 8)"},
        {"restore", "",
         "put back settings that a killed load left changed (this server with --dsn, else every server with "
         "a "
         "journal on this machine)"},
        {"json", "", "print the findings as JSON"},
    };
    const auto cluster = embeddedClusterOptionSpecs();
    specs.insert(specs.end(), cluster.begin(), cluster.end());
    specs.push_back({"help", "", "show this help"});
    const ParsedArgs parsed("settings", specs, args);
    if (parsed.flag("help")) {
        std::cout << kSettingsHelp << describeOptions(specs);
        return kExitOk;
    }
    if (!parsed.positional().empty()) {
        throw UsageError{"settings takes no file arguments"};
    }
    if (parsed.flag("restore")) {
        return restore(parsed);
    }
    ServerCheckRequest request;
    request.applicationName = "isobar settings";
    try {
        request.table = TableName::parse(parsed.value("table", "weather"));
    } catch (const Error& e) {
        throw UsageError{std::string("--table: ") + e.what()};
    }
    request.workers = static_cast<int>(parsed.integer("workers", defaultWorkerCount(), 1, 256));
    if (const auto type = parsed.value("table-type")) {
        const auto parsedType = parseTableType(*type);
        if (!parsedType) {
            throw UsageError{
                "--table-type takes regular, unlogged, partitioned, hypertable or distributed, not '" +
                *type + "'"};
        }
        request.newTableType = parsedType;
    }
    request.conninfo = targetFrom(parsed);
    const ServerCheck check = checkServer(request);
    if (parsed.flag("json")) {
        printJson(check.info, check.warnings, check.journals);
        return kExitOk;
    }
    printServer(check.info, check.warnings, request.workers);
    if (!check.journals.empty()) {
        std::cout << "\ndurability changes of an Isobar load still in place on this server:\n";
        for (const auto& j : check.journals) {
            printJournal(j);
        }
    }
    return kExitOk;
}

} // namespace isobar::cli
