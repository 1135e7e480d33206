// SPDX-License-Identifier: GPL-3.0-or-later

// Era5File::open and inspection (era5/Inspection.h), as `isobar-cli inspect FILE` runs them, on a
// file holding the input: NetCDF (netcdf-c, HDF5), GRIB (ecCodes) or a ZIP of them (libzip),
// told apart by content. A file Isobar cannot load must be reported (FileInspection::error), not
// crash, hang or throw past inspect(). With few enough values, every value is read too (--scan).

#include "FuzzFile.h"
#include "LibraryLeaks.h"
#include "era5/Inspection.h"

#include <cstddef>
#include <cstdint>

namespace {

// --scan reads every value; a small file can declare a huge grid (netcdf-c fills what is not
// stored), so only inputs whose values are few are scanned.
bool fewValues(const isobar::Inspection& inspection) {
    std::uint64_t values = 0;
    for (const isobar::FileInspection& f : inspection.files) {
        for (const isobar::VariableInspection& v : f.variables) {
            values += v.valueCount;
        }
    }
    return values <= (std::uint64_t{1} << 22);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
    isobar::fuzz::preferMemoryTempDir();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto path = isobar::fuzz::writeInput(data, size, "input.nc");
    const isobar::OpenOptions options;
    isobar::Inspection inspection = isobar::inspect({path}, options, false);
    if (inspection.ok() && fewValues(inspection)) {
        inspection = isobar::inspect({path}, options, true);
    }
    (void)isobar::renderInspectionText(inspection);
    (void)isobar::renderInspectionJson(inspection);
    return 0;
}
