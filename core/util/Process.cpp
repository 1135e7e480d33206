// SPDX-License-Identifier: GPL-3.0-or-later

#include "util/Process.h"

#include "util/Error.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <grp.h>
#include <limits>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace isobar {

namespace {

bool matchesUnset(const std::string& name, const std::vector<std::string>& patterns) {
    for (const auto& pattern : patterns) {
        if (!pattern.empty() && pattern.back() == '*') {
            if (name.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0) {
                return true;
            }
        } else if (name == pattern) {
            return true;
        }
    }
    return false;
}

std::vector<std::string> buildEnvironment(const ProcessOptions& options) {
    std::vector<std::string> env;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
        std::string item(*entry);
        const auto eq = item.find('=');
        const std::string name = item.substr(0, eq);
        if (matchesUnset(name, options.unsetEnvironment)) {
            continue;
        }
        bool overridden = false;
        for (const auto& [key, value] : options.setEnvironment) {
            overridden = overridden || key == name;
        }
        if (options.runAs && (name == "HOME" || name == "USER" || name == "LOGNAME")) {
            continue;
        }
        if (!overridden) {
            env.push_back(std::move(item));
        }
    }
    if (options.runAs) {
        env.push_back("HOME=" + options.runAs->home.string());
        env.push_back("USER=" + options.runAs->name);
        env.push_back("LOGNAME=" + options.runAs->name);
    }
    for (const auto& [key, value] : options.setEnvironment) {
        env.push_back(key + "=" + value);
    }
    return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
    std::vector<char*> result;
    result.reserve(strings.size() + 1);
    for (auto& s : strings) {
        result.push_back(s.data());
    }
    result.push_back(nullptr);
    return result;
}

} // namespace

std::optional<RunAs> RunAs::lookup(const std::string& name) {
    std::array<char, 4096> buffer{};
    passwd pwd{};
    passwd* found = nullptr;
    if (getpwnam_r(name.c_str(), &pwd, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
        return std::nullopt;
    }
    return RunAs{name, pwd.pw_uid, pwd.pw_gid, pwd.pw_dir != nullptr ? pwd.pw_dir : "/"};
}

std::string hostName() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) {
        return "localhost";
    }
    return name;
}

bool processExists(pid_t pid) {
    return kill(pid, 0) == 0 || errno == EPERM;
}

namespace {

// Boot time (seconds since the epoch) from /proc/stat, to turn a process's start tick into a time.
std::optional<long long> bootTime() {
    std::ifstream in("/proc/stat");
    std::string key;
    while (in >> key) {
        if (key == "btime") {
            long long t = 0;
            in >> t;
            return t;
        }
        in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    return std::nullopt;
}

} // namespace

std::optional<ProcessStamp> readProcessStamp(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line)) {
        return std::nullopt;
    }
    const auto open = line.find('(');
    const auto close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open) {
        return std::nullopt;
    }
    ProcessStamp stamp;
    stamp.name = line.substr(open + 1, close - open - 1);
    std::istringstream rest(line.substr(close + 1));
    std::vector<std::string> fields;
    std::string field;
    while (rest >> field) {
        fields.push_back(field);
    }
    if (fields.size() < 20) {
        return std::nullopt;
    }
    stamp.state = fields[0].empty() ? '?' : fields[0][0];
    stamp.startTicks = std::stoull(fields[19]);
    const long ticks = sysconf(_SC_CLK_TCK);
    if (const auto boot = bootTime(); boot && ticks > 0) {
        stamp.startTime = *boot + static_cast<long long>(stamp.startTicks) / ticks;
    }
    return stamp;
}

bool isAlive(const ProcessStamp& stamp) {
    return stamp.state != 'Z' && stamp.state != 'X';
}

std::string currentUserName() {
    std::array<char, 4096> buffer{};
    passwd pwd{};
    passwd* found = nullptr;
    if (getpwuid_r(geteuid(), &pwd, buffer.data(), buffer.size(), &found) == 0 && found != nullptr) {
        return pwd.pw_name;
    }
    return "uid" + std::to_string(geteuid());
}

