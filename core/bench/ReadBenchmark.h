// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "era5/Era5File.h"

#include <filesystem>
#include <stop_token>
#include <string>
#include <vector>

namespace isobar {

// How long the client side of a load takes, stage by stage, on one core: netcdf-c reads (and
// HDF5 decompression), decoding with unit conversion, and binary COPY encoding with location ids.
// No server is involved: this is the part of a load that must never be the bottleneck.
struct ReadBenchmarkResult {
    std::uint64_t rows = 0;
    std::size_t steps = 0;
    int passes = 0;
    // Best pass, in seconds, for all rows.
    double readSeconds = 0.0;
    double decodeSeconds = 0.0;
    double encodeSeconds = 0.0;
    std::uint64_t bytes = 0; // COPY bytes produced
    double perMillionRows(double seconds) const {
        return rows > 0 ? seconds * 1e6 / static_cast<double>(rows) : 0.0;
    }
};

ReadBenchmarkResult benchmarkRead(const std::vector<std::filesystem::path>& files, const OpenOptions& options,
                                  int passes, const std::stop_token& stop = {});

std::string formatReadBenchmark(const ReadBenchmarkResult& r);

} // namespace isobar
