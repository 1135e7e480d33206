// The server's disk around a load, against real clusters: the forecast against the table it
// forecasts, the free space as the server's filesystem has it, the refusal before a load that does
// not fit, the stop before the disk is full (on a small tmpfs filled while the load runs) and the
// resume after it, and what keeps WAL on the disk (a slot, a failing archiver, a standby).

#include "Fixtures.h"
#include "TestCluster.h"
#include "TestUtil.h"
#include "db/Ledger.h"
#include "db/ServerCheck.h"
#include "db/ServerProbe.h"
#include "db/ServerStorage.h"
#include "ingest/Loader.h"
#include "util/Format.h"
#include "util/Process.h"

#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QtTest>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <functional>
#include <limits>
#include <sys/statvfs.h>
#include <thread>
#include <unistd.h>

using namespace isobar;
namespace fs = std::filesystem;

namespace {

// What a load reports, and a hook on its progress.
class WatchingSink final : public LoadSink {
public:
    void started(const LoadStart& s) override {
        start = s;
        if (onStarted) {
            onStarted();
        }
    }
    void warning(const std::string& w) override { warnings.push_back(w); }
    void note(const std::string& n) override { notes.push_back(n); }
    void serverSampled(const ServerSample& s) override {
        samples.push_back(s);
        if (onSampled) {
            onSampled();
        }
    }
    void unitCommitted(const UnitEvent& e) override {
        committedRows += e.rows;
        ++units;
        if (onCommitted) {
            onCommitted(units);
        }
    }
    void failed(const LoadError& e) override { error = e; }

    std::function<void()> onStarted;
    std::function<void(std::size_t)> onCommitted;
    std::function<void()> onSampled; // on the sampler's thread, right after it looked at the server
    std::optional<LoadStart> start;
    std::vector<std::string> warnings;
    std::vector<std::string> notes;
    std::vector<ServerSample> samples;
    std::uint64_t committedRows = 0;
    std::size_t units = 0;
    std::optional<LoadError> error;
};

// A classic-CDS file (int16 packed `columns`, no value missing unless `holes`) of `hours` hours
// from 2024-01-01 plus `firstHour` over `rows` x `cols` points at 0.25 deg, and the rows it must become.
struct Fixture {
    QString path;
    test::WeatherRows rows;
};
Fixture writePacked(const QString& path, const std::vector<int>& columns, int hours, int rows, int cols,
                    bool holes = false, int firstHour = 0) {
    const auto micros = test::hourly(test::pgMicros(2024, 1, 1, firstHour), hours);
    test::FixtureSpec spec;
    spec.latitudes = test::range(50.0, 50.0 - 0.25 * (rows - 1), 0.25);
    spec.longitudes = test::range(0.0, 0.25 * (cols - 1), 0.25);
    spec.times = test::timesSince(micros, test::pgMicros(1900, 1, 1), test::kMicrosPerHour);
    for (const int c : columns) {
        // synthValue over a few steps and points, repeated: within the int16 packing's range.
        spec.variables.push_back(test::packedVariable(c, [c, holes](size_t s, size_t, size_t r, size_t k) {
            if (holes && (s * 7 + r * 3 + k * 5 + static_cast<size_t>(c)) % 11 == 0) {
                return std::numeric_limits<double>::quiet_NaN();
            }
            return test::synthValue(c, s % 8, r % 24, k % 24);
        }));
    }
    // Written from `stored`, and the rows worked out here with the building blocks of
    // test::expectedRows (which, like writeFixture's per-value path, takes seconds for a million values).
    test::FixtureSpec written = spec;
    Fixture f{path, {}};
    for (size_t s = 0; s < micros.size(); ++s) {
        for (size_t r = 0; r < spec.latitudes.size(); ++r) {
            for (size_t k = 0; k < spec.longitudes.size(); ++k) {
                test::WeatherRow row;
                row.micros = micros[s];
                row.locationId = test::gridLocationId(spec.latitudes[r], spec.longitudes[k]);
                row.latitude = test::tableLatitude(spec, spec.latitudes[r]);
                row.longitude = test::tableLongitude(spec, spec.longitudes[k]);
                for (size_t i = 0; i < columns.size(); ++i) {
                    const double stored = spec.variables[i].value(s, 0, r, k);
                    written.variables[i].stored.push_back(stored);
                    row.values[static_cast<size_t>(columns[i])] =
                        test::tableValue(spec.variables[i], stored, columns[i]);
                }
                f.rows.emplace(test::RowKey{row.micros, row.locationId}, row);
            }
        }
    }
    for (auto& v : written.variables) {
        v.value = nullptr;
    }
    test::writeFixture(path, written);
    return f;
}

LoadRequest requestFor(const test::TestCluster& cluster, const std::string& table, const QString& file) {
    LoadRequest request;
    request.conninfo = cluster.conninfo();
    request.table = TableName::parse(table);
    request.files = {file.toStdString()};
    return request;
}

QString messageOf(const LoadSummary& s) {
    return s.error ? QString::fromStdString(s.error->message) : QString();
}

// The bytes per row the load's forecast line names ("... (100860 rows x 76.6 B, from the ...").
double forecastPerRow(const std::vector<std::string>& notes, std::uint64_t rows, const QString& from) {
    const QRegularExpression re(QString::number(rows) + R"( rows x ([0-9.]+) B, )" + from);
    for (const auto& n : notes) {
        if (const auto m = re.match(QString::fromStdString(n)); m.hasMatch()) {
            return m.captured(1).toDouble();
        }
    }
    return -1;
}

// "113.2 MiB" -> bytes.
double parseBytes(const QString& text) {
    const QStringList units{"B", "KiB", "MiB", "GiB", "TiB"};
    const QStringList parts = text.split(' ');
    return parts.size() == 2 ? parts[0].toDouble() * std::pow(1024.0, units.indexOf(parts[1])) : -1;
}

// The free and total bytes of the filesystem of `dir`, as statvfs has them.
ServerFilesystem statvfsOf(const fs::path& dir) {
    struct statvfs v {};
    if (::statvfs(dir.c_str(), &v) != 0) {
        return {dir, -1, -1};
    }
    const auto block = static_cast<double>(v.f_frsize);
    return {dir, static_cast<double>(v.f_bavail) * block, static_cast<double>(v.f_blocks) * block};
}

// A tmpfs of its own mounted for the test (root only): a disk small enough to fill in a second,
// with a file that takes its free space down to what a test wants left (fallocate: instant on
// tmpfs). Unmounted when it goes, which must be after the cluster on it is stopped.
class SmallDisk {
public:
    explicit SmallDisk(const QString& size) {
        const int rc =
            geteuid() != 0
                ? -1
                : QProcess::execute("mount", {"-t", "tmpfs", "-o", "size=" + size, "tmpfs", dir_.path()});
        mounted_ = rc == 0;
        why_ = geteuid() != 0 ? QString("mounting a small disk needs root")
                              : QString("mount -t tmpfs %1 failed (exit %2)").arg(dir_.path()).arg(rc);
    }
    SmallDisk(const SmallDisk&) = delete;
    SmallDisk& operator=(const SmallDisk&) = delete;
    ~SmallDisk() {
        unfill();
        // The server's last processes may still be leaving it: a few tries, then a lazy unmount.
        for (int i = 0; mounted_ && i < 20; ++i) {
            mounted_ = QProcess::execute("umount", {dir_.path()}) != 0;
            std::this_thread::sleep_for(std::chrono::milliseconds(mounted_ ? 100 : 0));
        }
        if (mounted_ && QProcess::execute("umount", {"-l", dir_.path()}) != 0) {
            qWarning("cannot unmount %s", qPrintable(dir_.path()));
        }
    }
    bool mounted() const { return mounted_; }
    QString why() const { return why_; }
    QString path() const { return dir_.path(); }

