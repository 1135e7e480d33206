// SPDX-License-Identifier: GPL-3.0-or-later

#include "synth/SyntheticFiles.h"

#include "era5/Netcdf.h"
#include "era5/TimeUnits.h"
#include "synth/SyntheticParts.h"
#include "synth/ZipWriter.h"
#include "util/Error.h"
#include "util/Format.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <ctime>
#include <functional>
#include <iterator>
#include <memory>
#include <numbers>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace isobar {

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

constexpr SyntheticLayout kLayouts[] = {SyntheticLayout::CdsLegacy,  SyntheticLayout::Cds2024,
                                        SyntheticLayout::Cds2024Zip, SyntheticLayout::CdsExpver,
                                        SyntheticLayout::Ncar,       SyntheticLayout::CdsLegacyPl,
                                        SyntheticLayout::Cds2024Pl,  SyntheticLayout::CdsGrib,
                                        SyntheticLayout::CdsGrib2,   SyntheticLayout::CdsGribPl};

// z is in both of ERA5's products: at single levels the surface's geopotential (orography), on
// pressure levels each level's.
bool onSingleLevels(const VariableSpec& s) {
    return !s.pressureLevels || s.shortName == "z";
}

Variable catalogVariable(std::string_view shortName) {
    const auto v = findVariable(shortName);
    if (!v || spec(*v).shortName != shortName) {
        throw Error("the variable catalog has no '" + std::string(shortName) + "'");
    }
    return *v;
}

std::string shortNames(const std::vector<Variable>& variables) {
    std::string out;
    for (Variable v : variables) {
        out += (out.empty() ? "" : " ") + std::string(spec(v).shortName);
    }
    return out;
}

} // namespace

std::optional<SyntheticLayout> parseSyntheticLayout(std::string_view name) {
    for (SyntheticLayout l : kLayouts) {
        if (syntheticLayoutName(l) == name) {
            return l;
        }
    }
    return std::nullopt;
}

std::string_view syntheticLayoutName(SyntheticLayout layout) {
    switch (layout) {
    case SyntheticLayout::CdsLegacy:
        return "cds-legacy";
    case SyntheticLayout::Cds2024:
        return "cds-2024";
    case SyntheticLayout::Cds2024Zip:
        return "cds-2024-zip";
    case SyntheticLayout::CdsExpver:
        return "cds-expver";
    case SyntheticLayout::Ncar:
        return "ncar";
    case SyntheticLayout::CdsLegacyPl:
        return "cds-legacy-pl";
    case SyntheticLayout::Cds2024Pl:
        return "cds-2024-pl";
    case SyntheticLayout::CdsGrib:
        return "cds-grib";
    case SyntheticLayout::CdsGrib2:
        return "cds-grib2";
    case SyntheticLayout::CdsGribPl:
        return "cds-grib-pl";
    }
    return "cds-legacy";
}

std::string syntheticLayoutNames() {
    std::string out;
    for (SyntheticLayout l : kLayouts) {
        out += (out.empty() ? "" : ", ") + std::string(syntheticLayoutName(l));
    }
    return out;
}

bool isPressureLevelLayout(SyntheticLayout layout) {
    return layout == SyntheticLayout::CdsLegacyPl || layout == SyntheticLayout::Cds2024Pl ||
           layout == SyntheticLayout::CdsGribPl;
}

std::vector<Variable> defaultSyntheticVariables(SyntheticLayout layout) {
    if (isPressureLevelLayout(layout)) {
        std::vector<Variable> out;
        for (std::string_view name : {"t", "u", "v", "z", "q", "r"}) {
            out.push_back(catalogVariable(name));
        }
        return out;
    }
    return {kSeedVariables.begin(), kSeedVariables.end()};
}

std::vector<double> defaultSyntheticLevels(SyntheticLayout layout) {
    if (!isPressureLevelLayout(layout)) {
        return {};
    }
    return {1000.0, 850.0, 500.0};
}

std::vector<Variable> allSyntheticVariables(SyntheticLayout layout) {
    std::vector<Variable> out;
    for (Variable v : allVariables()) {
        const VariableSpec& s = spec(v);
        const bool fits = isPressureLevelLayout(layout) ? s.pressureLevels : onSingleLevels(s);
        if (fits && (layout != SyntheticLayout::Ncar || !s.ncarName.empty())) {
            out.push_back(v);
        }
    }
    return out;
}

