// SPDX-License-Identifier: GPL-3.0-or-later

#include "bench/ReadBenchmark.h"

#include "era5/Dataset.h"
#include "plan/LoadPlan.h"
#include "rows/UnitSource.h"
#include "util/Error.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace isobar {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}
// Bands of at most this many rows (whole latitude rows), small enough that a band stays in the CPU
// caches from one stage to the next, so each stage is timed on its own work.
constexpr std::size_t kTargetBandRows = 32 * 1024;

// The bands the benchmark times: per step, runs of floor(kTargetBandRows / cols) latitude rows.
std::vector<WorkUnit> benchmarkBands(const Dataset& dataset) {
    std::vector<WorkUnit> bands;
    for (std::size_t s = 0; s < dataset.steps().size(); ++s) {
        const GridBox& box = dataset.geometries()[dataset.steps()[s].geometry].box;
        const std::size_t band = std::max<std::size_t>(1, kTargetBandRows / box.cols);
        for (std::size_t row0 = 0; row0 < box.rows; row0 += band) {
            const std::size_t rows = std::min(band, box.rows - row0);
            WorkUnit& unit = bands.emplace_back();
            unit.step = static_cast<std::uint32_t>(s);
            unit.row0 = static_cast<std::uint32_t>(row0);
            unit.rows = static_cast<std::uint32_t>(rows);
            unit.cols = static_cast<std::uint32_t>(box.cols);
            unit.rowCount = rows * box.cols;
        }
    }
    return bands;
}
} // namespace

ReadBenchmarkResult benchmarkRead(const std::vector<std::filesystem::path>& files, const OpenOptions& options,
                                  int passes, const std::stop_token& stop) {
    ReadBenchmarkResult best;
    best.passes = passes;
    RawUnit raw;
    DecodedBand decoded;
    BinaryCopyBuffer buffer(8u << 20);
    for (int pass = 0; pass < passes; ++pass) {
        // A fresh dataset per pass: its files are reopened, so HDF5's chunk cache starts empty and
        // every pass pays for decompression as a load does (the OS page cache stays warm).
        const Dataset dataset = Dataset::open(files, options);
        const UnitSource source(dataset);
        const std::vector<WorkUnit> bands = benchmarkBands(dataset);
        best.rows = dataset.rowCount();
        best.steps = dataset.steps().size();
        double read = 0;
        double decode = 0;
        double encode = 0;
        std::uint64_t bytes = 0;
        for (const WorkUnit& unit : bands) {
            if (stop.stop_requested()) {
                throw Cancelled();
            }
            auto t = Clock::now();
            source.fetch(unit, raw);
            read += since(t);
            t = Clock::now();
            source.decode(raw, decoded);
            decode += since(t);
            t = Clock::now();
            buffer.clear();
            source.encode(unit, decoded, buffer);
            encode += since(t);
            bytes += buffer.size();
        }
        const double total = read + decode + encode;
        if (pass == 0 || total < best.readSeconds + best.decodeSeconds + best.encodeSeconds) {
            best.readSeconds = read;
            best.decodeSeconds = decode;
            best.encodeSeconds = encode;
            best.bytes = bytes;
        }
    }
    return best;
}

std::string formatReadBenchmark(const ReadBenchmarkResult& r) {
    const double global = 1'038'240.0 / 1e6; // one global hour of the 0.25 deg grid, in millions of rows
    char buf[1024];
    std::snprintf(buf, sizeof buf,
                  "%llu rows in %zu step(s), best of %d pass(es), one core:\n"
                  "  read (netcdf-c or ecCodes)        %8.1f ms per 1M rows  %8.1f ms per global hour\n"
                  "  decode + unit conversion          %8.1f ms per 1M rows  %8.1f ms per global hour\n"
                  "  COPY encoding with location ids   %8.1f ms per 1M rows  %8.1f ms per global hour\n"
                  "  total client side                 %8.1f ms per 1M rows  %8.1f ms per global hour "
                  "(%.0f rows/s)\n"
                  "  COPY data produced: %.1f bytes per row\n",
                  static_cast<unsigned long long>(r.rows), r.steps, r.passes,
                  r.perMillionRows(r.readSeconds) * 1e3, r.perMillionRows(r.readSeconds) * 1e3 * global,
                  r.perMillionRows(r.decodeSeconds) * 1e3, r.perMillionRows(r.decodeSeconds) * 1e3 * global,
                  r.perMillionRows(r.encodeSeconds) * 1e3, r.perMillionRows(r.encodeSeconds) * 1e3 * global,
                  r.perMillionRows(r.readSeconds + r.decodeSeconds + r.encodeSeconds) * 1e3,
                  r.perMillionRows(r.readSeconds + r.decodeSeconds + r.encodeSeconds) * 1e3 * global,
                  static_cast<double>(r.rows) /
                      std::max(1e-9, r.readSeconds + r.decodeSeconds + r.encodeSeconds),
                  r.rows > 0 ? static_cast<double>(r.bytes) / static_cast<double>(r.rows) : 0.0);
    return buf;
}

} // namespace isobar
