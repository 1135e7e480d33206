// SPDX-License-Identifier: GPL-3.0-or-later

// What bench methods, matrix and query share: the names of their table types and methods, their
// data, tables, sizes, the oldest day's removal, and the reports' frame.

#include "bench/BenchmarkStages.h"
#include "db/Compression.h"
#include "db/CopyStream.h"
#include "db/TableMetadata.h"
#include "db/TableType.h"
#include "db/WeatherSchema.h"
#include "ingest/Loader.h"
#include "synth/SyntheticFiles.h"
#include "util/Error.h"
#include "util/Format.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <sys/resource.h>
#include <thread>

namespace isobar {

std::optional<BenchTableType> parseBenchTableType(std::string_view name) {
    if (name == "hypertable-compressed") {
        return BenchTableType{TableType::Hypertable, true, false};
    }
    if (name == "hypertable-direct") {
        return BenchTableType{TableType::Hypertable, true, true};
    }
    const auto t = parseTableType(name);
    return t ? std::optional(BenchTableType{*t, false, false}) : std::nullopt;
}

std::string benchTableTypeName(const BenchTableType& t) {
    return t.compressed ? (t.direct ? "hypertable-direct" : "hypertable-compressed")
                        : std::string(tableTypeName(t.type));
}

std::vector<LoadMethod> allLoadMethods() {
    return {LoadMethod::Insert,      LoadMethod::MultiInsert, LoadMethod::CopyText,
            LoadMethod::CopyCsvFile, LoadMethod::CopyBinary,  LoadMethod::ServerLimit};
}

std::string_view loadMethodName(LoadMethod m) {
    switch (m) {
    case LoadMethod::Insert:
        return "insert";
    case LoadMethod::MultiInsert:
        return "multi-insert";
    case LoadMethod::CopyText:
        return "copy-text";
    case LoadMethod::CopyCsvFile:
        return "copy-csv-file";
    case LoadMethod::CopyBinary:
        return "copy-binary";
    case LoadMethod::ServerLimit:
        return "server-limit";
    }
    return "?";
}

std::optional<LoadMethod> parseLoadMethod(std::string_view name) {
    for (LoadMethod m : allLoadMethods()) {
        if (loadMethodName(m) == name) {
            return m;
        }
    }
    return std::nullopt;
}

std::vector<BenchTableType> allBenchTableTypes() {
    return {{TableType::Regular, false, false},     {TableType::Unlogged, false, false},
            {TableType::Partitioned, false, false}, {TableType::Hypertable, false, false},
            {TableType::Hypertable, true, false},   {TableType::Hypertable, true, true},
            {TableType::Distributed, false, false}};
}

std::vector<BenchTableType>
availableBenchTableTypes(Connection& conn, std::vector<std::pair<std::string, std::string>>* skipped) {
    const ExtensionStatus ts = timescaledbStatus(conn);
    const ExtensionStatus citus = citusStatus(conn);
    std::vector<BenchTableType> out;
    for (const auto& t : allBenchTableTypes()) {
        const ExtensionStatus* needs = t.type == TableType::Hypertable    ? &ts
                                       : t.type == TableType::Distributed ? &citus
                                                                          : nullptr;
        const bool direct = !t.direct || hasDirectCompress(ts.installedVersion.empty() ? ts.availableVersion
                                                                                       : ts.installedVersion);
        if ((needs == nullptr || needs->usable) && direct) {
            out.push_back(t);
        } else if (skipped != nullptr) {
            skipped->emplace_back(
                benchTableTypeName(t),
                needs != nullptr && !needs->usable
                    ? needs->reason
                    : "TimescaleDB " + ts.availableVersion +
                          " cannot compress rows as COPY receives them (2.21 and later can)");
        }
    }
    return out;
}

namespace bench {

double secondsSince(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

PreparedData prepareData(const BenchData& data, const std::filesystem::path& dir, const std::string& name,
                         const BenchProgress& progress, const std::stop_token& stop) {
    PreparedData out;
    out.open = data.open;
    if (!data.files.empty()) {
        out.files = data.files;
        out.description = std::to_string(data.files.size()) + " file(s)";
        return out;
    }
    if (data.syntheticHours < 1) {
        throw Error("a bench needs files or a number of synthetic hours");
    }
    SyntheticOptions sample;
    sample.out = dir / (name + ".nc");
    sample.hours = data.syntheticHours;
    progress("writing " + std::to_string(data.syntheticHours) + " synthetic global hour(s) (" +
                 formatThousands(static_cast<std::uint64_t>(data.syntheticHours) * 1'038'240) + " rows)",
             -1);
    const SyntheticInfo info = writeSynthetic(sample, stop);
    out.files = info.files;
    out.description = std::to_string(data.syntheticHours) + " synthetic global hour(s)";
    return out;
}

void runParallel(int n, const std::string& what, const std::function<void(int)>& fn) {
    // An error slot per thread, each written by its thread only, and one atomic flag for
    // cancellation. Not a std::vector<bool> of flags: its elements share words, so two threads
    // setting theirs at once race (ThreadSanitizer found that).
    std::vector<std::string> errors(static_cast<std::size_t>(n));
    std::atomic<bool> cancelled{false};
    {
        std::vector<std::jthread> threads;
        threads.reserve(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) {
            threads.emplace_back([&, i] {
                try {
                    fn(i);
                } catch (const Cancelled&) {
                    cancelled = true;
                } catch (const std::exception& e) {
                    errors[static_cast<std::size_t>(i)] = e.what();
                }
            });
        }
    }
    if (cancelled) {
        throw Cancelled();
    }
    for (const auto& e : errors) {
        if (!e.empty()) {
            throw Error(what + " failed: " + e);
        }
    }
}

void createBenchTable(Connection& conn, const std::string& name, TableType type, const TableLayout& layout,
                      const std::vector<PgTimestamp>& times) {
    const TableName table{"", name};
    TableOptions options;
    options.type = type;
    options.partitionInterval = PartitionInterval::Day;
    bool created = false;
    conn.exec("BEGIN");
    ensureTargetTable(conn, table, layout, options, created);
    if (type == TableType::Partitioned) {
        createPartitions(conn, table, PartitionInterval::Day, times);
    }
    conn.exec("COMMIT");
}

std::string walPosition(Connection& conn) {
    return conn.query("SELECT pg_current_wal_insert_lsn()::text").text(0, 0);
}

double walBytesSince(Connection& conn, const std::string& position) {
    return std::stod(
        conn.query("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::text", {position})
            .text(0, 0));
}

double processCpuSeconds() {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    const auto s = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    return s(u.ru_utime) + s(u.ru_stime);
}

std::uint64_t countRows(Connection& conn, const std::string& table) {
    return static_cast<std::uint64_t>(
        conn.query("SELECT count(*) FROM " + conn.quoteIdentifier(table)).integer(0, 0));
}

TableSizes tableSizes(Connection& conn, const std::string& table, TableType type) {
    TableSizes s;
    const std::string name = conn.quoteIdentifier(table);
    Result r;
    if (type == TableType::Distributed) {
        // The shards on every node.
        r = conn.query(
            "SELECT citus_relation_size($1), citus_total_relation_size($1) - citus_table_size($1), "
            "citus_table_size($1) - citus_relation_size($1), citus_total_relation_size($1)",
            {name});
    } else if (type == TableType::Hypertable) {
        // Compressed chunks included: TimescaleDB sums them into the hypertable's sizes.
        r = conn.query(
            "SELECT table_bytes, index_bytes, toast_bytes, total_bytes FROM hypertable_detailed_size($1)",
            {name});
    } else {
        // A partitioned table's partitions, or the table alone; the heap with its free space and
        // visibility maps, TOAST with its index.
        r = conn.query(
            "SELECT sum(pg_table_size(c.oid) - coalesce(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), "
            "0)), "
            "sum(pg_indexes_size(c.oid)), sum(coalesce(pg_total_relation_size(NULLIF(c.reltoastrelid, 0)), "
            "0)), "
            "sum(pg_total_relation_size(c.oid)) FROM (SELECT relid FROM pg_partition_tree($1::regclass) "
            "UNION SELECT $1::regclass) t JOIN pg_class c ON c.oid = t.relid",
            {name});
    }
    if (r.rows() == 1) {
        const auto v = [&r](int c) {
            return r.isNull(0, c) ? 0.0 : std::stod(r.text(0, c));
        };
        s = {v(0), v(1), v(2), v(3)};
    }
    return s;
}

DayRemoval removeOldestDay(Connection& conn, const std::string& table, TableType type) {
    DayRemoval d;
    const std::string name = conn.quoteIdentifier(table);
    conn.exec("SET TimeZone = 'UTC'");
    const Result day =
        conn.query("SELECT (date_trunc('day', min(time)) + interval '1 day')::text FROM " + name);
    if (day.isNull(0, 0)) {
        throw Error(table + " is empty: there is no oldest day to remove");
    }
    const std::string cutoff = day.text(0, 0);
    d.rows = static_cast<std::uint64_t>(
        conn.query("SELECT count(*) FROM " + name + " WHERE time < $1::timestamptz", {cutoff}).integer(0, 0));
    d.before = tableSizes(conn, table, type);
    const auto t0 = Clock::now();
    if (type == TableType::Hypertable) {
        d.method = "drop_chunks";
        conn.query("SELECT drop_chunks($1::regclass, older_than => $2::timestamptz)", {name, cutoff});
    } else if (type == TableType::Partitioned) {
        d.method = "DETACH + DROP partition";
        // The daily partitions whose upper bound is at or before the cutoff.
        const Result parts = conn.query(
            "SELECT c.oid::regclass::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "WHERE i.inhparent = $1::regclass AND substring(pg_get_expr(c.relpartbound, c.oid) "
            "FROM 'TO \\(''([^'']+)''\\)')::timestamptz <= $2::timestamptz",
            {name, cutoff});
        conn.exec("BEGIN");
        for (int i = 0; i < parts.rows(); ++i) {
            conn.exec("ALTER TABLE " + name + " DETACH PARTITION " + parts.text(i, 0));
            conn.exec("DROP TABLE " + parts.text(i, 0));
        }
        conn.exec("COMMIT");
    } else {
        d.method = "DELETE";
        conn.query("DELETE FROM " + name + " WHERE time < $1::timestamptz", {cutoff});
    }
    d.seconds = secondsSince(t0);
    if (d.method == "DELETE") {
        const auto v0 = Clock::now();
        conn.exec("VACUUM " + name);
        d.vacuumSeconds = secondsSince(v0);
    }
    d.after = tableSizes(conn, table, type);
    return d;
}

EngineLoad loadWithEngine(const std::string& conninfo, const PreparedData& data, const std::string& table,
                          const BenchTableType& type, int workers, const DurabilityRequest& durability,
                          const std::stop_token& stop) {
    LoadRequest request;
    request.conninfo = conninfo;
    request.table = TableName{"", table};
    request.tableOptions.type = type.type;
    request.tableOptions.partitionInterval = PartitionInterval::Day;
    request.tableOptions.compressAfter = type.compressed;
    request.tableOptions.compressPath = type.direct ? CompressPath::Direct : CompressPath::AfterLoad;
    request.files = data.files;
    request.open = data.open;
    request.workers = workers;
    request.allMissing = AllMissingPolicy::Load; // the same rows for every method
    request.verification = Verification::Units;  // the bench counts the table itself
    request.durability = durability;
    const auto t0 = Clock::now();
    const LoadSummary s = runLoadOrThrow(request, stop);
    EngineLoad out{secondsSince(t0), 0, s.rows};
    for (const auto& phase : s.phases.run) {
        if (phase.name == "load" || phase.name == "finish table") {
            out.copySeconds += phase.seconds;
        }
    }
    return out;
}

// Runs `sql` (a COPY ... TO STDOUT) and reads everything it sends; returns the bytes.
std::uint64_t readCopyOut(Connection& conn, const std::string& sql) {
    return copyOut(conn, sql, "reading the table back", [](std::span<const char>) {});
}

// Locations of the table to read whole series of: `count` of those at its first time, spread by a
// hash so they are not neighbours.
std::vector<std::string> sampleLocations(Connection& conn, const std::string& table, int count) {
    const std::string name = conn.quoteIdentifier(table);
    const Result r =
        conn.query("SELECT location_id::text FROM " + name + " WHERE time = (SELECT min(time) FROM " + name +
                       ") GROUP BY location_id ORDER BY hashint4(location_id) LIMIT $1",
                   {std::to_string(count)});
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(r.rows()));
    for (int i = 0; i < r.rows(); ++i) {
        out.push_back(r.text(i, 0));
    }
    return out;
}

double percentileOf(std::vector<double> values, double fraction) {
    if (values.empty()) {
        return 0;
    }
    std::sort(values.begin(), values.end());
    const auto rank =
        static_cast<std::size_t>(std::lround(fraction * static_cast<double>(values.size() - 1)));
    return values[std::min(rank, values.size() - 1)];
}

LoadSummary runLoadOrThrow(const LoadRequest& request, const std::stop_token& stop) {
    struct Quiet final : LoadSink {
        std::string error;
        void failed(const LoadError& e) override { error = e.message; }
    } sink;
    LoadSummary s = runLoad(request, stop, sink);
    if (s.status == LoadStatus::Cancelled) {
        throw Cancelled();
    }
    if (s.status != LoadStatus::Completed) {
        throw Error("the Isobar load into " + request.table.display() + " failed: " + sink.error);
    }
    if (!s.durability.problem.empty()) {
        throw Error("restoring the durability settings: " + s.durability.problem);
    }
    return s;
}

BenchFrame::BenchFrame(const std::string& conninfo, const std::string& kind)
    : dropped_(conninfo)
    , conn(Connection::open(conninfo))
    , conninfo_(conninfo) {
    lock();
    ensureMetadataSchema(conn);
    dropTables(conn);
    report.kind = kind;
    report.title = "isobar-cli bench " + kind;
    report.started = formatUtcNow("%Y-%m-%dT%H:%M:%SZ");
    describeEnvironment(conn, report);
    availableBenchTableTypes(conn, &unavailable_);
}

BenchFrame::~BenchFrame() {
    try {
        dropTables(conn);
        dropped_.dismiss();
    } catch (const std::exception&) {
        // The connection is broken: dropped_ tries on a new one.
    }
}

// One bench at a time on a server: each drops every isobar_bench_* table, the other's too.
void BenchFrame::lock() {
    if (conn.query("SELECT pg_try_advisory_lock(hashtext('isobar bench'))").text(0, 0) != "t") {
        throw Error(
            "another bench runs on this server (isobar-cli bench or the desktop app's Benchmarks tab): "
            "run this one when it has ended");
    }
}

void BenchFrame::reconnect() {
    conn = Connection::open(conninfo_);
    lock();
}

std::string BenchFrame::whyNot(const BenchTableType& type) const {
    const std::string name = benchTableTypeName(type);
    for (const auto& [t, reason] : unavailable_) {
        if (t == name) {
            return reason;
        }
    }
    return "";
}

void BenchFrame::measure(const std::function<void()>& body) {
    try {
        body();
    } catch (const Cancelled&) {
        report.status = "cancelled";
    } catch (const std::exception& e) {
        report.status = "failed";
        report.problem = e.what();
    }
}

BenchReport BenchFrame::finish() {
    report.seconds = secondsSince(t0_);
    return std::move(report);
}

} // namespace bench

} // namespace isobar
