// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/Durability.h"

#include "db/ConnInfo.h"
#include "db/ServerProbe.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/Format.h"
#include "util/Process.h"
#include "util/Text.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace isobar {

namespace {

// Whether any server's durability journal is on disk (a run that changed settings and ended without
// restoring them).
bool anyJournalFile() {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(DurabilityJournal::directory(), ec)) {
        if (DurabilityJournal::isJournalFile(entry.path())) {
            return true;
        }
    }
    return false;
}

using Clock = std::chrono::steady_clock;

// How long a reload may take to reach a fresh connection before Isobar calls it failed.
constexpr auto kReloadTimeout = std::chrono::seconds(15);
// How long a killed run's control connection may take to go away on the server.
constexpr auto kDeadOwnerGrace = std::chrono::seconds(8);

constexpr const char* kMarkerPrefix = "isobar durability ";

// What a process shows in pg_stat_activity while it owns durability changes on a server:
// "isobar durability <host>:<pid>", within the 63 bytes of an application_name.
std::string ownerMarker(const std::string& host, long long pid) {
    std::string marker = kMarkerPrefix + host.substr(0, 32) + ":" + std::to_string(pid);
    return marker.substr(0, 63);
}

std::string ownMarker() {
    return ownerMarker(hostName(), static_cast<long long>(getpid()));
}

struct OtherOwner {
    std::string marker;
    std::string pid;
    std::string client;
    std::string since;
    std::string describe() const {
        return "backend " + pid + ", " + marker.substr(std::string(kMarkerPrefix).size()) + " from " +
               client + ", since " + since + " UTC";
    }
};

// Isobar processes that announce, on this server, that they own or restore durability changes.
std::vector<OtherOwner> otherOwners(Connection& conn) {
    const Result r = conn.query(
        "SELECT application_name, pid::text, coalesce(host(client_addr), 'the local socket'), "
        "to_char(backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') FROM pg_stat_activity WHERE "
        "application_name LIKE 'isobar durability %' AND pid <> pg_backend_pid() ORDER BY backend_start");
    std::vector<OtherOwner> out;
    out.reserve(static_cast<std::size_t>(r.rows()));
    for (int i = 0; i < r.rows(); ++i) {
        out.push_back(OtherOwner{r.text(i, 0), r.text(i, 1), r.text(i, 2), r.text(i, 3)});
    }
    return out;
}

// The setting's line in postgresql.auto.conf, read from the file as it is now (pg_file_settings
// parses the files at each query, so it shows an ALTER SYSTEM before any reload).
std::optional<std::string> autoConfEntry(Connection& conn, const std::string& name) {
    const Result r = conn.query(
        "SELECT setting FROM pg_file_settings WHERE name = $1 AND sourcefile LIKE '%/postgresql.auto.conf' "
        "ORDER BY seqno DESC LIMIT 1",
        {name});
    if (r.rows() == 0 || r.isNull(0, 0)) {
        return std::nullopt;
    }
    return r.text(0, 0);
}

struct LiveSetting {
    std::string value;
    std::string source;
    std::string file;
};

LiveSetting liveSetting(Connection& conn, const std::string& name) {
    const Result r = conn.query(
        "SELECT current_setting(name), source, coalesce(sourcefile, '') FROM pg_settings WHERE name = $1",
        {name});
    if (r.rows() != 1) {
        throw Error("the server has no setting " + name);
    }
    return LiveSetting{r.text(0, 0), r.text(0, 1), r.text(0, 2)};
}

