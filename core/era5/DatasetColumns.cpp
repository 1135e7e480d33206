// SPDX-License-Identifier: GPL-3.0-or-later

// Which of a dataset's variables a load writes, and into which columns: finding variables by the
// names users give them, and mapping the files' variables onto a table's columns.

#include "era5/Dataset.h"
#include "util/Error.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <vector>

namespace isobar {

std::optional<std::size_t> Dataset::variableIndex(std::string_view key) const {
    for (std::size_t i = 0; i < variables_.size(); ++i) {
        if (variables_[i].key == key) {
            return i;
        }
    }
    return std::nullopt;
}

std::vector<std::size_t> Dataset::match(const std::vector<std::string>& names) const {
    const auto lower = [](std::string t) {
        std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
        return t;
    };
    // Every name each dataset variable goes by, in its files and in the catalog.
    std::vector<std::set<std::string>> namesOf(variables_.size());
    for (std::size_t v = 0; v < variables_.size(); ++v) {
        const ValueColumn& c = variables_[v];
        namesOf[v].insert({c.key, c.column, lower(c.longName)});
        if (c.variable) {
            const VariableSpec& s = spec(*c.variable);
            namesOf[v].insert({std::string(s.shortName), lower(std::string(s.longName)),
                               std::to_string(s.paramId), lower(std::string(s.gribName)),
                               lower(std::string(s.ncarName))});
            for (std::string_view a : s.aliases) {
                if (!a.empty()) {
                    namesOf[v].insert(std::string(a));
                }
            }
        }
    }
    for (const Era5File& f : files_) {
        for (const FileVariable& fv : f.variables()) {
            auto& n = namesOf[*variableIndex(fv.column.key)];
            n.insert({lower(fv.name), lower(fv.longName)});
            if (!fv.standardName.empty()) {
                n.insert(lower(fv.standardName));
            }
            if (fv.paramId) {
                n.insert(std::to_string(*fv.paramId));
            }
        }
    }
    std::vector<std::size_t> out;
    std::string missing;
    for (const std::string& raw : names) {
        std::string name = lower(raw);
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        if (name.empty()) {
            continue;
        }
        std::vector<std::size_t> hits;
        for (std::size_t v = 0; v < variables_.size(); ++v) {
            if (namesOf[v].count(name) > 0) {
                hits.push_back(v);
            }
        }
        if (hits.size() > 1) {
            std::string which;
            for (std::size_t v : hits) {
                which += (which.empty() ? "" : " and ") + variables_[v].key;
            }
            throw Error("'" + raw + "' names both " + which + " of these files; use the short name");
        }
        if (hits.empty()) {
            missing += (missing.empty() ? "'" : ", '") + raw + "'";
        } else if (std::find(out.begin(), out.end(), hits.front()) == out.end()) {
            out.push_back(hits.front());
        }
    }
    if (!missing.empty()) {
        throw Error("not in these files: " + missing + " (they have " + keysOf(variables_) + ")");
    }
    return out;
}

void Dataset::useColumns(const std::vector<ValueColumn>& columns) {
    std::vector<std::optional<std::size_t>> mapping;
    std::vector<bool> used(variables_.size(), false);
    bool any = false;
    for (const ValueColumn& c : columns) {
        const auto v = variableIndex(c.key);
        mapping.push_back(v);
        if (v) {
            used[*v] = true;
            any = true;
        }
    }
    if (!any) {
        throw Error("none of the variables to load (" + keysOf(columns) + ") is in these files (they have " +
                    keysOf(variables_) + ")");
    }
    columns_ = columns;
    columnVariable_ = std::move(mapping);
    selection_.clear();
    if (std::find(used.begin(), used.end(), false) != used.end()) {
        for (std::size_t c = 0; c < columns_.size(); ++c) {
            if (columnVariable_[c]) {
                selection_ += (selection_.empty() ? "" : ",") + columns_[c].key;
            }
        }
    }
}

bool Dataset::loadAsStored(std::string_view key, const std::string& units) {
    const auto v = variableIndex(key);
    if (!v) {
        return false;
    }
    const std::string wanted = canonicalUnits(units);
    for (const Era5File& f : files_) {
        for (const FileVariable& fv : f.variables()) {
            if (fv.column.key == key && canonicalUnits(fv.units) != wanted) {
                return false;
            }
        }
    }
    for (Era5File& f : files_) {
        for (FileVariable& fv : f.variables_) {
            if (fv.column.key == key) {
                fv.conversion = Conversion::None;
                fv.column.units = units;
                fv.column.conversion = Conversion::None;
            }
        }
    }
    variables_[*v].units = units;
    variables_[*v].conversion = Conversion::None;
    return true;
}

std::vector<ValueColumn> Dataset::leftOut() const {
    std::vector<ValueColumn> out;
    for (std::size_t v = 0; v < variables_.size(); ++v) {
        if (std::find(columnVariable_.begin(), columnVariable_.end(), std::optional<std::size_t>(v)) ==
            columnVariable_.end()) {
            out.push_back(variables_[v]);
        }
    }
    return out;
}

} // namespace isobar
