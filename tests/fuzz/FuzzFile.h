// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// For the fuzzers whose code under test reads files by path (netcdf-c, ecCodes' decoding): the
// input written to a file in a private directory of this process, removed at exit. In memory
// (/dev/shm) unless TMPDIR says otherwise, so that a file per input costs no disk writes; archive
// members Isobar extracts go there too (Dataset extracts under TMPDIR).

#include "util/TempDir.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace isobar::fuzz {

inline void preferMemoryTempDir() {
    std::error_code ec;
    const char* tmp = std::getenv("TMPDIR");
    if ((tmp == nullptr || *tmp == '\0') && std::filesystem::is_directory("/dev/shm", ec)) {
        // NOLINTNEXTLINE(concurrency-mt-unsafe): from LLVMFuzzerInitialize, before any thread starts
        setenv("TMPDIR", "/dev/shm", 1);
    }
}

// Writes `size` bytes to `name` in this process's directory and returns its path.
inline std::filesystem::path writeInput(const std::uint8_t* data, std::size_t size, const std::string& name) {
    static const TempDir dir("isobar-fuzz");
    std::filesystem::path path = dir.path() / name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) {
        std::abort(); // a full /dev/shm: not a finding, but nothing after this would mean anything
    }
    return path;
}

} // namespace isobar::fuzz
