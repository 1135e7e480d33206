// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Compression.h"
#include "db/Ledger.h"
#include "domain/Columns.h"
#include "era5/Dataset.h"

namespace isobar {

// What compression should know of the dataset's rows: the step between their times, their levels.
CompressionHint compressionHint(const Dataset& dataset);

// After a direct-compress load, for which TimescaleDB records no size before compression: what the
// table's rows (the ledger's sum) would take in a heap of `layout`'s columns, into
// outcome.bytesBefore (left as it is where the ledger is too long to sum quickly).
void estimateUncompressed(Connection& conn, const LedgerTarget& ledger, const TableLayout& layout,
                          CompressionOutcome& outcome);

} // namespace isobar
