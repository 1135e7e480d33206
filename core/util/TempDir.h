// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "util/Error.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/stat.h>

namespace isobar {

// A private temporary directory ($TMPDIR, else /tmp), removed with everything in it when the
// object goes. `mode` 0711 lets another account (the postgres server) reach files in it by name
// without listing them.
class TempDir {
public:
    explicit TempDir(const std::string& prefix, mode_t mode = 0700) {
        const char* base = std::getenv("TMPDIR");
        std::string pattern =
            std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/" + prefix + "-XXXXXX";
        if (mkdtemp(pattern.data()) == nullptr) {
            throw Error("cannot create a temporary directory " + pattern + ": " + systemErrorText(errno));
        }
        path_ = pattern;
        chmod(path_.c_str(), mode);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    const std::filesystem::path& path() const noexcept { return path_; }

private:
    std::filesystem::path path_;
};

} // namespace isobar
