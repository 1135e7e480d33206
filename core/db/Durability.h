// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"
#include "db/ServerProbe.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace isobar {

// What a load may change to trade durability for speed for one run. fsync and full_page_writes are
// server-wide (ALTER SYSTEM + reload: every database on the server runs like that meanwhile);
// synchronous_commit is set on the load's own connections only.
struct DurabilityRequest {
    std::optional<bool> fsync;
    std::optional<bool> fullPageWrites;
    std::string synchronousCommit; // empty: unchanged; on, off, local, remote_write, remote_apply
    // The user agreed to the risks (--yes, or the GUI's confirmation).
    bool consent = false;

    // "fast": all three off; "safe": all on; "unchanged": nothing. nullopt for another name.
    static std::optional<DurabilityRequest> preset(std::string_view name);

    bool any() const { return fsync || fullPageWrites || !synchronousCommit.empty(); }
    bool changesServer() const { return fsync || fullPageWrites; }
    // Whether anything is lowered or changed server-wide: what needs consent.
    bool needsConsent() const;
    // "fsync=off, full_page_writes=off, synchronous_commit=off"
    std::string describe() const;
    // What can go wrong meanwhile, for the consent question.
    std::string risks() const;
};

// One server-wide setting changed for a run, with everything needed to put it back exactly.
struct SettingChange {
    std::string name;
    std::string original;       // current_setting() before the run
    std::string originalSource; // pg_settings.source before: default, configuration file, ...
    std::string originalFile;   // pg_settings.sourcefile before (empty for a default)
    // The setting's line in postgresql.auto.conf before the run (an earlier ALTER SYSTEM); without
    // one, restoring is ALTER SYSTEM RESET, which leaves postgresql.conf or the default in charge.
    std::optional<std::string> autoConfValue;
    std::string applied; // what the run set
};

// The record, on this machine's disk, of server-wide settings a run changed: written (and
// flushed) before the first change, removed once everything is restored and verified. A journal
// whose owner process is gone means settings are still changed: the next start restores them.
struct DurabilityJournal {
    std::string systemIdentifier; // pg_control_system(): which cluster
    std::string dataDirectory;
    std::string target; // the connection target, without password
    std::string host;   // the machine the owning process runs on
    long long pid = 0;
    unsigned long long processStart = 0; // with pid: the owning process, not a later one with its PID
    std::string startedAt;               // UTC
    std::vector<SettingChange> changes;
    std::filesystem::path path; // where it is stored

    // stateDirectory()/durability
    static std::filesystem::path directory();
    // Where the journal of the server with this system identifier is kept (one per server).
    static std::filesystem::path pathFor(const std::string& systemIdentifier);
    // Whether `path` has a journal's name (server-<id>.json).
    static bool isJournalFile(const std::filesystem::path& path);
    // Every journal in directory(); unreadable files are reported through `problems`.
    static std::vector<DurabilityJournal> list(std::vector<std::string>* problems = nullptr);
    static DurabilityJournal read(const std::filesystem::path& path); // throws isobar::Error
    std::string render() const;

    // True while the process that wrote it is running (on this machine).
    bool ownerAlive() const;
    // "fsync=off (was on), full_page_writes=off (was on)"
    std::string describeChanges() const;
};

// "fsync=off (was on), full_page_writes=off (was on)"
std::string describeSettingChanges(const std::vector<SettingChange>& changes);

// How a run's durability changes ended.
struct DurabilityOutcome {
    std::vector<SettingChange> changes; // server-wide changes made for the run
    std::string sessionSettings;        // "synchronous_commit=off" on the load's connections
    bool restored = false;              // every change is back and verified, the journal removed
    bool checkpointed = false;          // CHECKPOINT ran after the restore
    bool synced = false;                // the server's OS flushed its caches (fsync was off)
    std::string problem;                // what went wrong while restoring (journal kept)
    std::filesystem::path journal;
    bool any() const { return !changes.empty() || !sessionSettings.empty(); }
};

using DurabilityNote = std::function<void(const std::string&)>;

// The durability changes of one run. Construction checks everything first - consent, the role's
// rights, that no other Isobar run owns changes on this server, that ALTER SYSTEM can override
// where each setting comes from - then journals, applies, reloads and verifies from a fresh
// connection. It throws isobar::Error, with nothing left changed, when any step fails.
//
// restore() puts every setting back as it was (ALTER SYSTEM RESET where the value came from
// postgresql.conf or the default), reloads, verifies, flushes the server's OS caches and runs a
// CHECKPOINT so what was loaded meanwhile is durable, then removes the journal. The destructor
// restores when restore() was not called. If the process dies instead, the journal stays and
// restoreAbandoned() does it on the next start.
class DurabilitySession {
public:
    DurabilitySession(const std::string& conninfo, const DurabilityRequest& request, DurabilityNote note);
    DurabilitySession(const DurabilitySession&) = delete;
    DurabilitySession& operator=(const DurabilitySession&) = delete;
    ~DurabilitySession();

    // Never throws: problems come back in the outcome. Once is enough; later calls return the
    // first outcome.
    DurabilityOutcome restore();

    const std::vector<SettingChange>& changes() const noexcept;
    const std::string& synchronousCommit() const noexcept { return synchronousCommit_; }

private:
    struct State;
    std::unique_ptr<State> state_;
    std::string synchronousCommit_;
};

// Throws isobar::Error naming what the role lacks (and how to grant it) when it may not make the
// server-wide changes `request` asks for; a load calls it before it creates or changes anything.
void checkDurabilityRights(const ServerInfo& server, const DurabilityRequest& request);

// Restores what runs that died left changed on the server `conninfo` reaches (its journals on
// this machine whose owner is gone), saying what through `note`. Returns one outcome per journal
// (none when nothing is pending). Throws isobar::Error when a running Isobar owns the changes, or
// the server cannot be reached.
std::vector<DurabilityOutcome> restoreAbandoned(const std::string& conninfo, const DurabilityNote& note);

// Journals on this machine whose owner is gone: settings still changed on some server.
std::vector<DurabilityJournal> abandonedJournals();

// A connection string for a journal's target (libpq defaults when it recorded none).
std::string journalConnInfo(const DurabilityJournal& journal);

} // namespace isobar
