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

// The user name of the effective user of this process.
std::string currentUserName();

} // namespace isobar