    // Empty when the filler leaves `leaveFree` bytes free, else why not.
    QString fillTo(double leaveFree) const {
        const double free = statvfsOf(dir_.path().toStdString()).freeBytes;
        const int fd = ::open(QFile::encodeName(filler()).constData(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        const int rc =
            fd < 0 || free < leaveFree ? -1 : ::posix_fallocate(fd, 0, static_cast<off_t>(free - leaveFree));
        if (fd >= 0) {
            ::close(fd);
        }
        return rc == 0 ? QString()
                       : QString("cannot fill %1 (%2 bytes free): %3").arg(filler()).arg(free).arg(rc);
    }
    // Empty when the filler takes every byte left, so that the next page anyone writes there meets
    // ENOSPC, else why not.
    QString fillUp() const {
        const int fd =
            ::open(QFile::encodeName(filler()).constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) {
            return QString("cannot create %1: %2").arg(filler(), std::strerror(errno));
        }
        // The bulk at once; the server writes meanwhile, and a fallocate of more than is free takes
        // nothing: a MiB less at each try.
        constexpr off_t kMiB = 1024 * 1024;
        off_t size = 0;
        for (off_t less = 0; size == 0 && less < 10 * kMiB; less += kMiB) {
            const auto free = static_cast<off_t>(statvfsOf(dir_.path().toStdString()).freeBytes) - less;
            size = free > 0 && ::posix_fallocate(fd, 0, free) == 0 ? free : 0;
        }
        // Then a page at a time until there is none.
        const std::vector<char> page(4096, 'x');
        ssize_t written = 0;
        while ((written = ::pwrite(fd, page.data(), page.size(), size)) > 0) {
            size += written;
        }
        const int error = errno;
        ::close(fd);
        return written < 0 && error == ENOSPC ? QString()
                                              : QString("cannot fill %1 (%2 bytes in it): %3")
                                                    .arg(filler())
                                                    .arg(size)
                                                    .arg(std::strerror(error));
    }
    void unfill() const { QFile::remove(filler()); }

private:
    QString filler() const { return dir_.path() + "/filler"; }

    QTemporaryDir dir_;
    bool mounted_ = false;
    QString why_;
};

// A TestCluster whose directory (data, socket, work) is under `dir`: TestCluster places itself in
// QDir::tempPath(), $TMPDIR. The load reports stay where they were (not on the small disk).
std::unique_ptr<test::TestCluster> clusterUnder(const QString& dir, const LocalClusterOptions& options) {
    std::vector<std::pair<const char*, std::optional<QByteArray>>> saved;
    for (const char* name : {"TMPDIR", "ISOBAR_REPORT_DIR", "ISOBAR_STATE_DIR"}) {
        saved.emplace_back(name,
                           qEnvironmentVariableIsSet(name) ? std::optional(qgetenv(name)) : std::nullopt);
    }
    const auto restore = qScopeGuard([&saved] {
        for (const auto& [name, value] : saved) {
            value ? qputenv(name, *value) : qunsetenv(name);
        }
    });
    qputenv("TMPDIR", QFile::encodeName(dir));
    return std::make_unique<test::TestCluster>(options);
}

ServerCheck checkOf(const std::string& conninfo) {
    ServerCheckRequest request;
    request.conninfo = conninfo;
    return checkServer(request);
}

const SettingWarning* warningAbout(const std::vector<SettingWarning>& warnings, const std::string& subject) {
    const auto w = std::find_if(warnings.begin(), warnings.end(),
                                [&subject](const SettingWarning& x) { return x.subject == subject; });
    return w == warnings.end() ? nullptr : &*w;
}

std::uint64_t count(Connection& conn, const std::string& sql) {
    return test::scalar(conn, sql).toULongLong();
}

} // namespace

class TestMonitor : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        cluster_ = std::make_unique<test::TestCluster>();
        disk_ = std::make_unique<SmallDisk>("512m");
        if (disk_->mounted()) {
            // The cluster itself takes some 50 MB of it; small WAL limits keep pg_wal near 32 MB.
            LocalClusterOptions options;
            options.settings = {{"max_wal_size", "'32MB'"}, {"min_wal_size", "'32MB'"}};
            small_ = clusterUnder(disk_->path(), options);
        }
    }
    void cleanupTestCase() {
        small_.reset(); // stopped and removed before its disk goes
        disk_.reset();
        cluster_.reset();
    }

