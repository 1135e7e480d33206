// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "domain/UnitPlace.h"
#include "era5/Dataset.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace isobar {

// Where a time step's values come from, recorded with each of its units in the ledger.
struct UnitOrigin {
    std::string files; // the files' names, "a.nc, b.nc"
    std::uint64_t bytes = 0;
    // The files' identities (name, size, modification time) and the loaded columns: the same
    // print, the same values. A unit recorded with it again is resumed without being read.
    std::uint64_t filesPrint = 0;
    // The print earlier versions put in their unit keys (names and sizes, the variables chosen),
    // so that their units are recognised as this load's own.
    std::uint64_t legacyPrint = 0;
    std::string expver;  // "0001", "0005", "0001+0005" (an expver dimension); empty: not labelled
    std::string product; // "ERA5 hourly", ...
    std::string columns; // the variables of the files that fill columns, "t2m,tp"

    // Final ERA5 only: every source labelled expver 1.
    bool final() const;
    // Holds ERA5T (preliminary data): a label other than 1.
    bool preliminary() const;
};

// A unit recorded in the ledger whose rows a unit of this load replaces (final ERA5 over ERA5T, or
// --overlap replace): deleted together with them, in the transaction of the new rows.
struct ReplacedUnit {
    std::string key;
    UnitPlace place;
    std::uint64_t rows = 0;
};

// One piece of a load: a band of latitude rows of one time step (at one pressure level), usually
// every column of the box; or consecutive hours of one point of a point series, inside one UTC
// month. It is loaded in one transaction together with its ledger row, so it is in the table
// entirely or not at all.
struct WorkUnit {
    std::uint32_t step = 0; // index into the dataset's steps (of hours: the first hour's)
    std::uint32_t row0 = 0; // first box row
    std::uint32_t rows = 0; // box rows in the band
    std::uint32_t col0 = 0; // first box column
    std::uint32_t cols = 0; // box columns
    // More than 1: the hours from the step's time on, one row each (rows = cols = 1), every column
    // read from the step's source and the same file's next time steps.
    std::uint32_t hours = 1;
    std::uint64_t rowCount = 0;
    UnitPlace place;
    // Stable across runs and files: place.key(grid).
    std::string key;
    // The units of earlier loads whose rows this one replaces (see ReplacedUnit), and whether
    // because they were ERA5T and this is final ERA5 (else: --overlap replace).
    std::vector<ReplacedUnit> replaces;
    bool finalOverEra5t = false;
};

// The ordered work of a load. Units go out in time order, so concurrent workers write the same
// time range (the same hypertable chunk or partition) at the same time.
//
// Bands are cut along the global grid's rows, not the box's: band k of a time step holds grid rows
// [k * bandRows, (k + 1) * bandRows) of the box. A regional download and a global one of the same
// hours then have units that nest (the regional one's inside the global one's band), so what the
// second of them shares with the first is found unit by unit (OverlapCheck).
// How a point series is cut into units: one per point and hour, or one per point and run of
// consecutive hours inside a UTC month (480 units for 40 years instead of 350,640).
enum class SeriesUnits { Hour, Month };

class LoadPlan {
public:
    // `rowsPerUnit` 0: a few hundred thousand rows per unit of a global box (bands of
    // rowsPerUnit / the grid's columns rows). `bandRows` > 0 fixes the grid rows per band instead
    // (tests use tiny units). `series`: the units of a point series' hours.
    static LoadPlan build(const Dataset& dataset, std::uint64_t rowsPerUnit = 0, std::uint32_t bandRows = 0,
                          SeriesUnits series = SeriesUnits::Hour);

    const std::vector<WorkUnit>& units() const noexcept { return units_; }
    std::uint64_t totalRows() const noexcept { return totalRows_; }
    // Where a unit's values come from (its first step's: a unit of hours has one origin).
    const UnitOrigin& originOf(const WorkUnit& unit) const { return origins_[stepOrigin_[unit.step]]; }
    // The plan with other units (the same dataset and origins): OverlapCheck's pieces.
    void setUnits(std::vector<WorkUnit> units);
    // The hours [first, first + count) of `run`, a unit of hours of this plan, as a unit of their
    // own (of one hour: the unit the plan would make by the hour, with its key).
    WorkUnit hoursOf(const Dataset& dataset, const WorkUnit& run, std::uint32_t first,
                     std::uint32_t count) const;

    static constexpr std::uint64_t kDefaultRowsPerUnit = 250'000;
    // Workers put consecutive units into one transaction up to about this many rows (see
    // CopyWorker): ten global hours of ERA5 (a transaction also ends after 10 s).
    static constexpr std::uint64_t kDefaultRowsPerTransaction = 10'000'000;

private:
    // A point series in units of consecutive hours (SeriesUnits::Month).
    static LoadPlan buildHours(const Dataset& dataset);
    // Fills origins_ and stepOrigin_.
    void findOrigins(const Dataset& dataset);

    std::vector<WorkUnit> units_;
    std::vector<UnitOrigin> origins_;       // the distinct origins of the dataset's steps
    std::vector<std::uint32_t> stepOrigin_; // per dataset step, its origin in origins_
    // Of a plan of hours: per geometry (point), its dataset steps in time order.
    std::vector<std::vector<std::uint32_t>> pointSteps_;
    std::uint64_t totalRows_ = 0;
};

// A unit of a box: its place on the grid and its key, from its box rows and columns. Sets
// unit.place and unit.key.
void placeUnit(const Dataset& dataset, WorkUnit& unit);

// FNV-1a, 64 bits: a short, stable fingerprint for unit keys (not for security).
std::uint64_t fingerprint(std::string_view text, std::uint64_t seed = 0xcbf29ce484222325ULL);

} // namespace isobar
