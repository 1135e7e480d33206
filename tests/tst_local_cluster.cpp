// SPDX-License-Identifier: GPL-3.0-or-later

// The embedded cluster (LocalCluster), against real PostgreSQL servers started by the tests: the
// server programs found and the directory chosen, a server that listens privately and runs
// unprivileged, reused by a second instance and by isobar-cli, its lifecycle and its stale lock files
// after a crash, and the directories and sockets it refuses.

#include "TestCluster.h"
#include "util/Error.h"
#include "util/Process.h"

#include <QtTest>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <signal.h>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace isobar;
namespace fs = std::filesystem;

namespace {

// The process's parent and state from /proc/<pid>/stat (world-readable, unlike cwd, which root
// cannot read for another user's process without CAP_SYS_PTRACE); state 0 when it is gone.
std::pair<pid_t, char> parentAndState(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(in, text);
    const auto close = text.rfind(')'); // the command name may hold spaces and parentheses
    if (close == std::string::npos) {
        return {0, 0};
    }
    std::istringstream rest(text.substr(close + 1));
    char state = 0;
    pid_t parent = 0;
    rest >> state >> parent;
    return {parent, state};
}

std::vector<pid_t> childrenOf(pid_t parent) {
    std::vector<pid_t> children;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/proc", ec)) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") == std::string::npos &&
            parentAndState(std::stoi(name)).first == parent) {
            children.push_back(std::stoi(name));
        }
    }
    return children;
}

