// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/LocalCluster.h"

#include "db/ConnInfo.h"
#include "db/Connection.h"
#include "util/Error.h"
#include "util/Text.h"

#include <libpq-fe.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <fstream>
#include <limits>
#include <signal.h>
#include <sstream>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace isobar {

namespace {

constexpr const char* kServerAccount = "postgres";
constexpr const char* kSettingsFile = "isobar.conf";

std::optional<fs::path> findInPath(const std::string& program) {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
        if (dir.empty()) {
            continue;
        }
        fs::path candidate = fs::path(dir) / program;
        if (access(candidate.c_str(), X_OK) == 0) {
            return candidate;
        }
    }
    return std::nullopt;
}

bool hasServerPrograms(const fs::path& dir) {
    for (const char* tool : {"initdb", "pg_ctl", "postgres"}) {
        if (access((dir / tool).c_str(), X_OK) != 0) {
            return false;
        }
    }
    return true;
}

std::string readFirstLine(const fs::path& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

// An exclusive advisory lock on a file, held for the lifetime of the object. It serializes
// create/start/stop of one cluster between Isobar processes (the GUI and a CLI, say).
class FileLock {
public:
    explicit FileLock(const fs::path& path) {
        fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd_ < 0) {
            throw Error("cannot open the cluster lock file " + path.string() + ": " + systemErrorText(errno));
        }
        while (flock(fd_, LOCK_EX) != 0) {
            if (errno != EINTR) {
                const int err = errno;
                close(fd_);
                throw Error("cannot lock " + path.string() + ": " + systemErrorText(err));
            }
        }
    }
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;
    ~FileLock() { close(fd_); }

private:
    int fd_ = -1;
};

} // namespace

fs::path LocalCluster::findServerBinDir() {
    // Debian's layout first: looking costs nothing, while pg_config (a wrapper script on Debian)
    // costs some 50 ms on every run.
    std::vector<std::pair<int, fs::path>> found;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
        const std::string name = entry.path().filename().string();
        if (!name.empty() && std::all_of(name.begin(), name.end(), ::isdigit) &&
            hasServerPrograms(entry.path() / "bin")) {
            found.emplace_back(std::stoi(name), entry.path() / "bin");
        }
    }
    if (!found.empty()) {
        std::sort(found.begin(), found.end());
        return found.back().second;
    }
    if (const auto pgConfig = findInPath("pg_config")) {
        ProcessOptions opts;
        opts.timeout = std::chrono::seconds(20);
        const ProcessResult r = runProcess(*pgConfig, {"--bindir"}, opts);
        if (r.ok()) {
            fs::path dir = trim(r.output);
            if (hasServerPrograms(dir)) {
                return dir;
            }
        }
    }
    throw Error("no PostgreSQL server programs found: looked for initdb, pg_ctl and postgres in "
                "/usr/lib/postgresql/<version>/bin and in `pg_config --bindir`; install them with "
                "`apt-get install postgresql` (or give a server with --dsn)");
}

int LocalCluster::serverMajorVersion(const fs::path& binDir) {
    // Debian's layout names the version: /usr/lib/postgresql/15/bin. Asking the program costs a
    // process start (some 50 ms) on every run.
    const fs::path versionDir = binDir.lexically_normal().parent_path();
    const std::string leaf = versionDir.filename().string();
    if (versionDir.parent_path() == "/usr/lib/postgresql" && !leaf.empty() &&
        std::all_of(leaf.begin(), leaf.end(), ::isdigit)) {
        return std::stoi(leaf);
    }
    ProcessOptions versionOpts;
    versionOpts.timeout = std::chrono::seconds(20);
    const ProcessResult version = runProcess(binDir / "postgres", {"--version"}, versionOpts);
    // "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
    const auto paren = version.output.find(") ");
    if (!version.ok() || paren == std::string::npos) {
        throw Error("cannot tell the version of " + (binDir / "postgres").string() + ": " +
                    trim(version.output));
    }
    return std::atoi(version.output.c_str() + paren + 2);
}