std::string ProcessResult::describeOutcome() const {
    if (timedOut) {
        return "timed out";
    }
    if (termSignal != 0) {
        // sigdescr_np, not strsignal: strsignal may write a static buffer shared by all threads, and
        // LocalCluster describes its tools' outcomes from whichever thread started them.
        const char* description = sigdescr_np(termSignal);
        return "killed by signal " + std::to_string(termSignal) + " (" +
               (description != nullptr ? description : "unknown signal") + ")";
    }
    return "exit code " + std::to_string(exitCode);
}

ProcessResult runProcess(const std::filesystem::path& program, const std::vector<std::string>& args,
                         const ProcessOptions& options) {
    // Everything the child needs is prepared before fork(): after fork() in a multi-threaded process
    // only async-signal-safe calls are allowed until execve().
    std::vector<std::string> argvStrings;
    argvStrings.push_back(program.string());
    argvStrings.insert(argvStrings.end(), args.begin(), args.end());
    std::vector<std::string> envStrings = buildEnvironment(options);
    std::vector<char*> argv = pointers(argvStrings);
    std::vector<char*> envp = pointers(envStrings);
    const std::string workingDirectory = options.workingDirectory.string();
    const std::string programPath = program.string();

    std::array<int, 2> fds{};
    if (pipe2(fds.data(), O_CLOEXEC) != 0) {
        throw Error("cannot create a pipe to run " + programPath + ": " + systemErrorText(errno));
    }
    const int devNull = open("/dev/null", O_RDONLY | O_CLOEXEC);

    const pid_t pid = fork();
    if (pid < 0) {
        const int err = errno;
        close(fds[0]);
        close(fds[1]);
        if (devNull >= 0) {
            close(devNull);
        }
        throw Error("cannot start " + programPath + ": " + systemErrorText(err));
    }
    if (pid == 0) {
        // The child inherits our signal mask (the CLI blocks SIGINT/SIGTERM to handle them on a
        // thread); a server started with them blocked could not be stopped.
        sigset_t none;
        sigemptyset(&none);
        pthread_sigmask(SIG_SETMASK, &none, nullptr);
        if (devNull >= 0) {
            dup2(devNull, STDIN_FILENO);
        }
        dup2(fds[1], STDOUT_FILENO);
        dup2(fds[1], STDERR_FILENO);
        if (options.runAs) {
            if (setgroups(0, nullptr) != 0 || setgid(options.runAs->gid) != 0 ||
                setuid(options.runAs->uid) != 0) {
                static constexpr char msg[] = "isobar: cannot switch to the server's user account\n";
                (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
                _exit(126);
            }
        }
        if (chdir(workingDirectory.c_str()) != 0) {
            static constexpr char msg[] = "isobar: cannot change to the working directory\n";
            (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
            _exit(126);
        }
        execve(programPath.c_str(), argv.data(), envp.data());
        static constexpr char msg[] = "isobar: cannot execute the program\n";
        (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
        _exit(127);
    }

    close(fds[1]);
    if (devNull >= 0) {
        close(devNull);
    }

    ProcessResult result;
    const auto deadline = std::chrono::steady_clock::now() + options.timeout;
    std::array<char, 8192> chunk{};
    for (;;) {
        const auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (remaining.count() <= 0) {
            result.timedOut = true;
            kill(pid, SIGKILL);
            break;
        }
        pollfd pfd{fds[0], POLLIN, 0};
        const int ready = poll(&pfd, 1, static_cast<int>(std::min<long long>(remaining.count(), 1000)));
        if (ready < 0 && errno == EINTR) {
            continue;
        }
        if (ready <= 0) {
            continue;
        }
        const ssize_t n = read(fds[0], chunk.data(), chunk.size());
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break; // EOF: the child (and anything that inherited the pipe) closed it
        }
        result.output.append(chunk.data(), static_cast<size_t>(n));
    }
    close(fds[0]);

    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            throw Error("cannot wait for " + programPath + ": " + systemErrorText(errno));
        }
    }
    if (WIFEXITED(status)) {
        result.exitCode = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        result.termSignal = WTERMSIG(status);
    }
    return result;
}

} // namespace isobar
