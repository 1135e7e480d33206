// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "copy/BinaryCopyBuffer.h"
#include "copy/WeatherRowEncoder.h"
#include "era5/BandReader.h"
#include "era5/Dataset.h"
#include "plan/LoadPlan.h"

#include <vector>

namespace isobar {

// The row source of a load: turns a work unit of the plan into the rows it holds, in three stages
// that run on different threads. fetch() makes the netcdf-c calls (the reader thread: netcdf-c is
// not thread-safe); decode() unpacks, converts units, merges ERA5/ERA5T and de-accumulates; and
// encode() writes the rows on the binary COPY wire (both on any thread). The load, the ingest
// benchmark and the read benchmark all take their rows from here: the same code, whatever the
// size of the bands each asks for.
class UnitSource {
public:
    explicit UnitSource(const Dataset& dataset);

    const Dataset& dataset() const noexcept { return dataset_; }

    void fetch(const WorkUnit& unit, RawUnit& raw) const;
    void decode(const RawUnit& raw, DecodedBand& out) const;
    // Appends the unit's rows (no COPY header or trailer) to `out`.
    void encode(const WorkUnit& unit, const DecodedBand& band, BinaryCopyBuffer& out) const;
    // Appends the rows of the band's latitude rows [first, first + count) only (of a unit of
    // hours: its hours), and returns how many: a unit goes out piece by piece, each sent while it
    // is still in the cache. `skipMissingHours`: of a unit of hours, leave out the hours whose
    // every value is missing (as a unit of one such hour is left out).
    std::size_t encode(const WorkUnit& unit, const DecodedBand& band, std::size_t first, std::size_t count,
                       BinaryCopyBuffer& out, bool skipMissingHours = false) const;
    // Latitude rows (hours) of a piece of about `bytes` encoded bytes (at least one).
    std::size_t rowsPerPiece(const WorkUnit& unit, std::size_t bytes) const;
    // The rows a unit sends: all, or with skipMissingHours those of hours with a value.
    std::uint64_t rowsToSend(const WorkUnit& unit, const DecodedBand& band, bool skipMissingHours) const;
    // A fingerprint of the unit's rows as they go to the table: every value of every column (NaN
    // as one value, the NULL it becomes) and the rows' latitudes and longitudes. Two units with the
    // same print hold the same rows; the ledger keeps it so that a unit from another file is
    // recognised by its content. About 0.3 ns a value, beside some 30 ns for its COPY.
    std::uint64_t print(const WorkUnit& unit, const DecodedBand& band) const;

    // "a.nc, b.nc": the files behind a time step, for messages.
    std::string filesOf(std::size_t step) const;

private:
    const Dataset& dataset_;
    BandReader reader_;
    std::vector<WeatherRowEncoder> encoders_; // one per geometry of the dataset
};

// True when every value of every variable of the decoded band (n rows) is missing.
bool allMissing(const BandValues& values, std::size_t n);

} // namespace isobar
