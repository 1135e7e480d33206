// SPDX-License-Identifier: GPL-3.0-or-later

// bench query: the TimescaleDB-vs-PostgreSQL query set adapted to weather, per table type, cold and
// warm; and how fast one day of data goes.

#include "bench/BenchmarkStages.h"
#include "db/TableMetadata.h"
#include "db/TableType.h"
#include "ingest/Loader.h"
#include "util/Error.h"
#include "util/Format.h"

#include <algorithm>
#include <numeric>

namespace isobar {

namespace {

using namespace bench;

constexpr const char* kQueryTable = "isobar_bench_query";

struct Query {
    std::string name;
    std::string sql;
    std::vector<std::optional<std::string>> params;
};

// The value column the queries aggregate: the 2 m temperature, the temperature on pressure levels,
// or else the first column; and the level they keep to on pressure levels.
struct Subject {
    std::string column;
    std::string label;       // "t2m"
    std::string levelFilter; // " AND pressure_level = 850" or ""
};

Subject subjectOf(const Dataset& dataset) {
    Subject s;
    const ValueColumn* chosen = nullptr;
    for (const char* want : {"t2m", "t"}) {
        for (const auto& c : dataset.columns()) {
            if (chosen == nullptr && c.key == want) {
                chosen = &c;
            }
        }
    }
    if (chosen == nullptr) {
        if (dataset.columns().empty()) {
            throw Error("the files hold no variable to query");
        }
        chosen = &dataset.columns().front();
    }
    s.label = chosen->key;
    s.column = columnIdentifier(chosen->column);
    if (dataset.vertical() == Vertical::PressureLevels && !dataset.levels().empty()) {
        s.levelFilter = " AND pressure_level = " + formatBenchValue(dataset.levels().front(), "");
    }
    return s;
}

// What a DELETE's VACUUM did to the size: it returns only empty pages at the table's end.
std::string removalNote(const DayRemoval& d) {
    if (d.method != "DELETE") {
        return "";
    }
    return d.after.total < d.before.total
               ? "VACUUM gave the emptied pages at the table's end back to the disk"
               : "after VACUUM the space is reusable; the files keep their size";
}

std::vector<Query> weatherQueries(Connection& conn, const Subject& s) {
    const std::string t = kQueryTable;
    const std::vector<std::string> locations = sampleLocations(conn, t, 8);
    if (locations.empty()) {
        throw Error("the loaded table is empty: nothing to query");
    }
    const Result first = conn.query("SELECT min(time)::text, date_trunc('day', min(time))::text FROM " + t);
    const Result where =
        conn.query("SELECT latitude::text, longitude::text FROM " + t + " WHERE location_id = $1 LIMIT 1",
                   {locations.front()});
    const double lat = std::stod(where.text(0, 0));
    const double lon = std::stod(where.text(0, 1));
    const auto num = [](double v) {
        return formatBenchValue(v, "ratio");
    };
    std::string list;
    for (const auto& l : locations) {
        list += (list.empty() ? "" : ", ") + l;
    }
    return {
        {"one location's daily max " + s.label + ", whole range",
         "SELECT date_trunc('day', time) AS day, max(" + s.column + ") FROM " + t +
             " WHERE location_id = $1" + s.levelFilter + " GROUP BY 1 ORDER BY 1",
         {locations.front()}},
        {std::to_string(locations.size()) + " locations for 1 hour",
         "SELECT * FROM " + t + " WHERE location_id IN (" + list +
             ") AND time >= $1::timestamptz AND time < $1::timestamptz + interval '1 hour'" + s.levelFilter,
         {first.text(0, 0)}},
        {"mean " + s.label + " per 10 degree latitude band per hour, one day",
         "SELECT date_trunc('hour', time), floor(latitude / 10) * 10 AS band, avg(" + s.column + ") FROM " +
             t + " WHERE time >= $1::timestamptz AND time < $1::timestamptz + interval '1 day'" +
             s.levelFilter + " GROUP BY 1, 2 ORDER BY 1, 2",
         {first.text(0, 1)}},
        {"last 5 hourly values of every location in a 5 x 5 degree region",
         "SELECT location_id, time, " + s.column + " FROM (SELECT location_id, time, " + s.column +
             ", row_number() OVER (PARTITION BY location_id ORDER BY time DESC) AS n FROM " + t +
             " WHERE latitude BETWEEN " + num(lat - 2.5) + " AND " + num(lat + 2.5) +
             " AND longitude BETWEEN " + num(lon - 2.5) + " AND " + num(lon + 2.5) + s.levelFilter +
             ") r WHERE n <= 5",
         {}},
    };
}

} // namespace

BenchReport benchmarkQueries(const QueryBenchmarkOptions& o, const BenchProgress& progress,
                             const std::stop_token& stop) {
    if (o.repeats < 1) {
        throw Error("bench query needs at least 1 warm run of each query");
    }
    BenchFrame frame(o.conninfo, "query");
    const std::vector<BenchTableType> types = o.tableTypes.empty() ? allBenchTableTypes() : o.tableTypes;

    BenchTable queries{"queries", "Queries", {}, {}, {}};
    queries.columns = {{"table_type", "table type", ""},
                       {"query", "query", ""},
                       {"rows", "rows returned", "int"},
                       {"cold_s", "cold", "seconds"},
                       {"warm_mean_s", "warm, mean", "seconds"},
                       {"warm_p95_s", "warm, p95", "seconds"},
                       {"note", "note", ""}};
    BenchTable retention{"retention", "Retention: removing the oldest day", {}, {}, {}};
    retention.columns = {{"table_type", "table type", ""},        {"method", "removed by", ""},
                         {"rows", "rows removed", "int"},         {"seconds", "removal", "seconds"},
                         {"vacuum_s", "VACUUM after", "seconds"}, {"before_bytes", "size before", "bytes"},
                         {"after_bytes", "size after", "bytes"},  {"note", "note", ""}};
    BenchPlot warm{BenchPlot::Kind::Bars, "Warm query latency (mean)", "query", "seconds", "seconds", {}, {}};
    BenchPlot cold{BenchPlot::Kind::Bars, "Cold query latency", "query", "seconds", "seconds", {}, {}};
    BenchPlot removal{
        BenchPlot::Kind::Bars, "Removing the oldest day", "table type", "seconds", "seconds", {}, {}};
    BenchPlot::Series removalSeries{"removal", {}};
    BenchPlot::Series vacuumSeries{"VACUUM after", {}};
    std::string restartNote = o.restartServer
                                  ? "cold: the first run after the server was restarted (empty shared "
                                    "buffers; the operating system's page cache is not dropped)"
                                  : "cold: the first run after the load (the server was not restarted: "
                                    "not the embedded cluster)";
    frame.measure([&] {
        Connection& conn = frame.conn;
        TempDir dir("isobar-bench", 0700);
        BenchData wanted = o.data;
        if (wanted.files.empty() && wanted.syntheticHours == 0) {
            wanted.syntheticHours = 48;
        }
        const PreparedData data = prepareData(wanted, dir.path(), "query", progress, stop);
        const Dataset dataset = Dataset::open(data.files, data.open);
        const Subject subject = subjectOf(dataset);
        double done = 0;
        for (const auto& type : types) {
            const std::string typeName = benchTableTypeName(type);
            const std::string why = frame.whyNot(type);
            if (!why.empty()) {
                queries.rows.push_back({typeName, std::monostate{}, std::monostate{}, std::monostate{},
                                        std::monostate{}, std::monostate{}, "not measured: " + why});
                retention.rows.push_back({typeName, std::monostate{}, std::monostate{}, std::monostate{},
                                          std::monostate{}, std::monostate{}, std::monostate{},
                                          "not measured: " + why});
                done += 1;
                continue;
            }
            // Each step begins here: a cancel is noticed between them.
            const auto say = [&](const std::string& step) {
                if (stop.stop_requested()) {
                    throw Cancelled();
                }
                progress(data.description + ", " + typeName + ": " + step,
                         done / static_cast<double>(types.size()));
            };
            say("loading");
            dropTables(conn);
            loadWithEngine(o.conninfo, data, kQueryTable, type, defaultWorkerCount(), {}, stop);
            conn.exec("VACUUM ANALYZE " + std::string(kQueryTable));
            conn.exec("SET TimeZone = 'UTC'");
            const std::vector<Query> set = weatherQueries(conn, subject);
            if (o.restartServer) {
                // A restart ends every session on the server: not while someone else works on it.
                const long long others =
                    // Citus's connections to its own node (application_name citus_internal ...) are
                    // the server's, not someone's work.
                    conn.query(
                            "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' "
                            "AND pid <> pg_backend_pid() AND application_name NOT LIKE 'citus\\_internal%'")
                        .integer(0, 0);
                if (others > 0) {
                    restartNote = "cold: the first run after the load (the server was not restarted: " +
                                  std::to_string(others) + " other session(s) were connected to it)";
                } else {
                    say("restarting the server for the cold runs");
                    o.restartServer();
                    frame.reconnect(); // the restart ended the old connection
                }
            }
            Connection q = Connection::open(o.conninfo);
            q.exec("SET TimeZone = 'UTC'");
            const auto once = [&q](const Query& query, std::uint64_t& rows) {
                const auto start = Clock::now();
                rows = static_cast<std::uint64_t>(q.query(query.sql, query.params).rows());
                return secondsSince(start);
            };
            // Every query once before any runs again: each cold run finds the buffers as the load
            // (or the restart) left them, not warmed by the queries before it.
            std::vector<double> coldRuns;
            for (const auto& query : set) {
                if (stop.stop_requested()) {
                    throw Cancelled();
                }
                say(query.name + " (cold)");
                std::uint64_t rows = 0;
                coldRuns.push_back(once(query, rows));
            }
            BenchPlot::Series warmSeries{typeName, {}};
            BenchPlot::Series coldSeries{typeName, {}};
            for (std::size_t k = 0; k < set.size(); ++k) {
                const Query& query = set[k];
                if (stop.stop_requested()) {
                    throw Cancelled();
                }
                say(query.name);
                std::uint64_t rows = 0;
                const double coldSeconds = coldRuns[k];
                std::vector<double> runs;
                runs.reserve(static_cast<std::size_t>(o.repeats));
                for (int i = 0; i < o.repeats; ++i) {
                    runs.push_back(once(query, rows));
                }
                const double mean =
                    std::accumulate(runs.begin(), runs.end(), 0.0) / static_cast<double>(runs.size());
                queries.rows.push_back({typeName, query.name, double(rows), coldSeconds, mean,
                                        percentileOf(runs, 0.95), std::string()});
                warmSeries.values.emplace_back(mean);
                coldSeries.values.emplace_back(coldSeconds);
                if (warm.categories.size() < set.size()) {
                    warm.categories.push_back("Q" + std::to_string(warm.categories.size() + 1));
                    cold.categories.push_back(warm.categories.back());
                }
            }
            warm.series.push_back(warmSeries);
            cold.series.push_back(coldSeries);
            say("removing the oldest day");
            const DayRemoval d = removeOldestDay(conn, kQueryTable, type.type);
            retention.rows.push_back({typeName, d.method, double(d.rows), d.seconds, d.vacuumSeconds,
                                      d.before.total, d.after.total, removalNote(d)});
            removal.categories.push_back(typeName);
            removalSeries.values.emplace_back(d.seconds);
            vacuumSeries.values.emplace_back(d.vacuumSeconds);
            dropTables(conn);
            done += 1;
        }
        progress("done", 1);
    });
    queries.notes = {
        restartNote + "; warm: " + std::to_string(o.repeats) +
            " runs right after, their mean and 95th percentile (nearest rank). Q1-Q4 in the plots are "
            "the queries in this table's order.",
        "Each table type holds the same rows, loaded by Isobar; a hypertable has its index on time, the "
        "other tables no index (as Isobar makes them)."};
    retention.notes = {
        "The oldest UTC day: DELETE then VACUUM for plain tables, DETACH and DROP of the day's partition, "
        "drop_chunks for hypertables; sizes with partitions, chunks, indexes and TOAST."};
    removal.series = {removalSeries, vacuumSeries};
    frame.report.tables.push_back(std::move(queries));
    frame.report.tables.push_back(std::move(retention));
    for (BenchPlot* p : {&warm, &cold, &removal}) {
        if (!p->series.empty() && !p->categories.empty()) {
            frame.report.plots.push_back(std::move(*p));
        }
    }
    return frame.finish();
}

} // namespace isobar
