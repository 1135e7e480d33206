// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Ledger.h"
#include "db/TableReadBack.h"
#include "plan/LoadPlan.h"
#include "rows/UnitSource.h"
#include "util/Error.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace isobar {

// What a load does with rows the table already holds from another load whose values differ (and
// that are not ERA5T given way to final ERA5): refuse the load before anything is written (the
// default), keep the table's rows, or put the new rows in their place.
enum class OverlapPolicy : std::uint8_t { Refuse, Skip, Replace };

// "refuse", "skip", "replace"; parseOverlapPolicy throws isobar::Error for anything else.
const char* overlapPolicyName(OverlapPolicy policy);
OverlapPolicy parseOverlapPolicy(const std::string& text);

// A load refused because some of its rows are already in the table with other values.
class OverlapRefused : public Error {
public:
    using Error::Error;
};

// What the overlap check decided for the plan's units, counted for the summary and the report.
struct OverlapOutcome {
    // Keys of the plan's units (pieces) not to load: recorded from the same files (a rerun), the
    // same values from other files, or kept by --overlap skip.
    std::set<std::string> done;
    std::uint64_t resumedUnits = 0; // from the same files
    std::uint64_t sameUnits = 0;    // the same values from other files
    std::uint64_t sameRows = 0;
    std::uint64_t keptUnits = 0; // other values, the table's kept (--overlap skip)
    std::uint64_t keptRows = 0;
    std::uint64_t era5tUnits = 0;    // ERA5T units to be replaced by final ERA5
    std::uint64_t era5tHours = 0;    // their distinct valid times
    std::uint64_t replacedUnits = 0; // other values, replaced by --overlap replace
    std::uint64_t splitUnits = 0;    // units cut into pieces around units of another box or hours
    std::size_t legacyUnits = 0;     // ledger rows of an earlier version given their place
    // One line per kind of decision, for the log, the summary and the report.
    std::vector<std::string> lines;
};

// Finds the units of `plan` whose rows the target already holds (the ledger's units at the same
// times and levels, from any file) and decides for each: resume (same files), skip (same values),
// replace (ERA5T by final ERA5, or --overlap replace) or refuse (OverlapRefused, naming the first
// unit, both sources and the choices). A unit that shares only part of its rows with units of
// another box (or, a unit of a point's hours, of other hours) is cut into pieces along theirs, so
// the rule applies to the shared rows and the rest loads. A piece whose files differ from the
// recorded ones is compared by its print where it is the same extent as the recorded unit, and
// by the table's rows, read back, where it lies inside a larger one. Reads (and decodes) those
// pieces on this thread. Units to replace get WorkUnit::replaces; the plan's units become the
// pieces.
// Units of an earlier version are given their place on a connection of their own to `conninfo`,
// committed at once: a load refused here does not roll that back and pay it again.
struct OverlapTarget {
    std::string conninfo;
    std::string table; // for messages
    RowsTable rows;    // to read back the rows of pieces inside larger units from other files
    OverlapPolicy policy = OverlapPolicy::Refuse;
};
OverlapOutcome resolveOverlaps(Connection& conn, const LedgerTarget& ledger, const UnitSource& source,
                               LoadPlan& plan, const OverlapTarget& target);

} // namespace isobar
