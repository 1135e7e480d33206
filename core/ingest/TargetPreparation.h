#pragma once

#include "db/Ledger.h"
#include "db/TableType.h"
#include "era5/Dataset.h"
#include "ingest/LoadEvents.h"
#include "ingest/Loader.h"

#include <set>
#include <string>

namespace isobar {

// The server as the load finds it: its settings and the target table turned into warnings for
// the sink; what would make the load fail (too few connections, a hypertable without its
// preloaded library, durability changes the role may not make) throws here, before anything is
// created or changed.
void checkServerForLoad(const LoadRequest& request, int workers, LoadSink& sink);

// The target table and its bookkeeping as a load leaves them before any worker starts.
struct PreparedTarget {
    bool tableCreated = false;
    TableType type = TableType::Regular;
    LedgerTarget ledger;
    std::set<std::string> committed; // keys of the units already loaded
};

// Creates or checks the table, its partitions and the ledger in one transaction, under the
// preparation lock (see Ledger.h for the lock order): replace and restart are applied here.
PreparedTarget prepareTarget(const LoadRequest& request, const Dataset& dataset);

} // namespace isobar
