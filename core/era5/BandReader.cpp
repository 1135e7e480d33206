#include "era5/BandReader.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace isobar {

BandReader::BandReader(const Dataset& dataset)
    : dataset_(dataset) {
    for (std::uint32_t f = 0; f < dataset.files().size(); ++f) {
        const auto& vars = dataset.files()[f].variables();
        for (std::uint32_t v = 0; v < vars.size(); ++v) {
            decoders_.emplace(std::pair{f, v}, std::make_unique<ValueDecoder>(vars[v]));
        }
    }
}

const ValueDecoder& BandReader::decoderFor(const SourceRef& s) const {
    return *decoders_.at({s.file, s.variable});
}

void BandReader::fetchSource(const SourceRef& source, Variable variable, bool previous, std::size_t row0,
                             std::size_t rows, RawUnit& unit) const {
    const Era5File& file = dataset_.files()[source.file];
    const FileVariable& var = file.variables()[source.variable];
    const FileStep& step = file.steps()[source.step];
    const std::size_t fileRow = file.firstFileRow(row0, rows);
    const std::size_t positions = var.expverOrder.empty() ? 1 : var.expverOrder.size();
    for (std::size_t rank = 0; rank < positions; ++rank) {
        RawPiece& piece = unit.pieces.emplace_back();
        piece.variable = variable;
        piece.previousHour = previous;
        piece.source = source;
        const std::size_t position = var.expverOrder.empty() ? 0 : var.expverOrder[rank];
        file.readRaw(var, step, position, fileRow, rows, piece.raw);
    }
}

void BandReader::fetch(std::size_t stepIndex, std::size_t row0, std::size_t rows, RawUnit& unit) const {
    const DatasetStep& step = dataset_.steps()[stepIndex];
    unit.step = stepIndex;
    unit.row0 = row0;
    unit.rows = rows;
    unit.pieces.clear();
    for (std::size_t v = 0; v < variableCount(); ++v) {
        const auto& source = step.sources[v];
        if (!source) {
            continue;
        }
        const auto variable = Variable(v);
        fetchSource(*source, variable, false, row0, rows, unit);
        if (dataset_.variableOf(*source).accumulatedSinceMidnight && needsPreviousHour(step.time) &&
            step.previous[v]) {
            fetchSource(*step.previous[v], variable, true, row0, rows, unit);
        }
    }
}

void BandReader::decodePieces(const RawUnit& unit, Variable variable, bool previous, std::size_t cols,
                              float* out, std::vector<float>& scratch) const {
    bool first = true;
    const std::size_t n = unit.rows * cols;
    for (const RawPiece& piece : unit.pieces) {
        if (piece.variable != variable || piece.previousHour != previous) {
            continue;
        }
        const Era5File& file = dataset_.files()[piece.source.file];
        const ValueDecoder& decoder = decoderFor(piece.source);
        if (first) {
            decoder.decodeInto(piece.raw, file.latitudesAscending(), file.columnRuns(), cols, out);
            first = false;
            continue;
        }
        // A less trusted expver: fills only what the more trusted ones left missing.
        scratch.resize(n);
        decoder.decodeInto(piece.raw, file.latitudesAscending(), file.columnRuns(), cols, scratch.data());
        for (std::size_t k = 0; k < n; ++k) {
            if (std::isnan(out[k])) {
                out[k] = scratch[k];
            }
        }
    }
    if (first) {
        std::fill(out, out + n, std::numeric_limits<float>::quiet_NaN());
    }
}

void BandReader::decode(const RawUnit& unit, DecodedBand& out) const {
    const DatasetStep& step = dataset_.steps()[unit.step];
    const std::size_t cols = dataset_.geometries()[step.geometry].box.cols;
    const std::size_t n = unit.rows * cols;
    std::fill(out.values.begin(), out.values.end(), nullptr);
    for (std::size_t v = 0; v < variableCount(); ++v) {
        if (!step.sources[v]) {
            continue;
        }
        const auto variable = Variable(v);
        auto& column = out.columns[v];
        column.resize(n);
        decodePieces(unit, variable, false, cols, column.data(), out.scratch);
        if (dataset_.variableOf(*step.sources[v]).accumulatedSinceMidnight && needsPreviousHour(step.time)) {
            // ERA5-Land: the amount of this hour is this value minus the one an hour earlier (the
            // 01 UTC value is the first hour's amount as it is). Tiny negative differences are
            // packing noise: no precipitation falls upwards.
            if (!step.previous[v]) {
                std::fill(column.begin(), column.end(), std::numeric_limits<float>::quiet_NaN());
            } else {
                out.previous.resize(n);
                decodePieces(unit, variable, true, cols, out.previous.data(), out.scratch);
                for (std::size_t k = 0; k < n; ++k) {
                    const double diff = static_cast<double>(column[k]) - static_cast<double>(out.previous[k]);
                    column[k] = std::isnan(diff) ? std::numeric_limits<float>::quiet_NaN()
                                                 : static_cast<float>(std::max(diff, 0.0));
                }
            }
        }
        out.values[v] = column.data();
    }
}

std::vector<float> BandReader::readSource(const SourceRef& source) const {
    const Era5File& file = dataset_.files()[source.file];
    const GridBox& box = file.box();
    RawUnit unit;
    unit.rows = box.rows;
    fetchSource(source, dataset_.variableOf(source).variable, false, 0, box.rows, unit);
    std::vector<float> out(box.rows * box.cols);
    std::vector<float> scratch;
    decodePieces(unit, dataset_.variableOf(source).variable, false, box.cols, out.data(), scratch);
    return out;
}

} // namespace isobar
