// SPDX-License-Identifier: GPL-3.0-or-later

#include "era5/Inspection.h"

#include "domain/ParameterDatabase.h"
#include "era5/BandReader.h"
#include "era5/Dataset.h"
#include "era5/TimeUnits.h"
#include "util/Error.h"
#include "util/Format.h"
#include "util/Json.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace isobar {

namespace {

std::string number(double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.8g", v);
    return buf;
}

std::string storageOf(const FileVariable& var) {
    if (!var.gribStorage.empty()) {
        return var.gribStorage + (var.paramId ? ", paramId " + std::to_string(*var.paramId) : std::string());
    }
    std::string type;
    switch (var.type) {
    case NC_SHORT:
        type = "int16";
        break;
    case NC_INT:
        type = "int32";
        break;
    case NC_FLOAT:
        type = "float32";
        break;
    default:
        type = "float64";
        break;
    }
    if (var.packed) {
        type += " packed (scale_factor " + number(var.scale) + ", add_offset " + number(var.offset) + ")";
    }
    return type;
}

std::string missingOf(const FileVariable& var) {
    std::string out;
    for (double m : var.missingValues) {
        const std::string text = std::isnan(m) ? "NaN" : number(m);
        if (out.find(text) == std::string::npos) {
            out += (out.empty() ? "" : ", ") + text;
        }
    }
    return out;
}

std::string hours(std::int64_t micros) {
    const double h = static_cast<double>(micros) / 3600e6;
    if (h >= 48.0) {
        return number(h / 24.0) + " d";
    }
    return number(h) + " h";
}

std::string spacingOf(std::vector<PgTimestamp> times, bool monthly) {
    if (times.size() < 2) {
        return "a single step";
    }
    if (monthly) {
        return "monthly";
    }
    std::sort(times.begin(), times.end());
    std::int64_t lo = INT64_MAX;
    std::int64_t hi = 0;
    for (std::size_t i = 1; i < times.size(); ++i) {
        const std::int64_t d = times[i].micros - times[i - 1].micros;
        lo = std::min(lo, d);
        hi = std::max(hi, d);
    }
    if (lo == hi) {
        return lo == 3'600'000'000LL ? "hourly" : "every " + hours(lo);
    }
    return "irregular: " + hours(lo) + " to " + hours(hi);
}

FileInspection describe(const Era5File& f, const Dataset* scanOf, std::uint32_t fileIndex) {
    FileInspection fi;
    fi.name = f.name();
    fi.format = f.format();
    fi.layout = f.layout();
    fi.product =
        std::string(f.era5Land() ? "ERA5-Land" : "ERA5") + (f.monthlyMeans() ? " monthly means" : " hourly");
    fi.timeRule = f.timeRule();
    fi.gridSpacing = f.grid().spacing();
    const auto gridsOwn = [&](const std::optional<double>& s) {
        return !s || std::fabs(*s - f.grid().spacing()) < 1e-9;
    };
    if (!gridsOwn(f.latitudeSpacing()) || !gridsOwn(f.longitudeSpacing())) {
        fi.pointSpacing = f.spacingText();
    }
    fi.grid = f.grid().describe() +
              (fi.pointSpacing.empty() ? "" : ", the file's points " + fi.pointSpacing + " apart");
    fi.box = f.box().describe(f.grid());
    fi.orientation = std::string("latitude ") +
                     (f.latitudesAscending() ? "ascending (south to north)" : "descending (north to south)");
    if (f.pointSeries()) {
        // The Files tab's Grid column and inspect's box line say where the series is.
        const std::string point = "latitude " + formatCoordinate(f.latitudes().front()) + ", longitude " +
                                  formatCoordinate(f.longitudes().front());
        fi.grid += ", one point (" + point + ")";
        fi.box = "one point, " + point + " (location_id " +
                 std::to_string(f.grid().locationId(f.latitudes().front(), f.longitudes().front()).value) +
                 ")";
        fi.orientation = "a time series of the point";
    }
    fi.offGrid = f.offGrid();
    fi.steps = f.steps().size();
    std::vector<PgTimestamp> times;
    for (const auto& s : f.steps()) {
        times.push_back(s.time);
    }
    const auto [minIt, maxIt] = std::minmax_element(times.begin(), times.end());
    fi.firstTime = formatTimestamp(*minIt);
    fi.lastTime = formatTimestamp(*maxIt);
    fi.timeSpacing = spacingOf(times, f.monthlyMeans());
    fi.rows = f.rowCount();
    fi.levels = describeLevels(f.levels());
    std::optional<BandReader> reader;
    if (scanOf != nullptr) {
        reader.emplace(*scanOf);
    }
    for (std::uint32_t v = 0; v < f.variables().size(); ++v) {
        const FileVariable& var = f.variables()[v];
        VariableInspection vi;
        vi.name = var.name;
        vi.column = var.column;
        vi.storage = storageOf(var);
        vi.paramId = var.paramId;
        vi.units = var.units;
        vi.conversion = std::string(describe(var.conversion));
        vi.missingValues = missingOf(var);
        vi.stepType = var.stepType;
        if (const EcmwfParameter* p =
                var.column.paramId != 0 ? ecmwfParameters().byParamId(var.column.paramId) : nullptr) {
            vi.ecmwfShortName = p->shortName;
            vi.ecmwfName = p->name;
            vi.ecmwfUnits = p->units;
        }
        vi.matchedBy = var.matchedBy;
        vi.looseMatch = var.looseMatch;
        if (!var.expverOrder.empty()) {
            vi.handling = "ERA5 where present, else ERA5T (expver dimension)";
        }
        if (var.accumulatedSinceMidnight) {
            vi.handling = "accumulated since 00 UTC: loaded as hourly differences";
        }
        if (!var.gribTiming.empty()) {
            vi.handling = var.gribTiming + (vi.handling.empty() ? "" : "; " + vi.handling);
        }
        // Values the file holds for it: every (step, level) of a NetCDF file; those with a message in
        // a GRIB file.
        const auto levels = static_cast<std::uint32_t>(std::max<std::size_t>(f.levels().size(), 1));
        std::uint64_t held = 0;
        for (std::uint32_t s = 0; s < f.steps().size(); ++s) {
            for (std::uint32_t l = 0; l < levels; ++l) {
                held += f.provides(v, s, l) ? 1U : 0U;
            }
        }
        vi.valueCount = held * f.box().rows * f.box().cols;
        if (reader) {
            std::uint64_t missing = 0;
            for (std::uint32_t s = 0; s < f.steps().size(); ++s) {
                for (std::uint32_t l = 0; l < levels; ++l) {
                    if (!f.provides(v, s, l)) {
                        continue;
                    }
                    const auto values = reader->readSource(SourceRef{fileIndex, v, s, l});
                    missing += static_cast<std::uint64_t>(
                        std::count_if(values.begin(), values.end(), [](float x) { return std::isnan(x); }));
                }
            }
            vi.missingCount = missing;
        }
        fi.variables.push_back(std::move(vi));
    }
    fi.ignored = f.ignoredVariables();
    fi.notes = f.notes();
    return fi;
}

} // namespace

