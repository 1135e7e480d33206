#include "ingest/TargetPreparation.h"

#include "db/Connection.h"
#include "db/ServerCheck.h"
#include "db/TableMetadata.h"
#include "util/Error.h"

#include <vector>

namespace isobar {

void checkServerForLoad(const LoadRequest& request, int workers, LoadSink& sink) {
    const ServerCheck check =
        checkServer(ServerCheckRequest{request.conninfo, request.table, workers, request.tableOptions.type});
    sink.settingsChecked(check.info, check.warnings);
    checkDurabilityRights(check.info, request.durability);
    std::string errors;
    for (const SettingWarning& w : check.warnings) {
        if (w.severity == Severity::Error) {
            errors += (errors.empty() ? "" : "; ") + w.message;
        }
    }
    if (!errors.empty()) {
        throw Error(errors);
    }
}

PreparedTarget prepareTarget(const LoadRequest& request, const Dataset& dataset) {
    Connection conn = Connection::open(request.conninfo);
    conn.exec("SET application_name = 'isobar'");
    ensureMetadataSchema(conn);
    PreparedTarget p;
    conn.exec(kBeginReadCommitted);
    lockTablePreparation(conn, request.table);
    p.type = ensureTargetTable(conn, request.table, request.tableOptions, p.tableCreated);
    // The ledger lock before any lock on the table (TRUNCATE, new partitions), as every run takes
    // them: held to COMMIT, it keeps other runs' claims out while the ledger is put in order.
    p.ledger = ledgerFor(conn, request.table);
    lockLedgerMove(conn, p.ledger.relid);
    adoptStrayLedgerRows(conn, p.ledger);
    if (p.type == TableType::Partitioned) {
        std::vector<PgTimestamp> times;
        for (const DatasetStep& step : dataset.steps()) {
            times.push_back(step.time);
        }
        createPartitions(conn, request.table, request.tableOptions.partitionInterval, times);
    }
    forgetDroppedTables(conn);
    if (request.replace && !p.tableCreated) {
        conn.exec("TRUNCATE " + request.table.quoted(conn));
    }
    // A table created just now holds nothing, whatever an old ledger row with a reused OID says.
    if (request.replace || request.restart || p.tableCreated) {
        clearLedger(conn, p.ledger);
    }
    checkTableGrid(conn, request.table,
                   TableGrid{dataset.grid().step(), dataset.grid().describe(), dataset.productName(),
                             dataset.selection()});
    p.committed = committedUnits(conn, p.ledger);
    conn.exec("COMMIT");
    return p;
}

} // namespace isobar
