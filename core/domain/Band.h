// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "util/LargeMemory.h"

#include <vector>

namespace isobar {

// The decoded values of one band (a run of latitude rows of one time step, at one level), as era5
// produces them and copy encodes them: per value column of the load, in the table's order, rows x
// cols floats in table units (NaN = NULL), or nullptr when the column is NULL for the whole band
// (the variable is not in the files). The pointers are into storage the producer owns (a
// DecodedBand).
using BandValues = std::vector<const float*>;

// A band's values and the memory they live in, reused band after band by whoever decodes them.
struct DecodedBand {
    // The columns' values, column c from c x rows x cols on: one block, large enough for huge pages
    // (util/LargeMemory), where a vector per column was not.
    std::vector<float, LargeAllocator<float>> storage;
    std::vector<float> scratch;
    std::vector<float> previous;
    BandValues values; // pointers into columns, nullptr for columns without a source
};

} // namespace isobar