SyntheticContents syntheticContents(const SyntheticOptions& options) {
    const SyntheticLayout layout = options.layout;
    const std::string layoutName(syntheticLayoutName(layout));
    const bool pressure = isPressureLevelLayout(layout);
    SyntheticContents contents;
    contents.variables = options.variables.empty() ? defaultSyntheticVariables(layout) : options.variables;
    for (std::size_t i = 0; i < contents.variables.size(); ++i) {
        const Variable v = contents.variables[i];
        const VariableSpec& s = spec(v);
        const std::string name(s.shortName);
        if (std::find(contents.variables.begin(), contents.variables.begin() + static_cast<long>(i), v) !=
            contents.variables.begin() + static_cast<long>(i)) {
            throw Error("--variables: " + name + " is asked for twice");
        }
        if (pressure && !s.pressureLevels) {
            throw Error("--variables: " + name + " (" + std::string(s.longName) +
                        ") is a single-level variable; the " + layoutName +
                        " layout holds pressure-level variables only (" +
                        shortNames(allSyntheticVariables(layout)) + ")");
        }
        if (!pressure && !onSingleLevels(s)) {
            throw Error("--variables: " + name + " (" + std::string(s.longName) +
                        ") is a pressure-level variable; the " + layoutName +
                        " layout holds single-level variables only - use --layout cds-legacy-pl or "
                        "cds-2024-pl for it");
        }
        if (layout == SyntheticLayout::Ncar && s.ncarName.empty()) {
            throw Error("--variables: " + name + " (" + std::string(s.longName) +
                        ") is not among NCAR RDA ds633.0's files (the catalog has no NCAR name for it); "
                        "write it in another layout");
        }
    }
    if (!pressure) {
        if (!options.levels.empty()) {
            throw Error("--levels: the " + layoutName +
                        " layout is at single levels; pressure levels go with --layout cds-legacy-pl or "
                        "cds-2024-pl");
        }
        return contents;
    }
    contents.levels = options.levels.empty() ? defaultSyntheticLevels(layout) : options.levels;
    for (double hPa : contents.levels) {
        if (!(hPa >= 1.0 && hPa <= 1000.0)) {
            throw Error("--levels: " + formatCoordinate(hPa) +
                        " hPa is not one of ERA5's pressure levels (1 to 1000 hPa)");
        }
        if ((layout == SyntheticLayout::CdsLegacyPl || layout == SyntheticLayout::CdsGribPl) &&
            hPa != std::round(hPa)) {
            throw Error("--levels: " + formatCoordinate(hPa) + " hPa is not a whole number of hPa, as the " +
                        layoutName + " layout stores levels (int32 millibars)");
        }
    }
    // As the CDS writes them: grib_to_netcdf from the top down in pressure (1, 2, ... 1000), cfgrib
    // from the surface up (1000, 975, ... 1).
    if (layout == SyntheticLayout::CdsLegacyPl || layout == SyntheticLayout::CdsGribPl) {
        std::sort(contents.levels.begin(), contents.levels.end());
    } else {
        std::sort(contents.levels.begin(), contents.levels.end(), std::greater<>());
    }
    if (const auto dup = std::adjacent_find(contents.levels.begin(), contents.levels.end());
        dup != contents.levels.end()) {
        throw Error("--levels: " + formatCoordinate(*dup) + " hPa is asked for twice");
    }
    return contents;
}

SyntheticRegion SyntheticRegion::parse(std::string_view text) {
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
    SyntheticRegion r{v[0], v[1], v[2], v[3]};
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

SyntheticInfo writeSynthetic(const SyntheticOptions& options, const std::stop_token& stop) {
    if (options.hours < 1) {
        throw Error("--hours must be at least 1");
    }
    const SyntheticRegion& r = options.region;
    synth::Grid grid;
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
    SyntheticContents contents = syntheticContents(options);
    const synth::SyntheticWeather weather(options.seed, grid);
    const synth::Job job{grid,           weather, hoursSince1900, options.hours, stop, contents.variables,
                         contents.levels};

    SyntheticInfo info{
        grid.latitudes.size(), grid.longitudes.size(), static_cast<size_t>(options.hours), options.start, {},
        contents.variables,    contents.levels};
    const std::filesystem::path& out = options.out;
    switch (options.layout) {
    case SyntheticLayout::CdsLegacy:
    case SyntheticLayout::CdsExpver:
    case SyntheticLayout::CdsLegacyPl: {
        PartialFile part(out.string() + ".part");
        synth::writeClassic(part.path(), job, options.layout == SyntheticLayout::CdsExpver);
        part.commitTo(out);
        info.files.push_back(out);
        break;
    }
    case SyntheticLayout::Cds2024:
    case SyntheticLayout::Cds2024Pl: {
        PartialFile part(out.string() + ".part");
        synth::writeCf2024(part.path(), job, job.variables);
        part.commitTo(out);
        info.files.push_back(out);
        break;
    }
    case SyntheticLayout::CdsGrib:
    case SyntheticLayout::CdsGrib2:
    case SyntheticLayout::CdsGribPl: {
        PartialFile part(out.string() + ".part");
        synth::writeGrib(part.path(), job, options.layout == SyntheticLayout::CdsGrib2 ? 2 : 1,
                         options.layout != SyntheticLayout::CdsGrib2);
        part.commitTo(out);
        info.files.push_back(out);
        break;
    }
    case SyntheticLayout::Cds2024Zip: {
        // As the new CDS answers a request mixing instant and accumulated variables: one member per
        // GRIB step type (instant, accum, avg, max, min), those the request has.
        std::vector<std::string> stepTypes;
        for (Variable v : job.variables) {
            const std::string stepType(synth::stepTypeOf(spec(v)));
            if (std::find(stepTypes.begin(), stepTypes.end(), stepType) == stepTypes.end()) {
                stepTypes.push_back(stepType);
            }
        }
        std::vector<std::unique_ptr<PartialFile>> members;
        std::vector<std::pair<std::string, std::filesystem::path>> entries;
        for (const std::string& stepType : stepTypes) {
            std::vector<Variable> group;
            std::copy_if(job.variables.begin(), job.variables.end(), std::back_inserter(group),
                         [&](Variable v) { return synth::stepTypeOf(spec(v)) == stepType; });
            members.push_back(std::make_unique<PartialFile>(out.string() + "." + stepType + ".part"));
            synth::writeCf2024(members.back()->path(), job, group);
            entries.emplace_back("data_stream-oper_stepType-" + stepType + ".nc", members.back()->path());
        }
        PartialFile zip(out.string() + ".part");
        writeZip(zip.path(), entries);
        zip.commitTo(out);
        info.files.push_back(out);
        break;
    }
    case SyntheticLayout::Ncar: {
        std::int64_t first = hoursSince1900;
        int hours = options.hours;
        info.files = synth::writeNcar(out, job, first, hours);
        info.hours = static_cast<size_t>(hours);
        info.start =
            pgTimestampFromUnixMicros((first * 3600 + daysFromCivil(1900, 1, 1) * 86400) * kMicrosPerSecond);
        break;
    }
    }
    return info;
}

} // namespace isobar