std::string describeLevels(const std::vector<double>& levels) {
    if (levels.empty()) {
        return "surface (single level)";
    }
    std::vector<double> sorted = levels;
    std::sort(sorted.begin(), sorted.end());
    std::string list;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        if (sorted.size() > 8 && i == 3) {
            list += ", ...";
            i = sorted.size() - 3;
        }
        list += (list.empty() ? "" : ", ") + formatCoordinate(sorted[i]);
    }
    return std::to_string(levels.size()) + " pressure level(s): " + list + " hPa";
}

DatasetInspection inspectDataset(const std::vector<std::filesystem::path>& files,
                                 const OpenOptions& options) {
    DatasetInspection d;
    try {
        const Dataset dataset = Dataset::open(files, options);
        d.product = dataset.productName();
        d.timeRule = dataset.timeRule();
        d.grid = dataset.grid().describe();
        d.files = dataset.files().size();
        d.steps = dataset.steps().size();
        if (!dataset.steps().empty()) {
            d.firstTime = formatTimestamp(dataset.steps().front().time);
            d.lastTime = formatTimestamp(dataset.steps().back().time);
        }
        d.rows = dataset.rowCount();
        d.levels = describeLevels(dataset.levels());
        for (const ValueColumn& v : dataset.variables()) {
            d.variables.push_back(v.key + " -> " + v.column);
        }
        d.notes = dataset.notes();
    } catch (const std::exception& e) {
        d.error = e.what();
    }
    return d;
}

bool Inspection::ok() const {
    return !dataset.error &&
           std::none_of(files.begin(), files.end(), [](const FileInspection& f) { return f.error; });
}

