#pragma once

#include "db/Connection.h"

#include <string>
#include <string_view>
#include <vector>

namespace isobar {

struct ColumnSpec {
    std::string_view name;
    std::string_view type; // as format_type() prints it
    bool notNull;
};

// The weather table's columns: the row's key and place (time, location_id, latitude, longitude),
// then one float4 column per variable of the catalog, in the catalog's order. For the seed's six
// that is the seed schema, column for column, so existing queries keep working:
// weather(time timestamptz not null, location_id int, latitude float4, longitude float4,
//         temperature_2m float4, zonal_wind_10m float4, meridional_wind_10m float4,
//         total_cloud_cover float4, total_precipitation float4, snowfall float4)
const std::vector<ColumnSpec>& weatherColumns();

// CREATE [UNLOGGED] TABLE IF NOT EXISTS with weatherColumns() [PARTITION BY RANGE (time)].
std::string createWeatherTableSql(const Connection& conn, const TableName& table, bool unlogged = false,
                                  bool partitioned = false);

// "(time, location_id, ...)" for COPY.
std::string weatherColumnList(const Connection& conn);

// Makes sure `table` exists with weatherColumns(): creates it when missing; when it exists, compares
// it column by column and throws isobar::Error with a precise diff if rows could not be loaded into
// it as they are (a missing column, another type). Extra columns are accepted when they are
// nullable or have a default, since COPY names its columns.
// `createSql` is how to create it (default: createWeatherTableSql). Returns true when the table
// was created.
bool ensureWeatherTable(Connection& conn, const TableName& table, const std::string& createSql = {});

} // namespace isobar
