// SPDX-License-Identifier: GPL-3.0-or-later

// The server's disk around a load, against real clusters: the forecast against the table it
// forecasts, the free space as the server's filesystem has it, the refusal before a load that does
// not fit, the stop before the disk is full (on a small tmpfs filled while the load runs) and the
// resume after it, and the server's own ENOSPC named as the disk. What keeps WAL on the disk (a
// slot, a failing archiver, a standby) is tst_wal's.

#include "Fixtures.h"
#include "SmallDisk.h"
#include "TestCluster.h"
#include "TestUtil.h"
#include "db/Ledger.h"
#include "db/ServerProbe.h"
#include "db/ServerStorage.h"
#include "ingest/Loader.h"
#include "monitor/ServerMonitor.h"
#include "util/Format.h"

#include <QRegularExpression>
#include <QScopeGuard>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <thread>

using namespace isobar;
namespace fs = std::filesystem;
using test::clusterUnder;
using test::SmallDisk;
using test::statvfsOf;

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
    void serverMeasured(const ServerReading& s) override {
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
    std::vector<ServerReading> samples;
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
            QVERIFY(test::count(conn, "SELECT count(*) FROM " + table + " WHERE temperature_2m IS NULL") >
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
        in.existingRows = static_cast<double>(test::count(conn, "SELECT count(*) FROM " + table));
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

    // The table's size is read as often as its reading's cost allows (a warehouse's tens of
    // thousands of chunks take a second to size, which every sample would take from the server):
    // with a share next to nothing only the first sample and the last have it, those between say
    // unknown (-1), not a size gone stale; with the usual share a small table is sized every time.
    void tableSizeIsReadAsItsCostAllows() {
        Connection conn = cluster_->connect();
        conn.exec(
            "CREATE TABLE sized (time timestamptz NOT NULL, v real) PARTITION BY RANGE (time); "
            "CREATE TABLE sized_jan PARTITION OF sized FOR VALUES FROM ('2024-01-01') TO ('2024-02-01')");
        const std::string insert =
            "INSERT INTO sized SELECT '2024-01-01'::timestamptz + g * interval '1 second', "
            "g FROM generate_series(1, 20000) g";
        conn.exec(insert);
        const TableName sized = TableName::parse("sized");
        ServerMonitor sparing(cluster_->conninfo(),
                              ServerMonitor::Target{sized, TableType::Partitioned, {}, 1e-9});
        std::vector<double> sizes;
        for (int i = 0; i < 3; ++i) {
            const auto s = sparing.sample(i);
            QVERIFY(s.has_value());
            sizes.push_back(s->tableBytes);
        }
        conn.exec(insert);
        const auto last = sparing.sample(3, true);
        QVERIFY(last.has_value());
        QVERIFY2(sizes[0] > 0 && sizes[1] == -1 && sizes[2] == -1,
                 qPrintable(QString("%1 %2 %3").arg(sizes[0]).arg(sizes[1]).arg(sizes[2])));
        QVERIFY2(last->tableBytes > sizes[0],
                 qPrintable(QString("%1 then %2").arg(sizes[0]).arg(last->tableBytes)));

        ServerMonitor usual(cluster_->conninfo(), ServerMonitor::Target{sized, TableType::Partitioned, {}});
        for (int i = 0; i < 3; ++i) {
            const auto s = usual.sample(10.0 * i);
            QVERIFY(s.has_value() && s->tableBytes > 0);
        }
        conn.exec("DROP TABLE sized");
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
        const ServerReading& last = sink.samples.back();
        QVERIFY2(last.freeBytes >= 0 && last.freeBytes < kDiskReserveBytes,
                 qPrintable(QString::number(last.freeBytes)));
        QVERIFY(last.tableBytes > 0);

        Connection conn = small_->connect();
        QCOMPARE(test::scalar(conn, "SELECT 1"), QString("1"));
        const std::uint64_t rows = test::count(conn, "SELECT count(*) FROM filled");
        QVERIFY2(rows > 0 && rows < f.rows.size(), qPrintable(QString::number(rows)));
        QCOMPARE(rows, sink.committedRows);
        QCOMPARE(rows, summary.rows);
        QCOMPARE(rows, recordedRows(conn, ledgerFor(conn, TableName::parse("filled"))));

        disk_->unfill();
        resumesExactly(request, conn, "filled", f, rows);
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
        const QString monitorForm = "the server stopped answering with its disk full: ";
        const QRegularExpression blameForm(
            QRegularExpression::escape("; the server's disk is full or nearly (") + R"(([0-9.]+ \S+))" +
            QRegularExpression::escape(" free on " + dataDir +
                                       "): that is the likely cause. Free some space and run the same load "
                                       "again: it resumes where it stopped") +
            "$");
        if (message.startsWith(monitorForm)) {
            // Only a server that went down can miss the ENOSPC its worker met: the monitor, which
            // reads the free space also when the server does not answer, named it first.
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

        const std::uint64_t rows = test::count(conn, "SELECT count(*) FROM disk_full");
        QVERIFY2(rows > 0 && rows < f.rows.size(), qPrintable(QString::number(rows)));
        QCOMPARE(rows, sink.committedRows);
        QCOMPARE(rows, summary.rows);
        QCOMPARE(rows, recordedRows(conn, ledgerFor(conn, TableName::parse("disk_full"))));

        resumesExactly(request, conn, "disk_full", f, rows);
    }

private:
    // After a stop with `before` rows committed: the same load again loads the rest, every row
    // exactly once, every column as written (paced at 2 ms a unit at most, so that the monitor's
    // reserve plus 3 s of writes stays far from the disk's end however fast the machine).
    static void resumesExactly(const LoadRequest& request, Connection& conn, const std::string& table,
                               const Fixture& f, std::uint64_t before) {
        WatchingSink again;
        again.onCommitted = [](std::size_t) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        };
        const LoadSummary rerun = runLoad(request, {}, again);
        QVERIFY2(rerun.status == LoadStatus::Completed, qPrintable(messageOf(rerun)));
        QCOMPARE(rerun.resumedRows, before);
        QCOMPARE(rerun.rows + rerun.resumedRows, std::uint64_t{f.rows.size()});
        QCOMPARE(test::count(conn, "SELECT count(*) FROM " + table), std::uint64_t{f.rows.size()});
        QCOMPARE(test::count(conn, "SELECT count(DISTINCT (time, location_id)) FROM " + table),
                 std::uint64_t{f.rows.size()});
        const QString diff = test::errorOf([&] {
            const QString d = test::compareRows(test::readWeatherRows(conn, table), f.rows);
            if (!d.isEmpty()) {
                throw Error(d.toStdString());
            }
        });
        QVERIFY2(diff.isEmpty(), qPrintable(diff));
    }

    std::unique_ptr<test::TestCluster> cluster_;
    std::unique_ptr<SmallDisk> disk_;
    std::unique_ptr<test::TestCluster> small_;
};

QTEST_GUILESS_MAIN(TestMonitor)
#include "tst_monitor.moc"