#include "plan/LoadPlan.h"

#include "domain/Timestamp.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace isobar {

std::uint64_t fingerprint(std::string_view text, std::uint64_t seed) {
    std::uint64_t h = seed;
    for (const char c : text) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ULL;
    }
    return h;
}

LoadPlan LoadPlan::build(const Dataset& dataset, std::uint64_t rowsPerUnit, std::uint32_t fixedBandRows) {
    if (rowsPerUnit == 0) {
        rowsPerUnit = kDefaultRowsPerUnit;
    }
    LoadPlan plan;
    const GlobalGrid& grid = dataset.grid();
    for (std::uint32_t s = 0; s < dataset.steps().size(); ++s) {
        const DatasetStep& step = dataset.steps()[s];
        const GridBox& box = dataset.geometries()[step.geometry].box;
        // The files behind the step, by identity: a unit of another download is another unit.
        std::set<std::string> identities;
        for (const auto& v : dataset.columnVariables()) {
            for (const auto* sources : {&step.sources, &step.previous}) {
                if (v && (*sources)[*v]) {
                    identities.insert(dataset.files()[(*sources)[*v]->file].identity());
                }
            }
        }
        std::string sources;
        for (const auto& id : identities) {
            sources += id + "\n";
        }
        if (!dataset.selection().empty()) {
            sources += "variables " + dataset.selection() + "\n";
        }
        const std::uint64_t sourcesPrint = fingerprint(sources);
        // Even bands: as many as needed to stay under rowsPerUnit.
        const std::uint64_t stepRows = static_cast<std::uint64_t>(box.rows) * box.cols;
        const std::uint64_t bands = std::max<std::uint64_t>(1, (stepRows + rowsPerUnit - 1) / rowsPerUnit);
        const auto bandRows =
            fixedBandRows > 0
                ? fixedBandRows
                : static_cast<std::uint32_t>(std::max<std::uint64_t>(1, (box.rows + bands - 1) / bands));
        std::string time = formatTimestamp(step.time); // "2024-01-01 06:00:00+00"
        time[10] = 'T';
        time = time.substr(0, time.size() - 3) + "Z";
        if (step.level) {
            char level[48];
            std::snprintf(level, sizeof level, " %.6g hPa", *step.level); // a unit never spans two levels
            time += level;
        }
        char where[160];
        std::snprintf(where, sizeof where, "%.6g..%.6g x %.6g..%.6g", grid.latitudeOf(box.gridRow(0)),
                      grid.latitudeOf(box.gridRow(box.rows - 1)), grid.longitudeOf(box.gridColumn(0, grid)),
                      grid.longitudeOf(box.gridColumn(box.cols - 1, grid)));
        for (std::uint32_t row0 = 0; row0 < box.rows; row0 += bandRows) {
            WorkUnit unit;
            unit.step = s;
            unit.row0 = row0;
            unit.rows = std::min<std::uint32_t>(bandRows, static_cast<std::uint32_t>(box.rows) - row0);
            unit.rowCount = static_cast<std::uint64_t>(unit.rows) * box.cols;
            char key[320];
            std::snprintf(key, sizeof key, "%s rows %u-%u of %s on %s [%016llx]", time.c_str(), unit.row0,
                          unit.row0 + unit.rows - 1, where, grid.stepText().c_str(),
                          static_cast<unsigned long long>(sourcesPrint));
            unit.key = key;
            plan.totalRows_ += unit.rowCount;
            plan.units_.push_back(std::move(unit));
        }
    }
    return plan;
}

} // namespace isobar
