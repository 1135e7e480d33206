// SPDX-License-Identifier: GPL-3.0-or-later

#include "ingest/LoadCompression.h"

#include "db/ServerStorage.h"
#include "ingest/Loader.h"

#include <algorithm>
#include <vector>

namespace isobar {

CompressionHint compressionHint(const Dataset& dataset) {
    CompressionHint hint;
    std::vector<std::int64_t> times;
    for (const DatasetStep& step : dataset.steps()) {
        times.push_back(step.time.micros);
    }
    std::sort(times.begin(), times.end());
    for (std::size_t i = 1; i < times.size(); ++i) {
        if (const auto gap = times[i] - times[i - 1]; gap > 0) {
            const double seconds = static_cast<double>(gap) / 1e6;
            hint.stepSeconds = std::min(hint.stepSeconds.value_or(seconds), seconds);
        }
    }
    hint.levels = dataset.levels().size();
    return hint;
}

void estimateUncompressed(Connection& conn, const LedgerTarget& ledger, const TableLayout& layout,
                          CompressionOutcome& outcome) {
    if (const LedgerSum held = recordedRows(conn, ledger, kSummedLedgerUnits); held.complete) {
        const RowShape shape{static_cast<int>(layout.columns.size()), layout.vertical != Vertical::Surface,
                             0};
        outcome.bytesBefore =
            static_cast<std::int64_t>(static_cast<double>(held.rows) * heapBytesPerRow(shape));
        outcome.beforeEstimated = true;
    }
}

} // namespace isobar
