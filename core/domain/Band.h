#pragma once

#include "domain/Variable.h"

namespace isobar {

// The decoded values of one band (a run of latitude rows of one time step), as era5 produces them
// and copy encodes them: per variable, rows x cols floats in table units (NaN = NULL), or nullptr
// when the column is NULL for the whole band (the variable is not in the files, or not chosen).
// The pointers are into storage the producer owns (era5's DecodedBand).
using BandValues = PerVariable<const float*>;

} // namespace isobar
