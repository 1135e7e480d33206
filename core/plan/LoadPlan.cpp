// SPDX-License-Identifier: GPL-3.0-or-later

#include "plan/LoadPlan.h"

#include "domain/Timestamp.h"
#include "era5/FileConventions.h"
#include "util/Error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

namespace isobar {

std::uint64_t fingerprint(std::string_view text, std::uint64_t seed) {
    std::uint64_t h = seed;
    for (const char c : text) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ULL;
    }
    return h;
}

bool UnitOrigin::final() const {
    if (expver.empty()) {
        return false;
    }
    std::size_t from = 0;
    while (from <= expver.size()) {
        const std::size_t plus = std::min(expver.find('+', from), expver.size());
        if (!conventions::isFinalEra5(expver.substr(from, plus - from))) {
            return false;
        }
        from = plus + 1;
    }
    return true;
}

bool UnitOrigin::preliminary() const {
    return !expver.empty() && !final();
}

namespace {

// A file's identity with its modification time: a new download of the same name and size (an
// ERA5T month fetched again once final, in netCDF3 of fixed size) is another file.
std::string identityWithTime(const Era5File& file) {
    std::filesystem::path path = file.path();
    // An archive member was extracted for this run: the archive's own time is the download's.
    if (const auto bang = file.name().find('!'); bang != std::string::npos) {
        path = file.name().substr(0, bang);
    }
    std::error_code ec;
    const auto modified = std::filesystem::last_write_time(path, ec);
    return file.identity() + ":" + std::to_string(ec ? 0 : modified.time_since_epoch().count());
}

// What originOfStep needs of each file, found once per file (a point series has a step per hour
// for years: two stat calls per step were a tenth of its load).
struct FileFacts {
    std::string identity;
    std::string withTime;
    std::string name;
    std::uint64_t size = 0;
};

std::vector<FileFacts> factsOf(const Dataset& dataset) {
    std::vector<FileFacts> out;
    out.reserve(dataset.files().size());
    for (const Era5File& file : dataset.files()) {
        FileFacts facts;
        facts.identity = file.identity();
        facts.withTime = identityWithTime(file);
        facts.name = std::filesystem::path(file.name()).filename().string();
        std::error_code ec;
        const auto size = std::filesystem::file_size(file.path(), ec);
        facts.size = ec ? 0 : size;
        out.push_back(std::move(facts));
    }
    return out;
}

// What decides a step's origin: its files and expver labels. Steps of the same sources share one
// UnitOrigin (a point series has a step per hour for years, mostly from one file).
struct StepSources {
    std::set<std::size_t> files;
    std::set<std::string> labels;
    friend bool operator<(const StepSources& a, const StepSources& b) {
        return std::tie(a.files, a.labels) < std::tie(b.files, b.labels);
    }
};

StepSources sourcesOf(const Dataset& dataset, const DatasetStep& step) {
    StepSources out;
    std::set<std::size_t>& files = out.files;
    std::set<std::string>& labels = out.labels;
    for (const auto& v : dataset.columnVariables()) {
        if (!v) {
            continue;
        }
        for (const auto* sources : {&step.sources, &step.previous}) {
            if ((*sources)[*v]) {
                files.insert((*sources)[*v]->file);
            }
        }
        if (const auto& source = step.sources[*v]) {
            const FileVariable& var = dataset.variableOf(*source);
            if (var.expverOrder.size() > 1) {
                labels.insert({"0001", "0005"}); // ERA5 and ERA5T merged cell by cell
            } else if (const std::string& label = dataset.stepOf(*source).expver; !label.empty()) {
                labels.insert(label);
            }
        }
    }
    return out;
}

UnitOrigin originFrom(const Dataset& dataset, const std::vector<FileFacts>& facts,
                      const StepSources& sources) {
    UnitOrigin origin;
    std::set<std::string> identities;
    std::string withTimes;
    std::set<std::string> names;
    for (const std::size_t f : sources.files) {
        const FileFacts& file = facts[f];
        identities.insert(file.identity);
        withTimes += file.withTime + "\n";
        names.insert(file.name);
        origin.bytes += file.size;
    }
    // As earlier versions keyed their units (LoadPlan before content keys).
    std::string legacy;
    for (const auto& id : identities) {
        legacy += id + "\n";
    }
    if (!dataset.selection().empty()) {
        legacy += "variables " + dataset.selection() + "\n";
    }
    origin.legacyPrint = fingerprint(legacy);
    for (const auto& n : names) {
        origin.files += (origin.files.empty() ? "" : ", ") + n;
    }
    for (const auto& l : sources.labels) {
        origin.expver += (origin.expver.empty() ? "" : "+") + l;
    }
    for (std::size_t c = 0; c < dataset.columns().size(); ++c) {
        if (dataset.columnVariables()[c]) {
            origin.columns += (origin.columns.empty() ? "" : ",") + dataset.columns()[c].key;
        }
    }
    origin.filesPrint = fingerprint(withTimes + "columns " + origin.columns + "\n");
    origin.product = dataset.productName();
    return origin;
}

// The band a grid row falls in (rows counted from the south, so bands are fixed on the globe).
std::int64_t bandOf(std::int32_t gridRow, std::uint32_t bandRows) {
    return static_cast<std::int64_t>(std::floor(static_cast<double>(gridRow) / bandRows));
}

} // namespace

