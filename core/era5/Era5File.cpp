// SPDX-License-Identifier: GPL-3.0-or-later

#include "era5/Era5File.h"

#include "era5/GribParser.h"
#include "era5/NetcdfParser.h"
#include "era5/SeriesParser.h"
#include "era5/TimeUnits.h"
#include "util/Error.h"
#include "util/Format.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <utility>

namespace isobar {

using namespace conventions;

// Does the detective work of Era5File::open, one concern per method.

Era5File Era5File::open(const std::filesystem::path& path, const OpenOptions& options,
                        const std::string& displayName) {
    Era5File file;
    file.path_ = path;
    file.name_ = displayName.empty() ? path.string() : displayName;
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    file.identity_ =
        std::filesystem::path(file.name_).filename().string() + ":" + std::to_string(ec ? 0 : size);
    if (looksLikeGrib(path)) {
        GribParser(file, options).parse();
        return file;
    }
    if (SeriesParser::looksLikeCsv(path)) {
        SeriesParser(file, options).parseCsv();
        return file;
    }
    {
        // Inspected with a handle of its own, closed again at once: reads reopen it on demand.
        const NetcdfHandle handle = NetcdfHandle::open(path, displayName);
        NetcdfParser(file, handle, options).parse();
    }
    file.stepLevels_ = file.steps_.size() * std::max<std::size_t>(file.levels_.size(), 1);
    file.key_ = nextNetcdfKey();
    return file;
}

Era5File::Era5File(Era5File&& other) noexcept {
    *this = std::move(other);
}

Era5File& Era5File::operator=(Era5File&& other) noexcept {
    if (this != &other) {
        if (key_ != 0) {
            std::lock_guard lock(netcdfMutex());
            NetcdfOpenFiles::instance().release(key_);
        }
        path_ = std::move(other.path_);
        key_ = std::exchange(other.key_, 0);
        chunkCaches_ = std::move(other.chunkCaches_);
        name_ = std::move(other.name_);
        identity_ = std::move(other.identity_);
        format_ = std::move(other.format_);
        layout_ = std::move(other.layout_);
        era5Land_ = other.era5Land_;
        monthly_ = other.monthly_;
        timeRule_ = std::move(other.timeRule_);
        grid_ = other.grid_;
        box_ = other.box_;
        latAscending_ = other.latAscending_;
        gridSpacingAssumed_ = other.gridSpacingAssumed_;
        offGrid_ = other.offGrid_;
        latSpacing_ = other.latSpacing_;
        lonSpacing_ = other.lonSpacing_;
        latitudes_ = std::move(other.latitudes_);
        longitudes_ = std::move(other.longitudes_);
        lonIndex_ = std::move(other.lonIndex_);
        columnRuns_ = std::move(other.columnRuns_);
        steps_ = std::move(other.steps_);
        levels_ = std::move(other.levels_);
        variables_ = std::move(other.variables_);
        ignored_ = std::move(other.ignored_);
        notes_ = std::move(other.notes_);
        latLength_ = other.latLength_;
        lonLength_ = other.lonLength_;
        stepLevels_ = other.stepLevels_;
        grib_ = std::move(other.grib_);
        series_ = std::move(other.series_);
    }
    return *this;
}

Era5File::~Era5File() {
    if (key_ != 0) {
        std::lock_guard lock(netcdfMutex());
        NetcdfOpenFiles::instance().release(key_);
    }
}

const FileVariable* Era5File::find(std::string_view key) const {
    for (const auto& var : variables_) {
        if (var.column.key == key) {
            return &var;
        }
    }
    return nullptr;
}

std::string Era5File::spacingText() const {
    if (latSpacing_ && lonSpacing_ && std::fabs(*latSpacing_ - *lonSpacing_) > 1e-9) {
        return formatCoordinate(*latSpacing_) + " x " + formatCoordinate(*lonSpacing_) + " deg";
    }
    const std::optional<double> step = latSpacing_ ? latSpacing_ : lonSpacing_;
    return step ? formatCoordinate(*step) + " deg" : std::string();
}

std::vector<double> Era5File::boxLatitudes() const {
    std::vector<double> out(latitudes_);
    if (latAscending_) {
        std::reverse(out.begin(), out.end());
    }
    return out;
}

std::vector<double> Era5File::boxLongitudes() const {
    std::vector<double> out(box_.cols);
    for (const ColumnRun& run : columnRuns_) {
        for (size_t k = 0; k < run.length; ++k) {
            const size_t fileCol = run.step > 0 ? run.fileCol + k : run.fileCol + run.length - 1 - k;
            out[run.boxCol + k] = longitudes_[fileCol];
        }
    }
    return out;
}

void Era5File::readRaw(const FileVariable& var, const FileStep& step, std::size_t expverPosition,
                       std::size_t level, std::size_t fileRow, std::size_t rowCount, RawBand& out) const {
    if (grib_) {
        readGrib(var, step, level, fileRow, rowCount, out);
        return;
    }
    if (series_) {
        readSeries(var, step, 1, out);
        return;
    }
    std::array<size_t, NC_MAX_VAR_DIMS> start{};
    std::array<size_t, NC_MAX_VAR_DIMS> count{};
    for (size_t d = 0; d < var.dims.size(); ++d) {
        count[d] = 1;
        switch (var.dims[d]) {
        case DimRole::Time:
        case DimRole::ForecastInit:
            start[d] = step.timeIndex;
            break;
        case DimRole::ForecastHour:
            start[d] = step.hourIndex;
            break;
        case DimRole::Expver:
            start[d] = expverPosition;
            break;
        case DimRole::Level:
            start[d] = level;
            break;
        case DimRole::Latitude:
            start[d] = fileRow;
            count[d] = rowCount;
            break;
        case DimRole::Longitude:
            count[d] = lonLength_;
            break;
        case DimRole::Singleton:
            break;
        }
    }
    out.type = var.type;
    out.rows = rowCount;
    out.cols = lonLength_;
    out.latMajor = var.latBeforeLon;
    const size_t n = out.count();
    int status = NC_NOERR;
    {
        std::lock_guard lock(netcdfMutex());
        const int ncid = NetcdfOpenFiles::instance().acquire(key_, path_, name_, [this](int id) {
            // A cache sized for one time step's chunks: each chunk is decompressed once, not once
            // per band.
            for (const ChunkCache& c : chunkCaches_) {
                nc_set_var_chunk_cache(id, c.varid, c.bytes, c.slotCount, 0.75f);
            }
        });
        switch (var.type) {
        case NC_SHORT:
            out.shorts.resize(n);
            status = nc_get_vara_short(ncid, var.varid, start.data(), count.data(), out.shorts.data());
            break;
        case NC_INT:
            out.ints.resize(n);
            status = nc_get_vara_int(ncid, var.varid, start.data(), count.data(), out.ints.data());
            break;
        case NC_FLOAT:
            out.floats.resize(n);
            status = nc_get_vara_float(ncid, var.varid, start.data(), count.data(), out.floats.data());
            break;
        default:
            out.doubles.resize(n);
            status = nc_get_vara_double(ncid, var.varid, start.data(), count.data(), out.doubles.data());
            break;
        }
    }
    if (status != NC_NOERR) {
        throw Error(name_ + ": cannot read " + var.name + " at " + formatTimestamp(step.time) +
                    (levels_.empty() ? std::string() : ", " + formatCoordinate(levels_[level]) + " hPa") +
                    ", latitude rows " + std::to_string(fileRow) + "-" +
                    std::to_string(fileRow + rowCount - 1) +
                    " (the file may be truncated or corrupt): " + nc_strerror(status));
    }
}

void Era5File::readSeries(const FileVariable& var, const FileStep& first, std::size_t count,
                          RawBand& out) const {
    if (!series_) {
        throw Error(name_ + " is not a point series: its values are not read by the hour");
    }
    const auto variable = static_cast<std::size_t>(&var - variables_.data());
    const RawBand& all = series_->values.at(variable);
    const std::size_t at = first.timeIndex;
    if (count == 0 || at >= all.rows || count > all.rows - at) {
        throw Error(name_ + ": " + var.name + " has no value at " + formatTimestamp(first.time) +
                    (count > 1 ? " or some of the " + std::to_string(count - 1) + " hours after" : ""));
    }
    out.type = all.type;
    out.rows = count;
    out.cols = 1;
    out.latMajor = true;
    const auto slice = [at, count](const auto& from, auto& to) {
        to.assign(from.begin() + static_cast<std::ptrdiff_t>(at),
                  from.begin() + static_cast<std::ptrdiff_t>(at + count));
    };
    switch (all.type) {
    case NC_SHORT:
        slice(all.shorts, out.shorts);
        break;
    case NC_INT:
        slice(all.ints, out.ints);
        break;
    case NC_FLOAT:
        slice(all.floats, out.floats);
        break;
    default:
        slice(all.doubles, out.doubles);
        break;
    }
}

void Era5File::readGrib(const FileVariable& var, const FileStep& step, std::size_t level, std::size_t fileRow,
                        std::size_t rowCount, RawBand& out) const {
    const auto variable = static_cast<std::size_t>(&var - variables_.data());
    const auto stepIndex = static_cast<std::size_t>(&step - steps_.data());
    const std::int32_t message = grib_->at(variable, stepIndex, level);
    if (message < 0) {
        throw Error(name_ + ": no GRIB message holds " + var.name + " at " + formatTimestamp(step.time));
    }
    out.type = NC_FLOAT;
    out.rows = rowCount;
    out.cols = lonLength_;
    out.latMajor = var.latBeforeLon;
    out.floats.resize(out.count());
    std::lock_guard lock(gribMutex());
    const std::vector<float>& values =
        gribValueCache().values(grib_.get(), path_, name_, grib_->messages[static_cast<std::size_t>(message)],
                                static_cast<std::size_t>(message));
    if (values.size() != latLength_ * lonLength_) {
        throw Error(name_ + ": the GRIB message of " + var.name + " at " + formatTimestamp(step.time) +
                    " holds " + std::to_string(values.size()) + " values for " + std::to_string(latLength_) +
                    " x " + std::to_string(lonLength_) + " points; the file is damaged");
    }
    if (var.latBeforeLon) {
        std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(fileRow * lonLength_), out.count(),
                    out.floats.begin());
        return;
    }
    // Latitudes vary fastest (jPointsAreConsecutive): longitude-major, as NetCDF's (lon, lat).
    for (std::size_t i = 0; i < lonLength_; ++i) {
        std::copy_n(values.begin() + static_cast<std::ptrdiff_t>(i * latLength_ + fileRow), rowCount,
                    out.floats.begin() + static_cast<std::ptrdiff_t>(i * rowCount));
    }
}

} // namespace isobar
