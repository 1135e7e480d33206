// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// Helpers the synthetic file tests share (tst_synthetic_*): catalog variables by their short names,
// a variable's values in the units its file declares, means of them, and the variables a file holds.

#include "Fixtures.h"
#include "domain/Variable.h"
#include "era5/Era5File.h"

#include <QString>

#include <initializer_list>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace isobar::test {

// The catalog variable of a short name; throws when the catalog knows the name only as another's.
inline Variable byName(const char* shortName) {
    const auto v = findVariable(shortName);
    if (!v || spec(*v).shortName != shortName) {
        throw std::runtime_error(std::string("no catalog variable ") + shortName);
    }
    return *v;
}

inline std::vector<Variable> byNames(std::initializer_list<const char*> names) {
    std::vector<Variable> out;
    for (const char* n : names) {
        out.push_back(byName(n));
    }
    return out;
}

// A variable's values in the units the file declares: unpacked where it is packed.
inline std::vector<double> physical(const QString& path, const std::string& variable) {
    std::vector<double> values = readStored(path, variable);
    const double scale = readNumberAttribute(path, variable, "scale_factor").value_or(1.0);
    const double offset = readNumberAttribute(path, variable, "add_offset").value_or(0.0);
    for (double& v : values) {
        v = v * scale + offset;
    }
    return values;
}

// The mean of `count` values from position `from`.
inline double mean(const std::vector<double>& v, std::size_t from, std::size_t count) {
    return std::accumulate(v.begin() + static_cast<long>(from), v.begin() + static_cast<long>(from + count),
                           0.0) /
           static_cast<double>(count);
}

// The short names of a file's variables; "?" and the file's name for one not in the catalog.
inline std::set<std::string> shortNamesOf(const Era5File& f) {
    std::set<std::string> names;
    for (const FileVariable& v : f.variables()) {
        names.insert(v.column.variable ? std::string(spec(*v.column.variable).shortName) : "?" + v.name);
    }
    return names;
}

} // namespace isobar::test
