// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/FinishTable.h"

#include "db/TableMetadata.h"

namespace isobar {

FinishOutcome finishTable(Connection& conn, const TableName& table, TableType type,
                          const TableOptions& options, const LedgerTarget& ledger, const FinishRun& run,
                          const std::function<void(const std::string&)>& note) {
    FinishOutcome out;
    const std::string qualified = table.quoted(conn);
    if (type == TableType::Hypertable) {
        // Two runs of the table ending together would both build the index (CREATE INDEX IF NOT
        // EXISTS is not safe against that: the second fails on a unique violation).
        conn.exec(kBeginReadCommitted);
        lockTablePreparation(conn, table);
        out.indexBuilt = buildTimeIndex(conn, table);
        conn.exec("COMMIT");
        if (out.indexBuilt) {
            note("built the hypertable's index on time after the load");
        }
        if (options.compressAfter) {
            CompressionRun compress{run.conninfo, run.parallel, run.hint, run.compression, note, run.stop};
            out.compression = compressHypertable(conn, table, options, compress);
        }
    }
    if (type == TableType::Unlogged && options.setLoggedAfter) {
        // The table becomes crash-safe, and so must the record of what it holds: the ledger rows
        // move to the logged ledger in the same transaction. Another run of the table may still be
        // claiming units in the unlogged ledger: its claims wait for the move, then find the units
        // in the logged one.
        conn.exec(kBeginReadCommitted);
        lockLedgerMove(conn, ledger.relid);
        conn.exec("ALTER TABLE " + qualified + " SET LOGGED");
        moveLedgerRows(conn, LedgerTarget::of(ledger.relid, false));
        conn.exec("COMMIT");
        out.setLogged = true;
        note("set " + table.display() + " LOGGED after the load (its ledger moved along)");
    }
    return out;
}

} // namespace isobar
