// SPDX-License-Identifier: GPL-3.0-or-later

// The ZIP directory reader (era5/ZipArchive.h) on an archive in memory: what Isobar lists of a
// ZIP the CDS sent (libzip underneath). Refusals are isobar::Error; anything else escaping is a
// finding.

#include "era5/ZipArchive.h"
#include "util/Error.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const auto members = isobar::listZipMembers(std::as_bytes(std::span(data, size)), "fuzz.zip");
        for (const isobar::ZipMember& m : members) {
            // Directories are left out, and every member is a named file of the directory.
            if (m.name.empty() || m.name.back() == '/') {
                std::abort();
            }
        }
    } catch (const isobar::Error&) {
        // A refusal that names the archive: what a damaged download gets.
    }
    return 0;
}
