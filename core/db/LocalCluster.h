// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/PostmasterLock.h"
#include "util/Process.h"

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>

namespace isobar {

struct LocalClusterOptions {
    // Where the cluster lives: <rootDir>/data is PGDATA, <rootDir>/socket the private socket
    // directory. Empty: defaultRootDir() for the installed major version.
    std::filesystem::path rootDir;
    // The PostgreSQL server programs (initdb, pg_ctl, postgres). Empty: findServerBinDir().
    std::filesystem::path binDir;
    // The socket directory. Empty: <rootDir>/socket. Only tests and unusual set-ups change it.
    std::filesystem::path socketDir;
    int port = 5432;
    std::string database = "isobar";
    // Extra server settings written to the cluster's isobar.conf at every start
    // (e.g. {"max_wal_size", "8GB"}). Values are written as given (quote strings yourself).
    std::map<std::string, std::string> settings;
    std::chrono::seconds startTimeout{90};
};

enum class ClusterState { NotCreated, Stopped, Running };

struct ClusterStatus {
    ClusterState state = ClusterState::NotCreated;
    pid_t pid = 0; // postmaster PID when running
    std::filesystem::path rootDir;
    std::filesystem::path dataDir;
    std::filesystem::path socketDir;
    int port = 0;
    std::string serverUser; // the OS account the server runs as
    // Of the extensions Isobar can use (citus, timescaledb), those whose library is installed for
    // this PostgreSQL, and shared_preload_libraries as the server has it (running: asked; stopped:
    // what its configuration files say, `postgres -C`).
    std::vector<std::string> extensionLibraries;
    std::string preloadLibraries;
    // Whether its shared memory is in huge pages (running), or how many it needs at its next start
    // (stopped: `postgres -C shared_memory_size_in_huge_pages`); empty where the machine has none.
    std::string sharedMemory;
};

// The embedded PostgreSQL cluster Isobar runs when no server is configured, and the throwaway
// clusters the tests start. It drives the installed server programs (initdb, pg_ctl); the server
// listens on a unix socket in a private 0700 directory only, never on TCP.
//
// When Isobar runs as root the server programs run as the unprivileged `postgres` system user
// (initdb and postgres refuse root); root's client can still use the 0700 socket directory.
//
// Several Isobar processes may use one cluster: start() reuses a running server, and a file lock
// serializes start/stop between processes.
class LocalCluster {
public:
    explicit LocalCluster(LocalClusterOptions options = {});

    // The directory holding initdb/pg_ctl/postgres: the highest /usr/lib/postgresql/<v>/bin (Debian's
    // layout), else `pg_config --bindir` when it has them. Throws isobar::Error saying what to install.
    static std::filesystem::path findServerBinDir();
    // $XDG_DATA_HOME/isobar/pg<major> (default ~/.local/share/...); /var/lib/isobar/pg<major> for
    // root, whose home directory the unprivileged server account cannot enter.
    static std::filesystem::path defaultRootDir(int majorVersion);
    // The major version of the server programs in `binDir`: from Debian's directory layout
    // (/usr/lib/postgresql/15/bin), else from `postgres --version`. Throws isobar::Error.
    static int serverMajorVersion(const std::filesystem::path& binDir);

    // Creates the cluster if needed and starts it unless it is already running.
    // Returns true when this call started the server, false when it reused a running one.
    bool start();
    // Stops the server (fast shutdown: running transactions roll back). Returns false when it was
    // not running.
    bool stop();
    // Stops the server without a clean shutdown (crash recovery on next start). Tests use it to
    // simulate a server crash.
    void stopImmediately();
    ClusterStatus status() const;

    // A libpq connection string for the cluster's database, as the current OS user's client.
    std::string connectionString() const;
    std::string connectionString(const std::string& database) const;

    int majorVersion() const noexcept { return majorVersion_; }
    const std::filesystem::path& binDir() const noexcept { return binDir_; }
    const std::filesystem::path& rootDir() const noexcept { return rootDir_; }
    std::filesystem::path dataDir() const { return rootDir_ / "data"; }
    const std::filesystem::path& socketDir() const noexcept { return socketDir_; }
    std::filesystem::path logFile() const { return dataDir() / "isobar-server.log"; }
    int port() const noexcept { return port_; }
    // The database superuser created by initdb.
    const std::string& superuser() const noexcept { return superuser_; }
    const std::optional<RunAs>& runAs() const noexcept { return runAs_; }

    // The last lines of the server log, for error messages.
    std::string logTail(size_t lines = 15) const;

private:
    void ensureCreated();
    void writeSettingsFile() const;
    void prepareSocketDirectory() const;
    void checkSocketClash() const;
    void removeStaleLockFiles() const;
    void createDatabase();
    // Whether the running server lets this cluster's user into its database (then nothing is left to
    // wait for or create).
    bool acceptsDatabase() const;
    std::optional<pid_t> runningPostmaster() const;
    ProcessResult runServerTool(const std::string& tool, const std::vector<std::string>& args,
                                std::chrono::milliseconds timeout) const;
    void giveToServerUser(const std::filesystem::path& path) const;
    // citus and timescaledb, those installed: what the cluster preloads (Citus first).
    std::vector<std::string> installedExtensionLibraries() const;

    LocalClusterOptions options_;
    std::filesystem::path binDir_;
    int majorVersion_ = 0;
    std::filesystem::path rootDir_;
    std::filesystem::path socketDir_;
    int port_ = 5432;
    std::optional<RunAs> runAs_;
    std::string superuser_;
};

} // namespace isobar
