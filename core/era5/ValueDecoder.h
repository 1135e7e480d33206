// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "era5/Era5File.h"

#include <vector>

namespace isobar {

// Turns raw stored values into table values: unpacks (x * scale_factor + add_offset), converts
// units, and marks missing values (_FillValue, missing_value, NaN) as NaN, which the encoder writes
// as NULL. For packed int16 data it precomputes all 65536 results once, so decoding is one table
// lookup per value.
class ValueDecoder {
public:
    explicit ValueDecoder(const FileVariable& var);

    // Decodes `raw` (file order) into the band `out` (box order: rows north to south, columns
    // west to east; `out` holds raw.rows x boxCols values). `latAscending` says the raw rows run
    // south to north; `runs` maps file columns to box columns.
    void decodeInto(const RawBand& raw, bool latAscending, const std::vector<ColumnRun>& runs,
                    std::size_t boxCols, float* out) const;

    // One stored value, the straightforward way (the reference the fast path is tested against).
    float decodeOne(double stored) const;

private:
    template <typename T>
    void decodeTyped(const T* in, const RawBand& raw, bool latAscending, const std::vector<ColumnRun>& runs,
                     std::size_t boxCols, float* out) const;
    float value(std::int16_t v) const { return shortTable_[static_cast<std::uint16_t>(v)]; }

    const FileVariable* var_;
    std::vector<float> shortTable_; // indexed by the (uint16) raw value
    std::vector<double> missing_;   // the finite missing values (NaN is always missing)
};

// The value a stored value decodes to under `var`'s packing, missing values and conversion; NaN when
// missing.
float decodeStored(const FileVariable& var, double stored);

} // namespace isobar