fs::path LocalCluster::defaultRootDir(int majorVersion) {
    const std::string leaf = "pg" + std::to_string(majorVersion);
    if (geteuid() == 0) {
        return fs::path("/var/lib/isobar") / leaf;
    }
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg != nullptr && *xdg == '/') {
        return fs::path(xdg) / "isobar" / leaf;
    }
    const char* home = std::getenv("HOME");
    if (home == nullptr || *home == '\0') {
        throw Error("cannot place the embedded cluster: neither XDG_DATA_HOME nor HOME is set; "
                    "give a directory with --data-dir");
    }
    return fs::path(home) / ".local/share/isobar" / leaf;
}

LocalCluster::LocalCluster(LocalClusterOptions options)
    : options_(std::move(options)) {
    binDir_ = options_.binDir.empty() ? findServerBinDir() : options_.binDir;
    if (!hasServerPrograms(binDir_)) {
        throw Error("no PostgreSQL server programs (initdb, pg_ctl, postgres) in " + binDir_.string());
    }
    majorVersion_ = serverMajorVersion(binDir_);
    if (majorVersion_ < 12) {
        throw Error("PostgreSQL " + std::to_string(majorVersion_) + " in " + binDir_.string() +
                    " is too old; Isobar needs PostgreSQL 12 or later");
    }

    if (geteuid() == 0) {
        runAs_ = RunAs::lookup(kServerAccount);
        if (!runAs_ || runAs_->uid == 0) {
            throw Error(
                std::string("Isobar is running as root, and the PostgreSQL server refuses to run as root; "
                            "it runs the embedded server as the unprivileged system user '") +
                kServerAccount +
                "', which does not exist here. Install the postgresql package "
                "(it creates that user) or run Isobar as a normal user");
        }
        superuser_ = runAs_->name;
    } else {
        superuser_ = currentUserName();
    }

    rootDir_ = fs::absolute(options_.rootDir.empty() ? defaultRootDir(majorVersion_) : options_.rootDir)
                   .lexically_normal();
    socketDir_ = fs::absolute(options_.socketDir.empty() ? rootDir_ / "socket" : options_.socketDir)
                     .lexically_normal();
    port_ = options_.port;
    if (port_ < 1 || port_ > 65535) {
        throw Error("port " + std::to_string(port_) + " is out of range (1-65535)");
    }
    const std::string socketPath = (socketDir_ / (".s.PGSQL." + std::to_string(port_))).string();
    if (socketPath.size() >= sizeof(sockaddr_un::sun_path)) {
        throw Error("the socket path " + socketPath + " is longer than a unix socket allows (" +
                    std::to_string(sizeof(sockaddr_un::sun_path) - 1) +
                    " bytes); choose a shorter --data-dir");
    }
}

ProcessResult LocalCluster::runServerTool(const std::string& tool, const std::vector<std::string>& args,
                                          std::chrono::milliseconds timeout) const {
    ProcessOptions opts;
    opts.runAs = runAs_;
    opts.timeout = timeout;
    // PG* variables of the caller (PGPORT, PGHOST, PGOPTIONS, PGDATA, ...) must not leak into the
    // embedded server's tools: the cluster's own settings decide.
    opts.unsetEnvironment = {"PG*"};
    opts.setEnvironment = {{"LC_ALL", "C"}};
    return runProcess(binDir_ / tool, args, opts);
}

void LocalCluster::giveToServerUser(const fs::path& path) const {
    if (!runAs_) {
        return;
    }
    // Root hands the path to the server account: never through a symbolic link someone planted.
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) {
        throw Error("refusing to give " + path.string() + " to the server account " + runAs_->name +
                    ": it is a symbolic link or cannot be examined");
    }
    if (lchown(path.c_str(), runAs_->uid, runAs_->gid) != 0) {
        throw Error("cannot give " + path.string() + " to the server account " + runAs_->name + ": " +
                    systemErrorText(errno));
    }
}

