// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// Shared by the writers of synthetic files (SyntheticFiles.cpp, SyntheticLayouts.cpp, SyntheticGrib.cpp); not
// a public API.

#include "domain/Variable.h"
#include "util/Error.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace isobar::synth {

struct Grid {
    std::vector<double> latitudes;  // north to south
    std::vector<double> longitudes; // west to east
    std::size_t points() const { return latitudes.size() * longitudes.size(); }
};

// Physical values of the synthetic weather in the units ERA5 stores (K, m s**-1, (0 - 1), m, Pa,
// J m**-2, ...), the same for the same seed whatever the layout they are written in.
class SyntheticWeather {
public:
    SyntheticWeather(std::uint64_t seed, const Grid& grid);
    // `variables` at one hour (hours since 1900-01-01) and, for pressure-level variables, one
    // pressure level (hPa; nullopt at single levels), row-major: out[i] holds variables[i]. Only
    // these are computed: a caller bounds the memory by how many it asks for at once (kFillBatch).
    void fill(std::int64_t hour1900, std::optional<double> levelHpa, std::span<const Variable> variables,
              std::vector<std::vector<double>>& out) const;
    std::uint64_t seed() const noexcept { return seed_; }

private:
    std::uint64_t seed_;
    const Grid& grid_;
    std::vector<double> sinLat_;
    std::vector<double> sinLat2_;
    std::vector<double> cosLat_;
    std::vector<double> cos4Lat_;
    std::vector<double> cos6Lat_;
    std::vector<double> lonWave_;
    std::vector<double> relief_; // per point, m: land above ~500, the same made-up planet for every seed
};

// How many variables a writer computes at once: a global grid is ~1 million points, 8 MB a variable.
inline constexpr std::size_t kFillBatch = 8;

// What every sample file says about itself.
std::string syntheticNotice(std::uint64_t seed, const std::string& layout);
std::string nowStamp();

struct Job {
    const Grid& grid;
    const SyntheticWeather& weather;
    std::int64_t firstHour1900;
    int hours;
    const std::stop_token& stop;
    std::vector<Variable> variables;
    std::vector<double> levels; // hPa in file order; empty at single levels
};

// GRIB_stepType as cfgrib writes it, and the member of the new CDS's ZIP that holds the variable:
// instant, accum, avg (mean rates), max or min (extremes).
std::string_view stepTypeOf(const VariableSpec& s);

// Each writes one complete file at `path` (the caller renames it into place) or throws. With
// job.levels, a pressure-level file (level / pressure_level dimension after time).
void writeClassic(const std::filesystem::path& path, const Job& job, bool expverDimension);
void writeCf2024(const std::filesystem::path& path, const Job& job, const std::vector<Variable>& variables);
// NCAR: one analysis file per instant variable and one forecast file per other variable
// (accumulations, mean rates, extremes), in `dir`, covering whole forecasts (06 and 18 UTC + 1..12 h)
// around the hours asked for. Returns the files written (already in place); `firstHour1900` and
// `hours` say what they cover.
std::vector<std::filesystem::path> writeNcar(const std::filesystem::path& dir, const Job& job,
                                             std::int64_t& firstHour1900, int& hours);

// "2024010106": an hour since 1900 as YYYYMMDDHH (UTC).
std::string yyyymmddhh(std::int64_t hour1900);

inline void checkStop(const Job& job) {
    if (job.stop.stop_requested()) {
        throw Cancelled();
    }
}

// The levels to write: each pressure level of the file, or the one single level.
inline std::vector<std::optional<double>> levelsOf(const Job& job) {
    if (job.levels.empty()) {
        return {std::nullopt};
    }
    return {job.levels.begin(), job.levels.end()};
}

// Calls `write(variable position, values)` for every variable of `variables` at one hour and level,
// computing at most kFillBatch of them at once.
template <typename Write>
void forEachVariable(const Job& job, const std::vector<Variable>& variables, std::int64_t hour1900,
                     std::optional<double> level, std::vector<std::vector<double>>& values, Write&& write) {
    for (std::size_t first = 0; first < variables.size(); first += kFillBatch) {
        checkStop(job);
        const std::size_t count = std::min(kFillBatch, variables.size() - first);
        job.weather.fill(hour1900, level, std::span(variables).subspan(first, count), values);
        for (std::size_t b = 0; b < count; ++b) {
            write(first + b, values[b]);
        }
    }
}

// Writes a CDS GRIB file: one message per variable, hour (and level), 16-bit simple packing, ERA5's
// MARS keys; instant variables as analyses, the others as forecasts from 06/18 UTC at steps 1-12.
// `padded`: each message padded with NULs to a multiple of 120 bytes, as the legacy CDS writes GRIB1.
void writeGrib(const std::filesystem::path& path, const Job& job, int edition, bool padded);

} // namespace isobar::synth
