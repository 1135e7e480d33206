// SPDX-License-Identifier: GPL-3.0-or-later

#include "domain/Columns.h"

#include "domain/ParameterDatabase.h"

#include <algorithm>
#include <cctype>

namespace isobar {

std::string_view describe(Vertical v) {
    return v == Vertical::PressureLevels ? "pressure levels" : "surface";
}

ValueColumn ValueColumn::of(Variable v) {
    const VariableSpec& s = spec(v);
    return ValueColumn{std::string(s.shortName),
                       v,
                       s.paramId,
                       std::string(s.column),
                       s.longName,
                       s.tableUnits,
                       s.conversion,
                       s.accumulated};
}

ValueColumn ValueColumn::ofParameter(const EcmwfParameter& p, bool accumulated) {
    const Quantity q = quantityOf(p);
    const std::string column = columnIdentifier(p.cfVarName.empty() ? p.shortName : p.cfVarName);
    return ValueColumn{column,          std::nullopt, p.paramId, column, p.name, tableUnitsOf(q, p.units),
                       conversionOf(q), accumulated};
}

ValueColumn ValueColumn::unknown(std::string_view fileName, std::string_view longName,
                                 std::string_view units) {
    const std::string column = columnIdentifier(fileName);
    return ValueColumn{column,           std::nullopt, 0, column, std::string(longName), std::string(units),
                       Conversion::None, false};
}

std::string ValueColumn::describe() const {
    std::string out = longName.empty() ? key : longName;
    if (variable) {
        const VariableSpec& s = spec(*variable);
        out += " (ERA5 " + std::string(s.shortName) + ", paramId " + std::to_string(s.paramId) + ", " +
               std::string(isobar::describe(s.timing)) + ")";
    } else if (paramId != 0) {
        out += " (ECMWF paramId " + std::to_string(paramId) + (accumulated ? ", accumulated" : "") + ")";
    } else {
        out += " (not in ECMWF's parameter database: loaded as the file stores it)";
    }
    out += "; units " + (units.empty() ? std::string("none given") : units);
    if (conversion != Conversion::None) {
        out += ", converted " + std::string(isobar::describe(conversion));
    }
    return out;
}

std::string keysOf(const std::vector<ValueColumn>& columns) {
    std::string out;
    for (const ValueColumn& c : columns) {
        out += (out.empty() ? "" : ", ") + c.key;
    }
    return out;
}

std::string TableLayout::keys() const {
    return keysOf(columns);
}

std::string columnIdentifier(std::string_view name) {
    std::string out;
    for (const char c : name) {
        const auto u = static_cast<unsigned char>(c);
        out += std::isalnum(u) != 0 && u < 0x80 ? static_cast<char>(std::tolower(u)) : '_';
    }
    if (out.empty() || std::isdigit(static_cast<unsigned char>(out.front())) != 0) {
        out = "v_" + out;
    }
    if (out.size() > 63) {
        out.resize(63);
    }
    return out;
}

bool isKeyColumn(std::string_view column) {
    return column == "time" || column == "location_id" || column == "latitude" || column == "longitude" ||
           column == "pressure_level";
}

} // namespace isobar
