// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/PostmasterLock.h"

#include "util/Process.h"
#include "util/Text.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <signal.h>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace isobar {

std::optional<PostmasterLockInfo> readPostmasterLockFile(const fs::path& path) {
    std::ifstream in(path);
    if (!in) {
        return std::nullopt;
    }
    std::vector<std::string> lines;
    std::string line;
    while (std::getline(in, line) && lines.size() < 6) {
        lines.push_back(line);
    }
    if (lines.empty()) {
        return std::nullopt;
    }
    PostmasterLockInfo info;
    try {
        info.pid = static_cast<pid_t>(std::stol(lines[0]));
        if (info.pid < 0) {
            info.pid = -info.pid; // a negative PID marks a standalone backend
        }
        if (lines.size() > 1) {
            info.dataDir = lines[1];
        }
        if (lines.size() > 2 && !trim(lines[2]).empty()) {
            info.startTime = std::stoll(lines[2]);
        }
        if (lines.size() > 3 && !trim(lines[3]).empty()) {
            info.port = std::stoi(lines[3]);
        }
        if (lines.size() > 4) {
            info.socketDir = trim(lines[4]);
        }
    } catch (const std::exception&) {
        return std::nullopt;
    }
    return info;
}

bool isPostmasterOf(const PostmasterLockInfo& lock) {
    if (lock.pid <= 0 || !processExists(lock.pid)) {
        return false;
    }
    const auto facts = readProcessStamp(lock.pid);
    if (!facts || !isAlive(*facts)) {
        return false; // gone, or a zombie: dead
    }
    if (facts->name != "postgres" && facts->name != "postmaster") {
        return false; // the PID now belongs to something else
    }
    // Where we may look (our own processes, or root with CAP_SYS_PTRACE), the working directory
    // of a postmaster is its data directory: that decides.
    std::error_code ec;
    const fs::path cwd = fs::read_symlink(fs::path("/proc") / std::to_string(lock.pid) / "cwd", ec);
    if (!ec && !lock.dataDir.empty()) {
        const fs::path wanted = fs::weakly_canonical(lock.dataDir, ec);
        return cwd == (ec ? lock.dataDir : wanted);
    }
    // Otherwise the start time: the server writes the wall-clock time it started into the lock
    // file, and a reused PID started at another time. The kernel's start time is boot time plus
    // ticks, which drifts from the wall clock when a virtual machine is paused, a laptop sleeps or
    // the clock is stepped (7 s seen within half an hour on a VM): only a difference far beyond
    // that is taken for another process.
    constexpr long long kClockDriftSeconds = 300;
    return lock.startTime == 0 || facts->startTime == 0 ||
           std::llabs(facts->startTime - lock.startTime) <= kClockDriftSeconds;
}

} // namespace isobar
