#include "ingest/UnitSource.h"

#include <algorithm>
#include <cmath>
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
    reader_.fetch(unit.step, unit.row0, unit.rows, raw);
}

void UnitSource::decode(const RawUnit& raw, DecodedBand& out) const {
    reader_.decode(raw, out);
}

void UnitSource::encode(const WorkUnit& unit, const DecodedBand& band, BinaryCopyBuffer& out) const {
    encode(unit, band, 0, unit.rows, out);
}

void UnitSource::encode(const WorkUnit& unit, const DecodedBand& band, std::size_t first, std::size_t count,
                        BinaryCopyBuffer& out) const {
    const DatasetStep& step = dataset_.steps()[unit.step];
    const std::optional<float> level =
        step.level ? std::optional<float>(static_cast<float>(*step.level)) : std::nullopt;
    BandValues values = band.values;
    if (first > 0) {
        const std::size_t cols = unit.rows > 0 ? unit.rowCount / unit.rows : 0;
        for (const float*& column : values) {
            if (column != nullptr) {
                column += first * cols;
            }
        }
    }
    encoders_[step.geometry].encode(step.time, level, unit.row0 + first, count, values, out);
}

std::size_t UnitSource::rowsPerPiece(const WorkUnit& unit, std::size_t bytes) const {
    const std::size_t cols = unit.rows > 0 ? unit.rowCount / unit.rows : 1;
    const std::size_t rowBytes =
        maxWeatherRowBytes(dataset_.columns().size(), dataset_.steps()[unit.step].level.has_value());
    return std::max<std::size_t>(1, bytes / std::max<std::size_t>(1, cols * rowBytes));
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
