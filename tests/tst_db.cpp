// The embedded cluster (LocalCluster), connection strings, table names and the schema check,
// against real PostgreSQL servers started by the tests.

#include "TestCluster.h"
#include "db/ConnInfo.h"
#include "db/WeatherSchema.h"
#include "util/Error.h"
#include "util/Process.h"

#include <QtTest>

#include <algorithm>
#include <arpa/inet.h>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <netinet/in.h>
#include <signal.h>
#include <sstream>
#include <sys/socket.h>
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

class TestDb : public QObject {
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

    void redactsPasswords_data() {
        QTest::addColumn<QString>("conninfo");
        QTest::addColumn<QString>("expected");
        QTest::newRow("key=value") << "host=db.example port=5433 dbname=era5 user=me password=s3cret"
                                   << "host=db.example port=5433 dbname=era5 user=me";
        QTest::newRow("uri") << "postgresql://me:s3cret@db.example:5433/era5?sslmode=require"
                             << "host=db.example port=5433 dbname=era5 user=me sslmode=require";
        QTest::newRow("quoted") << "host='/tmp/a b' password='x y'"
                                << "host='/tmp/a b'";
        QTest::newRow("unparsable") << "host=x password='unterminated"
                                    << "(an unparsable connection string)";
        QTest::newRow("expanded dbname") << "dbname='host=db.example password=s3cret' user=me"
                                         << "dbname=host=db.example user=me";
    }
    void redactsPasswords() {
        QFETCH(QString, conninfo);
        QFETCH(QString, expected);
        const std::string redacted = redactConnInfo(conninfo.toStdString());
        QCOMPARE(QString::fromStdString(redacted), expected);
        QVERIFY(redacted.find("s3cret") == std::string::npos);
    }

    // What the desktop remembers of a pasted string: every setting but the secrets.
    void keepsAllButSecrets_data() {
        QTest::addColumn<QString>("conninfo");
        QTest::addColumn<QString>("expected");
        QTest::newRow("options kept")
            << "host=db.example connect_timeout=5 sslrootcert=/ca.pem password=s3cret"
            << "connect_timeout=5 host=db.example sslrootcert=/ca.pem";
        QTest::newRow("uri") << "postgresql://me:s3cret@db.example/era5?application_name=x"
                             << "user=me dbname=era5 host=db.example application_name=x";
        QTest::newRow("expanded dbname") << "dbname='host=db.example password=s3cret' sslpassword=s3cret"
                                         << "dbname=host=db.example";
        QTest::newRow("unparsable") << "host=x password='s3cret"
                                    << "";
    }
    void keepsAllButSecrets() {
        QFETCH(QString, conninfo);
        QFETCH(QString, expected);
        const auto kept = connInfoWithoutSecrets(conninfo.toStdString());
        QCOMPARE(QString::fromStdString(kept.value_or("")), expected);
        QVERIFY(!kept || kept->find("s3cret") == std::string::npos);
    }

    void wrongPasswordAndDeadServerAreNamed() {
        try {
            Connection::open("host=/nonexistent-socket-dir port=5999 dbname=x user=u password=s3cret");
            QFAIL("expected a connection failure");
        } catch (const DbError& e) {
            const std::string m = e.what();
            QVERIFY2(m.find("/nonexistent-socket-dir") != std::string::npos, e.what());
            QVERIFY2(m.find("s3cret") == std::string::npos, e.what());
        }
    }