    // The bytes per row the forecast says (from the table's columns) against what the table takes
    // on the server after the load: heap pages, free space map and all.
    void forecastPerRowMatchesTheTable_data() {
        QTest::addColumn<bool>("holes");
        QTest::addColumn<bool>("nullColumns");
        QTest::newRow("six values in every row") << false << false;
        QTest::newRow("values missing in places") << true << false;
        QTest::newRow("five columns NULL in every row") << false << true;
    }
    void forecastPerRowMatchesTheTable() {
        QFETCH(bool, holes);
        QFETCH(bool, nullColumns);
        const std::string table = nullColumns ? "forecast_nulls" : holes ? "forecast_holes" : "forecast_six";
        Connection conn = cluster_->connect();
        double bytesBefore = 0;
        if (nullColumns) {
            // The table gets its six columns from a first small load; then a file of t2m only.
            const Fixture six =
                writePacked(cluster_->workDir() + "/six-first.nc", {0, 1, 2, 3, 4, 5}, 1, 41, 41);
            WatchingSink first;
            QCOMPARE(int(runLoad(requestFor(*cluster_, table, six.path), {}, first).status),
                     int(LoadStatus::Completed));
            bytesBefore = tableBytes(conn, TableName::parse(table));
        }
        const std::vector<int> columns =
            nullColumns ? std::vector<int>{0} : std::vector<int>{0, 1, 2, 3, 4, 5};
        const QString name = QString::fromStdString(table) + ".nc";
        // 100860 rows: some 8 MB, where a page more or less is 0.1 %.
        const Fixture f =
            writePacked(cluster_->workDir() + "/" + name, columns, 60, 41, 41, holes, nullColumns ? 1 : 0);
        const auto rows = std::uint64_t{f.rows.size()};
        WatchingSink sink;
        LoadRequest request = requestFor(*cluster_, table, f.path);
        // One worker: each transaction leaves its last page part empty, and with two workers how
        // many transactions there are depends on timing (a few hundred kB of 8 MB, some 3 %).
        request.workers = 1;
        const LoadSummary summary = runLoad(request, {}, sink);
        QVERIFY2(summary.status == LoadStatus::Completed, qPrintable(messageOf(summary)));
        QCOMPARE(summary.rows, rows);
        if (holes) {
            QVERIFY(count(conn, "SELECT count(*) FROM " + table + " WHERE temperature_2m IS NULL") >
                    rows / 20);
        }

        const double forecast = forecastPerRow(sink.notes, rows, "from the table's columns");
        QVERIFY2(forecast > 0, qPrintable(test::joinLines(sink.notes)));
        const RowShape shape{6, false, nullColumns ? 5 : 0};
        QCOMPARE(QString::number(forecast, 'f', 1), QString::number(heapBytesPerRow(shape), 'f', 1));
        const double measured =
            (std::stod(test::scalar(conn, "SELECT pg_total_relation_size('" + table + "')").toStdString()) -
             bytesBefore) /
            static_cast<double>(rows);
        const QString said = QString("forecast %1 B/row, measured %2 B/row").arg(forecast).arg(measured);
        qInfo("%s", qPrintable(said));
        QVERIFY2(std::abs(forecast - measured) <= 0.03 * measured, qPrintable(said));

        // Once the table holds 100000 rows, the bytes per row are the table's own.
        ForecastInput in;
        in.rows = 1000;
        in.existingBytes = tableBytes(conn, TableName::parse(table));
        in.existingRows = static_cast<double>(count(conn, "SELECT count(*) FROM " + table));
        const StorageForecast measuredForecast = forecastLoad(in, probeServer(conn), {}, {});
        QCOMPARE(measuredForecast.perRowFrom, std::string("measured on the table"));
        QCOMPARE(measuredForecast.bytesPerRow, in.existingBytes / in.existingRows);
    }

