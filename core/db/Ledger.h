// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"
#include "domain/UnitPlace.h"

#include <cstdint>
#include <map>
#include <optional>
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

// Creates the ledger tables if missing, or adds what this version records to those of an earlier
// one (autocommitted; see ensureMetadataSchema).
void ensureLedgerTables(Connection& conn);
// True when the ledger tables have every column and index ensureLedgerTables makes.
std::string ledgerTablesCompleteSql();

// What a unit's ledger row says besides its key and rows: where its rows lie (the key's content),
// where they came from and how to recognise them again.
struct UnitRecord {
    std::string key;
    std::uint64_t rows = 0;
    UnitPlace place;
    std::string files;             // "a.nc, b.nc"
    std::uint64_t bytes = 0;       // their size
    std::uint64_t filesPrint = 0;  // LoadPlan's UnitOrigin::filesPrint (0: not recorded)
    std::uint64_t legacyPrint = 0; // the print in the key of an earlier version's unit (0: none)
    std::uint64_t valuesPrint = 0; // UnitSource::print of the rows (0: not known)
    std::string expver;            // "0001", "0005", "0001+0005", empty: not labelled
    std::string product;
    std::string columns;     // the columns it filled, "t2m,u10"
    std::string committedAt; // "2026-12-06 14:00:00+00" (read back only)
};

// The time steps from `from` to `until`, both included.
struct TimeSpan {
    PgTimestamp from;
    PgTimestamp until;
};

// The units recorded in the target's ledgers (both) at any time of `spans`: what a load of those
// times may overlap. The keys of units without a place (an earlier version's: see
// migrateLegacyUnits) go to `unplaced`, in the same round trip.
std::vector<UnitRecord> recordedUnitsAt(Connection& conn, const LedgerTarget& target,
                                        const std::vector<TimeSpan>& spans,
                                        std::vector<std::string>* unplaced = nullptr);

// Ledger rows of the target written by versions whose keys named the files (".. rows 0-8 of
// 42..40 x 0..2 on 0.25 [156180d889d9b30f]") get their place and their files' print from the key,
// once; their keys stay. Rows of another grid than `grid` are left as they are. Returns how many
// were given their place.
std::size_t migrateLegacyUnits(Connection& conn, const LedgerTarget& target, const GlobalGrid& grid);
// The same for `keys` (of units without a place, read already).
std::size_t migrateLegacyUnits(Connection& conn, const LedgerTarget& target, const GlobalGrid& grid,
                               const std::vector<std::string>& keys);
// The place and print of a legacy key on `grid`; nullopt when it is not one.
std::optional<std::pair<UnitPlace, std::uint64_t>> parseLegacyKey(const std::string& key,
                                                                  const GlobalGrid& grid);

// The condition on a weather table's rows that selects the rows of `place` on `grid`: its time,
// pressure level and location_ids (`levelColumn`: the table has pressure_level).
std::string placeCondition(Connection& conn, const UnitPlace& place, const GlobalGrid& grid,
                           bool levelColumn);

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

// Forgets the target's progress (both ledgers). The caller holds lockLedgerMove: a run setting
// the table LOGGED must not move rows back meanwhile. Rows already in the table stay.
void clearLedger(Connection& conn, const LedgerTarget& target);

// First in a unit transaction (READ COMMITTED), before its COPY touches the table (lock order: this,
// then the table): waits while another run moves the target's rows between the ledgers, and keeps
// such a move out until the transaction ends.
void holdLedgerForClaims(Connection& conn, const LedgerTarget& target);

// What claimUnits recorded, and the units it did not record because the ledger holds a unit of
// another key over some of their rows (this unit's key, that unit's).
struct Claims {
    std::set<std::string> claimed;
    std::map<std::string, std::string> overlapped;
};

// After holdLedgerForClaims, in the transaction that copied the units' rows: records each unit
// (its key, rows, place and origin) and returns the keys it recorded. A key already recorded in
// either ledger (committed by an earlier or a concurrent run: its rows are in the table) is not
// recorded, and the caller must roll back; a concurrent run recording the same key waits here for
// this transaction to end, then sees it. A unit of one point is not recorded either where a unit
// of another key holds some of its rows (Claims::overlapped: another run, of other hours or boxes,
// committed them since this run compared the table's units): the caller rolls back. So that two
// such runs see each other, claims of one point first take the transaction lock
// pg_advisory_xact_lock(hashtext('isobar ledger range'), hashtext(rangeLockKey(...))) of its level,
// point and month (shared by a unit of one hour). The ledger is the one of the table's persistence
// now, not `target`'s: a concurrent run may have set the table LOGGED and moved the rows since.
Claims claimUnits(Connection& conn, const LedgerTarget& target, const std::vector<UnitRecord>& units);
// "<relid> <level or -> <north> <west> <YYYY-MM of its time>": the key of the lock claims of a
// place of one point take.
std::string rangeLockKey(const std::string& relid, const UnitPlace& place);

// One unit: holdLedgerForClaims and claimUnits; false when it is already recorded.
bool claimUnit(Connection& conn, const LedgerTarget& target, const std::string& key, std::uint64_t rows);

// After holdLedgerForClaims, in a unit's transaction before its COPY: forgets the recorded units
// `keys` (either ledger). Returns how many it found: fewer than asked means another run replaced
// or removed some meanwhile, and the caller must roll back. Waits for a run replacing the same
// units to end first (their rows are locked).
std::size_t forgetUnits(Connection& conn, const LedgerTarget& target, const std::vector<std::string>& keys);

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
