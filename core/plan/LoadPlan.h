#pragma once

#include "era5/Dataset.h"

#include <cstdint>
#include <string>
#include <vector>

namespace isobar {

// One piece of a load: a band of latitude rows of one time step (at one pressure level). It is loaded in one
// transaction together with its ledger row, so it is in the table entirely or not at all.
struct WorkUnit {
    std::uint32_t step = 0; // index into the dataset's steps
    std::uint32_t row0 = 0; // first box row
    std::uint32_t rows = 0; // box rows in the band
    std::uint64_t rowCount = 0;
    // Stable across runs of the same load: derived from the source files' identities, the time
    // (and level) and the band's place on the grid. "2024-01-01T06:00:00Z rows 145-289 of 90..-90 x
    // -179.75..180 [3f2a...]", "2024-01-01T06:00:00Z 500 hPa rows ..." on pressure levels.
    std::string key;
};

// The ordered work of a load. Units go out in time order, so concurrent workers write the same
// time range (the same hypertable chunk or partition) at the same time.
class LoadPlan {
public:
    // `rowsPerUnit` 0: a few hundred thousand rows per unit (a global hour in five bands).
    // `bandRows` > 0 fixes the latitude rows per unit instead (tests use tiny units).
    static LoadPlan build(const Dataset& dataset, std::uint64_t rowsPerUnit = 0, std::uint32_t bandRows = 0);

    const std::vector<WorkUnit>& units() const noexcept { return units_; }
    std::uint64_t totalRows() const noexcept { return totalRows_; }

    static constexpr std::uint64_t kDefaultRowsPerUnit = 250'000;
    // Workers put consecutive units into one transaction up to about this many rows (see
    // CopyWorker): ten global hours of ERA5 (a transaction also ends after 10 s).
    static constexpr std::uint64_t kDefaultRowsPerTransaction = 10'000'000;

private:
    std::vector<WorkUnit> units_;
    std::uint64_t totalRows_ = 0;
};

// FNV-1a, 64 bits: a short, stable fingerprint for unit keys (not for security).
std::uint64_t fingerprint(std::string_view text, std::uint64_t seed = 0xcbf29ce484222325ULL);

} // namespace isobar
