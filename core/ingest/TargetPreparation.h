// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Ledger.h"
#include "db/ServerCheck.h"
#include "db/TableType.h"
#include "era5/Dataset.h"
#include "ingest/LoadEvents.h"
#include "ingest/Loader.h"
#include "ingest/OverlapCheck.h"
#include "plan/LoadPlan.h"
#include "rows/UnitSource.h"

#include <functional>
#include <set>
#include <string>

namespace isobar {

// The server as the load finds it: its settings and the target table turned into warnings; what
// would make the load fail (too few connections, a hypertable without its preloaded library,
// durability changes the role may not make) throws here, before anything is created or changed,
// with the warnings given to the sink first. Otherwise the caller gives them to the sink with
// reportServerCheck() once it knows whether the run loads anything.
// The functions here work on the load's control connection `conn` (to request.conninfo), which
// the load keeps from its first look at the server to the end.
ServerCheck checkServerForLoad(Connection& conn, const LoadRequest& request, int workers, LoadSink& sink);
// The check's warnings to the sink; those about what slows rows down (the table's indexes and
// triggers) only when the run loads any.
void reportServerCheck(const ServerCheck& check, bool loadsRows, LoadSink& sink);

// The columns the load writes, and which of the files' variables fill them: into a new table the
// variables the request names (default: every variable of the files); into an existing table its
// own columns (default), the files' others left out and listed in the sink; a request that names
// other variables than the table's is refused with both lists. Applies the choice to `dataset`.
TableLayout chooseColumns(Connection& conn, const LoadRequest& request, Dataset& dataset, LoadSink& sink);

// The target table and its bookkeeping as a load leaves them before any worker starts.
struct PreparedTarget {
    bool tableCreated = false;
    // The table's autovacuum, paused until the load ends (AutovacuumPause.h): by this load, which
    // created the table, or by an earlier one whose process ended first.
    enum class Autovacuum { AsItWas, PausedNow, PausedEarlier };
    Autovacuum autovacuum = Autovacuum::AsItWas;
    TableType type = TableType::Regular;
    LedgerTarget ledger;
    // The table's ledger rows were deleted by this preparation (a new table, --replace,
    // --restart): nothing of it is loaded yet.
    bool ledgerCleared = false;
    std::set<std::string> committed; // keys of the plan's units not to load (OverlapOutcome::done)
    // What the table held of the plan's rows, and what the load does about it.
    OverlapOutcome overlaps;
};

// Creates or checks the table, its partitions and the ledger in one transaction, under the
// preparation lock (see Ledger.h for the lock order): replace and restart are applied here.
// The table gets `layout`'s columns (when created) and its record; `plan`'s units are looked up in
// the ledger and resolved against what the table holds (resolveOverlaps, which may cut them into
// pieces and throws OverlapRefused). `beforeCommit` sees the target as prepared, inside the
// transaction: what it throws rolls everything back (a table it created included).
PreparedTarget prepareTarget(Connection& conn, const LoadRequest& request, const UnitSource& source,
                             const TableLayout& layout, LoadPlan& plan,
                             const std::function<void(const PreparedTarget&)>& beforeCommit = {});

} // namespace isobar