    // Where the server keeps its data and the room there, as statvfs has it; the table's size
    // as the server has it, partitions and their indexes included.
    void probeSeesTheDataDirectory() {
        Connection conn = cluster_->connect();
        const ServerInfo info = probeServer(conn);
        const ServerStorage storage = probeStorage(conn, info, TableName::parse("not_there"));
        QVERIFY2(storage.seen(), storage.unseen.c_str());
        QCOMPARE(storage.data.path, cluster_->cluster().dataDir());
        QVERIFY(!storage.wal); // pg_wal is on the data directory's filesystem
        const ServerFilesystem fs = statvfsOf(cluster_->cluster().dataDir());
        QCOMPARE(storage.data.totalBytes, fs.totalBytes);
        // The disk is shared with whatever else this machine does: 1 % of it.
        QVERIFY2(std::abs(storage.data.freeBytes - fs.freeBytes) < 0.01 * fs.totalBytes,
                 qPrintable(QString("%1 free, statvfs %2").arg(storage.data.freeBytes).arg(fs.freeBytes)));

        // pg_wal's size: its regular files, as this (root or the same) user sees them.
        const auto walOnDisk = [&] {
            double sum = 0;
            for (const auto& e : fs::directory_iterator(cluster_->cluster().dataDir() / "pg_wal")) {
                sum += e.is_regular_file() ? static_cast<double>(e.file_size()) : 0.0;
            }
            return sum;
        };
        QVERIFY(test::waitFor([&] { return walDirBytes(conn) == walOnDisk(); }, std::chrono::seconds(5)));
        QVERIFY(walDirBytes(conn) >= 16.0 * 1024 * 1024);

        QCOMPARE(tableBytes(conn, TableName::parse("not_there")), -1.0);
        conn.exec("CREATE TABLE parted (a int, b text) PARTITION BY RANGE (a); "
                  "CREATE TABLE parted_1 PARTITION OF parted FOR VALUES FROM (0) TO (5000); "
                  "CREATE TABLE parted_2 PARTITION OF parted FOR VALUES FROM (5000) TO (10000); "
                  "CREATE INDEX ON parted_2 (a); "
                  "INSERT INTO parted SELECT i, repeat('x', i % 50) FROM generate_series(0, 9999) i");
        const auto bothParts = [&] {
            return std::stod(test::scalar(conn, "SELECT pg_total_relation_size('parted_1') + "
                                                "pg_total_relation_size('parted_2')")
                                 .toStdString());
        };
        QVERIFY(bothParts() > 300 * 1024);
        QVERIFY(test::waitFor([&] { return tableBytes(conn, TableName::parse("parted")) == bothParts(); },
                              std::chrono::seconds(5)));
        QCOMPARE(test::scalar(conn, "SELECT pg_total_relation_size('parted')"), QString("0"));
        conn.exec("DROP TABLE parted");
    }

