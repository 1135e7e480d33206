// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace isobar {

// What `isobar-cli audit` and the History's "Audit table" ask of a table.
struct AuditRequest {
    TableName table{"", "weather"};
    // Read every row, however large the table (default: every row up to exactRows, else a
    // sample of its time steps).
    bool full = false;
    std::uint64_t exactRows = 20'000'000; // a few seconds of reading
    std::size_t sampleTimes = 24;         // time steps whose rows are read when sampling
    std::size_t sampleUnits = 100;        // ledger units whose rows are counted
};

// A table's health, as far as the audit read it. Each list holds the first findings (at most ten);
// the counts are whole for what was read.
struct TableAudit {
    std::string table;
    std::uint64_t ledgerUnits = 0;
    std::uint64_t ledgerRows = 0; // the rows the ledger accounts for
    std::uint64_t tableRows = 0;  // counted, or the planner's estimate (rowsEstimated)
    bool rowsEstimated = false;
    std::string method;         // what was read: "every row" or which sample
    std::uint64_t rowsRead = 0; // rows the checks of the table's rows read

    // The same (time, [pressure_level,] location_id) more than once, in the rows read.
    std::uint64_t duplicateKeys = 0;
    std::uint64_t extraRows = 0; // rows beyond the first of each such key
    std::vector<std::string> duplicateExamples;
    // Ledger units that claim rows of one another (every unit, from the ledger alone).
    std::uint64_t overlappingUnits = 0;
    std::vector<std::string> overlapExamples;

    // Time steps missing between the first and the last (evenly spaced data), and steps that hold
    // fewer rows than most.
    std::string timeStep; // "1 h"; empty when the times are not evenly spaced (holes not judged)
    std::uint64_t timeSteps = 0;
    std::uint64_t missingSteps = 0;
    std::vector<std::string> missingRanges;
    std::uint64_t incompleteSteps = 0;
    std::vector<std::string> incompleteExamples;

    // Units still ERA5T (preliminary): their count, hours and where they came from.
    std::uint64_t era5tUnits = 0;
    std::uint64_t era5tHours = 0;
    std::string era5tRange;
    std::vector<std::string> era5tFiles;

    // The table's rows against the ledger's (when every row was counted): rows loaded by other
    // means, or lost.
    bool rowsDiffer() const { return !rowsEstimated && tableRows != ledgerRows; }
    // Units whose rows in the table differ in number from their ledger row.
    std::uint64_t unitsCounted = 0;
    std::uint64_t unitMismatches = 0;
    std::vector<std::string> mismatchExamples;
    // Ledger units without a place (written by a version older than content keys, not parsed).
    std::uint64_t unplacedUnits = 0;

    // Value columns NULL in every row read.
    std::vector<std::string> nullColumns;

    // SQL that removes what the audit found twice (the table's extra rows, the ledger's later
    // units of each overlapping pair). Printed for the user, never run by Isobar.
    std::string cleanupSql;

    bool clean() const {
        return duplicateKeys == 0 && overlappingUnits == 0 && missingSteps == 0 && incompleteSteps == 0 &&
               era5tUnits == 0 && unitMismatches == 0 && !rowsDiffer() && nullColumns.empty();
    }
};

// Audits `request.table` on `conn` (read only, apart from giving units of earlier versions their
// place in the ledger; the session's TimeZone becomes UTC). Its cost is bounded: the ledger is read whole
// (one row per unit), the table's rows only up to exactRows or in the sampled time steps, each found through
// the time index or partitions. Throws isobar::Error when the table does not exist or is not a weather table.
TableAudit auditTable(Connection& conn, const AuditRequest& request);

// The audit as text: one section per check, each finding with its detail, the cleanup SQL last.
std::string describeAudit(const TableAudit& audit);

} // namespace isobar
