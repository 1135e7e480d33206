// SPDX-License-Identifier: GPL-3.0-or-later

// bench matrix: for each data size and table type, what it costs to write, keep, read back and trim.

#include "bench/BenchmarkStages.h"
#include "db/TableMetadata.h"
#include "db/TableType.h"
#include "util/Error.h"
#include "util/Format.h"

namespace isobar {

namespace {

using namespace bench;

constexpr const char* kMatrixTable = "isobar_bench_matrix";

// Reading the whole table with `readers` connections, each a slice of its time range.
double timeFullScan(const std::string& conninfo, int readers) {
    Connection conn = Connection::open(conninfo);
    const Result range = conn.query("SELECT extract(epoch FROM min(time))::float8::text, "
                                    "extract(epoch FROM max(time))::float8::text FROM " +
                                    std::string(kMatrixTable));
    const double first = std::stod(range.text(0, 0));
    const double last = std::stod(range.text(0, 1)) + 1; // the slices cover the last time too
    std::vector<Connection> conns;
    conns.reserve(static_cast<std::size_t>(readers));
    for (int i = 0; i < readers; ++i) {
        conns.push_back(Connection::open(conninfo));
    }
    const auto t0 = Clock::now();
    runParallel(readers, "reading the table back", [&](int i) {
        const double a = first + (last - first) * i / readers;
        const double b = first + (last - first) * (i + 1) / readers;
        const std::string where = readers == 1 ? ""
                                               : " WHERE time >= to_timestamp(" + std::to_string(a) +
                                                     ") AND time < to_timestamp(" + std::to_string(b) + ")";
        readCopyOut(conns[static_cast<std::size_t>(i)], "COPY (SELECT * FROM " + std::string(kMatrixTable) +
                                                            where + ") TO STDOUT (FORMAT binary)");
    });
    return secondsSince(t0);
}

// Reading the whole series of each location, the locations shared among `readers` connections.
double timeSeries(const std::string& conninfo, const std::vector<std::string>& locations, int readers) {
    std::vector<Connection> conns;
    conns.reserve(static_cast<std::size_t>(readers));
    for (int i = 0; i < readers; ++i) {
        conns.push_back(Connection::open(conninfo));
    }
    const auto t0 = Clock::now();
    runParallel(readers, "reading series", [&](int i) {
        for (std::size_t k = static_cast<std::size_t>(i); k < locations.size();
             k += static_cast<std::size_t>(readers)) {
            conns[static_cast<std::size_t>(i)].query("SELECT * FROM " + std::string(kMatrixTable) +
                                                         " WHERE location_id = $1 ORDER BY time",
                                                     {locations[k]});
        }
    });
    return secondsSince(t0);
}

} // namespace

BenchReport benchmarkMatrix(const MatrixBenchmarkOptions& o, const BenchProgress& progress,
                            const std::stop_token& stop) {
    if (o.data.files.empty() && o.hours.empty()) {
        throw Error("bench matrix needs data sizes (--hours) or files");
    }
    for (int h : o.hours) {
        if (h < 1) {
            throw Error("a data size of " + std::to_string(h) + " hours is not a size");
        }
    }
    if (o.workers < 1 || o.seriesLocations < 1) {
        throw Error("bench matrix needs at least 1 worker and 1 location to read");
    }
    BenchFrame frame(o.conninfo, "matrix");
    Connection& conn = frame.conn;
    const std::vector<BenchTableType> types = o.tableTypes.empty() ? allBenchTableTypes() : o.tableTypes;
    const std::string n = std::to_string(o.workers);

    BenchTable table{"matrix", "Table types: write, size, read back, trim", {}, {}, {}};
    table.columns = {{"data", "data", ""},
                     {"table_type", "table type", ""},
                     {"rows", "rows", "int"},
                     {"write_1_s", "write, 1 worker", "seconds"},
                     {"write_n_s", "write, " + n + " workers", "seconds"},
                     {"rows_per_s_n", "rows/s, " + n + " workers", "rate"},
                     {"heap_bytes", "heap", "bytes"},
                     {"index_bytes", "indexes", "bytes"},
                     {"toast_bytes", "TOAST", "bytes"},
                     {"total_bytes", "total on disk", "bytes"},
                     {"uncompressed_bytes", "before compression", "bytes"},
                     {"scan_1_s", "full scan, 1 reader", "seconds"},
                     {"scan_n_s", "full scan, " + n + " readers", "seconds"},
                     {"series_1_s", "series, 1 reader", "seconds"},
                     {"series_n_s", "series, " + n + " readers", "seconds"},
                     {"delete_method", "oldest day removed by", ""},
                     {"delete_rows", "its rows", "int"},
                     {"delete_s", "removal", "seconds"},
                     {"vacuum_s", "VACUUM after", "seconds"},
                     {"after_delete_bytes", "total after", "bytes"},
                     {"note", "note", ""}};
    BenchPlot writes{BenchPlot::Kind::Bars, "Write time", "table type", "seconds", "seconds", {}, {}};
    BenchPlot sizes{BenchPlot::Kind::Bars, "Size on disk", "table type", "bytes", "bytes", {}, {}};
    BenchPlot reads{
        BenchPlot::Kind::Bars, "Full scan, " + n + " readers", "table type", "seconds", "seconds", {}, {}};
    for (const auto& t : types) {
        for (BenchPlot* p : {&writes, &sizes, &reads}) {
            p->categories.push_back(benchTableTypeName(t));
        }
    }
    frame.measure([&] {
        std::vector<BenchData> sizesToRun;
        if (!o.data.files.empty()) {
            sizesToRun.push_back(o.data);
        } else {
            for (int h : o.hours) {
                sizesToRun.push_back(BenchData{{}, o.data.open, h});
            }
        }
        const double steps = static_cast<double>(sizesToRun.size() * types.size());
        double done = 0;
        for (const auto& size : sizesToRun) {
            TempDir dir("isobar-bench", 0700);
            const PreparedData data = prepareData(size, dir.path(), "matrix", progress, stop);
            BenchPlot::Series write1{data.description + ", 1 worker", {}};
            BenchPlot::Series writeN{data.description + ", " + n + " workers", {}};
            BenchPlot::Series total{data.description, {}};
            BenchPlot::Series scan{data.description, {}};
            for (const auto& type : types) {
                const std::string typeName = benchTableTypeName(type);
                const std::string why = frame.whyNot(type);
                // The data and the table type, then the measurements as they come (by column index).
                std::vector<BenchValue> row{data.description, typeName};
                row.resize(table.columns.size());
                if (!why.empty()) {
                    row.back() = "not measured: " + why;
                    table.rows.push_back(row);
                    for (auto* s : {&write1, &writeN, &total, &scan}) {
                        s->values.emplace_back();
                    }
                    done += 1;
                    continue;
                }
                // Each step begins here: a cancel is noticed between them.
                const auto say = [&](const std::string& step) {
                    if (stop.stop_requested()) {
                        throw Cancelled();
                    }
                    progress(data.description + ", " + typeName + ": " + step, done / steps);
                };
                std::vector<int> counts{1};
                if (o.workers > 1) {
                    counts.push_back(o.workers);
                }
                EngineLoad load;
                for (int w : counts) {
                    say("writing with " + std::to_string(w) + " worker(s)");
                    dropTables(conn);
                    conn.exec("CHECKPOINT");
                    load = loadWithEngine(o.conninfo, data, kMatrixTable, type, w, {}, stop);
                    row[w == 1 ? 3 : 4] = load.seconds;
                }
                if (o.workers == 1) {
                    row[4] = row[3];
                }
                row[2] = double(load.rows);
                row[5] = load.seconds > 0 ? static_cast<double>(load.rows) / load.seconds : 0.0;
                conn.exec("VACUUM ANALYZE " +
                          std::string(kMatrixTable)); // sizes and plans as a settled table has them
                const TableSizes s = tableSizes(conn, kMatrixTable, type.type);
                row[6] = s.heap;
                row[7] = s.indexes;
                row[8] = s.toast;
                row[9] = s.total;
                if (type.compressed) {
                    const Result c = conn.query("SELECT sum(before_compression_total_bytes)::text FROM "
                                                "hypertable_compression_stats($1)",
                                                {kMatrixTable});
                    if (c.rows() == 1 && !c.isNull(0, 0)) {
                        row[10] = std::stod(c.text(0, 0));
                    }
                }
                say("reading it back");
                row[11] = timeFullScan(o.conninfo, 1);
                row[12] = o.workers > 1 ? timeFullScan(o.conninfo, o.workers) : std::get<double>(row[11]);
                const auto locations = sampleLocations(conn, kMatrixTable, o.seriesLocations);
                row[13] = timeSeries(o.conninfo, locations, 1);
                row[14] =
                    o.workers > 1 ? timeSeries(o.conninfo, locations, o.workers) : std::get<double>(row[13]);
                say("removing the oldest day");
                const DayRemoval d = removeOldestDay(conn, kMatrixTable, type.type);
                row[15] = d.method;
                row[16] = double(d.rows);
                row[17] = d.seconds;
                row[18] = d.vacuumSeconds;
                row[19] = d.after.total;
                row[20] = std::to_string(locations.size()) + " series of whole locations";
                table.rows.push_back(row);
                write1.values.emplace_back(std::get<double>(row[3]));
                writeN.values.emplace_back(std::get<double>(row[4]));
                total.values.emplace_back(s.total);
                scan.values.emplace_back(std::get<double>(row[12]));
                dropTables(conn);
                done += 1;
            }
            writes.series.push_back(write1);
            if (o.workers > 1) {
                writes.series.push_back(writeN);
            }
            sizes.series.push_back(total);
            reads.series.push_back(scan);
        }
        progress("done", 1);
    });
    table.notes = {
        "Write: Isobar's load (in this process) into a fresh table after a CHECKPOINT; a hypertable's time "
        "index "
        "is built after the load, a compressed hypertable's chunks are compressed after it (in the time). "
        "Partitioned tables have daily partitions, hypertables daily chunks.",
        "Sizes after VACUUM ANALYZE: heap, indexes, TOAST, and everything (partitions and chunks included).",
        "Full scan: COPY (SELECT *) TO STDOUT of every row to this client; with N readers each reads a slice "
        "of the "
        "time range at once. Series: every row of each sampled location, in time order (no index on "
        "location_id: "
        "a scan each, as the table is made).",
        "Oldest day: the first UTC day, by DELETE (then VACUUM: the space becomes reusable; the files shrink "
        "only by the emptied pages at their end), DETACH and DROP of its partition, or drop_chunks."};
    frame.report.tables.push_back(std::move(table));
    for (BenchPlot* p : {&writes, &sizes, &reads}) {
        if (!p->series.empty()) {
            frame.report.plots.push_back(std::move(*p));
        }
    }
    return frame.finish();
}

} // namespace isobar
