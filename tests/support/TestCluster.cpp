// SPDX-License-Identifier: GPL-3.0-or-later

#include "TestCluster.h"

#include "era5/Dataset.h"
#include "util/Error.h"

#include <QDir>
#include <QFile>

#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
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
    // Reports of the loads a test runs stay with the test, not in the user's state directory.
    qputenv("ISOBAR_REPORT_DIR", QFile::encodeName(workDir() + "/reports"));
    // So are durability journals (and the CLI processes the tests start inherit both).
    qputenv("ISOBAR_STATE_DIR", QFile::encodeName(workDir() + "/state"));
    extra.rootDir = dir_.path().toStdString() + "/cluster";
    // Small and fast: tests need correctness, not throughput.
    extra.settings.emplace("fsync", "off");
    extra.settings.emplace("shared_buffers", "'128MB'");
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
    const QByteArray pidFile =
        QFile::encodeName(QString::fromStdString(cluster_->dataDir().string())) + "/postmaster.pid";
    // stdin is the pipe: `cat` returns when the last writer (this process) is gone.
    const QByteArray script =
        "cat >/dev/null; pid=$(head -n1 '" + pidFile +
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

std::uint64_t count(Connection& conn, const std::string& sql) {
    return scalar(conn, sql).toULongLong();
}

std::vector<WeatherRow> readWeatherRowsInOrder(Connection& conn, const std::string& table) {
    // A table has the columns of the variables its first load had: a seed column it lacks reads
    // as NULL.
    std::string seedColumns;
    for (const char* column : {"temperature_2m", "zonal_wind_10m", "meridional_wind_10m", "total_cloud_cover",
                               "total_precipitation", "snowfall"}) {
        const bool has = conn.query("SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass($1) AND "
                                    "attname = $2 AND NOT attisdropped",
                                    {table, column})
                             .text(0, 0) != "0";
        seedColumns += std::string(", ") + (has ? column : "NULL::real");
    }
    Result r = conn.query("SELECT (extract(epoch FROM time - '2000-01-01 00:00:00+00') * 1000000)::bigint, "
                          "location_id, latitude, longitude" +
                          seedColumns + " FROM " + table + " ORDER BY time, latitude DESC, longitude");
    std::vector<WeatherRow> rows;
    rows.reserve(static_cast<std::size_t>(r.rows()));
    for (int i = 0; i < r.rows(); ++i) {
        WeatherRow row;
        row.micros = std::stoll(r.text(i, 0));
        row.locationId = std::stoi(r.text(i, 1));
        row.latitude = std::strtof(r.text(i, 2).c_str(), nullptr);
        row.longitude = std::strtof(r.text(i, 3).c_str(), nullptr);
        for (int v = 0; v < 6; ++v) {
            if (!r.isNull(i, 4 + v)) {
                row.values[static_cast<size_t>(v)] = std::strtof(r.text(i, 4 + v).c_str(), nullptr);
            }
        }
        rows.push_back(row);
    }
    return rows;
}

WeatherRows readWeatherRows(Connection& conn, const std::string& table) {
    WeatherRows rows;
    for (const WeatherRow& row : readWeatherRowsInOrder(conn, table)) {
        if (!rows.emplace(RowKey{row.micros, row.locationId}, row).second) {
            throw Error(table + " holds two rows for time " + std::to_string(row.micros) +
                        " (microseconds "
                        "since 2000), location_id " +
                        std::to_string(row.locationId));
        }
    }
    return rows;
}

LoadSummary loadFiles(const TestCluster& cluster, const std::vector<QString>& files, const std::string& table,
                      const OpenOptions& open, RecordingSink* sink, AllMissingPolicy allMissing) {
    LoadRequest request;
    request.conninfo = cluster.conninfo();
    request.table = TableName::parse(table);
    for (const QString& f : files) {
        request.files.emplace_back(f.toStdString());
    }
    request.open = open;
    request.allMissing = allMissing;
    request.bandRows = 2;
    RecordingSink local;
    return runLoad(request, {}, sink != nullptr ? *sink : local);
}

namespace {
QString checkEveryRowOrThrow(const TestCluster& cluster, const std::vector<QString>& files,
                             const std::string& table, const WeatherRows& expected, const OpenOptions& open,
                             double step) {
    std::vector<std::filesystem::path> paths;
    paths.reserve(files.size());
    for (const QString& f : files) {
        paths.emplace_back(f.toStdString());
    }
    {
        const Dataset dataset = Dataset::open(paths, open);
        if (dataset.rowCount() != expected.size()) {
            return QString("the dataset has %1 rows, expected %2")
                .arg(dataset.rowCount())
                .arg(expected.size());
        }
        if (const QString diff = compareRows(decodedRows(dataset, step), expected); !diff.isEmpty()) {
            return "decoded: " + diff;
        }
    }
    const LoadSummary summary = loadFiles(cluster, files, table, open);
    if (summary.status != LoadStatus::Completed) {
        return "the load failed: " + QString::fromStdString(summary.error ? summary.error->message : "?");
    }
    if (summary.rows != expected.size()) {
        return QString("the load wrote %1 rows, expected %2").arg(summary.rows).arg(expected.size());
    }
    Connection conn = cluster.connect();
    if (const QString diff = compareRows(readWeatherRows(conn, table), expected); !diff.isEmpty()) {
        return "table " + QString::fromStdString(table) + ": " + diff;
    }
    return {};
}
} // namespace

QString checkEveryRow(const TestCluster& cluster, const std::vector<QString>& files, const std::string& table,
                      const WeatherRows& expected, const OpenOptions& open, double step) {
    try {
        return checkEveryRowOrThrow(cluster, files, table, expected, open, step);
    } catch (const std::exception& e) {
        return QString("threw: ") + e.what();
    }
}

} // namespace isobar::test
