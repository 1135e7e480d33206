// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace isobar {

// The new CDS answers a request that mixes instant and accumulated variables with a ZIP archive of
// NetCDF files, which users often save under a .nc name. libzip reads such archives (ZIP64 included;
// every member checked against its CRC-32); synth/ZipWriter.h writes them for the synthetic files.
struct ZipMember {
    std::string name;
    std::uint64_t index = 0; // in the archive's central directory
    std::uint64_t compressedSize = 0;
    std::uint64_t size = 0;
};

// True when the file starts with a ZIP local-file or end-of-archive signature.
bool looksLikeZip(const std::filesystem::path& path);

// The members of the archive that are files (not directories). Throws isobar::Error naming the
// archive when it is not a readable ZIP.
std::vector<ZipMember> listZipMembers(const std::filesystem::path& archive);
// The same for an archive in memory (a download not yet saved); messages call it `name`.
std::vector<ZipMember> listZipMembers(std::span<const std::byte> archive, const std::string& name);

// Writes one member, decompressed and CRC-checked, to `out`. Throws isobar::Error naming the
// archive and the member (encrypted, unsupported method, corrupt data, disk full, ...).
void extractZipMember(const std::filesystem::path& archive, const ZipMember& member,
                      const std::filesystem::path& out);

} // namespace isobar