// Kills the postmaster with SIGKILL, as a crash would, and waits until its children are gone too:
// they linger a moment after it, holding the shared memory a new start would refuse to share.
bool crashPostmaster(pid_t postmaster, std::chrono::seconds timeout) {
    // Stopped first, so it forks no new child between the listing and the kill.
    if (kill(postmaster, SIGSTOP) != 0) {
        return false;
    }
    std::vector<pid_t> processes = childrenOf(postmaster);
    processes.push_back(postmaster);
    if (kill(postmaster, SIGKILL) != 0) {
        return false;
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        // A zombie holds nothing; with no reaper in a container it may stay one.
        if (std::all_of(processes.begin(), processes.end(), [](pid_t p) {
                const char state = parentAndState(p).second;
                return state == 0 || state == 'Z' || state == 'X';
            })) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

uid_t ownerOf(const fs::path& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 ? st.st_uid : static_cast<uid_t>(-1);
}

mode_t modeOf(const fs::path& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

ProcessResult runCli(const std::vector<std::string>& args) {
    ProcessOptions options;
    options.timeout = std::chrono::seconds(120);
    return runProcess(ISOBAR_CLI_PATH, args, options);
}

} // namespace

class TestLocalCluster : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }
    void cleanupTestCase() { cluster_.reset(); }

    void findsServerPrograms() {
        const fs::path bin = LocalCluster::findServerBinDir();
        QVERIFY(fs::exists(bin / "initdb"));
        QVERIFY(fs::exists(bin / "pg_ctl"));
        QVERIFY(fs::exists(bin / "postgres"));
        QVERIFY(cluster_->cluster().majorVersion() >= 12);
    }

    void missingServerProgramsAreNamed() {
        LocalClusterOptions options;
        options.binDir = "/nonexistent/bin";
        try {
            LocalCluster c(options);
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("/nonexistent/bin") != std::string::npos, e.what());
        }
    }

    void defaultDirectoryFollowsTheUser() {
        const fs::path dir = LocalCluster::defaultRootDir(15);
        QCOMPARE(dir.filename().string(), std::string("pg15"));
        if (geteuid() == 0) {
            QCOMPARE(dir, fs::path("/var/lib/isobar/pg15"));
        } else {
            QVERIFY(dir.string().find("/isobar/pg15") != std::string::npos);
        }
    }

    // Unix socket only, in a private directory; the server runs unprivileged.
    void listensPrivatelyAndUnprivileged() {
        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn, "SHOW listen_addresses"), QString(""));
        QCOMPARE(test::scalar(conn, "SHOW unix_socket_directories"),
                 QString::fromStdString(cluster_->cluster().socketDir().string()));
        QCOMPARE(modeOf(cluster_->cluster().socketDir()), mode_t{0700});
        QCOMPARE(modeOf(cluster_->cluster().dataDir()), mode_t{0700});
        const ClusterStatus s = cluster_->cluster().status();
        QCOMPARE(s.state, ClusterState::Running);
        QVERIFY(s.pid > 0);
        // The postmaster's process and data belong to the server account: postgres when the tests
        // run as root (PostgreSQL refuses root), else the user running them.
        const uid_t expected = geteuid() == 0 ? RunAs::lookup("postgres")->uid : geteuid();
        QCOMPARE(ownerOf("/proc/" + std::to_string(s.pid)), expected);
        QCOMPARE(ownerOf(cluster_->cluster().dataDir()), expected);
        QCOMPARE(ownerOf(cluster_->cluster().socketDir()), expected);
        if (geteuid() == 0) {
            QCOMPARE(s.serverUser, std::string("postgres"));
            QCOMPARE(test::scalar(conn, "SELECT current_user"), QString("postgres"));
        }
        QCOMPARE(test::scalar(conn, "SELECT current_database()"), QString("isobar"));
    }

    // A second LocalCluster on the same directory (another Isobar process) reuses the server.
    void secondInstanceReusesRunningServer() {
        const pid_t pid = cluster_->cluster().status().pid;
        LocalClusterOptions options;
        options.rootDir = cluster_->cluster().rootDir();
        LocalCluster again(options);
        QCOMPARE(again.start(), false);
        QCOMPARE(again.status().pid, pid);
        Connection conn = Connection::open(again.connectionString());
        QCOMPARE(test::scalar(conn, "SELECT 1"), QString("1"));
    }

    // The same through the CLI, as a separate process: `cluster start` reuses, `status` and `url`
    // describe it.
    void cliReusesAndDescribesCluster() {
        const std::string dir = cluster_->cluster().rootDir().string();
        const ProcessResult start = runCli({"cluster", "start", "--data-dir", dir});
        QVERIFY2(start.ok(), start.output.c_str());
        QVERIFY2(start.output.find("already running") != std::string::npos, start.output.c_str());
        const ProcessResult status = runCli({"cluster", "status", "--data-dir", dir});
        QVERIFY2(status.ok(), status.output.c_str());
        QVERIFY2(status.output.find("running") != std::string::npos, status.output.c_str());
        QVERIFY2(status.output.find(std::to_string(cluster_->cluster().status().pid)) != std::string::npos,
                 status.output.c_str());
        const ProcessResult url = runCli({"cluster", "url", "--data-dir", dir});
        QVERIFY2(url.ok(), url.output.c_str());
        std::string conninfo = url.output;
        while (!conninfo.empty() && conninfo.back() == '\n') {
            conninfo.pop_back();
        }
        Connection conn = Connection::open(conninfo);
        QCOMPARE(test::scalar(conn, "SELECT current_database()"), QString("isobar"));
    }

    // Full lifecycle on a cluster of its own: create, start, stop, status, start again; and after a
    // crash that leaves postmaster.pid behind, with its PID dead or reused by another process.
    void lifecycleAndStaleLockFiles() {
        test::TestCluster own;
        LocalCluster& c = own.cluster();
        Connection conn = own.connect();
        conn.exec("CREATE TABLE survivor (a int)");
        conn.exec("INSERT INTO survivor VALUES (42)");

        QCOMPARE(c.stop(), true);
        QCOMPARE(c.status().state, ClusterState::Stopped);
        QCOMPARE(c.stop(), false);
        QCOMPARE(c.start(), true);
        QCOMPARE(c.status().state, ClusterState::Running);

        // Crash: kill -9 the postmaster. Its postmaster.pid stays, naming a dead PID.
        pid_t pid = c.status().pid;
        QVERIFY(crashPostmaster(pid, std::chrono::seconds(20)));
        QVERIFY(fs::exists(c.dataDir() / "postmaster.pid"));
        QCOMPARE(c.status().state, ClusterState::Stopped);
        QCOMPARE(c.start(), true);
        {
            Connection after = own.connect();
            QCOMPARE(test::scalar(after, "SELECT a FROM survivor"), QString("42"));
        }

        // Crash again, then the PID is reused by an unrelated live process (a reboot, a container
        // restart): PostgreSQL alone would refuse to start.
        pid = c.status().pid;
        QVERIFY(crashPostmaster(pid, std::chrono::seconds(20)));
        const fs::path pidFile = c.dataDir() / "postmaster.pid";
        std::ifstream in(pidFile);
        std::string firstLine;
        std::string rest;
        std::getline(in, firstLine);
        std::string line;
        while (std::getline(in, line)) {
            rest += line + "\n";
        }
        in.close();
        {
            std::ofstream out(pidFile, std::ios::trunc);
            out << getpid() << "\n" << rest; // our own PID: alive, and not a postmaster
        }
        QCOMPARE(c.status().state, ClusterState::Stopped);
        QCOMPARE(c.start(), true);
        Connection after = own.connect();
        QCOMPARE(test::scalar(after, "SELECT a FROM survivor"), QString("42"));
    }

    // Root in a default container lacks CAP_SYS_PTRACE and cannot read /proc/<pid>/exe or cwd of
    // the postgres account's processes: a running server must still be recognised as running,
    // reused, and left alone.
    void recognisesServerWithoutPtraceCapability() {
        if (geteuid() != 0) {
            QSKIP("only root can drop CAP_SYS_PTRACE to imitate a default container");
        }
        if (access("/sbin/capsh", X_OK) != 0) {
            QSKIP("capsh (package libcap2-bin) is not installed");
        }
        const std::string dir = cluster_->cluster().rootDir().string();
        const pid_t pid = cluster_->cluster().status().pid;
        const auto underCapsh = [&](const std::string& command) {
            ProcessOptions options;
            options.timeout = std::chrono::seconds(120);
            return runProcess("/sbin/capsh",
                              {"--drop=cap_sys_ptrace", "--", "-c",
                               std::string(ISOBAR_CLI_PATH) + " " + command + " --data-dir " + dir},
                              options);
        };
        const ProcessResult status = underCapsh("cluster status");
        QVERIFY2(status.ok(), status.output.c_str());
        QVERIFY2(status.output.find("state:        running") != std::string::npos, status.output.c_str());
        const ProcessResult start = underCapsh("cluster start");
        QVERIFY2(start.ok(), start.output.c_str());
        QVERIFY2(start.output.find("already running") != std::string::npos, start.output.c_str());
        QCOMPARE(cluster_->cluster().status().pid, pid);
        QVERIFY(fs::exists(cluster_->cluster().dataDir() / "postmaster.pid"));
        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn, "SELECT 1"), QString("1"));
    }

    // The clock moved since the server started (a paused virtual machine, a laptop that slept, a
    // stepped clock): the start time in postmaster.pid no longer matches the one the kernel
    // gives. The server is still recognised as running, reused and its lock file left alone.
    void recognisesServerWhoseClockMoved() {
        LocalCluster& c = cluster_->cluster();
        const fs::path pidFile = c.dataDir() / "postmaster.pid";
        const pid_t pid = c.status().pid;
        std::vector<std::string> lines;
        {
            std::ifstream in(pidFile);
            for (std::string line; std::getline(in, line);) {
                lines.push_back(line);
            }
        }
        QVERIFY(lines.size() > 3);
        const auto rewrite = [&](const std::string& startTime) {
            std::ofstream out(pidFile, std::ios::trunc); // the server's own file: owner and mode stay
            for (std::size_t i = 0; i < lines.size(); ++i) {
                out << (i == 2 ? startTime : lines[i]) << "\n";
            }
        };
        rewrite(std::to_string(std::stoll(lines[2]) - 30));
        const ClusterState state = c.status().state;
        const bool started = c.start();
        const bool kept = fs::exists(pidFile);
        rewrite(lines[2]);
        QCOMPARE(state, ClusterState::Running);
        QCOMPARE(started, false);
        QVERIFY(kept);
        QCOMPARE(c.status().pid, pid);
        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn, "SELECT 1"), QString("1"));
    }

    // `url` names where the running server really listens, whatever port this process was given.
    void urlFollowsTheRunningServer() {
        LocalClusterOptions options;
        options.rootDir = cluster_->cluster().rootDir();
        options.port = 6111; // not the port it runs on
        const LocalCluster other(options);
        const std::string url = other.connectionString();
        QVERIFY2(url.find("port=" + std::to_string(cluster_->cluster().port())) != std::string::npos,
                 url.c_str());
        Connection conn = Connection::open(url);
        QCOMPARE(test::scalar(conn, "SELECT 1"), QString("1"));
    }

    // Root never hands a planted symbolic link to the server account.
    void refusesSymlinkedSocketDirectory() {
        QTemporaryDir dir(QDir::tempPath() + "/isobar-symlink-XXXXXX");
        chmod(QFile::encodeName(dir.path()).constData(), 0711);
        const fs::path root = dir.path().toStdString();
        fs::create_directories(root / "elsewhere");
        fs::create_directory_symlink(root / "elsewhere", root / "socket");
        LocalClusterOptions options;
        options.rootDir = root;
        LocalCluster c(options);
        try {
            c.start();
            c.stopImmediately();
            QFAIL("expected a refusal");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("symbolic link") != std::string::npos, e.what());
        }
        c.stopImmediately();
    }

    // Another server already owns the socket: a clear message naming it, not PostgreSQL's log.
    void socketClashIsExplained() {
        LocalClusterOptions options;
        QTemporaryDir other(QDir::tempPath() + "/isobar-clash-XXXXXX");
        chmod(QFile::encodeName(other.path()).constData(), 0711);
        options.rootDir = other.path().toStdString() + "/cluster";
        options.socketDir = cluster_->cluster().socketDir();
        options.port = cluster_->cluster().port();
        LocalCluster clash(options);
        try {
            clash.start();
            clash.stopImmediately();
            QFAIL("expected the second server to refuse the socket");
        } catch (const Error& e) {
            const std::string message = e.what();
            QVERIFY2(message.find("already used by another PostgreSQL server") != std::string::npos,
                     e.what());
            QVERIFY2(message.find(cluster_->cluster().dataDir().string()) != std::string::npos, e.what());
        }
        // The running server is untouched.
        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn, "SELECT 1"), QString("1"));
    }

    void refusesForeignDirectory() {
        QTemporaryDir dir(QDir::tempPath() + "/isobar-foreign-XXXXXX");
        chmod(QFile::encodeName(dir.path()).constData(), 0711);
        const fs::path root = dir.path().toStdString();
        fs::create_directories(root / "data");
        std::ofstream(root / "data" / "precious.txt") << "user data";
        LocalClusterOptions options;
        options.rootDir = root;
        LocalCluster c(options);
        try {
            c.start();
            QFAIL("expected a refusal");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("will not touch it") != std::string::npos, e.what());
        }
        QVERIFY(fs::exists(root / "data" / "precious.txt"));
    }

private:
    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestLocalCluster)
#include "tst_local_cluster.moc"
