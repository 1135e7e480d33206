// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace isobar {

// An account to run a child process as. Used when Isobar runs as root: initdb and postgres refuse
// to run as root, so the embedded cluster's programs run as an unprivileged system user.
struct RunAs {
    std::string name;
    uid_t uid = 0;
    gid_t gid = 0;
    std::filesystem::path home;

    // Looks the user up in the password database; nullopt when there is no such user.
    static std::optional<RunAs> lookup(const std::string& name);
};

struct ProcessOptions {
    std::optional<RunAs> runAs;
    std::filesystem::path workingDirectory = "/";
    std::chrono::milliseconds timeout = std::chrono::minutes(5);
    // Environment variables removed from the child's environment (exact names or a prefix ending
    // in '*'), then these set.
    std::vector<std::string> unsetEnvironment;
    std::vector<std::pair<std::string, std::string>> setEnvironment;
};

struct ProcessResult {
    int exitCode = -1;  // valid when the process exited normally
    int termSignal = 0; // non-zero when it was killed by a signal
    bool timedOut = false;
    std::string output; // stdout and stderr, interleaved as written

    bool ok() const noexcept { return !timedOut && termSignal == 0 && exitCode == 0; }
    // "exit code 1", "killed by signal 9", "timed out after 60 s"
    std::string describeOutcome() const;
};

// Runs `program` with `args` (no shell), capturing its output. Throws isobar::Error only when the
// process cannot be started at all; a non-zero exit is reported in the result.
ProcessResult runProcess(const std::filesystem::path& program, const std::vector<std::string>& args,
                         const ProcessOptions& options = {});

// This machine's name (gethostname), "localhost" when it has none.
std::string hostName();

// True when a process with this PID exists (it may belong to another user).
bool processExists(pid_t pid);

// What /proc/<pid>/stat shows every user about a process: enough to tell a PID that was reused
// by another process after the first one died (same PID, other start).
struct ProcessStamp {
    std::string name;                  // the command name (at most 15 characters)
    char state = '?';                  // R, S, D, Z (zombie), X (dead), ...
    unsigned long long startTicks = 0; // start time in clock ticks since boot: unique with the PID
    long long startTime = 0;           // start time, seconds since the epoch (0 when unknown)
};
std::optional<ProcessStamp> readProcessStamp(pid_t pid);
// Not a zombie or dead.
bool isAlive(const ProcessStamp& stamp);

// The user name of the effective user of this process.
std::string currentUserName();

} // namespace isobar