    // A load whose forecast does not fit the free space is refused before anything exists, with
    // the numbers; with force it starts.
    void refusedBeforeTheStartOnASmallDisk() {
        if (!small_) {
            QSKIP(qPrintable(disk_->why()));
        }
        const fs::path dataDir = small_->cluster().dataDir();
        const Fixture f = writePacked(cluster_->workDir() + "/refused.nc", {0, 1, 2, 3, 4, 5}, 60, 41, 41);
        Connection conn = small_->connect();
        const ServerInfo info = probeServer(conn);
        const ServerStorage storage = probeStorage(conn, info, TableName::parse("refused"));
        QVERIFY2(storage.seen(), storage.unseen.c_str());
        QCOMPARE(storage.data.path, dataDir);
        const ServerFilesystem fs = statvfsOf(dataDir);
        QCOMPARE(storage.data.totalBytes, 512.0 * 1024 * 1024); // the tmpfs, nothing else
        QVERIFY(std::abs(storage.data.freeBytes - fs.freeBytes) <= 1024.0 * 1024);
        ForecastInput in;
        in.rows = f.rows.size();
        in.shape = RowShape{6, false, false};
        const StorageForecast forecast = forecastLoad(in, info, probeWalRetention(conn), storage);
        QVERIFY(forecast.tableBytes > 7e6 && forecast.dataNeeded >= forecast.tableBytes);
        // Room for half of what the load needs beyond the reserve.
        const auto unfill = qScopeGuard([this] { disk_->unfill(); });
        const QString fill = disk_->fillTo(kDiskReserveBytes + forecast.dataNeeded / 2);
        QVERIFY2(fill.isEmpty(), qPrintable(fill));

        LoadRequest request = requestFor(*small_, "refused", f.path);
        WatchingSink sink;
        const LoadSummary summary = runLoad(request, {}, sink);
        QCOMPARE(int(summary.status), int(LoadStatus::Failed));
        const QString message = messageOf(summary);
        VERIFY_MESSAGE(message,
                       "not enough disk for this load: the table with its WAL needs about " +
                           QString::fromStdString(formatBytes(std::uint64_t(forecast.dataNeeded))),
                       "on " + QString::fromStdString(dataDir.string()) + " (the server's data directory)",
                       "(and 64.0 MiB must stay free for the server)", "use --force to start anyway");
        const auto free = QRegularExpression(R"(but ([0-9.]+ \S+) are free there)").match(message);
        QVERIFY2(free.hasMatch(), qPrintable(message));
        const double freeNow = statvfsOf(dataDir).freeBytes;
        QVERIFY2(std::abs(parseBytes(free.captured(1)) - freeNow) < 1024.0 * 1024, qPrintable(message));
        QVERIFY(!sink.start);
        QCOMPARE(sink.units, std::size_t{0});
        QVERIFY(!summary.tableCreated);
        QCOMPARE(test::scalar(conn, "SELECT to_regclass('refused') IS NULL"), QString("t"));

        // --force: it starts (and is cancelled as soon as it has), saying why it might not fit.
        request.force = true;
        std::stop_source stop;
        WatchingSink forced;
        forced.onStarted = [&stop] {
            stop.request_stop();
        };
        const LoadSummary started = runLoad(request, stop.get_token(), forced);
        QVERIFY2(started.status == LoadStatus::Cancelled, qPrintable(messageOf(started)));
        QVERIFY(forced.start);
        QCOMPARE(forced.start->plannedRows, std::uint64_t{f.rows.size()});
        QVERIFY2(test::anyLineContains(forced.warnings,
                                       {"not enough disk for this load",
                                        "--force: loading anyway; the load stops before the disk is full"}),
                 qPrintable(test::joinLines(forced.warnings)));
        QVERIFY(started.tableCreated);
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM refused"), QString("0"));
        conn.exec("DROP TABLE refused");
    }

