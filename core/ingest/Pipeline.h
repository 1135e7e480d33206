// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// The threads of one load: the reader stage, the workers and the sampler (see Loader.cpp for the
// steps around them). Not a public API.

#include "db/ServerStorage.h"
#include "db/TableType.h"
#include "ingest/EngineShared.h"
#include "ingest/Loader.h"
#include "ingest/WorkerPool.h"

#include <cstdint>
#include <vector>

namespace isobar {

// Runs the reader stage, the workers and the sampler until every pending unit (`todo`, indexes
// into the plan) is loaded or the run stops; adds what the workers did to `summary`.
void runPipeline(EngineShared& shared, const std::vector<std::size_t>& todo, std::uint64_t plannedRows,
                 const WorkerPool::TransportFactory& makeMethod, const LoadStart& start, TableType type,
                 const ServerStorage& storage, LoadSummary& summary);

} // namespace isobar
