// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/TableField.h"

#include "util/Error.h"
#include "util/Format.h"
#include "util/Json.h"

#include <cmath>
#include <cstdlib>
#include <functional>
#include <sstream>

namespace isobar {

namespace {

using Params = std::vector<std::optional<std::string>>;

std::string number(double v) {
    std::ostringstream s;
    s.precision(10);
    s << v;
    return s.str();
}

// The bytes of the relations the plan of `sql` reads by sequential scans (a partitioned table's or
// hypertable's partitions it does not prune, each counted once).
std::uint64_t seqScanBytes(Connection& conn, const std::string& sql, const Params& params) {
    const Result plan = conn.query("EXPLAIN (FORMAT JSON, VERBOSE) " + sql, params);
    const JsonValue doc = JsonValue::parse(plan.text(0, 0));
    std::vector<std::pair<std::string, std::string>> relations;
    const std::function<void(const JsonValue&)> walk = [&](const JsonValue& node) {
        if (node["Node Type"].string() == "Seq Scan") {
            relations.emplace_back(node["Schema"].string(), node["Relation Name"].string());
        }
        for (const JsonValue& child : node["Plans"].array()) {
            walk(child);
        }
    };
    for (const JsonValue& entry : doc.array()) {
        walk(entry["Plan"]);
    }
    std::uint64_t bytes = 0;
    for (const auto& [schema, name] : relations) {
        const Result size = conn.query(
            "SELECT coalesce(pg_relation_size(to_regclass(quote_ident($1) || '.' || quote_ident($2))), 0)",
            {schema, name});
        bytes += static_cast<std::uint64_t>(size.integer(0, 0));
    }
    return bytes;
}

ReadCost costOf(Connection& conn, const std::string& sql, const Params& params, const TableName& table,
                const std::string& what, const std::string& index, std::uint64_t cheapScanBytes) {
    ReadCost cost;
    cost.scannedBytes = seqScanBytes(conn, sql, params);
    cost.cheap = cost.scannedBytes <= cheapScanBytes;
    if (!cost.cheap) {
        cost.reason = what + " reads " + formatBytes(cost.scannedBytes) + " of " + table.display() +
                      " from start to end: no index serves its filter (CREATE INDEX ON " + table.display() +
                      " " + index + " would)";
    }
    return cost;
}

struct Query {
    std::string sql;
    Params params;
};

Query fieldQuery(const Connection& conn, const TableFieldRequest& r) {
    Query q;
    q.sql = "SELECT location_id, latitude, longitude, " + conn.quoteIdentifier(r.column.column) + " FROM " +
            r.table.quoted(conn) + " WHERE time = $1::timestamptz";
    q.params.emplace_back(formatTimestamp(r.time));
    if (r.level) {
        q.params.emplace_back(number(*r.level));
        q.sql += " AND pressure_level = $" + std::to_string(q.params.size()) + "::float4";
    }
    if (r.bounds) {
        // float4 coordinates: a margin far below any grid's spacing.
        const double margin = 1e-3;
        const auto param = [&](double v) {
            q.params.emplace_back(number(v));
            return "$" + std::to_string(q.params.size()) + "::float8";
        };
        q.sql += " AND latitude BETWEEN " + param(r.bounds->south - margin) + " AND " +
                 param(r.bounds->north + margin);
        const std::string west = param(r.bounds->west - margin);
        const std::string east = param(r.bounds->east + margin);
        q.sql += r.bounds->west <= r.bounds->east
                     ? " AND longitude BETWEEN " + west + " AND " + east
                     : " AND (longitude >= " + west + " OR longitude <= " + east + ")";
    }
    return q;
}

Query seriesQuery(const Connection& conn, const TableName& table, const ValueColumn& column,
                  LocationId location, std::optional<double> level, PgTimestamp from, PgTimestamp to) {
    Query q;
    q.sql = "SELECT (extract(epoch FROM time) * 1000000)::bigint, " + conn.quoteIdentifier(column.column) +
            " FROM " + table.quoted(conn) +
            " WHERE location_id = $1::int AND time BETWEEN $2::timestamptz AND $3::timestamptz";
    q.params = {std::to_string(location.value), formatTimestamp(from), formatTimestamp(to)};
    if (level) {
        q.params.emplace_back(number(*level));
        q.sql += " AND pressure_level = $4::float4";
    }
    q.sql += " ORDER BY time";
    return q;
}

float valueOf(const Result& r, int row, int column) {
    return r.isNull(row, column) ? std::nanf("") : std::strtof(PQgetvalue(r.raw(), row, column), nullptr);
}

} // namespace

ReadCost tableFieldCost(Connection& conn, const TableFieldRequest& request, std::uint64_t cheapScanBytes) {
    const Query q = fieldQuery(conn, request);
    return costOf(conn, q.sql, q.params, request.table, "drawing this map", "(time)", cheapScanBytes);
}

ReadCost pointSeriesCost(Connection& conn, const TableName& table, const ValueColumn& column,
                         LocationId location, std::optional<double> level, PgTimestamp from, PgTimestamp to,
                         std::uint64_t cheapScanBytes) {
    const Query q = seriesQuery(conn, table, column, location, level, from, to);
    return costOf(conn, q.sql, q.params, table, "this point's time series", "(location_id, time)",
                  cheapScanBytes);
}

GridField readTableField(Connection& conn, const TableFieldRequest& request) {
    const Query q = fieldQuery(conn, request);
    const Result rows = conn.query(q.sql, q.params);
    if (rows.rows() == 0) {
        throw Error(request.table.display() + " has no rows at " + formatTimestamp(request.time) +
                    (request.level ? " on " + number(*request.level) + " hPa" : std::string()) +
                    (request.bounds ? " in the loaded box" : std::string()));
    }
    const GlobalGrid& grid = request.grid;
    const auto n = static_cast<std::size_t>(rows.rows());
    std::vector<std::int32_t> latIndex(n);
    std::vector<std::int32_t> lonIndex(n);
    for (std::size_t i = 0; i < n; ++i) {
        const long long id = rows.integer(static_cast<int>(i), 0);
        if (id < 1 || id > static_cast<long long>(grid.latitudes()) * grid.longitudes()) {
            throw Error(request.table.display() + " holds location_id " + std::to_string(id) +
                        ", which is not on the " + grid.describe());
        }
        latIndex[i] = static_cast<std::int32_t>((id - 1) / grid.longitudes());
        lonIndex[i] = static_cast<std::int32_t>((id - 1) % grid.longitudes());
    }
    GridField field;
    field.column = request.column.column;
    field.key = request.column.key;
    field.units = request.column.units;
    field.time = request.time;
    field.level = request.level;
    field.grid = grid;
    field.box = boxOfPoints(grid, latIndex, lonIndex);
    // Position of each global row and column in the box.
    std::vector<std::int32_t> rowOf(static_cast<std::size_t>(grid.latitudes()), -1);
    std::vector<std::int32_t> colOf(static_cast<std::size_t>(grid.longitudes()), -1);
    for (std::size_t i = 0; i < field.box.rows; ++i) {
        rowOf[static_cast<std::size_t>(field.box.gridRow(i))] = static_cast<std::int32_t>(i);
    }
    for (std::size_t j = 0; j < field.box.cols; ++j) {
        colOf[static_cast<std::size_t>(field.box.gridColumn(j, grid))] = static_cast<std::int32_t>(j);
    }
    field.values.assign(field.box.rows * field.box.cols, std::nanf(""));
    field.latitudes.resize(field.box.rows);
    field.longitudes.resize(field.box.cols);
    for (std::size_t i = 0; i < field.box.rows; ++i) {
        field.latitudes[i] = grid.latitudeOf(field.box.gridRow(i));
    }
    for (std::size_t j = 0; j < field.box.cols; ++j) {
        field.longitudes[j] = grid.longitudeOf(field.box.gridColumn(j, grid));
    }
    for (std::size_t k = 0; k < n; ++k) {
        const auto i = static_cast<std::size_t>(rowOf[static_cast<std::size_t>(latIndex[k])]);
        const auto j = static_cast<std::size_t>(colOf[static_cast<std::size_t>(lonIndex[k])]);
        const int row = static_cast<int>(k);
        // The coordinates the rows carry (for points loaded off the grid, their real ones).
        field.latitudes[i] = valueOf(rows, row, 1);
        field.longitudes[j] = valueOf(rows, row, 2);
        field.values[i * field.box.cols + j] = valueOf(rows, row, 3);
    }
    return field;
}

std::vector<SeriesPoint> readPointSeries(Connection& conn, const TableName& table, const ValueColumn& column,
                                         LocationId location, std::optional<double> level, PgTimestamp from,
                                         PgTimestamp to) {
    const Query q = seriesQuery(conn, table, column, location, level, from, to);
    const Result rows = conn.query(q.sql, q.params);
    std::vector<SeriesPoint> series;
    series.reserve(static_cast<std::size_t>(rows.rows()));
    for (int r = 0; r < rows.rows(); ++r) {
        series.push_back({pgTimestampFromUnixMicros(rows.integer(r, 0)), valueOf(rows, r, 1)});
    }
    return series;
}

} // namespace isobar
