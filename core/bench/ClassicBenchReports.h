// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// The benches that came first (read, ingest, durability, sustained) as bench reports, so every
// bench is written, listed and shown the same way.

#include "bench/BenchReport.h"
#include "bench/IngestBenchmark.h"
#include "bench/ReadBenchmark.h"

namespace isobar {

// Each adds its table (and plot) to `report`, whose kind, environment and times the caller sets.
void addReadTables(BenchReport& report, const ReadBenchmarkResult& r);
void addIngestTables(BenchReport& report, const std::vector<IngestBenchmarkRow>& rows);
void addDurabilityTables(BenchReport& report, const std::vector<DurabilityBenchmarkRow>& rows);
void addSustainedTables(BenchReport& report, const SustainedBenchmark& b);

} // namespace isobar