    // The disk fills while the load runs: it stops with the reserve still free, the server keeps
    // running, the committed units stay; with room again, the same load resumes and completes.
    void stopsBeforeTheDiskIsFull() {
        if (!small_) {
            QSKIP(qPrintable(disk_->why()));
        }
        const fs::path dataDir = small_->cluster().dataDir();
        // 32 hours of 81 x 81 points: 209952 rows, 288 units of 729 rows, each committed alone.
        const Fixture f = writePacked(cluster_->workDir() + "/fill.nc", {0, 1, 2, 3, 4, 5}, 32, 81, 81);
        LoadRequest request = requestFor(*small_, "filled", f.path);
        request.workers = 1;
        request.bandRows = 9;
        request.rowsPerTransaction = 1;
        const auto unfill = qScopeGuard([this] { disk_->unfill(); });
        QString fill = "not filled";
        std::jthread writer;
        WatchingSink sink;
        sink.onCommitted = [&](std::size_t units) {
            if (units == 5) {
                // The second writer: half the reserve left.
                writer = std::jthread([&] { fill = disk_->fillTo(kDiskReserveBytes / 2); });
            }
            // Paced by the test (some 36k rows/s) so that what the server writes in the second
            // before the monitor looks again stays well inside what is left free.
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        };
        const LoadSummary summary = runLoad(request, {}, sink);
        if (writer.joinable()) {
            writer.join();
        }
        QVERIFY2(fill.isEmpty(), qPrintable(fill));
        QCOMPARE(int(summary.status), int(LoadStatus::Failed));
        QVERIFY(sink.error);
        QCOMPARE(QString::fromStdString(sink.error->sqlState), QString("53100"));
        VERIFY_MESSAGE(messageOf(summary),
                       "stopped before the server's disk is full: ", " free on the server's data filesystem",
                       "(" + QString::fromStdString(dataDir.string()) + ")",
                       "The units in flight were rolled back; the committed ones stay",
                       "run the same load again: it resumes where it stopped");
        // The sample that stopped it saw under the reserve, as statvfs did.
        QVERIFY(!sink.samples.empty());
        const ServerSample& last = sink.samples.back();
        QVERIFY2(last.freeBytes >= 0 && last.freeBytes < kDiskReserveBytes,
                 qPrintable(QString::number(last.freeBytes)));
        QVERIFY(last.tableBytes > 0);

        Connection conn = small_->connect();
        QCOMPARE(test::scalar(conn, "SELECT 1"), QString("1"));
        const std::uint64_t rows = count(conn, "SELECT count(*) FROM filled");
        QVERIFY2(rows > 0 && rows < f.rows.size(), qPrintable(QString::number(rows)));
        QCOMPARE(rows, sink.committedRows);
        QCOMPARE(rows, summary.rows);
        QCOMPARE(rows, recordedRows(conn, ledgerFor(conn, TableName::parse("filled"))));

        disk_->unfill();
        // The monitor stops a load when less than the reserve plus 3 s of its consumption is left:
        // paced at 2 ms a unit at most (some 48 MB/s with its WAL), the rerun keeps far from that
        // however fast the machine.
        WatchingSink again;
        again.onCommitted = [](std::size_t) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        };
        const LoadSummary rerun = runLoad(request, {}, again);
        QVERIFY2(rerun.status == LoadStatus::Completed, qPrintable(messageOf(rerun)));
        QCOMPARE(rerun.resumedRows, rows);
        QCOMPARE(rerun.rows + rerun.resumedRows, std::uint64_t{f.rows.size()});
        QCOMPARE(count(conn, "SELECT count(*) FROM filled"), std::uint64_t{f.rows.size()});
        QCOMPARE(count(conn, "SELECT count(DISTINCT (time, location_id)) FROM filled"),
                 std::uint64_t{f.rows.size()});
        const QString diff = test::errorOf([&] {
            const QString d = test::compareRows(test::readWeatherRows(conn, "filled"), f.rows);
            if (!d.isEmpty()) {
                throw Error(d.toStdString());
            }
        });
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // The disk fills at once, between two looks of the monitor: the server itself meets ENOSPC first
    // (the load's COPY cannot extend the table, or a WAL write PANICs). The failure names the disk, as
    // the free space read again has it; the committed units stay and nothing else; with room again
    // (and the server up again if it went down), the same load resumes and completes.
    void serverOutOfSpaceIsNamed() {
        if (!small_) {
            QSKIP(qPrintable(disk_->why()));
        }
        const QString dataDir = QString::fromStdString(small_->cluster().dataDir().string());
        const Fixture f = writePacked(cluster_->workDir() + "/full.nc", {0, 1, 2, 3, 4, 5}, 32, 81, 81);
        LoadRequest request = requestFor(*small_, "disk_full", f.path);
        request.workers = 1;
        request.bandRows = 9;
        request.rowsPerTransaction = 1;
        // A server that goes down on the full disk cannot come back before the filler goes: three
        // tries of the unit (1.4 s), not eight (some 20 s).
        request.retries = 3;
        // Idle through the load: it survives an ERROR in another session, not a crash or a stop.
        Connection witness = small_->connect();
        const auto unfill = qScopeGuard([this] { disk_->unfill(); });
        QString fill = "not filled";
        bool filled = false;
        double freeAfterFill = -1;
        WatchingSink sink;
        // Right after the monitor has looked (on its thread): it looks again a second later, and the
        // worker's next page meets ENOSPC within milliseconds.
        sink.onSampled = [&] {
            if (!filled && sink.units >= 5) {
                filled = true;
                fill = disk_->fillUp();
                freeAfterFill = statvfsOf(dataDir.toStdString()).freeBytes;
            }
        };
        // 20 ms a unit: the load would take some 6 s, and the monitor's second look comes after
        // a few dozen units.
        sink.onCommitted = [](std::size_t) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        };
        const LoadSummary summary = runLoad(request, {}, sink);
        QVERIFY2(fill.isEmpty(), qPrintable(fill));
        QVERIFY2(freeAfterFill >= 0 && freeAfterFill < 1024.0 * 1024,
                 qPrintable(QString::number(freeAfterFill)));
        QCOMPARE(int(summary.status), int(LoadStatus::Failed));
        QVERIFY(sink.error);
        const QString message = messageOf(summary);
        qInfo("the load failed with: %s", qPrintable(message));

        const bool wentDown = !test::errorOf([&witness] { witness.exec("SELECT 1"); }).isEmpty();
        qInfo("the server %s", wentDown ? "went down" : "stayed up");

        // Room again. A server that PANICked restarts by itself; one whose recovery found no room
        // either has stopped, and is started again.
        disk_->unfill();
        const auto serverUp = [this] {
            try {
                if (small_->cluster().status().state != ClusterState::Running) {
                    small_->cluster().start();
                }
                small_->connect().exec("SELECT 1");
                return true;
            } catch (const Error&) {
                return false;
            }
        };
        QVERIFY2(test::waitFor(serverUp, std::chrono::seconds(20)), small_->cluster().logTail().c_str());
        Connection conn = small_->connect();

        // The two ways the failure may name the disk: the monitor's stop, or the server's own error
        // with what the loader adds from the free space read again (matched to the end).
        const QString monitorForm = "stopped before the server's disk is full: ";
        const QRegularExpression blameForm(
            QRegularExpression::escape("; the server's disk is full or nearly (") + R"(([0-9.]+ \S+))" +
            QRegularExpression::escape(" free on " + dataDir +
                                       "): that is the likely cause. Free some space and run the same load "
                                       "again: it resumes where it stopped") +
            "$");
        if (message.startsWith(monitorForm)) {
            // Only a server that went down can miss the ENOSPC its worker met: the monitor's look
            // after its restart came first.
            QVERIFY2(wentDown, qPrintable(message));
            QCOMPARE(QString::fromStdString(sink.error->sqlState), QString("53100"));
            VERIFY_MESSAGE(message, " free on the server's data filesystem (" + dataDir + ")",
                           "run the same load again: it resumes where it stopped");
        } else {
            const auto named = blameForm.match(message);
            QVERIFY2(named.hasMatch(), qPrintable(message));
            QVERIFY2(parseBytes(named.captured(1)) < kDiskReserveBytes, qPrintable(message));
            if (!wentDown) {
                // The COPY could not extend the table: the transaction rolled back, the server runs on.
                QCOMPARE(QString::fromStdString(sink.error->sqlState), QString("53100"));
                VERIFY_MESSAGE(message, "could not extend file", "No space left on device");
            }
        }

