// SPDX-License-Identifier: GPL-3.0-or-later

#include "ingest/TargetPreparation.h"

#include "db/AutovacuumPause.h"
#include "db/Connection.h"
#include "db/ServerCheck.h"
#include "db/TableMetadata.h"
#include "db/WeatherSchema.h"
#include "util/Error.h"

#include <algorithm>
#include <optional>
#include <vector>

namespace isobar {

ServerCheck checkServerForLoad(Connection& conn, const LoadRequest& request, int workers, LoadSink& sink) {
    ServerCheck check = checkServer(
        conn, ServerCheckRequest{request.conninfo, request.table, workers, request.tableOptions.type});
    try {
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
    } catch (const Error&) {
        reportServerCheck(check, true, sink); // what stops the load is among them
        throw;
    }
    return check;
}

void reportServerCheck(const ServerCheck& check, bool loadsRows, LoadSink& sink) {
    std::vector<SettingWarning> warnings;
    for (const SettingWarning& w : check.warnings) {
        // The table's indexes and triggers slow the rows down; a run with no rows to load has none.
        if (!loadsRows && w.severity == Severity::Slows && w.subject.rfind("table ", 0) == 0) {
            continue;
        }
        warnings.push_back(w);
    }
    sink.settingsChecked(check.info, warnings);
}

namespace {

// The same variables, whatever their order.
bool sameKeys(std::vector<ValueColumn> a, std::vector<ValueColumn> b) {
    const auto byKey = [](const ValueColumn& x, const ValueColumn& y) {
        return x.key < y.key;
    };
    std::sort(a.begin(), a.end(), byKey);
    std::sort(b.begin(), b.end(), byKey);
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const ValueColumn& x, const ValueColumn& y) { return x.key == y.key; });
}

[[noreturn]] void refuseOtherVariables(const TableName& table, const TableLayout& has,
                                       const std::vector<ValueColumn>& asked) {
    throw Error("table " + table.display() + " holds " + has.keys() + "; this load asks for " +
                keysOf(asked) +
                ": a table's variables are fixed by its first load. Leave --variables out to load the "
                "table's own, or load these into another table (--table)");
}

} // namespace

TableLayout chooseColumns(Connection& conn, const LoadRequest& request, Dataset& dataset, LoadSink& sink) {
    std::vector<ValueColumn> asked;
    for (std::size_t v : dataset.match(request.variables)) {
        asked.push_back(dataset.variables()[v]);
    }
    const std::optional<TableLayout> existing = tableLayout(conn, request.table);
    // --replace empties the table, but its columns stay: the variables must still be the table's.
    TableLayout layout;
    if (existing && !existing->columns.empty()) {
        if (existing->vertical != dataset.vertical()) {
            throw Error("table " + request.table.display() + " holds " +
                        std::string(describe(existing->vertical)) + " data, but these files are " +
                        std::string(describe(dataset.vertical())) +
                        " data: a table is one or the other; load them into another table (--table)");
        }
        if (!request.variables.empty() && !sameKeys(existing->columns, asked)) {
            refuseOtherVariables(request.table, *existing, asked);
        }
        // A column not of the catalog holds the units it was made with: an earlier Isobar loaded
        // ECMWF's parameters it had no entry for as their files stored them (lake temperatures in
        // K), so their rows still go in those units, and a column never mixes two.
        for (const ValueColumn& c : existing->columns) {
            const auto v = dataset.variableIndex(c.key);
            if (!v || c.variable || dataset.variables()[*v].units == c.units) {
                continue;
            }
            const std::string converted = dataset.variables()[*v].units;
            if (dataset.loadAsStored(c.key, c.units)) {
                sink.note("column " + c.column + " of table " + request.table.display() + " holds " + c.key +
                          " in '" + c.units + "', as an earlier Isobar loaded it; these files' " + c.key +
                          " go in '" + c.units + "' too, not '" + converted +
                          "', so that the column never mixes units (a new table stores it in '" + converted +
                          "')");
                continue;
            }
            throw Error("column " + c.column + " of table " + request.table.display() + " holds values in '" +
                        c.units + "', but these files have " + c.key + " in '" + converted +
                        "', and Isobar cannot convert between them; load them into another table (--table)");
        }
        layout = *existing;
    } else {
        layout.vertical = dataset.vertical();
        layout.columns = request.variables.empty() ? dataset.variables() : asked;
    }
    dataset.useColumns(layout.columns);
    if (const auto out = dataset.leftOut(); !out.empty()) {
        sink.note((existing && !existing->columns.empty() ? "table " + request.table.display() + " holds " +
                                                                layout.keys() + "; left out of these files: "
                                                          : std::string("left out of these files: ")) +
                  keysOf(out));
    }
    return layout;
}

