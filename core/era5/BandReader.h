#pragma once

#include "domain/Band.h"
#include "era5/Dataset.h"
#include "era5/ValueDecoder.h"
#include "util/LargeMemory.h"

#include <map>
#include <memory>
#include <vector>

namespace isobar {

// The raw slabs behind one band of one time step: per column one slab per expver position, and
// for ERA5-Land accumulations the slabs of the hour before.
struct RawPiece {
    std::size_t column = 0; // position in the dataset's columns()
    bool previousHour = false;
    SourceRef source;
    RawBand raw;
};

struct RawUnit {
    std::size_t step = 0;
    std::size_t row0 = 0; // first box row
    std::size_t rows = 0;
    std::vector<RawPiece> pieces;
};

// Decoded values of one band: per column of the load rows x cols floats in table units (NaN = NULL).
struct DecodedBand {
    // The columns' values, column c from c x rows x cols on: one block, large enough for huge pages
    // (util/LargeMemory), where a vector per column was not.
    std::vector<float, LargeAllocator<float>> storage;
    std::vector<float> scratch;
    std::vector<float> previous;
    BandValues values; // pointers into columns, nullptr for columns without a source
};

// Reads a dataset band by band in two halves, so the engine can serialize the first and spread
// the second: fetch() does the netcdf-c calls (under its lock), decode() the unpacking, unit
// conversion, ERA5/ERA5T merge and ERA5-Land de-accumulation (no lock, any thread).
class BandReader {
public:
    explicit BandReader(const Dataset& dataset);

    void fetch(std::size_t step, std::size_t row0, std::size_t rows, RawUnit& unit) const;
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