        const std::uint64_t rows = count(conn, "SELECT count(*) FROM disk_full");
        QVERIFY2(rows > 0 && rows < f.rows.size(), qPrintable(QString::number(rows)));
        QCOMPARE(rows, sink.committedRows);
        QCOMPARE(rows, summary.rows);
        QCOMPARE(rows, recordedRows(conn, ledgerFor(conn, TableName::parse("disk_full"))));

        WatchingSink again;
        again.onCommitted = [](std::size_t) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        };
        const LoadSummary rerun = runLoad(request, {}, again);
        QVERIFY2(rerun.status == LoadStatus::Completed, qPrintable(messageOf(rerun)));
        QCOMPARE(rerun.resumedRows, rows);
        QCOMPARE(rerun.rows + rerun.resumedRows, std::uint64_t{f.rows.size()});
        QCOMPARE(count(conn, "SELECT count(*) FROM disk_full"), std::uint64_t{f.rows.size()});
        QCOMPARE(count(conn, "SELECT count(DISTINCT (time, location_id)) FROM disk_full"),
                 std::uint64_t{f.rows.size()});
        const QString diff = test::errorOf([&] {
            const QString d = test::compareRows(test::readWeatherRows(conn, "disk_full"), f.rows);
            if (!d.isEmpty()) {
                throw Error(d.toStdString());
            }
        });
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    // An inactive slot keeps all the WAL a load writes: the probe, the server check (with the
    // DROP that fixes it) and the forecast say so; after the DROP nothing does.
    void inactiveSlotIsReported() {
        Connection conn = cluster_->connect();
        conn.exec("SELECT pg_create_physical_replication_slot('isobar_test_slot', true)");
        const auto drop = qScopeGuard([&conn] {
            conn.exec(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = "
                "'isobar_test_slot'");
        });
        const std::string lsn = test::scalar(conn, "SELECT pg_current_wal_lsn()").toStdString();
        conn.exec("CREATE TABLE slot_wal AS SELECT i, md5(i::text) AS m FROM generate_series(1, 20000) i");
        const double written = std::stod(
            test::scalar(conn, "SELECT pg_current_wal_lsn() - '" + lsn + "'::pg_lsn").toStdString());
        QVERIFY(written > 1e6);

        const WalRetention wal = probeWalRetention(conn);
        QCOMPARE(wal.replicationSlots.size(), std::size_t{1});
        const WalRetention::Slot& slot = wal.replicationSlots.front();
        QCOMPARE(slot.name, std::string("isobar_test_slot"));
        QCOMPARE(slot.type, std::string("physical"));
        QVERIFY(!slot.active);
        QCOMPARE(slot.walStatus, std::string("reserved"));
        QVERIFY2(slot.retainedBytes >= written, qPrintable(QString::number(slot.retainedBytes)));

        const ServerCheck check = checkOf(cluster_->conninfo());
        const SettingWarning* w = warningAbout(check.warnings, "slot isobar_test_slot");
        QVERIFY(w != nullptr);
        QCOMPARE(int(w->severity), int(Severity::Danger));
        VERIFY_MESSAGE(QString::fromStdString(w->message),
                       "replication slot isobar_test_slot (physical) is inactive",
                       "stays in pg_wal until its consumer comes back or the slot is dropped");
        QCOMPARE(w->fix, std::string("SELECT pg_drop_replication_slot('isobar_test_slot');"));

        ForecastInput in;
        in.rows = 1'000'000;
        in.shape = RowShape{6, false, false};
        const StorageForecast f = forecastLoad(in, check.info, check.wal, {});
        QCOMPARE(f.walKeptBytes, f.walBytes);
        QCOMPARE(f.walKeptWhy, std::string("all of it stays: replication slot isobar_test_slot is inactive"));

        conn.exec(w->fix);
        QVERIFY(warningAbout(checkOf(cluster_->conninfo()).warnings, "slot isobar_test_slot") == nullptr);
        conn.exec("DROP TABLE slot_wal");
    }

    // archive_command fails: the probe sees the failures and the segment, the check warns.
    void failingArchiverIsReported() {
        LocalClusterOptions options;
        options.settings = {{"archive_mode", "on"}, {"archive_command", "'false'"}};
        test::TestCluster archiving(options);
        Connection conn = archiving.connect();
        conn.exec("CREATE TABLE archived AS SELECT generate_series(1, 1000) AS i");
        const std::string segment =
            test::scalar(conn, "SELECT pg_walfile_name(pg_switch_wal())").toStdString();
        QVERIFY2(test::waitFor([&] { return count(conn, "SELECT failed_count FROM pg_stat_archiver") > 0; },
                               std::chrono::seconds(10)),
                 "the archiver did not try within 10 s");
        // The archiver tries the oldest segment first, and again and again.
        const std::string oldest =
            test::scalar(conn, "SELECT left(min(name), 24) FROM pg_ls_archive_statusdir() "
                               "WHERE name LIKE '%.ready'")
                .toStdString();
        QVERIFY2(oldest <= segment, oldest.c_str());
        const WalRetention wal = probeWalRetention(conn);
        QVERIFY(wal.archiving);
        QCOMPARE(wal.archiveCommand, std::string("false"));
        QVERIFY(wal.failing);
        QVERIFY(wal.failed >= 1);
        QCOMPARE(wal.archived, std::uint64_t{0});
        QCOMPARE(wal.lastFailedWal, oldest);
        QVERIFY(wal.readySegments >= 1);

        const ServerCheck check = checkOf(archiving.conninfo());
        const SettingWarning* w = warningAbout(check.warnings, "archiver");
        QVERIFY(w != nullptr);
        QCOMPARE(int(w->severity), int(Severity::Danger));
        VERIFY_MESSAGE(QString::fromStdString(w->message), "the WAL archiver is failing (",
                       "last " + QString::fromStdString(oldest) + ", archive_command 'false'",
                       "the server keeps every WAL segment the load writes");
        ForecastInput in;
        in.rows = 1000;
        in.shape = RowShape{6, false, false};
        QCOMPARE(forecastLoad(in, check.info, check.wal, {}).walKeptWhy,
                 std::string("all of it stays: the archiver is failing"));
    }

    // A streaming standby of the test cluster (pg_basebackup -R, its own port and socket):
    // listed with its state, and said by the check.
    void standbyIsListed() {
        LocalCluster& primary = cluster_->cluster();
        const fs::path dir = cluster_->root().toStdString() + "/standby";
        const fs::path socket = cluster_->root().toStdString() + "/standby-socket";
        for (const auto& d : {dir, socket}) {
            fs::create_directory(d);
            if (primary.runAs()) {
                QCOMPARE(::chown(d.c_str(), primary.runAs()->uid, primary.runAs()->gid), 0);
            }
            fs::permissions(d, fs::perms::owner_all);
        }
        ProcessOptions as;
        as.runAs = primary.runAs();
        as.timeout = std::chrono::seconds(30);
        as.unsetEnvironment = {"PG*"};
        const ProcessResult backup =
            runProcess(primary.binDir() / "pg_basebackup",
                       {"-D", dir.string(), "-R", "-X", "stream", "-c", "fast", "-d",
                        "host=" + primary.socketDir().string() + " port=" + std::to_string(primary.port()) +
                            " user=" + primary.superuser() + " application_name=isobar_standby"},
                       as);
        QVERIFY2(backup.ok(), backup.output.c_str());
        const auto stop = qScopeGuard([&] {
            runProcess(primary.binDir() / "pg_ctl", {"stop", "-D", dir.string(), "-m", "immediate", "-w"},
                       as);
        });
        const ProcessResult started = runProcess(
            primary.binDir() / "pg_ctl",
            {"start", "-D", dir.string(), "-l", (dir / "standby.log").string(), "-w", "-t", "20", "-o",
             "-c port=" + std::to_string(primary.port() + 1) + " -c unix_socket_directories='" +
                 socket.string() + "'"},
            as);
        QVERIFY2(started.ok(), started.output.c_str());

        Connection conn = cluster_->connect();
        QVERIFY2(test::waitFor(
                     [&] {
                         const WalRetention wal = probeWalRetention(conn);
                         return wal.standbys.size() == 1 && wal.standbys.front().state == "streaming" &&
                                wal.standbys.front().replayBytes >= 0;
                     },
                     std::chrono::seconds(15)),
                 "no streaming standby within 15 s");
        const WalRetention wal = probeWalRetention(conn);
        const WalRetention::Standby& s = wal.standbys.front();
        QCOMPARE(s.name, std::string("isobar_standby"));
        const std::vector<SettingWarning> warnings = walRetentionWarnings(wal);
        QCOMPARE(warnings.size(), std::size_t{1});
        const SettingWarning* w = warningAbout(warnings, "standby isobar_standby");
        QVERIFY(w != nullptr);
        QCOMPARE(int(w->severity), int(Severity::Info));
        VERIFY_MESSAGE(QString::fromStdString(w->message), "standby isobar_standby (streaming, replay lag",
                       "receives all the WAL of the load");
        // The standby answers on its own socket, in recovery.
        Connection standby =
            Connection::open("host=" + socket.string() + " port=" + std::to_string(primary.port() + 1) +
                             " dbname=isobar user=" + primary.superuser());
        QCOMPARE(test::scalar(standby, "SELECT pg_is_in_recovery()"), QString("t"));
    }

private:
    std::unique_ptr<test::TestCluster> cluster_;
    std::unique_ptr<SmallDisk> disk_;
    std::unique_ptr<test::TestCluster> small_;
};

QTEST_GUILESS_MAIN(TestMonitor)
#include "tst_monitor.moc"
