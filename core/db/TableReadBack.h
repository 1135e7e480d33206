// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"
#include "domain/Grid.h"
#include "domain/UnitPlace.h"

#include <string>
#include <vector>

namespace isobar {

// The weather table a load writes, as its rows are read back: its quoted name and the column list
// of the load's COPY, "(time, location_id, latitude, longitude, t2m, ...)".
struct RowsTable {
    std::string quoted;
    std::string columns;
    bool levelColumn = false; // pressure_level follows time
};

// Whether the table holds at each of `places` exactly the rows `expected[i]`: binary COPY tuples
// as the load would send them (no header or trailer). Equal means the same rows with the same
// bytes in every field; a row whose values are all NULL counts as no row (a load may leave such
// rows out). The rows of every place are read in one statement (COPY (SELECT ...) TO STDOUT,
// binary), through the table's time index where it has one. Places are not sparse. Throws DbError.
std::vector<bool> tableHolds(Connection& conn, const RowsTable& table, const GlobalGrid& grid,
                             const std::vector<UnitPlace>& places, const std::vector<std::string>& expected);

} // namespace isobar