// Polls fresh connections until `mismatch` finds nothing wrong (a reload reaches new backends
// only once the postmaster has reread the files). Returns the last mismatch after the timeout.
std::optional<std::string>
waitUntilSeen(const std::string& conninfo,
              const std::function<std::optional<std::string>(Connection&)>& mismatch) {
    const auto deadline = Clock::now() + kReloadTimeout;
    std::optional<std::string> last;
    while (true) {
        try {
            Connection fresh = Connection::open(conninfo);
            last = mismatch(fresh);
            if (!last) {
                return std::nullopt;
            }
        } catch (const Error& e) {
            last = std::string("a fresh connection failed: ") + e.what();
        }
        if (Clock::now() >= deadline) {
            return last;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

std::vector<std::pair<std::string, std::string>> serverWideChanges(const DurabilityRequest& request) {
    std::vector<std::pair<std::string, std::string>> wanted;
    if (request.fsync) {
        wanted.emplace_back("fsync", *request.fsync ? "on" : "off");
    }
    if (request.fullPageWrites) {
        wanted.emplace_back("full_page_writes", *request.fullPageWrites ? "on" : "off");
    }
    return wanted;
}

void checkRights(const ServerInfo& info, const std::vector<std::string>& names) {
    const RoleInfo& role = info.role;
    std::vector<std::string> missing;
    for (const auto& name : names) {
        if (!role.mayAlterSystem(name)) {
            missing.push_back("ALTER SYSTEM of " + name + " (GRANT ALTER SYSTEM ON PARAMETER " + name + ")");
        }
    }
    if (!role.reloadConf) {
        missing.emplace_back("pg_reload_conf() (GRANT EXECUTE ON FUNCTION pg_reload_conf() ...)");
    }
    if (!role.readFileSettings) {
        missing.emplace_back(
            "reading pg_file_settings, to restore each setting where it was written (GRANT SELECT ON "
            "pg_file_settings, GRANT EXECUTE ON FUNCTION pg_show_all_file_settings())");
    }
    if (!role.checkpoint) {
        missing.emplace_back("CHECKPOINT (GRANT pg_checkpoint)");
    }
    if (info.systemIdentifier.empty()) {
        missing.emplace_back("pg_control_system(), which identifies the server in the journal");
    }
    if (missing.empty()) {
        return;
    }
    throw Error("role " + role.name + " may not change server settings for the run: it needs " +
                join(missing, "; ") + " - or connect as a superuser. Nothing was changed.");
}

// Puts a journal's changes back on the server, verifies them from a fresh connection, makes
// what was written meanwhile durable, and removes the journal. Never throws.
DurabilityOutcome restoreJournal(const DurabilityJournal& journal, const std::string& conninfo,
                                 const DurabilityNote& note) {
    DurabilityOutcome outcome;
    outcome.changes = journal.changes;
    outcome.journal = journal.path;
    std::vector<const SettingChange*> ours;
    try {
        Connection conn = Connection::open(conninfo);
        conn.exec("SET application_name = " + conn.quoteLiteral(ownMarker()));
        const std::string systemIdentifier =
            conn.query("SELECT system_identifier::text FROM pg_control_system()").text(0, 0);
        if (systemIdentifier != journal.systemIdentifier) {
            throw Error("this is another server (system identifier " + systemIdentifier +
                        ", the journal is for " + journal.systemIdentifier + ")");
        }
        for (auto it = journal.changes.rbegin(); it != journal.changes.rend(); ++it) {
            const SettingChange& c = *it;
            const auto entry = autoConfEntry(conn, c.name);
            if (entry && *entry == c.applied) {
                if (c.autoConfValue) {
                    conn.exec("ALTER SYSTEM SET " + c.name + " = " + conn.quoteLiteral(*c.autoConfValue));
                } else {
                    conn.exec("ALTER SYSTEM RESET " + c.name);
                }
                ours.push_back(&c);
            } else if (entry == c.autoConfValue) {
                ours.push_back(&c); // already back in the file (an earlier, interrupted restore)
            } else {
                note(c.name +
                     " was changed by someone else since Isobar set it (postgresql.auto.conf now says " +
                     (entry ? *entry : std::string("nothing")) + "): left as it is");
            }
        }
        conn.exec("SELECT pg_reload_conf()");
        const auto mismatch =
            waitUntilSeen(conninfo, [&ours](Connection& fresh) -> std::optional<std::string> {
                for (const SettingChange* c : ours) {
                    const LiveSetting now = liveSetting(fresh, c->name);
                    const bool fileKnown = !c->originalFile.empty() && !now.file.empty();
                    if (now.value != c->original || now.source != c->originalSource ||
                        (fileKnown && now.file != c->originalFile)) {
                        return c->name + " is " + now.value + " (" + now.source + ") instead of " +
                               c->original + " (" + c->originalSource + ")";
                    }
                }
                return std::nullopt;
            });
        if (mismatch) {
            throw Error("after restoring and reloading, " + *mismatch);
        }
        std::vector<std::string> restored;
        restored.reserve(ours.size());
        for (const SettingChange* c : ours) {
            restored.push_back(c->name + "=" + c->original);
        }
        if (!restored.empty()) {
            note("restored " + join(restored, ", ") + " (verified from a fresh connection)");
        }
        const bool fsyncOn = liveSetting(conn, "fsync").value == "on";
        const bool fsyncWasOff = std::any_of(ours.begin(), ours.end(), [](const SettingChange* c) {
            return c->name == "fsync" && c->applied == "off";
        });
        // PostgreSQL's documentation: after running with fsync off, everything the kernel still
        // holds must reach the disk (sync) - a checkpoint alone skips files it wrote meanwhile.
        if (fsyncWasOff && fsyncOn) {
            const ServerInfo info = probeServer(conn);
            if (info.role.serverPrograms) {
                try {
                    conn.exec("COPY (SELECT 1) TO PROGRAM 'sync'");
                    outcome.synced = true;
                } catch (const Error& e) {
                    note(std::string("could not run sync on the server (") + e.what() +
                         "): run sync on the server's machine, or restart the server cleanly, before relying "
                         "on "
                         "what was written while fsync was off");
                }
            } else {
                note("what was written while fsync was off may still be only in the server's OS cache: run "
                     "sync "
                     "on the server's machine, or restart the server cleanly, before relying on it");
            }
        }
        // Full-page images protect pages again only from the next checkpoint on, and with fsync
        // back on a checkpoint makes everything written so far durable.
        if (!ours.empty()) {
            conn.exec("CHECKPOINT");
            outcome.checkpointed = true;
            note(std::string(outcome.synced ? "flushed the server's OS caches (sync) and ran a CHECKPOINT"
                                            : "ran a CHECKPOINT") +
                 ": what was loaded is durable");
        }
    } catch (const std::exception& e) {
        outcome.problem = std::string("could not restore ") + journal.describeChanges() + " on " +
                          journal.target + ": " + e.what() + "; the journal " + journal.path.string() +
                          " is kept: run `isobar-cli settings --restore` once the server is reachable";
        return outcome;
    }
    try {
        removeFileDurably(journal.path);
        outcome.restored = true;
    } catch (const Error& e) {
        outcome.problem =
            std::string("settings are restored, but the journal cannot be removed: ") + e.what();
    }
    return outcome;
}

} // namespace

// ---- DurabilityRequest ----

std::optional<DurabilityRequest> DurabilityRequest::preset(std::string_view name) {
    DurabilityRequest r;
    if (name == "fast") {
        r.fsync = false;
        r.fullPageWrites = false;
        r.synchronousCommit = "off";
    } else if (name == "safe") {
        r.fsync = true;
        r.fullPageWrites = true;
        r.synchronousCommit = "on";
    } else if (name != "unchanged") {
        return std::nullopt;
    }
    return r;
}

bool DurabilityRequest::needsConsent() const {
    return (fsync && !*fsync) || (fullPageWrites && !*fullPageWrites) || synchronousCommit == "off";
}

std::string DurabilityRequest::describe() const {
    std::string out;
    const auto add = [&out](const std::string& s) {
        out += (out.empty() ? "" : ", ") + s;
    };
    if (fsync) {
        add(std::string("fsync=") + (*fsync ? "on" : "off"));
    }
    if (fullPageWrites) {
        add(std::string("full_page_writes=") + (*fullPageWrites ? "on" : "off"));
    }
    if (!synchronousCommit.empty()) {
        add("synchronous_commit=" + synchronousCommit);
    }
    return out.empty() ? "nothing" : out;
}

std::string DurabilityRequest::risks() const {
    std::string out;
    const auto add = [&out](const std::string& s) {
        out += (out.empty() ? "" : "; ") + s;
    };
    if (fsync && !*fsync) {
        add("fsync=off is server-wide: until the run ends and it is restored, an operating-system crash or "
            "power loss can corrupt the whole cluster - every database on the server, not only this table");
    }
    if (fullPageWrites && !*fullPageWrites) {
        add("full_page_writes=off is server-wide: a crash meanwhile can leave torn pages that recovery "
            "cannot repair");
    }
    if (synchronousCommit == "off") {
        add("synchronous_commit=off (the load's own connections only): a crash may lose the last commits, "
            "which a rerun loads again");
    }
    if ((fsync && *fsync) || (fullPageWrites && *fullPageWrites)) {
        add("turning fsync or full_page_writes on changes them for every database on the server until the "
            "run ends");
    }
    return out;
}

void checkDurabilityRights(const ServerInfo& server, const DurabilityRequest& request) {
    std::vector<std::string> names;
    for (const auto& w : serverWideChanges(request)) {
        names.push_back(w.first);
    }
    if (!names.empty()) {
        checkRights(server, names);
    }
}

std::vector<DurabilityOutcome> restoreAbandoned(const std::string& conninfo, const DurabilityNote& note) {
    // Asking the server which journal is its own costs a connection (some 20 ms of the server's
    // time at every start): none is needed when no journal exists at all.
    if (!anyJournalFile()) {
        return {};
    }
    Connection conn = Connection::open(conninfo);
    if (conn.query("SELECT has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE')").text(0, 0) !=
        "t") {
        return {}; // such a role cannot have changed settings either
    }
    const std::string systemIdentifier =
        conn.query("SELECT system_identifier::text FROM pg_control_system()").text(0, 0);
    const fs::path path = DurabilityJournal::pathFor(systemIdentifier);
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        return {};
    }
    const DurabilityJournal journal = DurabilityJournal::read(path);
    if (journal.ownerAlive()) {
        throw Error("the durability changes on this server (" + journal.describeChanges() +
                    ") belong to a running Isobar (process " + std::to_string(journal.pid) + ", since " +
                    journal.startedAt + "), which restores them when its run ends");
    }
    // A killed owner's connection goes away within moments; anyone else announcing is alive.
    const std::string deadOwner = ownerMarker(journal.host, journal.pid);
    const auto deadline = Clock::now() + kDeadOwnerGrace;
    while (true) {
        const auto others = otherOwners(conn);
        const bool onlyDead = std::all_of(others.begin(), others.end(), [&deadOwner](const OtherOwner& o) {
            return o.marker == deadOwner;
        });
        if (others.empty()) {
            break;
        }
        if (!onlyDead || Clock::now() >= deadline) {
            throw Error("another Isobar is changing or restoring settings on this server right now (" +
                        others.front().describe() + "); try again when it is done");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    note("an Isobar run that ended without restoring them (process " + std::to_string(journal.pid) + ", " +
         journal.startedAt + ") left " + journal.describeChanges() + " on this server: restoring");
    return {restoreJournal(journal, conninfo, note)};
}

// ---- DurabilitySession ----

struct DurabilitySession::State {
    std::string conninfo;
    DurabilityNote note;
    std::unique_ptr<Connection> control; // announces ownership while the run lasts
    std::optional<DurabilityJournal> journal;
    std::vector<SettingChange> changes;
    std::optional<DurabilityOutcome> outcome;
};

DurabilitySession::DurabilitySession(const std::string& conninfo, const DurabilityRequest& request,
                                     DurabilityNote note)
    : state_(std::make_unique<State>()) {
    state_->conninfo = conninfo;
    state_->note = note ? std::move(note) : [](const std::string&) {
    };
    static const char* kSyncValues[] = {"on", "off", "local", "remote_write", "remote_apply"};
    if (!request.synchronousCommit.empty() && std::find(std::begin(kSyncValues), std::end(kSyncValues),
                                                        request.synchronousCommit) == std::end(kSyncValues)) {
        throw Error("synchronous_commit takes on, off, local, remote_write or remote_apply, not '" +
                    request.synchronousCommit + "'");
    }
    if (request.needsConsent() && !request.consent) {
        throw Error("loading with " + request.describe() + " needs the user's consent, because " +
                    request.risks());
    }
    synchronousCommit_ = request.synchronousCommit;
    if (!request.changesServer()) {
        return;
    }
    const auto wanted = serverWideChanges(request);
    auto control = std::make_unique<Connection>(Connection::open(conninfo));
    // Announce first, then look for others: of two runs starting together, at least one sees the
    // other and refuses.
    control->exec("SET application_name = " + control->quoteLiteral(ownMarker()));
    const ServerInfo info = probeServer(*control);
    std::vector<std::string> names;
    names.reserve(wanted.size());
    for (const auto& w : wanted) {
        names.push_back(w.first);
    }
    checkRights(info, names);
    if (const auto others = otherOwners(*control); !others.empty()) {
        throw Error(
            "another Isobar run owns durability changes on this server (" + others.front().describe() +
            "); it restores them when it ends - run this load after it, or without durability changes");
    }
    const fs::path path = DurabilityJournal::pathFor(info.systemIdentifier);
    std::error_code ec;
    if (fs::exists(path, ec)) {
        const DurabilityJournal earlier = DurabilityJournal::read(path);
        if (earlier.ownerAlive()) {
            throw Error("another Isobar run (process " + std::to_string(earlier.pid) + ", since " +
                        earlier.startedAt + ") has changed " + earlier.describeChanges() +
                        " on this server; it restores them when it ends");
        }
        state_->note("an Isobar run that ended without restoring them (process " +
                     std::to_string(earlier.pid) + ", " + earlier.startedAt + ") left " +
                     earlier.describeChanges() + ": restoring them first");
        const DurabilityOutcome restored = restoreJournal(earlier, conninfo, state_->note);
        if (!restored.restored) {
            throw Error(restored.problem);
        }
    }
    for (const auto& [name, value] : wanted) {
        const LiveSetting now = liveSetting(*control, name);
        if (now.source == "command line" || now.source == "environment variable" ||
            now.source == "override") {
            throw Error(name + " is set on the server's " + now.source +
                        ", which ALTER SYSTEM cannot override; change it there or load without changing " +
                        name + ". Nothing was changed.");
        }
        if (now.value == value) {
            state_->note(name + " is already " + value + " on this server: left as it is");
            continue;
        }
        state_->changes.push_back(
            SettingChange{name, now.value, now.source, now.file, autoConfEntry(*control, name), value});
    }
    if (state_->changes.empty()) {
        return;
    }
    DurabilityJournal journal;
    journal.systemIdentifier = info.systemIdentifier;
    journal.dataDirectory = info.dataDirectory;
    journal.target = redactConnInfo(conninfo);
    journal.host = hostName();
    journal.pid = static_cast<long long>(getpid());
    const auto stamp = readProcessStamp(getpid());
    journal.processStart = stamp ? stamp->startTicks : 0;
    journal.startedAt = formatUtcNow("%Y-%m-%dT%H:%M:%SZ");
    journal.changes = state_->changes;
    journal.path = path;
    // On disk before anything changes: if this process dies from here on, the next start restores.
    writeFileAtomically(path, journal.render());
    state_->journal = journal;
    state_->control = std::move(control);
    try {
        for (const SettingChange& c : state_->changes) {
            state_->control->exec("ALTER SYSTEM SET " + c.name + " = " +
                                  state_->control->quoteLiteral(c.applied));
        }
        state_->control->exec("SELECT pg_reload_conf()");
        const auto& changes = state_->changes;
        const auto mismatch =
            waitUntilSeen(conninfo, [&changes](Connection& fresh) -> std::optional<std::string> {
                for (const SettingChange& c : changes) {
                    const std::string now = liveSetting(fresh, c.name).value;
                    if (now != c.applied) {
                        return c.name + " is still " + now;
                    }
                }
                return std::nullopt;
            });
        if (mismatch) {
            throw Error("the server did not take " + journal.describeChanges() + " within " +
                        std::to_string(kReloadTimeout.count()) + " s of pg_reload_conf(): " + *mismatch);
        }
    } catch (const std::exception& e) {
        const DurabilityOutcome undone = restore();
        throw Error(std::string(e.what()) +
                    (undone.restored ? "; the settings were put back" : "; " + undone.problem));
    }
    state_->note("server-wide for this run: " + describeSettingChanges(state_->changes) +
                 " (verified from a fresh connection; journal " + path.string() + ")");
}

DurabilitySession::~DurabilitySession() {
    if (state_ && !state_->outcome) {
        const DurabilityOutcome outcome = restore();
        if (!outcome.problem.empty()) {
            spdlog::error("{}", outcome.problem);
        }
    }
}

const std::vector<SettingChange>& DurabilitySession::changes() const noexcept {
    return state_->changes;
}

DurabilityOutcome DurabilitySession::restore() {
    if (state_->outcome) {
        return *state_->outcome;
    }
    DurabilityOutcome outcome;
    if (state_->journal) {
        outcome = restoreJournal(*state_->journal, state_->conninfo, state_->note);
    }
    state_->control.reset();
    if (!synchronousCommit_.empty()) {
        outcome.sessionSettings = "synchronous_commit=" + synchronousCommit_;
        if (synchronousCommit_ != "on") {
            // One synchronous commit flushes the WAL of every asynchronous commit before it.
            try {
                Connection conn = Connection::open(state_->conninfo);
                conn.exec("SET synchronous_commit = on");
                conn.exec("BEGIN");
                conn.query("SELECT txid_current()");
                conn.exec("COMMIT");
                state_->note("flushed the WAL of the asynchronous commits: every committed unit is durable");
            } catch (const Error& e) {
                const std::string problem =
                    std::string("could not flush the WAL of the asynchronous commits: ") + e.what();
                outcome.problem += (outcome.problem.empty() ? "" : "; ") + problem;
            }
        }
    }
    state_->outcome = outcome;
    return outcome;
}

} // namespace isobar
