// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"
#include "domain/Columns.h"

#include <optional>
#include <string>
#include <vector>

namespace isobar {

struct ColumnSpec {
    std::string name;
    std::string type; // as format_type() prints it
    bool notNull;
};

// The columns of a weather table of `layout`: the row's key and place (time, [pressure_level,]
// location_id, latitude, longitude), then one float4 column per value column, in the layout's
// order. For the seed's six on the surface that is the seed schema, column for column, so existing
// queries keep working:
// weather(time timestamptz not null, location_id int, latitude float4, longitude float4,
//         temperature_2m float4, zonal_wind_10m float4, meridional_wind_10m float4,
//         total_cloud_cover float4, total_precipitation float4, snowfall float4)
// A pressure-level table has pressure_level float4 (hPa) right after time.
std::vector<ColumnSpec> weatherColumns(const TableLayout& layout);

// The seed's layout: the seed's six on the surface (what tools and tests that know no files use).
TableLayout seedLayout();

// CREATE [UNLOGGED] TABLE IF NOT EXISTS with weatherColumns() [PARTITION BY RANGE (time)].
std::string createWeatherTableSql(const Connection& conn, const TableName& table, const TableLayout& layout,
                                  bool unlogged = false, bool partitioned = false);

// "(time, location_id, ...)" for COPY.
std::string weatherColumnList(const Connection& conn, const TableLayout& layout);

// Makes sure `table` exists with weatherColumns(layout): creates it when missing; when it exists,
// compares it column by column and throws isobar::Error with a precise diff if rows could not be
// loaded into it as they are (a missing column, another type). Extra columns are accepted when
// they are nullable or have a default, since COPY names its columns. `createSql` is how to create
// it (default: createWeatherTableSql). Returns true when the table was created.
bool ensureWeatherTable(Connection& conn, const TableName& table, const TableLayout& layout,
                        const std::string& createSql = {});

// The value columns an existing table can take, read from its columns: the catalog's columns it
// has, in the table's order, and whether it has pressure_level. For tables no record describes (an
// earlier Isobar's, or made by hand). nullopt when the table does not exist.
std::optional<TableLayout> layoutFromColumns(Connection& conn, const TableName& table);

} // namespace isobar
