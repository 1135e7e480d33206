#pragma once

// Shared by the synthetic sample writers (SampleWriter.cpp, SampleLayouts.cpp); not a public API.

#include "domain/Variable.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <stop_token>
#include <string>
#include <vector>

namespace isobar::sample {

struct Grid {
    std::vector<double> latitudes;  // north to south
    std::vector<double> longitudes; // west to east
    std::size_t points() const { return latitudes.size() * longitudes.size(); }
};

// Physical values of the synthetic weather (K, m/s, 0-1, m), the same for the same seed whatever
// the layout they are written in.
class SyntheticWeather {
public:
    SyntheticWeather(std::uint64_t seed, const Grid& grid);
    // The seed's six variables at one hour (hours since 1900-01-01), row-major; the sample writes
    // the seed's six only (SampleLayouts.cpp).
    void fill(std::int64_t hour1900, PerVariable<std::vector<double>>& out) const;
    std::uint64_t seed() const noexcept { return seed_; }

private:
    std::uint64_t seed_;
    const Grid& grid_;
    std::vector<double> sinLat2_;
    std::vector<double> cosLat_;
    std::vector<double> cos4Lat_;
    std::vector<double> lonWave_;
};

// What every sample file says about itself.
std::string syntheticNotice(std::uint64_t seed, const std::string& layout);
std::string nowStamp();

struct Job {
    const Grid& grid;
    const SyntheticWeather& weather;
    std::int64_t firstHour1900;
    int hours;
    const std::stop_token& stop;
};

// Each writes one complete file at `path` (the caller renames it into place) or throws.
void writeClassic(const std::filesystem::path& path, const Job& job, bool expverDimension);
void writeCf2024(const std::filesystem::path& path, const Job& job, const std::vector<Variable>& variables);
// NCAR: one analysis file per instant variable and one forecast file per accumulated variable,
// in `dir`, covering whole forecasts (06 and 18 UTC + 1..12 h) around the hours asked for. Returns
// the files written (already in place); `firstHour1900` and `hours` say what they cover.
std::vector<std::filesystem::path> writeNcar(const std::filesystem::path& dir, const Job& job,
                                             std::int64_t& firstHour1900, int& hours);

} // namespace isobar::sample
