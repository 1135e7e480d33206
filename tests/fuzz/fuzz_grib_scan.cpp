// SPDX-License-Identifier: GPL-3.0-or-later

// The GRIB message scanner (era5/Grib.h, on bytes) and, for what it accepts, the message table
// Era5File::open builds from the messages (era5/GribParser*.cpp; it reads the file by path, so the
// input is written to a file then) and the values of the first time step. ecCodes is underneath.

#include "FuzzFile.h"
#include "LibraryLeaks.h"
#include "era5/Era5File.h"
#include "era5/Grib.h"
#include "util/Error.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

namespace {

// Reads every variable at the first time step and level (at most a million points): the table's
// message for it, decoded and cut to the grid.
void readFirstStep(const isobar::Era5File& file) {
    if (file.steps().empty() || file.box().rows * file.box().cols > (1U << 20)) {
        return;
    }
    isobar::RawBand band;
    for (std::size_t v = 0; v < file.variables().size(); ++v) {
        if (!file.provides(v, 0, 0)) {
            continue;
        }
        file.readRaw(file.variables()[v], file.steps().front(), 0, 0, 0, file.box().rows, band);
    }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
    isobar::fuzz::preferMemoryTempDir();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    isobar::GribScan scan;
    try {
        scan = isobar::scanGrib(std::as_bytes(std::span(data, size)), "fuzz.grib");
    } catch (const isobar::Error&) {
        return 0; // refused, naming the input: what a damaged file gets
    }
    // What the scan promises: messages in file order, each inside the input, padding counted.
    std::uint64_t end = 0;
    for (const isobar::GribMessage& m : scan.messages) {
        if (m.offset < end || m.length == 0 || m.offset + m.length > size) {
            std::abort();
        }
        end = m.offset + m.length;
    }
    if (scan.messages.empty() || scan.fileSize != size || scan.paddingBytes > size) {
        std::abort();
    }
    try {
        const auto path = isobar::fuzz::writeInput(data, size, "input.grib");
        const isobar::Era5File file = isobar::Era5File::open(path);
        readFirstStep(file);
    } catch (const isobar::Error&) {
        // The messages do not make a file Isobar loads, and it says why.
    }
    return 0;
}