PreparedTarget prepareTarget(Connection& conn, const LoadRequest& request, const UnitSource& source,
                             const TableLayout& layout, LoadPlan& plan,
                             const std::function<void(const PreparedTarget&)>& beforeCommit) {
    const Dataset& dataset = source.dataset();
    ensureMetadataSchema(conn);
    PreparedTarget p;
    conn.exec(kBeginReadCommitted);
    lockTablePreparation(conn, request.table);
    // Another run may have created the table since chooseColumns() looked, with other columns.
    if (const auto now = tableLayout(conn, request.table);
        now && !now->columns.empty() && !(*now == layout)) {
        if (!sameKeys(now->columns, layout.columns) || now->vertical != layout.vertical) {
            refuseOtherVariables(request.table, *now, layout.columns);
        }
    }
    p.type = ensureTargetTable(conn, request.table, layout, request.tableOptions, p.tableCreated);
    if (p.tableCreated && pausesAutovacuum(p.type)) {
        pauseAutovacuum(conn, request.table); // on again after the load (AutovacuumPause.h)
        p.autovacuum = PreparedTarget::Autovacuum::PausedNow;
    }
    // The ledger lock before any lock on the table (TRUNCATE, new partitions), as every run takes
    // them: held to COMMIT, it keeps other runs' claims out while the ledger is put in order.
    p.ledger = ledgerFor(conn, request.table);
    lockLedgerMove(conn, p.ledger.relid);
    if (!p.tableCreated && autovacuumPausedByLoad(conn, p.ledger.relid)) {
        p.autovacuum = PreparedTarget::Autovacuum::PausedEarlier;
    }
    // A table created just now holds nothing, whatever an old ledger row with a reused OID says;
    // --replace and --restart start it again. Its ledger rows go below (both ledgers'): none to
    // adopt from the other ledger first, none to look up after.
    p.ledgerCleared = request.replace || request.restart || p.tableCreated;
    if (!p.ledgerCleared) {
        adoptStrayLedgerRows(conn, p.ledger);
    }
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
    if (p.ledgerCleared) {
        clearLedger(conn, p.ledger); // under the move lock taken above
    }
    checkTableGrid(conn, request.table,
                   TableGrid{dataset.grid().spacing(), dataset.grid().describe(), dataset.productName(),
                             dataset.selection(), layout.vertical});
    if (p.tableCreated || !hasLayoutRecord(conn, request.table)) {
        recordTableLayout(conn, request.table, layout);
    }
    try {
        if (!p.ledgerCleared) {
            // Under the ledger-move lock: no other run's claims land while this decides.
            p.overlaps = resolveOverlaps(
                conn, p.ledger, source, plan,
                OverlapTarget{request.conninfo, request.table.display(),
                              RowsTable{request.table.quoted(conn), weatherColumnList(conn, layout),
                                        layout.vertical == Vertical::PressureLevels},
                              request.overlap});
            p.committed = p.overlaps.done;
        }
        if (beforeCommit) {
            beforeCommit(p);
        }
    } catch (...) {
        conn.exec("ROLLBACK");
        throw;
    }
    conn.exec("COMMIT");
    return p;
}

} // namespace isobar
