// SPDX-License-Identifier: GPL-3.0-or-later

#include "era5/BandReader.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

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

void BandReader::fetchSource(const SourceRef& source, std::size_t column, bool previous, std::size_t row0,
                             std::size_t rows, RawUnit& unit, Spare& spare) const {
    const Era5File& file = dataset_.files()[source.file];
    const FileVariable& var = file.variables()[source.variable];
    const FileStep& step = file.steps()[source.step];
    const std::size_t fileRow = file.firstFileRow(row0, rows);
    const std::size_t positions = var.expverOrder.empty() ? 1 : var.expverOrder.size();
    for (std::size_t rank = 0; rank < positions; ++rank) {
        RawPiece& piece = unit.pieces.emplace_back(spare.next());
        piece.column = column;
        piece.previousHour = previous;
        piece.source = source;
        const std::size_t position = var.expverOrder.empty() ? 0 : var.expverOrder[rank];
        file.readRaw(var, step, position, source.level, fileRow, rows, piece.raw);
    }
}

BandReader::Spare BandReader::start(std::size_t step, std::size_t row0, std::size_t rows, bool hours,
                                    RawUnit& unit) {
    unit.step = step;
    unit.row0 = row0;
    unit.rows = rows;
    unit.hours = hours;
    // The unit's pieces of an earlier read, taken again in order: their buffers keep their memory
    // (a read into a fresh one costs the page faults and the zeroing of the memory first).
    Spare spare{std::move(unit.pieces)};
    unit.pieces.clear();
    return spare;
}

void BandReader::fetch(std::size_t stepIndex, std::size_t row0, std::size_t rows, RawUnit& unit) const {
    const DatasetStep& step = dataset_.steps()[stepIndex];
    Spare spare = start(stepIndex, row0, rows, false, unit);
    const auto& columnVariables = dataset_.columnVariables();
    for (std::size_t c = 0; c < columnVariables.size(); ++c) {
        if (!columnVariables[c] || !step.sources[*columnVariables[c]]) {
            continue;
        }
        const std::size_t v = *columnVariables[c];
        const SourceRef& source = *step.sources[v];
        fetchSource(source, c, false, row0, rows, unit, spare);
        if (dataset_.variableOf(source).accumulatedSinceMidnight && needsPreviousHour(step.time) &&
            step.previous[v]) {
            fetchSource(*step.previous[v], c, true, row0, rows, unit, spare);
        }
    }
}

void BandReader::fetchHours(std::size_t stepIndex, std::size_t count, RawUnit& unit) const {
    const DatasetStep& step = dataset_.steps()[stepIndex];
    Spare spare = start(stepIndex, 0, count, true, unit);
    const auto& columnVariables = dataset_.columnVariables();
    for (std::size_t c = 0; c < columnVariables.size(); ++c) {
        if (!columnVariables[c] || !step.sources[*columnVariables[c]]) {
            continue;
        }
        const SourceRef& source = *step.sources[*columnVariables[c]];
        const Era5File& file = dataset_.files()[source.file];
        RawPiece& piece = unit.pieces.emplace_back(spare.next());
        piece.column = c;
        piece.previousHour = false;
        piece.source = source;
        file.readSeries(file.variables()[source.variable], file.steps()[source.step], count, piece.raw);
    }
}

void BandReader::decodePieces(const RawUnit& unit, std::size_t column, bool previous, std::size_t cols,
                              float* out, std::vector<float>& scratch) const {
    bool first = true;
    const std::size_t n = unit.rows * cols;
    for (const RawPiece& piece : unit.pieces) {
        if (piece.column != column || piece.previousHour != previous) {
            continue;
        }
        const Era5File& file = dataset_.files()[piece.source.file];
        const ValueDecoder& decoder = decoderFor(piece.source);
        // Hours are rows in time order, never flipped as latitudes would be.
        const bool ascending = !unit.hours && file.latitudesAscending();
        if (first) {
            decoder.decodeInto(piece.raw, ascending, file.columnRuns(), cols, out);
            first = false;
            continue;
        }
        // A less trusted expver: fills only what the more trusted ones left missing.
        scratch.resize(n);
        decoder.decodeInto(piece.raw, ascending, file.columnRuns(), cols, scratch.data());
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
    const auto& columnVariables = dataset_.columnVariables();
    out.storage.resize(columnVariables.size() * n);
    out.values.assign(columnVariables.size(), nullptr);
    for (std::size_t c = 0; c < columnVariables.size(); ++c) {
        if (!columnVariables[c] || !step.sources[*columnVariables[c]]) {
            continue;
        }
        const std::size_t v = *columnVariables[c];
        const std::span<float> column(out.storage.data() + c * n, n);
        decodePieces(unit, c, false, cols, column.data(), out.scratch);
        if (dataset_.variableOf(*step.sources[v]).accumulatedSinceMidnight && needsPreviousHour(step.time)) {
            // ERA5-Land: the amount of this hour is this value minus the one an hour earlier (the
            // 01 UTC value is the first hour's amount as it is). For amounts that cannot be negative
            // (precipitation, downward radiation, runoff) tiny negative differences are packing
            // noise: no precipitation falls upwards. Evaporation, net thermal radiation and heat
            // fluxes are negative by convention, and keep their sign.
            const auto& variable = dataset_.variableOf(*step.sources[v]).column.variable;
            const bool nonNegative = variable && spec(*variable).typicalMin >= 0.0;
            if (!step.previous[v]) {
                std::fill(column.begin(), column.end(), std::numeric_limits<float>::quiet_NaN());
            } else {
                out.previous.resize(n);
                decodePieces(unit, c, true, cols, out.previous.data(), out.scratch);
                for (std::size_t k = 0; k < n; ++k) {
                    const double diff = static_cast<double>(column[k]) - static_cast<double>(out.previous[k]);
                    column[k] = std::isnan(diff)
                                    ? std::numeric_limits<float>::quiet_NaN()
                                    : static_cast<float>(nonNegative ? std::max(diff, 0.0) : diff);
                }
            }
        }
        out.values[c] = column.data();
    }
}

std::vector<float> BandReader::readSource(const SourceRef& source) const {
    const Era5File& file = dataset_.files()[source.file];
    const GridBox& box = file.box();
    RawUnit unit;
    unit.rows = box.rows;
    Spare none;
    fetchSource(source, 0, false, 0, box.rows, unit, none);
    std::vector<float> out(box.rows * box.cols);
    std::vector<float> scratch;
    decodePieces(unit, 0, false, box.cols, out.data(), scratch);
    return out;
}

} // namespace isobar
