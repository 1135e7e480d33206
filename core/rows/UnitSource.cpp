// SPDX-License-Identifier: GPL-3.0-or-later

#include "rows/UnitSource.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <set>

namespace isobar {

UnitSource::UnitSource(const Dataset& dataset)
    : dataset_(dataset)
    , reader_(dataset) {
    for (const DatasetGeometry& g : dataset.geometries()) {
        encoders_.emplace_back(GridGeometry::forBox(dataset.grid(), g.box, g.latitudes, g.longitudes));
    }
}

void UnitSource::fetch(const WorkUnit& unit, RawUnit& raw) const {
    if (unit.hours > 1) {
        reader_.fetchHours(unit.step, unit.hours, raw);
        return;
    }
    reader_.fetch(unit.step, unit.row0, unit.rows, raw);
}

namespace {

// Whether every column of a unit of hours misses its value at hour k.
bool hourMissing(const BandValues& values, std::size_t k) {
    return std::all_of(values.begin(), values.end(),
                       [k](const float* column) { return column == nullptr || std::isnan(column[k]); });
}

} // namespace

std::uint64_t UnitSource::rowsToSend(const WorkUnit& unit, const DecodedBand& band,
                                     bool skipMissingHours) const {
    if (unit.hours <= 1) {
        return skipMissingHours && allMissing(band.values, unit.rowCount) ? 0 : unit.rowCount;
    }
    std::uint64_t rows = 0;
    for (std::size_t k = 0; k < unit.hours; ++k) {
        if (!skipMissingHours || !hourMissing(band.values, k)) {
            ++rows;
        }
    }
    return rows;
}

void UnitSource::decode(const RawUnit& raw, DecodedBand& out) const {
    reader_.decode(raw, out);
}

void UnitSource::encode(const WorkUnit& unit, const DecodedBand& band, BinaryCopyBuffer& out) const {
    encode(unit, band, 0, unit.hours > 1 ? unit.hours : unit.rows, out);
}

std::size_t UnitSource::encode(const WorkUnit& unit, const DecodedBand& band, std::size_t first,
                               std::size_t count, BinaryCopyBuffer& out, bool skipMissingHours) const {
    const DatasetStep& step = dataset_.steps()[unit.step];
    const std::optional<float> level =
        step.level ? std::optional<float>(static_cast<float>(*step.level)) : std::nullopt;
    BandValues values = band.values;
    if (unit.hours > 1) { // one row an hour, each at its own time
        std::size_t rows = 0;
        for (std::size_t k = first; k < first + count; ++k) {
            if (skipMissingHours && hourMissing(band.values, k)) {
                continue;
            }
            for (std::size_t c = 0; c < values.size(); ++c) {
                values[c] = band.values[c] == nullptr ? nullptr : band.values[c] + k;
            }
            encoders_[step.geometry].encode(
                PgTimestamp{step.time.micros + static_cast<std::int64_t>(k) * kMicrosPerHour}, level, 0, 1,
                values, out, 0, 1);
            ++rows;
        }
        return rows;
    }
    if (first > 0) {
        const std::size_t cols = dataset_.geometries()[step.geometry].box.cols; // the values' stride
        for (const float*& column : values) {
            if (column != nullptr) {
                column += first * cols;
            }
        }
    }
    encoders_[step.geometry].encode(step.time, level, unit.row0 + first, count, values, out, unit.col0,
                                    unit.cols);
    return count * unit.cols;
}

std::size_t UnitSource::rowsPerPiece(const WorkUnit& unit, std::size_t bytes) const {
    const std::size_t cols = std::max<std::size_t>(1, unit.cols);
    const std::size_t rowBytes =
        maxWeatherRowBytes(dataset_.columns().size(), dataset_.steps()[unit.step].level.has_value());
    return std::max<std::size_t>(1, bytes / std::max<std::size_t>(1, cols * rowBytes));
}

namespace {

// Four independent multiply-xor chains over the values' bits, so the CPU runs them side by side.
class ValuePrint {
public:
    explicit ValuePrint(std::uint64_t seed)
        : lanes_{seed, seed ^ 0x9e3779b97f4a7c15ULL, seed ^ 0xbf58476d1ce4e5b9ULL,
                 seed ^ 0x94d049bb133111ebULL} {}

    void add(const float* v, std::size_t n) {
        std::size_t k = 0;
        for (; k + 4 <= n; k += 4) {
            for (std::size_t l = 0; l < 4; ++l) {
                lanes_[l] = (lanes_[l] ^ bits(v[k + l])) * kPrime;
            }
        }
        for (; k < n; ++k) {
            lanes_[0] = (lanes_[0] ^ bits(v[k])) * kPrime;
        }
    }
    void add(std::uint64_t word) { lanes_[1] = (lanes_[1] ^ word) * kPrime; }

    std::uint64_t value() const {
        std::uint64_t h = 0;
        for (std::uint64_t lane : lanes_) {
            h = (h ^ lane) * kPrime;
            h ^= h >> 31; // splitmix64's finish: every bit of every lane reaches every bit
            h *= 0xbf58476d1ce4e5b9ULL;
            h ^= h >> 29;
        }
        return h;
    }

private:
    static constexpr std::uint64_t kPrime = 0x9e3779b97f4a7c15ULL; // odd: every product keeps every bit
    // Every NaN is the same NULL in the table.
    static std::uint64_t bits(float x) {
        std::uint32_t b = 0;
        std::memcpy(&b, &x, 4);
        return std::isnan(x) ? 0x7fc00000ULL : b;
    }
    std::array<std::uint64_t, 4> lanes_;
};

} // namespace

std::uint64_t UnitSource::print(const WorkUnit& unit, const DecodedBand& band) const {
    const DatasetStep& step = dataset_.steps()[unit.step];
    const DatasetGeometry& geometry = dataset_.geometries()[step.geometry];
    const std::size_t stride = geometry.box.cols;
    ValuePrint print(unit.rowCount);
    for (std::size_t i = unit.row0; i < unit.row0 + unit.rows; ++i) {
        const auto lat = static_cast<float>(geometry.latitudes[i]);
        print.add(&lat, 1);
    }
    for (std::size_t j = unit.col0; j < unit.col0 + unit.cols; ++j) {
        const auto lon = static_cast<float>(geometry.longitudes[j]);
        print.add(&lon, 1);
    }
    for (const float* column : band.values) {
        if (column == nullptr) {
            print.add(0x6e756c6c636f6cULL); // a column NULL throughout
            continue;
        }
        print.add(0x76616c756573ULL);
        if (unit.hours > 1) { // the point's values hour after hour
            print.add(column, unit.hours);
            continue;
        }
        for (std::size_t i = 0; i < unit.rows; ++i) {
            print.add(column + i * stride + unit.col0, unit.cols);
        }
    }
    return print.value();
}

std::string UnitSource::filesOf(std::size_t step) const {
    std::set<std::string> names;
    for (const auto& source : dataset_.steps()[step].sources) {
        if (source) {
            names.insert(dataset_.files()[source->file].name());
        }
    }
    std::string out;
    for (const auto& n : names) {
        out += (out.empty() ? "" : ", ") + n;
    }
    return out;
}

bool allMissing(const BandValues& values, std::size_t n) {
    for (const float* column : values) {
        if (column == nullptr) {
            continue;
        }
        for (std::size_t k = 0; k < n; ++k) {
            if (!std::isnan(column[k])) {
                return false;
            }
        }
    }
    return true;
}

} // namespace isobar
