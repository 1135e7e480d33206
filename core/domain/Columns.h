// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "domain/Variable.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace isobar {

// Which vertical coordinate a table's rows have: none (single-level, "surface" files) or a pressure
// level in hPa (ERA5's pressure-level product). A table is one or the other, for good.
enum class Vertical : std::uint8_t { Surface, PressureLevels };

std::string_view describe(Vertical v); // "surface", "pressure levels"

// One value column of the weather table: what it holds, where it comes from and in which units. A
// catalog variable (d2m -> column d2m, in degC); another parameter ECMWF defines (lblt -> column
// lblt, in degC as every temperature, by its units in ECMWF's database); or a variable ECMWF does
// not define, loaded as its file stores it under its NetCDF name made an identifier.
struct ValueColumn {
    // Identity: the catalog short name ("t2m"), or the column name of an unknown variable. Files'
    // variables are matched to columns by it, never by position.
    std::string key;
    std::optional<Variable> variable; // the catalog entry, if any
    long paramId = 0;                 // ECMWF's paramId, where ECMWF defines the parameter
    std::string column;               // the table column
    std::string longName;
    std::string units;                        // of the table's values
    Conversion conversion = Conversion::None; // from the units ERA5 stores (the catalog's)
    bool accumulated = false;

    // The column of a catalog variable.
    static ValueColumn of(Variable v);
    // The column of a parameter ECMWF defines and the catalog has no entry for: ECMWF's name and
    // units, converted as its quantity is (quantityOf), under its netCDF name (cfVarName).
    static ValueColumn ofParameter(const EcmwfParameter& p, bool accumulated);
    // The column of a variable ECMWF does not define, as its file describes it.
    static ValueColumn unknown(std::string_view fileName, std::string_view longName, std::string_view units);

    // "2 metre dewpoint temperature (ERA5 d2m, paramId 168); degC, converted from K (x - 273.15)":
    // what COMMENT ON COLUMN says, so that \d+ shows it.
    std::string describe() const;

    friend bool operator==(const ValueColumn&, const ValueColumn&) = default;
};

// What a weather table holds: its vertical coordinate and value columns, in the table's order.
struct TableLayout {
    Vertical vertical = Vertical::Surface;
    std::vector<ValueColumn> columns;

    // "t2m, u10, d2m": the keys, for messages.
    std::string keys() const;

    friend bool operator==(const TableLayout&, const TableLayout&) = default;
};

// "t2m, u10, d2m": the keys of `columns`, for messages.
std::string keysOf(const std::vector<ValueColumn>& columns);

// `name` made a valid, unquoted-safe SQL identifier: lower case, [a-z0-9_], not starting with a
// digit, at most 63 bytes ("2m-Temp" -> "v_2m_temp").
std::string columnIdentifier(std::string_view name);

// The columns every weather table has besides its value columns; a value column may not take one
// of these names.
bool isKeyColumn(std::string_view column);

} // namespace isobar
