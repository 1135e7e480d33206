// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "domain/GridField.h"
#include "era5/Dataset.h"

#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace isobar {

// One variable at one time step of ERA5 files, decoded exactly as a load decodes it (unpacking,
// unit conversion, ERA5/ERA5T merge, ERA5-Land de-accumulation, missing values): what a map of a
// file shows, which is what the load will store.
class FieldReader {
public:
    // Opens the files as one dataset (as a load does). Throws isobar::Error naming what is wrong.
    FieldReader(const std::vector<std::filesystem::path>& files, const OpenOptions& options);

    const Dataset& dataset() const noexcept { return dataset_; }
    // The distinct valid times of the files, ascending.
    const std::vector<PgTimestamp>& times() const noexcept { return times_; }
    // The pressure levels in hPa, ascending; empty for surface files.
    const std::vector<double>& levels() const noexcept { return dataset_.levels(); }

    // The values of the variable `name` (a short name, the name in the files, ... as
    // Dataset::match takes it) at `time` (and `level` for pressure levels; default: the first).
    // Throws isobar::Error naming the variable, the time or the level the files do not have.
    GridField read(std::string_view name, PgTimestamp time, std::optional<double> level = std::nullopt);

private:
    Dataset dataset_;
    std::vector<ValueColumn> all_; // every variable of the files
    std::vector<PgTimestamp> times_;
};

} // namespace isobar
