// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"
#include "domain/Columns.h"

#include <optional>
#include <string>

namespace isobar {

// What Isobar remembers about a table it loads, in its own schema `isobar`: the grid (location_id
// only means something on one grid) and the product (hourly ERA5 and monthly means do not mix).
struct TableGrid {
    double step = 0.25;
    std::string grid;      // "0.25 deg global grid (721 x 1440 points)"
    std::string product;   // "ERA5 hourly", "ERA5-Land hourly", ...
    std::string variables; // "t2m,tp" when only some variables load; empty: all the files have
    Vertical vertical = Vertical::Surface;
};

// Creates the isobar schema and its metadata table if missing. Autocommitted, outside the load's
// transaction, tolerant of another loader doing the same at the same moment.
void ensureMetadataSchema(Connection& conn);

// Inside the load's transaction, before the table is created or checked: waits until no other
// loader is preparing the same table. Two runs started at once would otherwise both find the table
// (or its grid record) missing and both create it; the second failed on a unique violation. The
// lock is released at COMMIT or ROLLBACK.
void lockTablePreparation(Connection& conn, const TableName& table);

// Inside the load's transaction: records the grid, product and variable choice of `table` on first
// load, and throws isobar::Error naming both when the table holds rows of a different grid or
// product, or loaded with other variables (rows of both would share (time, location_id)). An
// empty table takes the new record.
void checkTableGrid(Connection& conn, const TableName& table, const TableGrid& wanted);

// The value columns of `table` as Isobar recorded them (isobar.table_columns); for a table without
// that record (loaded by an earlier Isobar, or made by hand), what its columns and its grid record
// say: the catalog's columns it has, narrowed to the variables an earlier load recorded. nullopt
// when the table does not exist.
std::optional<TableLayout> tableLayout(Connection& conn, const TableName& table);

// True when isobar.table_columns describes `table`.
bool hasLayoutRecord(Connection& conn, const TableName& table);

// Inside the load's transaction, after the table is created or checked: records what each value
// column holds, in isobar.table_columns (one row per column: variable, paramId, long name, units,
// conversion, position) and as COMMENT ON COLUMN, so that \d+ shows it.
void recordTableLayout(Connection& conn, const TableName& table, const TableLayout& layout);

} // namespace isobar