    // A server that accepts the connection and never answers (a hung host, a proxy with nothing
    // behind it) is given up on after Isobar's default connect timeout, not waited for forever; a
    // connect_timeout in the string still decides.
    void silentServerTimesOut() {
        // The kernel completes the handshakes of a listening socket; nobody reads or answers.
        const int silent = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        QVERIFY(silent >= 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        QCOMPARE(bind(silent, reinterpret_cast<sockaddr*>(&address), length), 0);
        QCOMPARE(listen(silent, 8), 0);
        QCOMPARE(getsockname(silent, reinterpret_cast<sockaddr*>(&address), &length), 0);
        const auto closeSilent = qScopeGuard([silent] { close(silent); });
        const std::string target = "host=127.0.0.1 port=" + std::to_string(ntohs(address.sin_port)) +
                                   " dbname=x user=u sslmode=disable";
        std::string message;
        QElapsedTimer clock;
        clock.start();
        try {
            Connection::open(target + " connect_timeout=2");
        } catch (const DbError& e) {
            message = e.what();
        }
        QVERIFY2(message.find("timeout expired") != std::string::npos, message.c_str());
        QVERIFY2(message.find("127.0.0.1") != std::string::npos, message.c_str());
        QVERIFY(clock.elapsed() < std::stoi(Connection::kDefaultConnectTimeout) * 1000);
        // Without one: Isobar's default, not libpq's (none, waiting forever) nor a shorter one.
        const QByteArray timeoutEnv = qgetenv("PGCONNECT_TIMEOUT");
        const QByteArray serviceEnv = qgetenv("PGSERVICE");
        qunsetenv("PGCONNECT_TIMEOUT");
        qunsetenv("PGSERVICE");
        const auto restoreEnv = qScopeGuard([&] {
            if (!timeoutEnv.isNull()) {
                qputenv("PGCONNECT_TIMEOUT", timeoutEnv);
            }
            if (!serviceEnv.isNull()) {
                qputenv("PGSERVICE", serviceEnv);
            }
        });
        message.clear();
        clock.restart();
        try {
            Connection::open(target);
        } catch (const DbError& e) {
            message = e.what();
        }
        QVERIFY2(message.find("timeout expired") != std::string::npos, message.c_str());
        // libpq counts whole seconds: the limit may end up to a second early.
        QVERIFY(clock.elapsed() >= (std::stoi(Connection::kDefaultConnectTimeout) - 2) * 1000);
    }

    // A query cancelled from another thread ends at once, as Cancelled (not a DbError a user
    // would read as a failure), and the connection sends nothing more: a later query throws
    // Cancelled without reaching the server, also when the cancel came between two queries (which
    // the server itself ignores).
    void cancelStopsTheQueryAndEveryLaterOne() {
        Connection watcher = cluster_->connect();
        const auto activity = [&watcher](const std::string& application) {
            return test::scalar(watcher, "SELECT state || ': ' || query FROM pg_stat_activity WHERE "
                                         "application_name = '" +
                                             application + "'");
        };
        Connection conn = Connection::open(cluster_->conninfo(), "isobar cancel test");
        const CancelHandle handle = conn.cancelHandle();
        QVERIFY(!handle.requested());
        std::string outcome;
        QElapsedTimer clock;
        clock.start();
        std::thread worker([&conn, &outcome] {
            try {
                conn.query("SELECT pg_sleep(60)");
                outcome = "returned";
            } catch (const Cancelled&) {
                outcome = "cancelled";
            } catch (const std::exception& e) {
                outcome = e.what();
            }
        });
        const auto joinWorker = qScopeGuard([&] {
            if (worker.joinable()) {
                handle.cancel();
                worker.join();
            }
        });
        QTRY_COMPARE_WITH_TIMEOUT(activity("isobar cancel test"), QString("active: SELECT pg_sleep(60)"),
                                  10'000);
        QVERIFY(handle.cancel());
        worker.join();
        QCOMPARE(QString::fromStdString(outcome), QString("cancelled"));
        QVERIFY2(clock.elapsed() < 10'000, qPrintable(QString::number(clock.elapsed()))); // not 60 s
        QVERIFY(conn.cancelRequested());
        QTRY_COMPARE_WITH_TIMEOUT(activity("isobar cancel test"), QString("idle: SELECT pg_sleep(60)"),
                                  5'000);
        QVERIFY_THROWS_EXCEPTION(Cancelled, conn.query("SELECT 1"));
        QVERIFY_THROWS_EXCEPTION(Cancelled, conn.exec("SELECT 2"));
        QCOMPARE(activity("isobar cancel test"), QString("idle: SELECT pg_sleep(60)")); // nothing sent

        // Between two queries: the server has nothing to interrupt, the next query is not sent.
        Connection idle = Connection::open(cluster_->conninfo(), "isobar idle cancel test");
        QCOMPARE(test::scalar(idle, "SELECT 'before'"), QString("before"));
        QVERIFY(idle.cancelHandle().cancel());
        QVERIFY_THROWS_EXCEPTION(Cancelled, idle.query("SELECT 'after'"));
        QCOMPARE(activity("isobar idle cancel test"), QString("idle: SELECT 'before'"));
        // Other connections go on; a handle outlives its connection harmlessly.
        CancelHandle orphan;
        {
            Connection brief = cluster_->connect();
            orphan = brief.cancelHandle();
        }
        orphan.cancel();
        QVERIFY(orphan.requested());
        QCOMPARE(test::scalar(watcher, "SELECT 'still here'"), QString("still here"));
    }

    // libpq quotes bad input in its parse errors; a password must not come back that way.
    void unparsableConnectionStringIsNotEchoed() {
        for (const char* dsn : {"postgresql://u:ab%zzSECRET@/db", "host=x password='SECRET"}) {
            try {
                Connection::open(dsn);
                QFAIL("expected a failure");
            } catch (const DbError& e) {
                QVERIFY2(std::string(e.what()).find("SECRET") == std::string::npos, e.what());
                QVERIFY2(std::string(e.what()).find("cannot be parsed") != std::string::npos, e.what());
            }
        }
    }

    void parsesTableNames_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("schema");
        QTest::addColumn<QString>("name");
        QTest::newRow("plain") << "weather"
                               << ""
                               << "weather";
        QTest::newRow("folded") << "Weather"
                                << ""
                                << "weather";
        QTest::newRow("qualified") << "era5.Weather"
                                   << "era5"
                                   << "weather";
        QTest::newRow("quoted") << "\"Era5\".\"My.Table\""
                                << "Era5"
                                << "My.Table";
        QTest::newRow("escaped quote") << "\"a\"\"b\""
                                       << ""
                                       << "a\"b";
    }
    void parsesTableNames() {
        QFETCH(QString, text);
        QFETCH(QString, schema);
        QFETCH(QString, name);
        const TableName t = TableName::parse(text.toStdString());
        QCOMPARE(QString::fromStdString(t.schema), schema);
        QCOMPARE(QString::fromStdString(t.name), name);
    }
    void rejectsBadTableNames_data() {
        QTest::addColumn<QString>("text");
        QTest::newRow("empty") << "";
        QTest::newRow("three parts") << "a.b.c";
        QTest::newRow("unterminated") << "\"abc";
        QTest::newRow("trailing dot") << "abc.";
    }
    void rejectsBadTableNames() {
        QFETCH(QString, text);
        QVERIFY_THROWS_EXCEPTION(Error, TableName::parse(text.toStdString()));
    }

    void createsAndChecksWeatherTable() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE SCHEMA era5");
        const TableName t = TableName::parse("era5.\"Weather Table\"");
        QCOMPARE(ensureWeatherTable(conn, t, seedLayout()), true);
        QCOMPARE(ensureWeatherTable(conn, t, seedLayout()), false);
        const QString columns = test::scalar(
            conn,
            "SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod) || "
            "CASE WHEN attnotnull THEN ' not null' ELSE '' END, ', ' ORDER BY attnum) FROM pg_attribute "
            "WHERE attrelid = 'era5.\"Weather Table\"'::regclass AND attnum > 0");
        QCOMPARE(columns,
                 QString("time timestamp with time zone not null, location_id integer, latitude real, "
                         "longitude real, temperature_2m real, zonal_wind_10m real, meridional_wind_10m "
                         "real, total_cloud_cover real, total_precipitation real, snowfall real"));
    }

    void refusesMismatchedTableWithDiff() {
        Connection conn = cluster_->connect();
        conn.exec(
            "CREATE TABLE wrong_weather (time timestamptz, location_id bigint, latitude float4, "
            "temperature_2m float8, zonal_wind_10m float4, meridional_wind_10m float4, total_cloud_cover "
            "float4, total_precipitation float4, snowfall float4, station text NOT NULL)");
        try {
            ensureWeatherTable(conn, TableName::parse("wrong_weather"), seedLayout());
            QFAIL("expected a refusal");
        } catch (const Error& e) {
            const std::string m = e.what();
            QVERIFY2(m.find("column location_id is bigint, expected integer") != std::string::npos, e.what());
            QVERIFY2(m.find("missing column longitude real") != std::string::npos, e.what());
            QVERIFY2(m.find("column temperature_2m is double precision, expected real") != std::string::npos,
                     e.what());
            QVERIFY2(m.find("extra column station text is NOT NULL without a default") != std::string::npos,
                     e.what());
        }
        // Extra nullable columns are fine: COPY names its columns.
        conn.exec(
            "CREATE TABLE extra_weather (time timestamptz NOT NULL, location_id int, latitude float4, "
            "longitude float4, temperature_2m float4, zonal_wind_10m float4, meridional_wind_10m float4, "
            "total_cloud_cover float4, total_precipitation float4, snowfall float4, note text, "
            "loaded_at timestamptz NOT NULL DEFAULT now())");
        QCOMPARE(ensureWeatherTable(conn, TableName::parse("extra_weather"), seedLayout()), false);
    }

private:
    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestDb)
#include "tst_db.moc"