void placeUnit(const Dataset& dataset, WorkUnit& unit) {
    const GlobalGrid& grid = dataset.grid();
    const DatasetStep& step = dataset.steps()[unit.step];
    const GridBox& box = dataset.geometries()[step.geometry].box;
    UnitPlace& place = unit.place;
    place.time = step.time;
    place.level = step.level;
    place.sparse = !box.rowIndex.empty() || !box.columnIndex.empty();
    place.north = place.south = box.gridRow(unit.row0);
    for (std::uint32_t i = unit.row0; i < unit.row0 + unit.rows; ++i) {
        place.north = std::max(place.north, box.gridRow(i));
        place.south = std::min(place.south, box.gridRow(i));
    }
    place.west = place.east = box.gridColumn(unit.col0, grid);
    for (std::uint32_t j = unit.col0; j < unit.col0 + unit.cols; ++j) {
        place.west = std::min(place.west, box.gridColumn(j, grid));
        place.east = std::max(place.east, box.gridColumn(j, grid));
    }
    place.until.reset();
    if (unit.hours > 1) {
        place.until =
            PgTimestamp{step.time.micros + static_cast<std::int64_t>(unit.hours - 1) * kMicrosPerHour};
    }
    unit.key = place.key(grid);
    if (place.sparse) {
        // Which of the rectangle's points: two coarse grids of the same extent are other rows.
        std::string points;
        for (std::uint32_t i = unit.row0; i < unit.row0 + unit.rows; ++i) {
            points += std::to_string(box.gridRow(i)) + ",";
        }
        points += ";";
        for (std::uint32_t j = unit.col0; j < unit.col0 + unit.cols; ++j) {
            points += std::to_string(box.gridColumn(j, grid)) + ",";
        }
        char tail[40];
        std::snprintf(tail, sizeof tail, " sparse [%016llx]",
                      static_cast<unsigned long long>(fingerprint(points)));
        unit.key += tail;
    }
}

LoadPlan LoadPlan::build(const Dataset& dataset, std::uint64_t rowsPerUnit, std::uint32_t fixedBandRows,
                         SeriesUnits series) {
    if (rowsPerUnit == 0) {
        rowsPerUnit = kDefaultRowsPerUnit;
    }
    if (series == SeriesUnits::Month && !dataset.files().empty() && dataset.files().front().pointSeries()) {
        return buildHours(dataset);
    }
    LoadPlan plan;
    const GlobalGrid& grid = dataset.grid();
    const auto gridColumns = static_cast<std::uint64_t>(grid.longitudes());
    const std::uint32_t bandRows =
        fixedBandRows > 0 ? fixedBandRows
                          : static_cast<std::uint32_t>(std::max<std::uint64_t>(1, rowsPerUnit / gridColumns));
    plan.findOrigins(dataset);
    for (std::uint32_t s = 0; s < dataset.steps().size(); ++s) {
        const DatasetStep& step = dataset.steps()[s];
        const GridBox& box = dataset.geometries()[step.geometry].box;
        // The box's columns in runs that do not cross the grid's column 0 (the date line): a
        // unit's place is one rectangle of the grid.
        std::vector<std::pair<std::uint32_t, std::uint32_t>> columnRuns; // (first, count)
        const auto cols = static_cast<std::uint32_t>(box.cols);
        if (box.columnIndex.empty() && box.westColumn + static_cast<std::int64_t>(cols) > grid.longitudes()) {
            const auto first = static_cast<std::uint32_t>(grid.longitudes() - box.westColumn);
            columnRuns = {{0, first}, {first, cols - first}};
        } else {
            columnRuns = {{0, cols}};
        }
        const auto boxRows = static_cast<std::uint32_t>(box.rows);
        for (std::uint32_t row0 = 0; row0 < boxRows;) {
            std::uint32_t row1 = row0 + 1;
            while (row1 < boxRows &&
                   bandOf(box.gridRow(row1), bandRows) == bandOf(box.gridRow(row0), bandRows)) {
                ++row1;
            }
            for (const auto& [col0, count] : columnRuns) {
                WorkUnit unit;
                unit.step = s;
                unit.row0 = row0;
                unit.rows = row1 - row0;
                unit.col0 = col0;
                unit.cols = count;
                unit.rowCount = static_cast<std::uint64_t>(unit.rows) * unit.cols;
                placeUnit(dataset, unit);
                plan.totalRows_ += unit.rowCount;
                plan.units_.push_back(std::move(unit));
            }
            row0 = row1;
        }
    }
    return plan;
}

