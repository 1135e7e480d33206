// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace isobar {

// Writes a ZIP archive of the given files (member name, file on disk), deflate-compressed, as the
// new CDS sends a request that mixes instant and accumulated variables. Throws isobar::Error.
void writeZip(const std::filesystem::path& out,
              const std::vector<std::pair<std::string, std::filesystem::path>>& members);

} // namespace isobar