Inspection inspect(const std::vector<std::filesystem::path>& paths, const OpenOptions& options, bool scan) {
    Inspection result;
    std::vector<std::filesystem::path> files;
    try {
        files = expandInputs(paths);
    } catch (const Error& e) {
        FileInspection fi;
        fi.name = "input";
        fi.error = e.what();
        result.files.push_back(std::move(fi));
        result.dataset.error = "not every file can be read (see above)";
        return result;
    }
    for (const auto& path : files) {
        try {
            // One path may be an archive of several files: inspect it as a dataset of its own.
            const Dataset one = Dataset::open({path}, options);
            for (std::uint32_t i = 0; i < one.files().size(); ++i) {
                result.files.push_back(describe(one.files()[i], scan ? &one : nullptr, i));
            }
        } catch (const Error& e) {
            FileInspection fi;
            fi.name = path.string();
            fi.error = e.what();
            result.files.push_back(std::move(fi));
        }
    }
    DatasetInspection& d = result.dataset;
    if (std::any_of(result.files.begin(), result.files.end(),
                    [](const FileInspection& f) { return f.error; })) {
        d.error = "not every file can be read (see above)";
        return result;
    }
    d = inspectDataset(files, options);
    return result;
}

std::string renderInspectionText(const Inspection& inspection) {
    std::ostringstream out;
    for (const FileInspection& f : inspection.files) {
        out << f.name << "\n";
        if (f.error) {
            out << "  cannot be loaded: " << *f.error << "\n\n";
            continue;
        }
        out << "  format:     " << f.format << "\n"
            << "  layout:     " << f.layout << "\n"
            << "  product:    " << f.product << "\n"
            << "  decided by: " << f.timeRule << "\n"
            << "  grid:       " << f.grid << (f.offGrid ? ", points off the grid mapped to the nearest" : "")
            << "\n"
            << "  box:        " << f.box << ", " << f.orientation << "\n"
            << "  time:       " << f.steps << " step(s), " << f.firstTime << " .. " << f.lastTime << " ("
            << f.timeSpacing << ")\n"
            << "  levels:     " << f.levels << "\n"
            << "  rows:       " << f.rows << "\n"
            << "  variables:\n";
        for (const VariableInspection& v : f.variables) {
            out << "    " << v.name << " -> " << v.column.column;
            if (v.ecmwfName.empty()) {
                out << " (not in ECMWF's parameter database: loaded as stored)";
            } else {
                out << " (ECMWF " << v.ecmwfShortName << ", paramId " << v.column.paramId << ": "
                    << v.ecmwfName << ", " << v.ecmwfUnits
                    << (v.column.variable ? "" : "; not in Isobar's catalog") << ")";
            }
            out << ": " << v.storage << ", units '" << v.units << "', conversion " << v.conversion;
            if (!v.missingValues.empty()) {
                out << ", missing values " << v.missingValues;
            }
            if (!v.stepType.empty()) {
                out << ", GRIB step type " << v.stepType;
            }
            out << "\n";
            if (!v.matchedBy.empty()) {
                out << "      found by " << v.matchedBy
                    << (v.looseMatch ? ": a loose match (no GRIB_paramId, and its name is not one ECMWF or "
                                       "the CDS gives a parameter); check it is this parameter"
                                     : "")
                    << "\n";
            }
            if (!v.handling.empty()) {
                out << "      " << v.handling << "\n";
            }
            if (v.missingCount) {
                const double pct = v.valueCount > 0 ? 100.0 * static_cast<double>(*v.missingCount) /
                                                          static_cast<double>(v.valueCount)
                                                    : 0.0;
                char buf[64];
                std::snprintf(buf, sizeof buf, "%.2f", pct);
                out << "      " << *v.missingCount << " of " << v.valueCount << " values missing (" << buf
                    << "%): NULL in the table\n";
            }
        }
        if (!f.ignored.empty()) {
            out << "  ignored:    ";
            for (std::size_t i = 0; i < f.ignored.size(); ++i) {
                out << (i ? ", " : "") << f.ignored[i];
            }
            out << " (not loaded)\n";
        }
        for (const auto& n : f.notes) {
            out << "  note:       " << n << "\n";
        }
        out << "\n";
    }
    const DatasetInspection& d = inspection.dataset;
    if (d.error) {
        out << "dataset: cannot be loaded: " << *d.error << "\n";
        return out.str();
    }
    out << "dataset: " << d.files << " file(s), " << d.product << ", " << d.grid << "\n"
        << "  decided by: " << d.timeRule << "\n"
        << "  time:       " << d.steps << " step(s), " << d.firstTime << " .. " << d.lastTime << "\n"
        << "  levels:     " << d.levels << "\n"
        << "  variables:  ";
    for (std::size_t i = 0; i < d.variables.size(); ++i) {
        out << (i ? ", " : "") << d.variables[i];
    }
    out << "\n  rows:       " << d.rows << " (what a load writes)\n";
    for (const auto& n : d.notes) {
        out << "  note:       " << n << "\n";
    }
    return out.str();
}