void LocalCluster::ensureCreated() {
    const fs::path data = dataDir();
    std::error_code ec;
    if (fs::exists(data / "PG_VERSION", ec)) {
        const std::string version = trim(readFirstLine(data / "PG_VERSION"));
        if (version != std::to_string(majorVersion_)) {
            throw Error("the cluster in " + data.string() + " was created by PostgreSQL " + version +
                        ", but the installed server is PostgreSQL " + std::to_string(majorVersion_) +
                        "; choose another --data-dir or install PostgreSQL " + version);
        }
        return;
    }
    if (fs::exists(data, ec) && !fs::is_empty(data, ec)) {
        throw Error(data.string() + " exists and is not an empty directory nor a PostgreSQL cluster; "
                                    "Isobar will not touch it (choose another --data-dir)");
    }

    spdlog::info("creating the embedded PostgreSQL {} cluster in {}", majorVersion_, data.string());
    fs::create_directories(rootDir_, ec);
    if (ec) {
        throw Error("cannot create " + rootDir_.string() + ": " + ec.message());
    }
    fs::create_directory(data, ec);
    if (ec) {
        throw Error("cannot create " + data.string() + ": " + ec.message());
    }
    giveToServerUser(data);
    chmod(data.c_str(), 0700);
    if (runAs_) {
        // The server account must be able to reach its data directory through the path.
        ProcessOptions probe;
        probe.runAs = runAs_;
        probe.timeout = std::chrono::seconds(10);
        if (!runProcess("/usr/bin/test", {"-w", data.string()}, probe).ok()) {
            fs::remove(data, ec);
            throw Error("the PostgreSQL server runs as the system user '" + runAs_->name +
                        "', which cannot reach " + data.string() +
                        " (a parent directory is private to root); choose a --data-dir it "
                        "can reach, such as one under /var/lib or /srv");
        }
    }

    const ProcessResult r = runServerTool("initdb",
                                          {"-D", data.string(), "-U", superuser_, "--auth-local=trust",
                                           "--auth-host=reject", "--encoding=UTF8", "--locale=C"},
                                          std::chrono::minutes(5));
    if (!r.ok()) {
        throw Error("initdb failed to create the cluster in " + data.string() + " (" + r.describeOutcome() +
                    "): " + trim(r.output));
    }
    // Our settings live in a file of their own, rewritten at each start, so postgresql.conf stays
    // the user's and ALTER SYSTEM (postgresql.auto.conf) still overrides both.
    std::ofstream conf(data / "postgresql.conf", std::ios::app);
    conf << "\n# Added by Isobar: settings of the embedded cluster, rewritten at every start.\n"
         << "include_if_exists = '" << kSettingsFile << "'\n";
    if (!conf) {
        throw Error("cannot write " + (data / "postgresql.conf").string());
    }
}

void LocalCluster::writeSettingsFile() const {
    const fs::path path = dataDir() / kSettingsFile;
    const fs::path tmp = dataDir() / (std::string(kSettingsFile) + ".tmp");
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << "# Written by Isobar at every start of this embedded cluster. Changes here are overwritten;\n"
            << "# use ALTER SYSTEM (postgresql.auto.conf) or postgresql.conf for your own settings.\n"
            << "listen_addresses = ''\n"
            << "port = " << port_ << "\n"
            << "unix_socket_directories = " << singleQuoted(socketDir_.string()) << "\n"
            << "unix_socket_permissions = 0700\n";
        const auto libraries = installedExtensionLibraries();
        std::string preload;
        for (const auto& name : libraries) {
            preload += (preload.empty() ? "" : ",") + name;
        }
        if (!preload.empty()) {
            out << "shared_preload_libraries = " << singleQuoted(preload) << "\n";
        }
        for (const auto& name : libraries) {
            if (name == "timescaledb") {
                out << "timescaledb.telemetry_level = off  # a private cluster phones nowhere\n";
            } else if (name == "citus") {
                // A single-node Citus registers the coordinator, and connects to itself, by this
                // name: the socket, as there is no TCP.
                out << "citus.local_hostname = " << singleQuoted(socketDir_.string()) << "\n";
            }
        }
        for (const auto& [name, value] : options_.settings) {
            out << name << " = " << value << "\n";
        }
        if (!out) {
            throw Error("cannot write " + tmp.string());
        }
    }
    giveToServerUser(tmp);
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) {
        throw Error("cannot write " + path.string() + ": " + ec.message());
    }
}

