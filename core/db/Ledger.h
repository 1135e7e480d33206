#pragma once

#include "db/Connection.h"

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace isobar {

// The resume ledger: one row per committed work unit, written in the transaction of the unit's rows, so a
// unit's rows and its ledger row exist together or not at all. Keyed by (target table OID, unit
// key). An unlogged target gets an unlogged ledger, so a crash that empties the table empties its
// ledger too and never leaves it claiming rows that are gone.
struct LedgerTarget {
    std::string relid; // the target's OID, as text
    bool unlogged = false;
    std::string table; // isobar.ledger or isobar.ledger_unlogged

    static LedgerTarget of(std::string relid, bool unlogged) {
        return LedgerTarget{std::move(relid), unlogged,
                            unlogged ? "isobar.ledger_unlogged" : "isobar.ledger"};
    }
};

// Creates the ledger tables if missing (autocommitted; see ensureMetadataSchema).
void ensureLedgerTables(Connection& conn);

// The ledger that matches the table's persistence now.
LedgerTarget ledgerFor(Connection& conn, const TableName& table);

// Inside the load's preparation: rows of the target left in the other ledger (the table's
// persistence was changed outside Isobar) move into its own, so a crash empties the record
// together with an unlogged table and never takes it from a logged one.
void adoptStrayLedgerRows(Connection& conn, const LedgerTarget& target);

// Inside a transaction, before the table itself is locked (lock order: the table's preparation,
// this, the table): keeps every run's claims on the table waiting while its rows move between
// the ledgers or are cleared (a claim then sees where they went).
void lockLedgerMove(Connection& conn, const std::string& relid);

// Inside a transaction, after lockLedgerMove: moves the target's rows from the other ledger into
// the one `to` names.
void moveLedgerRows(Connection& conn, const LedgerTarget& to);

// Removes the ledger rows (and the other per-table records) of tables that no longer exist. Its
// cost follows the number of tables the records name, not their rows: a warehouse's ledger holds
// millions.
void forgetDroppedTables(Connection& conn);

// Which of `keys` are units already committed into the target: the plan's, not all of the table's
// (a table loaded for years has millions).
std::set<std::string> committedUnits(Connection& conn, const LedgerTarget& target,
                                     const std::vector<std::string>& keys);

// Forgets the target's progress (both ledgers). The caller holds lockLedgerMove: a run setting
// the table LOGGED must not move rows back meanwhile. Rows already in the table stay.
void clearLedger(Connection& conn, const LedgerTarget& target);

// First in a unit transaction (READ COMMITTED), before its COPY touches the table (lock order: this,
// then the table): waits while another run moves the target's rows between the ledgers, and keeps
// such a move out until the transaction ends.
void holdLedgerForClaims(Connection& conn, const LedgerTarget& target);

// After holdLedgerForClaims, in the transaction that copied the units' rows: records each unit
// (key, rows) and returns the keys it recorded. A key already recorded in either ledger (committed
// by an earlier or a concurrent run: its rows are in the table) is not recorded, and the caller
// must roll back; a concurrent run recording the same key waits here for this transaction to end,
// then sees it. The ledger is the one of the table's persistence now, not `target`'s: a
// concurrent run may have set the table LOGGED and moved the rows since.
std::set<std::string> claimUnits(Connection& conn, const LedgerTarget& target,
                                 const std::vector<std::pair<std::string, std::uint64_t>>& units);

// One unit: holdLedgerForClaims and claimUnits; false when it is already recorded.
bool claimUnit(Connection& conn, const LedgerTarget& target, const std::string& key, std::uint64_t rows);

// The rows both ledgers account for in the target. It reads each of the table's ledger rows: 0.35-1 s
// for the 3 million units of a warehouse's table.
std::uint64_t recordedRows(Connection& conn, const LedgerTarget& target);
// The rows of the target's first `maxUnits` + 1 ledger rows (milliseconds however large the
// ledger), and whether that was all of them.
struct LedgerSum {
    std::uint64_t rows = 0;
    bool complete = false;
};
LedgerSum recordedRows(Connection& conn, const LedgerTarget& target, std::uint64_t maxUnits);

// Every transaction that claims, moves or clears ledger rows begins so: the claim's reasoning
// needs each statement to see what committed before it, whatever default_transaction_isolation
// the server or role sets.
inline constexpr const char* kBeginReadCommitted = "BEGIN ISOLATION LEVEL READ COMMITTED";

} // namespace isobar
