// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <filesystem>
#include <string>
#include <system_error>

namespace isobar {

// Where Isobar keeps what must outlive a process (run reports, durability journals):
// $ISOBAR_STATE_DIR if set; /var/lib/isobar for root (as for the embedded cluster); else
// $XDG_STATE_HOME/isobar, by default ~/.local/state/isobar.
std::filesystem::path stateDirectory();

// Replaces `path` with `content` so that a reader - or the next start after a crash or a power
// loss - sees the old file or the new one, never a part: written beside, flushed to disk,
// renamed over, and the directory flushed. Creates missing parent directories. Throws
// isobar::Error naming the file and the cause (a full disk, a read-only directory).
void writeFileAtomically(const std::filesystem::path& path, const std::string& content,
                         std::filesystem::perms permissions = std::filesystem::perms::owner_read |
                                                              std::filesystem::perms::owner_write);

// The whole of the file at `path`, byte for byte. Files under /proc that say they are empty are
// read to their end too. Throws isobar::Error naming the file and the cause (missing, a
// directory, not readable).
std::string readWholeFile(const std::filesystem::path& path);
// The same for a file that may well be missing (a /proc entry of a process that has ended): an
// empty string, with the cause in `error`.
std::string readWholeFile(const std::filesystem::path& path, std::error_code& error);

// Removes `path` and flushes its directory, so the removal survives a crash. Returns false when
// there was nothing to remove; throws isobar::Error when it cannot.
bool removeFileDurably(const std::filesystem::path& path);

} // namespace isobar
