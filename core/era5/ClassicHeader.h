// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

namespace isobar {

struct ClassicLayout {
    bool headerTruncated = false;   // the file ends inside its own header
    std::uint64_t declaredSize = 0; // bytes the header says the file holds (header + all data)
    // Why the header cannot be what it says ("declares a name or attribute of 2147549184 bytes");
    // empty when it can.
    std::string damage;
};

// netcdf-c reads past the end of a truncated netCDF-3 file without complaint (the missing bytes
// come back as zeros), so an interrupted download would load zeros as data; and it allocates what
// a damaged header declares (gigabytes for a name) before finding out. This reads the classic
// header (CDF-1, CDF-2, CDF-5) itself and returns the size the file must have to hold all the data
// it declares, or what is wrong with it. nullopt: not a classic file, or a streaming file (record
// count unknown).
std::optional<ClassicLayout> classicLayout(const std::filesystem::path& path);
// The same for a file already in memory (`file` is all of it: a header cut short is one that ends
// with these bytes).
std::optional<ClassicLayout> classicLayout(std::span<const std::byte> file);

} // namespace isobar
