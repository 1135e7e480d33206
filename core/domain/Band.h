#pragma once

#include <vector>

namespace isobar {

// The decoded values of one band (a run of latitude rows of one time step, at one level), as era5
// produces them and copy encodes them: per value column of the load, in the table's order, rows x
// cols floats in table units (NaN = NULL), or nullptr when the column is NULL for the whole band
// (the variable is not in the files). The pointers are into storage the producer owns (era5's
// DecodedBand).
using BandValues = std::vector<const float*>;

} // namespace isobar
