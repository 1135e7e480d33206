// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "domain/Band.h"
#include "era5/Dataset.h"
#include "era5/ValueDecoder.h"

#include <map>
#include <memory>
#include <vector>

namespace isobar {

// Reads a dataset band by band in two halves, so the engine can serialize the first and spread
// the second: fetch() does the netcdf-c calls (under its lock), decode() the unpacking, unit
// conversion, ERA5/ERA5T merge and ERA5-Land de-accumulation (no lock, any thread).
class BandReader {
public:
    explicit BandReader(const Dataset& dataset);

    void fetch(std::size_t step, std::size_t row0, std::size_t rows, RawUnit& unit) const;
    // `count` consecutive hours of a point series from dataset step `step` on, each column from
    // the step's source along its file's time axis (LoadPlan makes such runs only where that holds
    // for every column): decoded as `count` rows of one value, in time order.
    void fetchHours(std::size_t step, std::size_t count, RawUnit& unit) const;
    void decode(const RawUnit& unit, DecodedBand& out) const;

    // Convenience for checks and tools: fetch + decode of one whole step for one variable source.
    std::vector<float> readSource(const SourceRef& source) const;

private:
    // The pieces a unit held before it is read again, handed out in their order.
    struct Spare {
        std::vector<RawPiece> pieces;
        std::size_t taken = 0;
        RawPiece next() { return taken < pieces.size() ? std::move(pieces[taken++]) : RawPiece{}; }
    };

    // Sets the unit's step and rows, and hands out the pieces it held.
    static Spare start(std::size_t step, std::size_t row0, std::size_t rows, bool hours, RawUnit& unit);
    const ValueDecoder& decoderFor(const SourceRef& s) const;
    void fetchSource(const SourceRef& source, std::size_t column, bool previous, std::size_t row0,
                     std::size_t rows, RawUnit& unit, Spare& spare) const;
    // Decodes the pieces of one (column, previous) into `out`, merging expver positions in order.
    void decodePieces(const RawUnit& unit, std::size_t column, bool previous, std::size_t cols, float* out,
                      std::vector<float>& scratch) const;

    const Dataset& dataset_;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::unique_ptr<ValueDecoder>> decoders_;
};

} // namespace isobar
