// SPDX-License-Identifier: GPL-3.0-or-later

// Era5File::open, continued (see NetcdfParser.h): the file's data variables - which column
// each goes to, their dimensions, packing and missing values - and its pressure levels.

#include "era5/NetcdfParser.h"
#include "util/Error.h"

#include <algorithm>
#include <array>

namespace isobar {

using namespace conventions;

// Which column a data variable of the file goes to: the parameter it is by its identity (GRIB
// paramId, name, long_name, standard_name; see matchParameter), else a column of its own, named
// after it.
ValueColumn NetcdfParser::columnFor(int varid, const std::string& name, FileVariable& fv) const {
    fv.longName = text(varid, "long_name").value_or("");
    fv.standardName = text(varid, "standard_name").value_or("");
    if (const auto id = handle_.numberAttribute(varid, "GRIB_paramId")) {
        fv.paramId = static_cast<long>(*id);
    }
    fv.units = text(varid, "units").value_or("");
    fv.stepType = lower(text(varid, "GRIB_stepType").value_or(""));
    if (auto c = columnOfParameter(fv, f_.name_)) {
        return *c;
    }
    ValueColumn c = ValueColumn::unknown(name, fv.longName, fv.units);
    if (isKeyColumn(c.column)) {
        fail("variable " + name + " would load into column " + c.column +
             ", which every weather table has for itself; rename the variable (e.g. with ncrename)");
    }
    for (const VariableSpec& s : variableCatalog()) {
        if (s.column == c.column) {
            fail("variable " + name + " is not ERA5's " + std::string(s.shortName) + " (" +
                 std::string(s.longName) + ") by its attributes, but its column would be that one's (" +
                 c.column + "); rename the variable, or give it the attributes of " +
                 std::string(s.shortName));
        }
    }
    return c;
}

void NetcdfParser::findTargetVariables() {
    findSeriesPoint();
    for (int v = 0; v < nvars_; ++v) {
        std::array<char, NC_MAX_NAME + 1> nameBuf{};
        int varDims = 0;
        nc_type type = NC_NAT;
        std::array<int, NC_MAX_VAR_DIMS> dimIds{};
        {
            std::lock_guard lock(netcdfMutex());
            ncCheck(nc_inq_var(ncid_, v, nameBuf.data(), &type, &varDims, dimIds.data(), nullptr), f_.name_,
                    "cannot read a variable");
        }
        const std::string name(nameBuf.data());
        const bool isCoordinate =
            std::any_of(dims_.begin(), dims_.end(), [&](const DimInfo& d) { return d.name == name; });
        if (isCoordinate || isAuxiliary(name) || type == NC_STRING || type == NC_CHAR || v == latScalar_ ||
            v == lonScalar_) {
            continue;
        }
        std::string shape;
        for (int d = 0; d < varDims; ++d) {
            shape += (d == 0 ? "" : ", ") + dims_[static_cast<size_t>(dimIds[static_cast<size_t>(d)])].name;
        }
        FileVariable fv;
        fv.name = name;
        fv.varid = v;
        fv.type = type;
        // A clash of its clues is told by columnFor(), below.
        bool known = true;
        try {
            known = matchParameter(VariableClues{name, text(v, "long_name").value_or(""),
                                                 text(v, "standard_name").value_or(""),
                                                 handle_.numberAttribute(v, "GRIB_paramId"),
                                                 text(v, "units").value_or("")})
                        .has_value();
        } catch (const ParameterClash&) {
        }
        // A variable the catalog does not know is loaded when it is a field on the grid like the
        // others; anything else of it (bounds, a per-time scalar) is listed as ignored.
        const bool loadableType = type == NC_SHORT || type == NC_INT || type == NC_FLOAT || type == NC_DOUBLE;
        // A point series' variables lie along time alone.
        const int fieldDims = pointSeries_ ? 1 : 2;
        if (!known && (varDims < fieldDims || !loadableType)) {
            if (varDims >= fieldDims) {
                f_.ignored_.push_back(name + " (stored as " + typeName(type) + ")");
            }
            continue;
        }
        std::vector<DimRole> roles;
        if (!known) {
            try {
                for (int d = 0; d < varDims; ++d) {
                    roles.push_back(roleOf(dimIds[static_cast<size_t>(d)], name));
                }
            } catch (const Error&) {
                f_.ignored_.push_back(name + " (" + shape + ")");
                continue;
            }
            if (pointSeries_ && roles != std::vector<DimRole>{DimRole::Time}) {
                f_.ignored_.push_back(name + " (" + shape + ": not a series along time)");
                continue;
            }
            if (!pointSeries_ && (std::count(roles.begin(), roles.end(), DimRole::Latitude) != 1 ||
                                  std::count(roles.begin(), roles.end(), DimRole::Longitude) != 1)) {
                f_.ignored_.push_back(name + " (" + shape + ": not on the latitude/longitude grid)");
                continue;
            }
        }
        fv.column = columnFor(v, name, fv);
        for (const FileVariable& existing : f_.variables_) {
            if (existing.column.column == fv.column.column) {
                fail("both '" + existing.name + "' and '" + name + "' would load into column " +
                     fv.column.column +
                     (fv.column.variable ? " (" + std::string(spec(*fv.column.variable).shortName) + ", " +
                                               std::string(spec(*fv.column.variable).longName) + ")"
                                         : std::string()) +
                     "; refusing to choose");
            }
        }
        int latPos = -1;
        int lonPos = -1;
        for (int d = 0; d < varDims; ++d) {
            const int dimId = dimIds[static_cast<size_t>(d)];
            const DimRole role = roleOf(dimId, name);
            fv.dims.push_back(role);
            dimIds_[name].push_back(dimId);
            if (role == DimRole::Latitude) {
                latPos = d;
                latDim_ = latDim_ < 0 ? dimId : latDim_;
                if (latDim_ != dimId) {
                    fail("variables use different latitude dimensions");
                }
            } else if (role == DimRole::Longitude) {
                lonPos = d;
                lonDim_ = lonDim_ < 0 ? dimId : lonDim_;
                if (lonDim_ != dimId) {
                    fail("variables use different longitude dimensions");
                }
            } else if (role == DimRole::Level) {
                levelDim_ = levelDim_ < 0 ? dimId : levelDim_;
                if (levelDim_ != dimId) {
                    fail("variables use different pressure-level dimensions (" +
                         dims_[static_cast<size_t>(levelDim_)].name + " and " +
                         dims_[static_cast<size_t>(dimId)].name + ")");
                }
            }
        }
        if (pointSeries_ && fv.dims != std::vector<DimRole>{DimRole::Time}) {
            fail("variable " + name + " is shaped (" + shape +
                 "), but the file is a point series (scalar latitude and longitude): each variable must lie "
                 "along its time dimension alone");
        }
        if (!pointSeries_ && (latPos < 0 || lonPos < 0)) {
            fail("variable " + name + " is shaped (" + shape +
                 "): it needs latitude and longitude dimensions of a regular grid");
        }
        fv.latBeforeLon = latPos < lonPos;
        if (!loadableType) {
            fail("variable " + name + " is stored as " + typeName(type) +
                 "; expected short (packed), int, float or double");
        }
        const auto scale = handle_.numberAttribute(v, "scale_factor");
        const auto offset = handle_.numberAttribute(v, "add_offset");
        fv.packed = scale.has_value() || offset.has_value();
        fv.scale = scale.value_or(1.0);
        fv.offset = offset.value_or(0.0);
        auto fills = handle_.numberAttributeValues(v, "_FillValue");
        if (fills.empty()) {
            fills.push_back(defaultFill(type));
        }
        const auto missing = handle_.numberAttributeValues(v, "missing_value");
        fv.missingValues = fills;
        fv.missingValues.insert(fv.missingValues.end(), missing.begin(), missing.end());
        shapes_[name] = shape;
        f_.variables_.push_back(std::move(fv));
    }
    if (f_.variables_.empty()) {
        std::string has;
        for (const auto& n : f_.ignored_) {
            has += (has.empty() ? "" : ", ") + n;
        }
        throw NoTargetVariables(
            f_.name_ +
                (pointSeries_ ? ": no variable along time to load at its point"
                              : ": no variable on a latitude/longitude grid to load") +
                "; the file has: " + (has.empty() ? std::string("no data variables") : has),
            f_.ignored_);
    }
    // Catalog variables in the catalog's order, then the others by name.
    std::sort(f_.variables_.begin(), f_.variables_.end(), [](const FileVariable& a, const FileVariable& b) {
        const std::size_t ia = a.column.variable ? a.column.variable->index() : variableCount();
        const std::size_t ib = b.column.variable ? b.column.variable->index() : variableCount();
        return ia != ib ? ia < ib : a.column.key < b.column.key;
    });
    // Every variable must share the same time dimensions (one time axis per file) and the same
    // levels (a surface variable beside pressure-level ones would be a second table).
    const auto axisDims = [&](const FileVariable& var) {
        std::vector<int> ids;
        for (size_t d = 0; d < var.dims.size(); ++d) {
            if (var.dims[d] == DimRole::Time || var.dims[d] == DimRole::ForecastInit ||
                var.dims[d] == DimRole::ForecastHour || var.dims[d] == DimRole::Level) {
                ids.push_back(dimIds_[var.name][d]);
            }
        }
        return ids;
    };
    timeDims_ = axisDims(f_.variables_.front());
    for (const auto& var : f_.variables_) {
        if (axisDims(var) != timeDims_) {
            fail("variables " + f_.variables_.front().name + " (" + shapes_[f_.variables_.front().name] +
                 ") and " + var.name + " (" + shapes_[var.name] +
                 ") have different time axes or levels; split them into files of one kind each");
        }
    }
    std::erase_if(timeDims_, [&](int id) { return id == levelDim_; });
    readLevels();
}

void NetcdfParser::readLevels() {
    if (levelDim_ < 0) {
        return;
    }
    const DimInfo& dim = dims_[static_cast<size_t>(levelDim_)];
    std::vector<double> values = readDoubles(levelDim_, "pressure level");
    const int coord = varidOf(dim.name);
    const std::string units = lower(text(coord, "units").value_or(""));
    for (double& p : values) {
        p = units == "pa" ? p / 100.0 : p;
        if (!(p > 0.0 && p <= 1100.0)) {
            fail("pressure level " + formatCoordinate(p) + " hPa (" + dim.name +
                 ") is not a pressure level of the atmosphere (0 - 1100 hPa)");
        }
    }
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    if (const auto dup = std::adjacent_find(sorted.begin(), sorted.end()); dup != sorted.end()) {
        fail("pressure level " + formatCoordinate(*dup) + " hPa appears twice in " + dim.name);
    }
    f_.levels_ = std::move(values);
}

} // namespace isobar