namespace {

// Whether dataset step `b` continues the hours of a point that step `a` is in: the next hour of the
// same point and month, from the same files (origin) and, for every column, the next value of the
// same file's variable.
bool continues(const Dataset& dataset, const std::vector<std::uint32_t>& origins, std::uint32_t a,
               std::uint32_t b) {
    const DatasetStep& x = dataset.steps()[a];
    const DatasetStep& y = dataset.steps()[b];
    if (y.time.micros != x.time.micros + kMicrosPerHour || monthStart(x.time) != monthStart(y.time) ||
        x.level != y.level || x.geometry != y.geometry) {
        return false;
    }
    if (origins[a] != origins[b]) { // other files, or other expver labels
        return false;
    }
    for (const std::optional<std::size_t>& v : dataset.columnVariables()) {
        if (!v) {
            continue;
        }
        const std::optional<SourceRef>& s = x.sources[*v];
        const std::optional<SourceRef>& t = y.sources[*v];
        if (s.has_value() != t.has_value()) {
            return false;
        }
        if (s && (s->file != t->file || s->variable != t->variable || s->level != t->level ||
                  dataset.stepOf(*t).timeIndex != dataset.stepOf(*s).timeIndex + 1)) {
            return false;
        }
        // An accumulation since midnight needs the hour before each hour: one unit per hour.
        if (s && dataset.variableOf(*s).accumulatedSinceMidnight) {
            return false;
        }
    }
    return true;
}

} // namespace

LoadPlan LoadPlan::buildHours(const Dataset& dataset) {
    LoadPlan plan;
    plan.findOrigins(dataset);
    // Each point's steps in time order (the dataset's steps are in time order).
    plan.pointSteps_.resize(dataset.geometries().size());
    for (std::uint32_t s = 0; s < dataset.steps().size(); ++s) {
        plan.pointSteps_[dataset.steps()[s].geometry].push_back(s);
    }
    for (const std::vector<std::uint32_t>& steps : plan.pointSteps_) {
        for (std::size_t k = 0; k < steps.size();) {
            std::size_t end = k + 1;
            while (end < steps.size() && continues(dataset, plan.stepOrigin_, steps[end - 1], steps[end])) {
                ++end;
            }
            WorkUnit unit;
            unit.step = steps[k];
            unit.rows = unit.cols = 1;
            unit.hours = static_cast<std::uint32_t>(end - k);
            unit.rowCount = unit.hours * dataset.rowsOf(dataset.steps()[steps[k]]);
            placeUnit(dataset, unit);
            plan.totalRows_ += unit.rowCount;
            plan.units_.push_back(std::move(unit));
            k = end;
        }
    }
    // In time order, so that workers write neighbouring hours (chunks, partitions) together.
    std::stable_sort(plan.units_.begin(), plan.units_.end(),
                     [&dataset](const WorkUnit& a, const WorkUnit& b) {
                         return dataset.steps()[a.step].time < dataset.steps()[b.step].time;
                     });
    return plan;
}

void LoadPlan::findOrigins(const Dataset& dataset) {
    const std::vector<FileFacts> facts = factsOf(dataset);
    std::map<StepSources, std::uint32_t> known;
    stepOrigin_.reserve(dataset.steps().size());
    for (const DatasetStep& step : dataset.steps()) {
        StepSources sources = sourcesOf(dataset, step);
        const auto [it, added] =
            known.try_emplace(std::move(sources), static_cast<std::uint32_t>(origins_.size()));
        if (added) {
            origins_.push_back(originFrom(dataset, facts, it->first));
        }
        stepOrigin_.push_back(it->second);
    }
}

WorkUnit LoadPlan::hoursOf(const Dataset& dataset, const WorkUnit& run, std::uint32_t first,
                           std::uint32_t count) const {
    const std::uint32_t geometry = dataset.steps()[run.step].geometry;
    if (geometry >= pointSteps_.size() || count == 0 || first + count > run.hours) {
        throw Error("internal: hours " + std::to_string(first) + "+" + std::to_string(count) + " of unit " +
                    run.key + " are not hours of a unit of this plan");
    }
    // A run's hours are consecutive steps of its point (buildHours).
    const std::vector<std::uint32_t>& steps = pointSteps_[geometry];
    const auto at = std::lower_bound(steps.begin(), steps.end(), run.step);
    if (at == steps.end() || *at != run.step ||
        static_cast<std::size_t>(at - steps.begin()) + first + count > steps.size()) {
        throw Error("internal: unit " + run.key + " is not a unit of hours of this plan");
    }
    WorkUnit piece;
    piece.step = *(at + first);
    piece.rows = piece.cols = 1;
    piece.hours = count;
    piece.rowCount = count * dataset.rowsOf(dataset.steps()[piece.step]);
    placeUnit(dataset, piece);
    return piece;
}

void LoadPlan::setUnits(std::vector<WorkUnit> units) {
    units_ = std::move(units);
    totalRows_ = 0;
    for (const WorkUnit& u : units_) {
        totalRows_ += u.rowCount;
    }
}

} // namespace isobar