void LocalCluster::prepareSocketDirectory() const {
    std::error_code ec;
    if (!fs::exists(socketDir_, ec)) {
        fs::create_directories(socketDir_, ec);
        if (ec) {
            throw Error("cannot create the socket directory " + socketDir_.string() + ": " + ec.message());
        }
    }
    struct stat st {};
    if (lstat(socketDir_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        throw Error("the socket directory " + socketDir_.string() +
                    " is not a directory (a symbolic link is not accepted for it)");
    }
    const uid_t owner = runAs_ ? runAs_->uid : geteuid();
    if (st.st_uid != owner) {
        if (geteuid() != 0) {
            throw Error("the socket directory " + socketDir_.string() +
                        " belongs to another user; the embedded cluster needs a private one");
        }
        giveToServerUser(socketDir_);
    }
    // Private: only the server's account (and root) may connect through the socket.
    if ((st.st_mode & 07777) != 0700 && chmod(socketDir_.c_str(), 0700) != 0) {
        throw Error("cannot make the socket directory " + socketDir_.string() +
                    " private: " + systemErrorText(errno));
    }
}

void LocalCluster::checkSocketClash() const {
    const fs::path lock = socketDir_ / (".s.PGSQL." + std::to_string(port_) + ".lock");
    const auto info = readPostmasterLockFile(lock);
    if (!info) {
        return;
    }
    std::error_code ec;
    const bool same = fs::weakly_canonical(info->dataDir, ec) == fs::weakly_canonical(dataDir(), ec);
    if (!same && isPostmasterOf(*info)) {
        throw Error("port " + std::to_string(port_) + " in socket directory " + socketDir_.string() +
                    " is already used by another PostgreSQL server (PID " + std::to_string(info->pid) +
                    ", data directory " + info->dataDir.string() + "); give this cluster another --port");
    }
}

void LocalCluster::removeStaleLockFiles() const {
    // PostgreSQL itself ignores a lock file whose PID is dead, but after a reboot or in a container
    // the PID is often reused by an unrelated live process, and then the server refuses to start.
    // Only such a lock file is removed; the socket itself is left to the server.
    const fs::path pidFile = dataDir() / "postmaster.pid";
    if (const auto info = readPostmasterLockFile(pidFile)) {
        if (processExists(info->pid) && !isPostmasterOf(*info)) {
            spdlog::warn("removing the stale {} left by a crash: PID {} is no longer its PostgreSQL server",
                         pidFile.string(), info->pid);
            fs::remove(pidFile);
        }
    }
    const fs::path socketLock = socketDir_ / (".s.PGSQL." + std::to_string(port_) + ".lock");
    if (const auto info = readPostmasterLockFile(socketLock)) {
        if (processExists(info->pid) && !isPostmasterOf(*info)) {
            spdlog::warn("removing the stale socket lock file {}: PID {} is no longer its PostgreSQL server",
                         socketLock.string(), info->pid);
            std::error_code ec;
            fs::remove(socketLock, ec);
        }
    }
}

std::optional<pid_t> LocalCluster::runningPostmaster() const {
    const auto info = readPostmasterLockFile(dataDir() / "postmaster.pid");
    if (info && isPostmasterOf(*info)) {
        return info->pid;
    }
    return std::nullopt;
}

std::string LocalCluster::connectionString() const {
    return connectionString(options_.database);
}

std::string LocalCluster::connectionString(const std::string& database) const {
    // A running server may listen elsewhere than this object's options say (started by another
    // process with another --port): its lock file tells where.
    int port = port_;
    fs::path socketDir = socketDir_;
    if (const auto info = readPostmasterLockFile(dataDir() / "postmaster.pid");
        info && isPostmasterOf(*info)) {
        port = info->port != 0 ? info->port : port;
        socketDir = info->socketDir.empty() ? socketDir : info->socketDir;
    }
    return buildConnInfo({{"host", socketDir.string()},
                          {"port", std::to_string(port)},
                          {"dbname", database},
                          {"user", superuser_}});
}

std::string LocalCluster::logTail(size_t lines) const {
    std::ifstream in(logFile());
    std::deque<std::string> tail;
    std::string line;
    while (std::getline(in, line)) {
        tail.push_back(line);
        if (tail.size() > lines) {
            tail.pop_front();
        }
    }
    std::string out;
    for (const auto& l : tail) {
        out += (out.empty() ? "" : "\n") + l;
    }
    return out;
}

bool LocalCluster::acceptsDatabase() const {
    const std::unique_ptr<PGconn, decltype(&PQfinish)> conn(
        PQconnectdb(connectionString(options_.database).c_str()), &PQfinish);
    return conn && PQstatus(conn.get()) == CONNECTION_OK;
}

void LocalCluster::createDatabase() {
    Connection conn = Connection::open(connectionString("postgres"));
    const Result r = conn.query("SELECT 1 FROM pg_database WHERE datname = $1", {options_.database});
    if (r.rows() == 0) {
        conn.exec("CREATE DATABASE " + conn.quoteIdentifier(options_.database));
    }
}

bool LocalCluster::start() {
    std::error_code ec;
    fs::create_directories(rootDir_, ec);
    if (ec) {
        throw Error("cannot create " + rootDir_.string() + ": " + ec.message());
    }
    // Root keeps the cluster root private except for traversal, which the server account needs.
    if (runAs_) {
        chmod(rootDir_.c_str(), 0711);
    }
    FileLock lock(rootDir_ / "cluster.lock");
    ensureCreated();

    bool started = false;
    if (const auto pid = runningPostmaster()) {
        const auto info = readPostmasterLockFile(dataDir() / "postmaster.pid");
        if (info && info->port != 0 &&
            (info->port != port_ || (!info->socketDir.empty() && info->socketDir != socketDir_))) {
            spdlog::warn("the embedded cluster is already running on port {} in {}; using that", info->port,
                         info->socketDir.string());
            port_ = info->port;
            socketDir_ = info->socketDir;
        }
        spdlog::info("reusing the running embedded PostgreSQL server (PID {})", *pid);
    } else {
        prepareSocketDirectory();
        checkSocketClash();
        removeStaleLockFiles();
        writeSettingsFile();
        const auto timeout = options_.startTimeout;
        const ProcessResult r = runServerTool("pg_ctl",
                                              {"start", "-D", dataDir().string(), "-l", logFile().string(),
                                               "-w", "-s", "-t", std::to_string(timeout.count())},
                                              timeout + std::chrono::seconds(15));
        if (!r.ok()) {
            throw Error("the embedded PostgreSQL server in " + dataDir().string() +
                        " did not start (pg_ctl " + r.describeOutcome() + "): " + trim(r.output) +
                        "\nserver log " + logFile().string() + ":\n" + logTail());
        }
        started = true;
    }

    // A reused server that lets us into the database is ready: one connection (some 20 ms of the
    // server's time each), where waiting for it and checking the database takes two.
    if (!started && acceptsDatabase()) {
        return false;
    }
    // Wait until it accepts connections (a reused server may still be starting or recovering).
    const std::string conninfo = connectionString("postgres");
    const auto deadline = std::chrono::steady_clock::now() + options_.startTimeout;
    for (;;) {
        const PGPing ping = PQping(conninfo.c_str());
        if (ping == PQPING_OK) {
            break;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            throw Error("the embedded PostgreSQL server in " + dataDir().string() +
                        " does not accept connections; server log " + logFile().string() + ":\n" + logTail());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    createDatabase();
    return started;
}

bool LocalCluster::stop() {
    std::error_code ec;
    if (!fs::exists(rootDir_, ec)) {
        return false;
    }
    FileLock lock(rootDir_ / "cluster.lock");
    if (!runningPostmaster()) {
        return false;
    }
    const ProcessResult r =
        runServerTool("pg_ctl", {"stop", "-D", dataDir().string(), "-m", "fast", "-w", "-s", "-t", "120"},
                      std::chrono::seconds(135));
    if (!r.ok()) {
        throw Error("the embedded PostgreSQL server in " + dataDir().string() + " did not stop (pg_ctl " +
                    r.describeOutcome() + "): " + trim(r.output));
    }
    return true;
}

void LocalCluster::stopImmediately() {
    if (!runningPostmaster()) {
        return;
    }
    const ProcessResult r =
        runServerTool("pg_ctl", {"stop", "-D", dataDir().string(), "-m", "immediate", "-w", "-s", "-t", "60"},
                      std::chrono::seconds(75));
    if (!r.ok()) {
        throw Error("the embedded PostgreSQL server in " + dataDir().string() + " did not stop (pg_ctl " +
                    r.describeOutcome() + "): " + trim(r.output));
    }
}

} // namespace isobar
