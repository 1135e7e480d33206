// SPDX-License-Identifier: GPL-3.0-or-later

// Table types: regular, unlogged (and SET LOGGED after), partitioned, hypertable, distributed; an
// existing table of another type; a dropped and re-created table.

#include "TestCluster.h"
#include "TestUtil.h"
#include "db/Compression.h"
#include "db/Ledger.h"
#include "db/TableMetadata.h"
#include "db/TableType.h"
#include "db/WeatherSchema.h"
#include "report/RunReport.h"

#include <QtTest>

#include <future>
#include <tuple>

using namespace isobar;
using test::CliRun;
using test::runCli;

namespace {

QString typeOf(Connection& conn, const std::string& table) {
    return QString::fromStdString(
        std::string(tableTypeName(existingTableType(conn, TableName::parse(table)))));
}

} // namespace

class TestTables : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        cluster_ = std::make_unique<test::TestCluster>();
        // Two days across a month boundary, so day, week and month partitions all split it.
        file_ = cluster_->workDir() + "/tables.nc";
        const CliRun sample = runCli(
            {"synth", "--out", file_, "--hours", "48", "--region", "10,0,0,10", "--start", "2024-01-31T00"});
        QVERIFY2(sample.exitCode == 0, qPrintable(sample.err));
    }
    void cleanupTestCase() { cluster_.reset(); }

    void partitioned_data() {
        QTest::addColumn<QString>("interval");
        QTest::addColumn<int>("partitions");
        QTest::newRow("day") << "day" << 2;
        QTest::newRow("week") << "week" << 1; // 2024-01-29 .. 2024-02-04
        QTest::newRow("month") << "month" << 2;
        QTest::newRow("year") << "year" << 1;
    }
    // Partitions are created ahead of the rows, named after their start, and the rows land in them.
    void partitioned() {
        QFETCH(QString, interval);
        QFETCH(int, partitions);
        const QString table = "part_" + interval;
        const CliRun run = load(table, {"--table-type", "partitioned", "--partition-interval", interval});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn, "SELECT relkind FROM pg_class WHERE oid = '" + table.toStdString() +
                                        "'::regclass"),
                 QString("p"));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM pg_inherits WHERE inhparent = '" +
                                        table.toStdString() + "'::regclass"),
                 QString::number(partitions));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM " + table.toStdString()), QString::number(kRows));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM ONLY " + table.toStdString()), QString("0"));
        if (interval == "day") {
            QCOMPARE(test::scalar(conn, "SELECT count(*) FROM " + table.toStdString() + "_p20240201"),
                     QString::number(kRows / 2));
        }
        // Rerun: nothing to do, nothing twice.
        const CliRun again = load(table, {"--table-type", "partitioned", "--partition-interval", interval});
        QCOMPARE(again.exitCode, 0);
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM " + table.toStdString()), QString::number(kRows));
    }

    // A partition of the user's that covers the days of the file: the load makes none of its own
    // beside it (the server refuses an overlap, 42P17, which is passed over) and the rows land in
    // the user's.
    void partitionOfTheUsersCoversTheDays() {
        const CliRun first =
            load("users_parts", {"--table-type", "partitioned", "--partition-interval", "year"});
        QVERIFY2(first.exitCode == 0, qPrintable(first.err));
        Connection conn = cluster_->connect();
        conn.exec("DROP TABLE users_parts_p20240101");
        conn.exec(
            "CREATE TABLE mine PARTITION OF users_parts FOR VALUES FROM ('2024-01-15') TO ('2024-02-15')");
        const CliRun run =
            load("users_parts", {"--table-type", "partitioned", "--partition-interval", "day", "--replace"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(test::scalar(conn, "SELECT string_agg(inhrelid::regclass::text, ',') FROM pg_inherits WHERE "
                                    "inhparent = 'users_parts'::regclass"),
                 QString("mine"));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM mine"), QString::number(kRows));
    }

    // Without PL/pgSQL in the database (it can be dropped) the partitions are made one by one, with
    // the same result, a user's overlapping partition passed over as above.
    void partitionsWithoutPlpgsql() {
        Connection conn = cluster_->connect();
        conn.exec("BEGIN");
        conn.exec("DROP EXTENSION plpgsql");
        conn.exec("CREATE TABLE no_pl (time timestamptz NOT NULL, v real) PARTITION BY RANGE (time)");
        conn.exec(
            "CREATE TABLE no_pl_users PARTITION OF no_pl FOR VALUES FROM ('2024-03-02') TO ('2024-03-03')");
        std::vector<PgTimestamp> times;
        for (const char* t : {"2024-02-29T23:00:00Z", "2024-03-01T00:00:00Z", "2024-03-02T12:00:00Z"}) {
            times.push_back(*parseTimestamp(t));
        }
        const QString failed = test::errorOf(
            [&] { createPartitions(conn, TableName::parse("no_pl"), PartitionInterval::Day, times); });
        const QString made = test::scalar(
            conn, "SELECT string_agg(inhrelid::regclass::text, ',' ORDER BY inhrelid::regclass::text) FROM "
                  "pg_inherits WHERE inhparent = 'no_pl'::regclass");
        conn.exec("ROLLBACK");
        QVERIFY2(failed.isEmpty(), qPrintable(failed));
        QCOMPARE(made, QString("no_pl_p20240229,no_pl_p20240301,no_pl_users"));
    }

    // More new partitions than the server's lock table holds (each stays locked until the
    // preparation commits): the load fails before anything exists, saying how many, the setting
    // and what to do; a longer interval then loads.
    void morePartitionsThanLocks() {
        LocalClusterOptions options;
        options.settings = {{"max_locks_per_transaction", "10"}, {"max_connections", "10"}};
        const test::TestCluster small(options);
        QStringList files;
        for (const char* year : {"2021", "2022"}) {
            files << small.workDir() + "/" + year + ".nc";
            const CliRun sample = runCli({"synth", "--out", files.back(), "--hours", "8760", "--region",
                                          "10,10,10,10", "--start", QString(year) + "-01-01T00"});
            QVERIFY2(sample.exitCode == 0, qPrintable(sample.err));
        }
        const auto load = [&](const QString& interval) {
            return runCli(QStringList{"load", "--dsn", QString::fromStdString(small.conninfo()), "--table",
                                      "years", "--table-type", "partitioned", "--partition-interval",
                                      interval, "--reporting-period", "0"}
                          << files);
        };
        const CliRun daily = load("day");
        QCOMPARE(daily.exitCode, 1);
        QVERIFY2(daily.err.contains("730 day partitions in one load need more locks than the server's lock "
                                    "table holds (max_locks_per_transaction = 10): load fewer files at a "
                                    "time, choose a longer --partition-interval"),
                 qPrintable(daily.err));
        Connection conn = small.connect();
        QCOMPARE(test::scalar(conn, "SELECT to_regclass('years') IS NULL"), QString("t"));
        const CliRun monthly = load("month");
        QVERIFY2(monthly.exitCode == 0, qPrintable(monthly.err));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM pg_inherits WHERE inhparent = 'years'::regclass"),
                 QString("24"));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM years"), QString("17520"));
    }

    // Unlogged for speed, LOGGED once complete; the ledger moves to the logged one with it.
    void unloggedThenLogged() {
        const CliRun run = load("fast_then_safe", {"--table-type", "unlogged", "--set-logged-after"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.err.contains("LOGGED after the load"), qPrintable(run.err));
        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn, "SELECT relpersistence FROM pg_class WHERE relname = 'fast_then_safe'"),
                 QString("p"));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM isobar.ledger_unlogged WHERE relid = "
                                    "'fast_then_safe'::regclass"),
                 QString("0"));
        QCOMPARE(test::scalar(conn,
                              "SELECT sum(rows) FROM isobar.ledger WHERE relid = 'fast_then_safe'::regclass"),
                 QString::number(kRows));
        const CliRun again = load("fast_then_safe", {});
        QCOMPARE(again.exitCode, 0);
        QVERIFY2(again.err.contains("already in the table"), qPrintable(again.err));
    }

    // A run that chose the unlogged ledger before another run set the table LOGGED (and moved the
    // ledger) waits for the move, then finds its units taken: nothing is loaded twice. A table made
    // UNLOGGED again outside Isobar takes its ledger along, so a crash empties both together.
    void ledgerFollowsPersistence() {
        QCOMPARE(load("moving", {"--table-type", "unlogged"}).exitCode, 0);
        Connection mover = cluster_->connect();
        const TableName table = TableName::parse("moving");
        const LedgerTarget stale = ledgerFor(mover, table);
        QVERIFY(stale.unlogged);
        const std::string unit =
            test::scalar(mover,
                         "SELECT min(unit_key) FROM isobar.ledger_unlogged WHERE relid = " + stale.relid)
                .toStdString();

        mover.exec("BEGIN");
        lockLedgerMove(mover, stale.relid);
        mover.exec("ALTER TABLE moving SET LOGGED");
        moveLedgerRows(mover, LedgerTarget::of(stale.relid, false));
        std::promise<void> connected;
        auto claimed = std::async(std::launch::async, [this, &stale, &unit, &connected] {
            Connection late = cluster_->connect();
            // As a worker begins its unit, even where the role defaults to another isolation.
            late.exec("SET default_transaction_isolation = 'repeatable read'");
            late.exec(kBeginReadCommitted);
            connected.set_value();
            const bool taken = claimUnit(late, stale, unit, 1);
            // A unit nobody loaded yet goes into the ledger of the table as it is now (logged),
            // not the one this run chose before the move.
            const bool fresh = claimUnit(late, stale, "a unit not loaded yet", 1);
            const bool intoLogged =
                test::scalar(late,
                             "SELECT count(*) FROM isobar.ledger WHERE unit_key = 'a unit not loaded yet'") ==
                "1";
            late.exec("ROLLBACK");
            return std::tuple{taken, fresh, intoLogged};
        });
        connected.get_future().wait();
        // The claim waits for the move (it cannot have decided before the move commits).
        QCOMPARE(claimed.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout);
        mover.exec("COMMIT");
        const auto [taken, fresh, intoLogged] = claimed.get();
        QCOMPARE(taken, false);
        QCOMPARE(fresh, true);
        QCOMPARE(intoLogged, true);
        QCOMPARE(
            test::scalar(mover, "SELECT count(*) FROM isobar.ledger_unlogged WHERE relid = " + stale.relid),
            QString("0"));

        mover.exec("ALTER TABLE moving SET UNLOGGED");
        const CliRun again = load("moving", {});
        QCOMPARE(again.exitCode, 0);
        QVERIFY2(again.err.contains("already in the table"), qPrintable(again.err));
        QCOMPARE(test::scalar(mover, "SELECT count(*) FROM moving"), QString::number(kRows));
        QCOMPARE(
            test::scalar(mover, "SELECT sum(rows) FROM isobar.ledger_unlogged WHERE relid = " + stale.relid),
            QString::number(kRows));
        QCOMPARE(test::scalar(mover, "SELECT count(*) FROM isobar.ledger WHERE relid = " + stale.relid),
                 QString("0"));
    }

    // An existing table is loaded as it is; asking for another type is refused, naming both.
    void existingTableOfAnotherType() {
        QCOMPARE(load("plain", {}).exitCode, 0);
        const CliRun run = load("plain", {"--table-type", "partitioned"});
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("exists as a regular table, not a partitioned one"), qPrintable(run.err));
        Connection conn = cluster_->connect();
        QCOMPARE(typeOf(conn, "plain"), QString("regular"));
    }

    // A table dropped and created again under the same name starts from nothing.
    void recreatedTableStartsAfresh() {
        QCOMPARE(load("phoenix", {}).exitCode, 0);
        Connection conn = cluster_->connect();
        conn.exec("DROP TABLE phoenix");
        conn.exec("CREATE TABLE phoenix (LIKE plain)");
        const CliRun run = load("phoenix", {});
        QCOMPARE(run.exitCode, 0);
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM phoenix"), QString::number(kRows));
    }

    // A run that looked for the table before it waited for another run's preparation finds the
    // table that run created, and does not take it for new: it would empty the ledger of the units
    // the other run has committed and load them again. Two concurrent loads of a new table did so
    // about once in eight (tst_engine's concurrentRunsDoNotDuplicate): the first look after the
    // advisory lock could still answer from the backend's catalog cache ("no such table"), and
    // CREATE TABLE IF NOT EXISTS then skipped quietly. This runs that interleaving under control;
    // whether the stale answer comes depends on when the server delivers the creator's commit to
    // the waiting backend, so the fix is checked where it cannot miss: a table counts as created
    // only when this transaction wrote its catalog row.
    void tableAnotherRunCreatedIsNotNew() {
        const TableName name = TableName::parse("made_meanwhile");
        TableLayout layout;
        layout.columns.push_back(ValueColumn::of(Variable::T2m));
        Connection creator = cluster_->connect();
        ensureMetadataSchema(creator);
        creator.exec("BEGIN");
        lockTablePreparation(creator, name);
        bool created = false;
        (void)ensureTargetTable(creator, name, layout, {}, created);
        QVERIFY(created);
        // The other run prepares meanwhile: it looks, then waits for the creator's preparation.
        auto other = std::async(std::launch::async, [&] {
            Connection waiting = cluster_->connect();
            waiting.exec("SET application_name = 'isobar-test-waiting'");
            // As a load looks before it prepares (chooseColumns): no such table, yet.
            (void)waiting.query("SELECT to_regclass('made_meanwhile')");
            waiting.exec("BEGIN");
            lockTablePreparation(waiting, name);
            bool madeByIt = true;
            (void)ensureTargetTable(waiting, name, layout, {}, madeByIt);
            waiting.exec("COMMIT");
            return madeByIt;
        });
        Connection watch = cluster_->connect();
        QVERIFY(test::waitFor(
            [&] {
                return test::scalar(watch, "SELECT count(*) FROM pg_stat_activity WHERE application_name = "
                                           "'isobar-test-waiting' AND wait_event_type = 'Lock'") == "1";
            },
            std::chrono::seconds(30)));
        creator.exec("COMMIT");
        QVERIFY2(!other.get(), "a table another run created and committed was taken for new");
    }

    // Hypertables need TimescaleDB: without it, a clear refusal saying how to get it.
    void hypertable() {
        Connection conn = cluster_->connect();
        const ExtensionStatus status = timescaledbStatus(conn);
        if (!status.usable) {
            const CliRun run = load("hyper", {"--table-type", "hypertable"});
            QCOMPARE(run.exitCode, 1);
            QVERIFY2(run.err.contains("--table-type hypertable needs TimescaleDB"), qPrintable(run.err));
            QVERIFY2(run.err.contains(QString::fromStdString(status.reason)), qPrintable(run.err));
            QCOMPARE(test::scalar(conn, "SELECT to_regclass('hyper') IS NULL"), QString("t"));
            QSKIP(qPrintable("TimescaleDB cannot be used on the test server: " +
                             QString::fromStdString(status.reason)));
        }
        const CliRun run = load(
            "hyper", {"--table-type", "hypertable", "--chunk-interval", "12 hours", "--compress=after-load"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        VERIFY_MESSAGE(run.err, "compression: the chunks are compressed after the load, as asked "
                                "(--compress=after-load)");
        // 12 rows of each location in a chunk: ordered by location and time, not segmented, and
        // every chunk smaller after (its size before and after said, and in the report).
        QVERIFY2(run.err.contains("compressed chunk 4 of 4"), qPrintable(run.err));
        const QRegularExpressionMatch said =
            QRegularExpression(
                "compression: (.+) before compression, (.+) after \\(0\\.\\d\\dx\\): 4 chunk\\(s\\) "
                "compressed in [0-9.]+ s; not segmented, ordered by location_id, time: a chunk of 12 "
                "hours holds up to 12 rows of each location")
                .match(run.out);
        QVERIFY2(said.hasMatch(), qPrintable(run.out));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM chunk_compression_stats('hyper') WHERE "
                                    "after_compression_total_bytes < before_compression_total_bytes"),
                 QString("4"));
        QCOMPARE(test::scalar(conn,
                              "SELECT coalesce(segmentby, '') || '|' || orderby FROM "
                              "timescaledb_information.hypertable_compression_settings WHERE hypertable = "
                              "'hyper'::regclass"),
                 QString("|location_id,\"time\""));
        const RunReport report = readReport(reportOf(run));
        QVERIFY(report.compression.has_value());
        QVERIFY(!report.compression->direct);
        QCOMPARE(report.compression->chunks, std::size_t(4));
        QVERIFY(report.compression->bytesAfter > 0);
        QVERIFY(report.compression->bytesAfter < report.compression->bytesBefore);
        QVERIFY(!report.compression->grew());
        QVERIFY(renderReportHtml(report).find("before compression") != std::string::npos);
        // Run again: nothing loads, so nothing about slowing rows down, no index built, nothing to
        // compress.
        const CliRun again = load("hyper", {"--compress=after-load"});
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        QVERIFY2(again.err.contains("every chunk is compressed already"), qPrintable(again.err));
        QVERIFY2(!again.err.contains("hyper_time_idx") && !again.err.contains("built the hypertable's index"),
                 qPrintable(again.err));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM chunk_compression_stats('hyper') WHERE "
                                    "compression_status = 'Compressed'"),
                 QString("4"));
        QCOMPARE(typeOf(conn, "hyper"), QString("hypertable"));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM hyper"), QString::number(kRows));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM show_chunks('hyper')"), QString("4"));
        QCOMPARE(test::scalar(conn,
                              "SELECT count(*) FROM pg_indexes WHERE tablename = 'hyper' AND indexname = "
                              "'hyper_time_idx'"),
                 QString("1"));
    }

    // Where TimescaleDB compresses rows as COPY receives them (2.21+), --compress does so: every
    // chunk is written compressed, none is compressed after, and the rows read back are exactly
    // those of a regular table loaded from the same file (EXCEPT ALL both ways). A rerun writes
    // nothing; --compress=direct is refused where it cannot be honoured, naming why.
    void directCompress() {
        Connection conn = cluster_->connect();
        const ExtensionStatus status = timescaledbStatus(conn);
        if (!status.usable) {
            QSKIP(qPrintable("TimescaleDB cannot be used on the test server: " +
                             QString::fromStdString(status.reason)));
        }
        const std::string version =
            status.installedVersion.empty() ? status.availableVersion : status.installedVersion;
        if (!hasDirectCompress(version)) {
            const CliRun refused = load("hyper_refused", {"--table-type", "hypertable", "--compress=direct"});
            QCOMPARE(refused.exitCode, 1);
            VERIFY_MESSAGE(refused.err, "--compress=direct: TimescaleDB", "2.21 and later can");
            QSKIP(qPrintable("TimescaleDB " + QString::fromStdString(version) +
                             " has no direct compress of COPY (2.21 and later)"));
        }
        const CliRun run =
            load("hyper_direct", {"--table-type", "hypertable", "--chunk-interval", "12 hours", "--compress",
                                  "--workers", "2", "--rows-per-unit", "3362", "--verify", "full"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        VERIFY_MESSAGE(run.err,
                       "compression: direct compress of COPY (TimescaleDB " + QString::fromStdString(version),
                       "every chunk was written compressed by COPY");
        VERIFY_MESSAGE(
            run.out, "compression: written compressed by COPY: ", "x of about ", " uncompressed)",
            "0 chunk(s) compressed after the load",
            QString("not segmented, ordered by location_id, time: the rows reach the server a time "
                    "of the grid after another"));
        // Compressed by COPY itself: each chunk's own heap holds no row, every row is in its
        // compressed chunk.
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM timescaledb_information.chunks WHERE "
                                    "hypertable_name = 'hyper_direct' AND NOT is_compressed"),
                 QString("0"));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM show_chunks('hyper_direct')"), QString("4"));
        const Result chunks = conn.query("SELECT c::text FROM show_chunks('hyper_direct') c");
        for (int i = 0; i < chunks.rows(); ++i) {
            QCOMPARE(test::scalar(conn, "SELECT count(*) FROM ONLY " + chunks.text(i, 0)), QString("0"));
        }
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM hyper_direct"), QString::number(kRows));
        // The oracle: the same file into a regular table, uncompressed.
        const CliRun plain = load("plain_of_direct", {});
        QVERIFY2(plain.exitCode == 0, qPrintable(plain.err));
        for (const char* sql :
             {"SELECT count(*) FROM (SELECT * FROM hyper_direct EXCEPT ALL SELECT * FROM "
              "plain_of_direct) d",
              "SELECT count(*) FROM (SELECT * FROM plain_of_direct EXCEPT ALL SELECT * FROM "
              "hyper_direct) d"}) {
            QCOMPARE(test::scalar(conn, sql), QString("0"));
        }
        // Read back in the compressed order and against it: ordered scans over the overlapping
        // batches of two workers return the rows in order.
        QCOMPARE(test::scalar(conn,
                              "SELECT count(*) FROM (SELECT time, lag(time) OVER () AS prev FROM (SELECT "
                              "time FROM hyper_direct WHERE location_id = (SELECT min(location_id) FROM "
                              "plain_of_direct) ORDER BY time) o) t WHERE prev >= time"),
                 QString("0"));
        const RunReport report = readReport(reportOf(run));
        QVERIFY(report.compression.has_value());
        QVERIFY(report.compression->direct);
        VERIFY_MESSAGE(QString::fromStdString(report.compression->path), "direct compress of COPY");
        QCOMPARE(report.compression->chunks, std::size_t(0));
        QVERIFY(report.compression->bytesAfter > 0);
        // Before: the rows in a heap, estimated from the columns; the oracle is the regular table
        // of the same rows, whose heap the estimate must come near.
        QVERIFY(report.compression->beforeEstimated);
        const double heap = test::scalar(conn, "SELECT pg_relation_size('plain_of_direct')").toDouble();
        QVERIFY2(
            std::abs(static_cast<double>(report.compression->bytesBefore) / heap - 1) < 0.1,
            qPrintable(QString::number(report.compression->bytesBefore) + " vs " + QString::number(heap)));
        QVERIFY(report.compression->bytesAfter < report.compression->bytesBefore);
        QVERIFY(renderReportHtml(report).find("written compressed by COPY") != std::string::npos);
        // Again: nothing to write, nothing to compress.
        const CliRun again = load("hyper_direct", {"--compress"});
        QVERIFY2(again.exitCode == 0, qPrintable(again.err));
        VERIFY_MESSAGE(again.out, "COPY 0,");
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM hyper_direct"), QString::number(kRows));

        // What direct compress cannot serve: a unique index. Auto compresses after the load and
        // says why; --compress=direct is refused before a row is written.
        conn.exec("CREATE TABLE hyper_unique (LIKE plain_of_direct)");
        conn.exec(
            "SELECT create_hypertable('hyper_unique', 'time', chunk_time_interval => interval '1 day')");
        conn.exec("CREATE UNIQUE INDEX hyper_unique_key ON hyper_unique (location_id, time)");
        const CliRun insisted = load("hyper_unique", {"--compress=direct"});
        QCOMPARE(insisted.exitCode, 1);
        VERIFY_MESSAGE(insisted.err, "--compress=direct: the table has a unique index (hyper_unique_key)",
                       "leave out =direct");
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM hyper_unique"), QString("0"));
        const CliRun fallback = load("hyper_unique", {"--compress"});
        QVERIFY2(fallback.exitCode == 0, qPrintable(fallback.err));
        VERIFY_MESSAGE(fallback.err, "compression: the chunks are compressed after the load: the table has a "
                                     "unique index (hyper_unique_key)");
        VERIFY_MESSAGE(fallback.out, "before compression");
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM hyper_unique"), QString::number(kRows));
        const CliRun wrongPath = load("hyper_unique", {"--compress=sideways"});
        QCOMPARE(wrongPath.exitCode, 2);
        VERIFY_MESSAGE(wrongPath.err, "--compress takes auto, direct or after-load");
    }

    // The user's compression settings are used, and checked before anything is created; the
    // automatic ones segment by location only where a chunk holds a compressed batch of each.
    void compressionSettings() {
        Connection conn = cluster_->connect();
        if (const ExtensionStatus status = timescaledbStatus(conn); !status.usable) {
            QSKIP(qPrintable("TimescaleDB cannot be used on the test server: " +
                             QString::fromStdString(status.reason)));
        }
        const CliRun wrong = load("hyper_wrong", {"--table-type", "hypertable", "--compress",
                                                  "--compress-orderby", "location_id, tiem"});
        QCOMPARE(wrong.exitCode, 1);
        QVERIFY2(wrong.err.contains("--compress-orderby 'location_id, tiem': the table has no column tiem"),
                 qPrintable(wrong.err));
        QCOMPARE(test::scalar(conn, "SELECT to_regclass('hyper_wrong') IS NULL"), QString("t"));
        const CliRun regular = load("regular_compressed", {"--compress"});
        QCOMPARE(regular.exitCode, 1);
        QVERIFY2(
            regular.err.contains("--compress compresses a hypertable's chunks, but the table is regular"),
            qPrintable(regular.err));
        QCOMPARE(test::scalar(conn, "SELECT to_regclass('regular_compressed') IS NULL"), QString("t"));
        const CliRun asked =
            load("hyper_asked", {"--table-type", "hypertable", "--compress=after-load",
                                 "--compress-segmentby", "location_id", "--compress-orderby", "time DESC"});
        QVERIFY2(asked.exitCode == 0, qPrintable(asked.err));
        QVERIFY2(asked.out.contains("as asked: segmented by location_id, ordered by time DESC"),
                 qPrintable(asked.out));
        QCOMPARE(test::scalar(conn,
                              "SELECT segmentby || '|' || orderby FROM "
                              "timescaledb_information.hypertable_compression_settings WHERE hypertable = "
                              "'hyper_asked'::regclass"),
                 QString("location_id|\"time\" DESC"));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM hyper_asked"), QString::number(kRows));
        // The automatic choice: hourly rows in 92-day chunks fill batches of a location; in 1-day
        // chunks they do not.
        conn.exec("CREATE TABLE long_chunks (time timestamptz NOT NULL, location_id integer)");
        conn.exec(
            "SELECT create_hypertable('long_chunks', 'time', chunk_time_interval => interval '92 days')");
        const TableOptions automatic;
        const CompressionChoice longChoice =
            chooseCompression(conn, TableName::parse("long_chunks"), automatic, CompressionHint{3600.0, 0});
        QCOMPARE(longChoice.segmentBy, std::string("location_id"));
        QCOMPARE(longChoice.orderBy, std::string("time"));
        VERIFY_MESSAGE(QString::fromStdString(longChoice.why), "a chunk of 3 months holds up to 2208 rows");
        conn.exec("CREATE TABLE short_chunks (time timestamptz NOT NULL, location_id integer)");
        conn.exec(
            "SELECT create_hypertable('short_chunks', 'time', chunk_time_interval => interval '1 day')");
        const CompressionChoice shortChoice =
            chooseCompression(conn, TableName::parse("short_chunks"), automatic, CompressionHint{3600.0, 3});
        QCOMPARE(shortChoice.segmentBy, std::string());
        QCOMPARE(shortChoice.orderBy, std::string("location_id, pressure_level, time"));
        VERIFY_MESSAGE(QString::fromStdString(shortChoice.why), "holds up to 72 rows of each location",
                       "would make the chunks bigger");
    }

    // Distributed tables need Citus: likewise.
    void distributed() {
        Connection conn = cluster_->connect();
        const ExtensionStatus status = citusStatus(conn);
        if (!status.usable) {
            const CliRun run = load("spread", {"--table-type", "distributed"});
            QCOMPARE(run.exitCode, 1);
            // Not on the server at all, or there but not preloaded (the check says so first).
            QVERIFY2(run.err.contains("--table-type distributed needs Citus") ||
                         run.err.contains("not in shared_preload_libraries"),
                     qPrintable(run.err));
            QCOMPARE(test::scalar(conn, "SELECT to_regclass('spread') IS NULL"), QString("t"));
            QSKIP(qPrintable("Citus cannot be used on the test server: " +
                             QString::fromStdString(status.reason)));
        }
        const CliRun run = load("spread", {"--table-type", "distributed"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(typeOf(conn, "spread"), QString("distributed"));
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM spread"), QString::number(kRows));
    }

    // Any role may ask whether an extension is usable: shared_preload_libraries is superuser-only
    // to current_setting(), so a plain role learns that it cannot be told instead of failing the
    // check of every load on a server where the extension's package is installed.
    void extensionStatusForAPlainRole() {
        Connection conn = cluster_->connect();
        conn.exec("CREATE ROLE plain_checker LOGIN");
        // plpgsql is on every server and never preloaded: what a missing preload says.
        const ExtensionStatus super = extensionStatus(conn, "plpgsql", "");
        QVERIFY(!super.usable);
        VERIFY_MESSAGE(QString::fromStdString(super.reason),
                       "is installed but not in shared_preload_libraries");
        Connection plain = Connection::open(cluster_->conninfo() + " user=plain_checker");
        const ExtensionStatus status = extensionStatus(plain, "plpgsql", "");
        QVERIFY(!status.usable);
        VERIFY_MESSAGE(QString::fromStdString(status.reason), "may not read shared_preload_libraries",
                       "pg_read_all_settings");
        // And the rest of the check a load makes works for that role too.
        QVERIFY(!timescaledbStatus(plain).usable);
        QVERIFY(!citusStatus(plain).usable);
        // The server check judges from what its probe read, asking nothing again: the same answers
        // for either role (here: not installed; on a server with the packages, their versions).
        for (Connection* c : {&conn, &plain}) {
            const ServerInfo info = probeServer(*c);
            for (const auto& [fromProbe, asked] : {std::pair{timescaledbStatus(info), timescaledbStatus(*c)},
                                                   std::pair{citusStatus(info), citusStatus(*c)}}) {
                QCOMPARE(fromProbe.usable, asked.usable);
                QCOMPARE(QString::fromStdString(fromProbe.availableVersion),
                         QString::fromStdString(asked.availableVersion));
                QCOMPARE(QString::fromStdString(fromProbe.installedVersion),
                         QString::fromStdString(asked.installedVersion));
                QCOMPARE(QString::fromStdString(fromProbe.reason), QString::fromStdString(asked.reason));
            }
        }
    }

    // What the probe read decides, and a setting the role may not read is told from an empty one.
    void extensionStatusFromTheProbe() {
        ServerInfo info;
        info.versionNumber = 150020;
        VERIFY_MESSAGE(QString::fromStdString(timescaledbStatus(info).reason),
                       "not installed on this server (PostgreSQL 15)", "docs.timescale.com");
        info.extensions.push_back(ExtensionInfo{"timescaledb", "2.28.3", ""});
        VERIFY_MESSAGE(QString::fromStdString(timescaledbStatus(info).reason), "version 2.28.3 is installed",
                       "may not read shared_preload_libraries");
        info.settings.push_back(ServerSetting{"shared_preload_libraries", "", "default", ""});
        VERIFY_MESSAGE(QString::fromStdString(timescaledbStatus(info).reason),
                       "is installed but not in shared_preload_libraries: add it there "
                       "(ALTER SYSTEM SET shared_preload_libraries = 'timescaledb')");
        info.settings.back().value = "pg_stat_statements";
        VERIFY_MESSAGE(QString::fromStdString(citusStatus(info).reason), "not installed on this server");
        info.extensions.push_back(ExtensionInfo{"citus", "13.2-1", ""});
        VERIFY_MESSAGE(QString::fromStdString(citusStatus(info).reason),
                       "not in shared_preload_libraries (pg_stat_statements)", "'citus,pg_stat_statements'");
        info.settings.back().value = "citus,timescaledb";
        for (const ExtensionStatus& s : {timescaledbStatus(info), citusStatus(info)}) {
            QVERIFY(s.usable);
            QVERIFY(s.reason.empty());
            QVERIFY(s.installedVersion.empty()); // created by the load that needs it
        }
    }

private:
    static constexpr int kRows = 48 * 41 * 41;

    // The run report a load wrote ("report: PATH").
    static std::filesystem::path reportOf(const CliRun& run) {
        const QRegularExpressionMatch m = QRegularExpression("report: (\\S+)").match(run.err + run.out);
        return m.hasMatch() ? std::filesystem::path(m.captured(1).toStdString()) : std::filesystem::path();
    }

    CliRun load(const QString& table, const QStringList& extra) {
        QStringList args{"load",    "--dsn", QString::fromStdString(cluster_->conninfo()),
                         "--table", table,   "--reporting-period",
                         "0"};
        args << extra << file_;
        return runCli(args);
    }

    std::unique_ptr<test::TestCluster> cluster_;
    QString file_;
};

QTEST_GUILESS_MAIN(TestTables)
#include "tst_tables.moc"
