// SPDX-License-Identifier: GPL-3.0-or-later

#include "era5/FieldReader.h"

#include "era5/BandReader.h"
#include "era5/Inspection.h"
#include "util/Error.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace isobar {

FieldReader::FieldReader(const std::vector<std::filesystem::path>& files, const OpenOptions& options)
    : dataset_(Dataset::open(files, options))
    , all_(dataset_.variables())
    , times_(dataset_.validTimes()) {}

GridField FieldReader::read(std::string_view name, PgTimestamp time, std::optional<double> level) {
    // Dataset::match names the variables the files have when `name` is none of them.
    dataset_.useColumns(all_);
    const std::size_t variable = dataset_.match({std::string(name)}).front();
    const ValueColumn column = dataset_.variables()[variable];
    if (!std::binary_search(times_.begin(), times_.end(), time)) {
        std::ostringstream msg;
        msg << "the files have no time step at " << formatTimestamp(time);
        if (!times_.empty()) {
            msg << " (they hold " << times_.size() << " step(s), " << formatTimestamp(times_.front())
                << " .. " << formatTimestamp(times_.back()) << ")";
        }
        throw Error(msg.str());
    }
    if (level && dataset_.levels().empty()) {
        throw Error("the files hold single-level data: there is no pressure level to choose");
    }
    if (!level && !dataset_.levels().empty()) {
        level = dataset_.levels().front();
    }
    const auto& steps = dataset_.steps();
    const auto step = std::find_if(steps.begin(), steps.end(), [&](const DatasetStep& s) {
        return s.time == time && (!level || (s.level && std::fabs(*s.level - *level) < 1e-6));
    });
    if (step == steps.end()) {
        std::ostringstream msg;
        msg << "the files have no pressure level " << *level << " hPa at " << formatTimestamp(time) << " ("
            << describeLevels(dataset_.levels()) << ")";
        throw Error(msg.str());
    }
    dataset_.useColumns({column});

    const DatasetGeometry& geometry = dataset_.geometries()[step->geometry];
    GridField field;
    field.column = column.column;
    field.key = column.key;
    field.units = column.units;
    field.time = time;
    field.level = step->level;
    field.grid = dataset_.grid();
    field.box = geometry.box;
    field.latitudes = geometry.latitudes;
    field.longitudes = geometry.longitudes;
    for (double& lon : field.longitudes) {
        lon = normalizeLongitude(lon);
    }
    const std::size_t n = geometry.box.rows * geometry.box.cols;
    if (!step->sources[variable]) {
        // Another file of the dataset has it at other steps: missing here, as the load stores it.
        field.values.assign(n, std::nanf(""));
        return field;
    }
    const BandReader reader(dataset_);
    RawUnit unit;
    reader.fetch(static_cast<std::size_t>(step - steps.begin()), 0, geometry.box.rows, unit);
    DecodedBand band;
    reader.decode(unit, band);
    if (const float* first = band.values.empty() ? nullptr : band.values.front()) {
        field.values.assign(first, first + n);
    } else {
        field.values.assign(n, std::nanf(""));
    }
    return field;
}

} // namespace isobar
