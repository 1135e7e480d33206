// SPDX-License-Identifier: GPL-3.0-or-later

// The netCDF classic header reader behind the truncation check (era5/ClassicHeader.h), on bytes.
// Any input must give an answer (a layout, or nullopt) without reading outside the input,
// overflowing or allocating without bound.

#include "era5/ClassicHeader.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto file = std::as_bytes(std::span(data, size));
    const auto layout = isobar::classicLayout(file);
    // A header cut short declares no size; a complete one is a CDF file.
    if (layout && layout->headerTruncated && layout->declaredSize != 0) {
        std::abort();
    }
    if (layout && (size < 4 || data[0] != 'C' || data[1] != 'D' || data[2] != 'F')) {
        std::abort();
    }
    return 0;
}
