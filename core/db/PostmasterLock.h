// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <filesystem>
#include <optional>
#include <sys/types.h>

namespace isobar {

// Reads a postmaster.pid / socket lock file: line 1 PID, line 2 data directory, line 3 start time
// (seconds since the epoch), line 4 port, line 5 socket directory. nullopt when absent or
// unreadable.
struct PostmasterLockInfo {
    pid_t pid = 0;
    std::filesystem::path dataDir;
    long long startTime = 0;
    int port = 0;
    std::filesystem::path socketDir;
};
std::optional<PostmasterLockInfo> readPostmasterLockFile(const std::filesystem::path& path);

// True when the process the lock file names is alive and is the PostgreSQL server that wrote it.
// After a crash the PID may have been reused by an unrelated process (a reboot, a container
// restart), so this compares the process's name and start time with the lock file's, using only
// what /proc shows every user (root without CAP_SYS_PTRACE, as in a default container, cannot read
// another user's /proc/<pid>/exe or cwd).
bool isPostmasterOf(const PostmasterLockInfo& lock);

} // namespace isobar