std::string renderInspectionJson(const Inspection& inspection) {
    JsonWriter j;
    j.beginObject();
    j.key("files").beginArray();
    for (const FileInspection& f : inspection.files) {
        j.beginObject();
        j.field("name", f.name);
        if (f.error) {
            j.field("error", *f.error);
            j.endObject();
            continue;
        }
        j.field("format", f.format).field("layout", f.layout).field("product", f.product);
        j.field("timeRule", f.timeRule);
        j.key("grid").beginObject();
        j.field("description", f.grid).field("step", f.gridSpacing).field("pointSpacing", f.pointSpacing);
        j.field("box", f.box);
        j.field("orientation", f.orientation).field("offGrid", f.offGrid);
        j.endObject();
        j.key("time").beginObject();
        j.field("steps", static_cast<std::uint64_t>(f.steps))
            .field("first", f.firstTime)
            .field("last", f.lastTime);
        j.field("spacing", f.timeSpacing);
        j.endObject();
        j.field("levels", f.levels);
        j.field("rows", f.rows);
        j.key("variables").beginArray();
        for (const VariableInspection& v : f.variables) {
            j.beginObject();
            j.field("name", v.name)
                .field("variable", v.column.key)
                .field("inCatalog", v.column.variable.has_value());
            j.field("longName", v.column.longName).field("tableUnits", v.column.units);
            j.field("column", v.column.column).field("storage", v.storage);
            j.field("units", v.units)
                .field("conversion", v.conversion)
                .field("missingValues", v.missingValues);
            j.field("stepType", v.stepType).field("handling", v.handling);
            j.field("ecmwfShortName", v.ecmwfShortName)
                .field("ecmwfName", v.ecmwfName)
                .field("ecmwfUnits", v.ecmwfUnits)
                .field("matchedBy", v.matchedBy)
                .field("looseMatch", v.looseMatch);
            if (v.paramId) {
                j.field("paramId", static_cast<std::int64_t>(*v.paramId));
            }
            if (v.missingCount) {
                j.field("missingCount", *v.missingCount).field("valueCount", v.valueCount);
            }
            j.endObject();
        }
        j.endArray();
        j.key("ignored").beginArray();
        for (const auto& n : f.ignored) {
            j.value(n);
        }
        j.endArray();
        j.key("notes").beginArray();
        for (const auto& n : f.notes) {
            j.value(n);
        }
        j.endArray();
        j.endObject();
    }
    j.endArray();
    const DatasetInspection& d = inspection.dataset;
    j.key("dataset").beginObject();
    if (d.error) {
        j.field("error", *d.error);
    } else {
        j.field("files", static_cast<std::uint64_t>(d.files))
            .field("product", d.product)
            .field("timeRule", d.timeRule)
            .field("grid", d.grid);
        j.field("steps", static_cast<std::uint64_t>(d.steps))
            .field("first", d.firstTime)
            .field("last", d.lastTime);
        j.field("levels", d.levels);
        j.field("rows", d.rows);
        j.key("variables").beginArray();
        for (const auto& v : d.variables) {
            j.value(v);
        }
        j.endArray();
        j.key("notes").beginArray();
        for (const auto& n : d.notes) {
            j.value(n);
        }
        j.endArray();
    }
    j.endObject();
    j.field("ok", inspection.ok());
    j.endObject();
    return j.str();
}

std::string describePointSeries(const Dataset& dataset) {
    const auto& files = dataset.files();
    if (files.empty() ||
        !std::all_of(files.begin(), files.end(), [](const Era5File& f) { return f.pointSeries(); })) {
        return {};
    }
    const std::vector<PgTimestamp> times = dataset.validTimes();
    const auto& geometries = dataset.geometries();
    std::string points;
    for (std::size_t g = 0; g < geometries.size() && g < 3; ++g) {
        points += std::string(g == 0 ? "" : "; ") + "latitude " +
                  formatCoordinate(geometries[g].latitudes.front()) + ", longitude " +
                  formatCoordinate(geometries[g].longitudes.front());
    }
    if (geometries.size() > 3) {
        points += "; ...";
    }
    const auto minute = [](PgTimestamp t) {
        return formatTimestamp(t).substr(0, 16);
    };
    return (geometries.size() == 1 ? std::string("one point")
                                   : std::to_string(geometries.size()) + " points") +
           " (" + points + ") over " + std::to_string(times.size()) + " hours" +
           (times.empty() ? std::string() : " from " + minute(times.front()) + " to " + minute(times.back()));
}

} // namespace isobar
