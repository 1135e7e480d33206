#include "TestCluster.h"

#include "util/Error.h"

#include <QDir>
#include <QFile>

#include <chrono>
#include <filesystem>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace isobar::test {

namespace {
constexpr const char* kPrefix = "isobar-test-";
}

void TestCluster::reapStale() {
    const QDir tmp(QDir::tempPath());
    const auto entries =
        tmp.entryList({QString::fromLatin1(kPrefix) + "*"}, QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& name : entries) {
        const QString path = tmp.filePath(name);
        QFile ownerFile(path + "/owner.pid");
        if (!ownerFile.open(QIODevice::ReadOnly)) {
            continue;
        }
        const pid_t owner = static_cast<pid_t>(ownerFile.readAll().trimmed().toLong());
        if (owner <= 0 || kill(owner, 0) == 0 || errno == EPERM) {
            continue; // still running (or not ours to judge)
        }
        const std::filesystem::path dataDir = path.toStdString() + "/cluster/data";
        if (const auto info = readPostmasterLockFile(dataDir / "postmaster.pid")) {
            if (isPostmasterOf(*info)) {
                kill(info->pid, SIGQUIT); // immediate shutdown
                for (int i = 0; i < 100 && kill(info->pid, 0) == 0; ++i) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(50));
                }
            }
        }
        QDir(path).removeRecursively();
    }
}

TestCluster::TestCluster(LocalClusterOptions extra)
    : dir_(QDir::tempPath() + "/" + QString::fromLatin1(kPrefix) + "XXXXXX") {
    reapStale();
    if (!dir_.isValid()) {
        throw Error("cannot create a temporary directory for the test cluster: " +
                    dir_.errorString().toStdString());
    }
    // When tests run as root the server runs as the postgres account, which must be able to pass
    // through the (otherwise private) temporary directory.
    chmod(QFile::encodeName(dir_.path()).constData(), 0711);
    QFile owner(dir_.path() + "/owner.pid");
    if (owner.open(QIODevice::WriteOnly)) {
        owner.write(QByteArray::number(static_cast<qlonglong>(getpid())));
    }
    QDir(dir_.path()).mkdir("work");
    extra.rootDir = dir_.path().toStdString() + "/cluster";
    // Small and fast: tests need correctness, not throughput.
    extra.settings.emplace("fsync", "off");
    extra.settings.emplace("shared_buffers", "'32MB'");
    extra.settings.emplace("max_connections", "40");
    cluster_ = std::make_unique<LocalCluster>(std::move(extra));
    startWatchdog();
    try {
        cluster_->start();
    } catch (...) {
        // pg_ctl may have started the server before the failure: never leave it running.
        try {
            cluster_->stopImmediately();
        } catch (const std::exception&) {
        }
        throw;
    }
}

void TestCluster::startWatchdog() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        return;
    }
    const QByteArray root = QFile::encodeName(dir_.path());
    const QByteArray pidFile = QFile::encodeName(QString::fromStdString(cluster_->dataDir().string())) + "/postmaster.pid";
    // stdin is the pipe: `cat` returns when the last writer (this process) is gone.
    const QByteArray script = "cat >/dev/null; pid=$(head -n1 '" + pidFile +
                              "' 2>/dev/null); if [ -n \"$pid\" ]; then kill -QUIT \"$pid\" 2>/dev/null; "
                              "for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 \"$pid\" 2>/dev/null || break; sleep 0.2; "
                              "done; fi; rm -rf '" +
                              root + "'";
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[0], STDIN_FILENO);
        setsid(); // a Ctrl-C in the terminal must not stop the watchdog before it has done its job
        execl("/bin/sh", "sh", "-c", script.constData(), static_cast<char*>(nullptr));
        _exit(127);
    }
    close(fds[0]);
    if (pid < 0) {
        close(fds[1]);
        return;
    }
    watchdogPipe_ = fds[1];
    watchdogPid_ = pid;
}

TestCluster::~TestCluster() {
    try {
        cluster_->stopImmediately();
    } catch (const std::exception& e) {
        qWarning("could not stop the test cluster: %s", e.what());
    }
    if (watchdogPipe_ >= 0) {
        close(watchdogPipe_); // the watchdog wakes, finds the server stopped, removes the directory
        waitpid(watchdogPid_, nullptr, 0);
    }
}

QString TestCluster::workDir() const {
    return dir_.path() + "/work";
}

QString scalar(Connection& conn, const std::string& sql) {
    Result r = conn.query(sql);
    if (r.rows() != 1 || r.columns() < 1) {
        throw Error("expected one row from: " + sql);
    }
    return r.isNull(0, 0) ? QStringLiteral("<null>") : QString::fromStdString(r.text(0, 0));
}

} // namespace isobar::test
