#include "era5/SampleWriter.h"

#include "era5/Netcdf.h"
#include "era5/SampleInternals.h"
#include "era5/TimeUnits.h"
#include "era5/ZipArchive.h"
#include "util/Error.h"
#include "util/Format.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <ctime>
#include <numbers>
#include <string>
#include <vector>

namespace isobar {

namespace sample {

namespace {

// Deterministic noise in [0, 1) from a few integers (splitmix64 finalizer).
double noise(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
    std::uint64_t z =
        seed * 0x9E3779B97F4A7C15ULL + a * 0xBF58476D1CE4E5B9ULL + b * 0x94D049BB133111EBULL + c;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
}

} // namespace

SyntheticWeather::SyntheticWeather(std::uint64_t seed, const Grid& grid)
    : seed_(seed)
    , grid_(grid) {
    for (double lat : grid.latitudes) {
        const double phi = lat * std::numbers::pi / 180.0;
        sinLat2_.push_back(std::sin(phi) * std::sin(phi));
        cosLat_.push_back(std::cos(phi));
        cos4Lat_.push_back(std::cos(4.0 * phi));
    }
    for (double lon : grid.longitudes) {
        lonWave_.push_back(std::sin(2.0 * lon * std::numbers::pi / 180.0 + static_cast<double>(seed % 7)));
    }
}

void SyntheticWeather::fill(std::int64_t hour1900, PerVariable<std::vector<double>>& out) const {
    const std::size_t nlat = grid_.latitudes.size();
    const std::size_t nlon = grid_.longitudes.size();
    for (auto& v : out) {
        v.resize(nlat * nlon);
    }
    const auto hourOfDay = static_cast<double>(((hour1900 % 24) + 24) % 24);
    const auto t = static_cast<std::uint64_t>(hour1900);
    std::vector<double> diurnal(nlon);
    for (std::size_t j = 0; j < nlon; ++j) {
        // Local solar time peaks in the afternoon (15 h). Cells are keyed by their global grid
        // position so a region holds the same values as the globe there.
        diurnal[j] =
            std::cos(2.0 * std::numbers::pi * (hourOfDay + grid_.longitudes[j] / 15.0 - 15.0) / 24.0);
    }
    for (std::size_t i = 0; i < nlat; ++i) {
        const auto row = static_cast<std::uint64_t>(std::lround((grid_.latitudes[i] + 90.0) * 4.0));
        for (std::size_t j = 0; j < nlon; ++j) {
            double lon = std::fmod(grid_.longitudes[j] + 360.0, 360.0);
            const auto col = static_cast<std::uint64_t>(std::lround(lon * 4.0)) % 1440;
            const std::size_t k = i * nlon + j;
            const std::uint64_t cell = row * 2048 + col;
            const double n1 = noise(seed_, t, cell, 1);
            const double n2 = noise(seed_, t, cell, 2);
            const double n3 = noise(seed_, t, cell, 3);
            const double rain = noise(seed_, t / 3, cell / 8, 4);
            const double t2m = 301.0 - 52.0 * sinLat2_[i] + 6.0 * cosLat_[i] * diurnal[j] + 4.0 * (n1 - 0.5);
            const double tp = rain > 0.88 ? (rain - 0.88) / 0.12 * 0.004 * (0.5 + n2) : 0.0;
            out[Variable::T2m][k] = t2m;
            out[Variable::U10][k] = -6.0 * cos4Lat_[i] + 3.0 * (n2 - 0.5) * 2.0;
            out[Variable::V10][k] = 2.5 * lonWave_[j] * cosLat_[i] + 2.0 * (n3 - 0.5) * 2.0;
            out[Variable::Tcc][k] =
                std::clamp(0.55 + 0.35 * lonWave_[j] * cos4Lat_[i] + (n1 - 0.5) * 0.6, 0.0, 1.0);
            out[Variable::Tp][k] = tp;
            out[Variable::Sf][k] = t2m < 273.15 ? tp : 0.0;
        }
    }
}

std::string syntheticNotice(std::uint64_t seed, const std::string& layout) {
    return "true: every value in this file is made up by a formula (seed " + std::to_string(seed) +
           "); it only imitates the layout of " + layout + " ERA5 data";
}

std::string nowStamp() {
    return formatUtcNow("%Y-%m-%d %H:%M:%S GMT");
}

} // namespace sample

namespace {

constexpr double kStep = 0.25;

double parseNumber(std::string_view text, std::string_view full) {
    try {
        size_t used = 0;
        const std::string s(text);
        const double v = std::stod(s, &used);
        if (used != s.size()) {
            throw std::invalid_argument("trailing text");
        }
        return v;
    } catch (const std::exception&) {
        throw Error("--region '" + std::string(full) + "': '" + std::string(text) + "' is not a number");
    }
}

std::vector<double> axis(double from, double to, double step) {
    std::vector<double> values;
    const auto n = static_cast<long>(std::lround(std::fabs(to - from) / step));
    const double dir = to >= from ? 1.0 : -1.0;
    for (long k = 0; k <= n; ++k) {
        values.push_back(from + dir * static_cast<double>(k) * step);
    }
    return values;
}

// Removes a temporary file unless released (the finished file was renamed into place).
class PartialFile {
public:
    explicit PartialFile(std::filesystem::path path)
        : path_(std::move(path)) {}
    PartialFile(const PartialFile&) = delete;
    PartialFile& operator=(const PartialFile&) = delete;
    ~PartialFile() {
        if (!path_.empty()) {
            std::error_code ec;
            std::filesystem::remove(path_, ec);
        }
    }
    const std::filesystem::path& path() const { return path_; }
    void commitTo(const std::filesystem::path& final) {
        std::error_code ec;
        std::filesystem::rename(path_, final, ec);
        if (ec) {
            throw Error(final.string() + ": cannot move the finished file into place: " + ec.message());
        }
        path_.clear();
    }

private:
    std::filesystem::path path_;
};

} // namespace

std::optional<SampleLayout> parseSampleLayout(std::string_view name) {
    for (SampleLayout l : {SampleLayout::CdsLegacy, SampleLayout::Cds2024, SampleLayout::Cds2024Zip,
                           SampleLayout::CdsExpver, SampleLayout::Ncar}) {
        if (sampleLayoutName(l) == name) {
            return l;
        }
    }
    return std::nullopt;
}

std::string_view sampleLayoutName(SampleLayout layout) {
    switch (layout) {
    case SampleLayout::CdsLegacy:
        return "cds-legacy";
    case SampleLayout::Cds2024:
        return "cds-2024";
    case SampleLayout::Cds2024Zip:
        return "cds-2024-zip";
    case SampleLayout::CdsExpver:
        return "cds-expver";
    case SampleLayout::Ncar:
        return "ncar";
    }
    return "cds-legacy";
}

SampleRegion SampleRegion::parse(std::string_view text) {
    std::array<double, 4> v{};
    size_t part = 0;
    size_t pos = 0;
    while (part < 4) {
        const size_t comma = text.find(',', pos);
        const std::string_view item =
            text.substr(pos, comma == std::string_view::npos ? text.npos : comma - pos);
        v[part++] = parseNumber(item, text);
        if (comma == std::string_view::npos) {
            break;
        }
        pos = comma + 1;
    }
    if (part != 4 || text.find(',', pos) != std::string_view::npos) {
        throw Error("--region '" + std::string(text) + "': expected four numbers LAT0,LAT1,LON0,LON1");
    }
    SampleRegion r{v[0], v[1], v[2], v[3]};
    for (double lat : {r.latitude0, r.latitude1}) {
        if (lat < -90.0 || lat > 90.0) {
            throw Error("--region: latitude " + std::to_string(lat) + " is outside -90..90");
        }
    }
    for (double lon : {r.longitude0, r.longitude1}) {
        if (lon < -180.0 || lon > 360.0) {
            throw Error("--region: longitude " + std::to_string(lon) + " is outside -180..360");
        }
    }
    for (double x : v) {
        const double k = x / kStep;
        if (std::fabs(k - std::round(k)) > 1e-9) {
            throw Error("--region: " + std::to_string(x) + " is not on the 0.25 degree grid");
        }
    }
    return r;
}

SampleInfo writeSample(const SampleOptions& options, const std::stop_token& stop) {
    if (options.hours < 1) {
        throw Error("--hours must be at least 1");
    }
    const SampleRegion& r = options.region;
    sample::Grid grid;
    // Latitude descending, as the CDS writes it.
    grid.latitudes = axis(std::max(r.latitude0, r.latitude1), std::min(r.latitude0, r.latitude1), kStep);
    double west = r.longitude0;
    double east = r.longitude1;
    if (west > east) {
        if (west >= 180.0) {
            // Across the prime meridian in 0..360 numbers (350,10): written as -10..10, as the CDS
            // writes such a box.
            west -= 360.0;
        } else {
            // Across the date line (170,-170): kept in 0..360 numbers, 170..190.
            east += 360.0;
        }
    }
    grid.longitudes = axis(west, east, kStep);
    if (grid.longitudes.size() > 1440) {
        grid.longitudes.resize(1440);
    }
    if (west < 0.0 && grid.longitudes.back() >= 180.0) {
        throw Error("--region: longitudes " + std::to_string(west) + ".." + std::to_string(east) +
                    " span more than the globe");
    }
    const std::int64_t hoursSince1900 =
        (unixMicrosFromPgTimestamp(options.start) / kMicrosPerSecond - daysFromCivil(1900, 1, 1) * 86400) /
        3600;
    const sample::SyntheticWeather weather(options.seed, grid);
    const sample::Job job{grid, weather, hoursSince1900, options.hours, stop};

    SampleInfo info{
        grid.latitudes.size(), grid.longitudes.size(), static_cast<size_t>(options.hours), options.start, {}};
    const std::filesystem::path& out = options.out;
    switch (options.layout) {
    case SampleLayout::CdsLegacy:
    case SampleLayout::CdsExpver: {
        PartialFile part(out.string() + ".part");
        sample::writeClassic(part.path(), job, options.layout == SampleLayout::CdsExpver);
        part.commitTo(out);
        info.files.push_back(out);
        break;
    }
    case SampleLayout::Cds2024: {
        PartialFile part(out.string() + ".part");
        sample::writeCf2024(
            part.path(), job,
            {Variable::T2m, Variable::U10, Variable::V10, Variable::Tcc, Variable::Tp, Variable::Sf});
        part.commitTo(out);
        info.files.push_back(out);
        break;
    }
    case SampleLayout::Cds2024Zip: {
        // As the new CDS answers a request mixing instant and accumulated variables.
        PartialFile instant(out.string() + ".instant.part");
        PartialFile accum(out.string() + ".accum.part");
        sample::writeCf2024(instant.path(), job,
                            {Variable::T2m, Variable::U10, Variable::V10, Variable::Tcc});
        sample::writeCf2024(accum.path(), job, {Variable::Tp, Variable::Sf});
        PartialFile zip(out.string() + ".part");
        writeZip(zip.path(), {{"data_stream-oper_stepType-instant.nc", instant.path()},
                              {"data_stream-oper_stepType-accum.nc", accum.path()}});
        zip.commitTo(out);
        info.files.push_back(out);
        break;
    }
    case SampleLayout::Ncar: {
        std::int64_t first = hoursSince1900;
        int hours = options.hours;
        info.files = sample::writeNcar(out, job, first, hours);
        info.hours = static_cast<size_t>(hours);
        info.start =
            pgTimestampFromUnixMicros((first * 3600 + daysFromCivil(1900, 1, 1) * 86400) * kMicrosPerSecond);
        break;
    }
    }
    return info;
}

} // namespace isobar
