#include "db/PostmasterLock.h"

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

bool processExists(pid_t pid) {
    return kill(pid, 0) == 0 || errno == EPERM;
}

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

struct ProcessFacts {
    std::string name;
    char state = '?';
    long long startTime = 0; // seconds since the epoch, 0 when unknown
};

// /proc/<pid>/stat is readable by everyone: "pid (comm) state ppid ... starttime(22) ...".
std::optional<ProcessFacts> processFacts(pid_t pid) {
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
    ProcessFacts facts;
    facts.name = line.substr(open + 1, close - open - 1);
    std::istringstream rest(line.substr(close + 1));
    std::vector<std::string> fields;
    std::string field;
    while (rest >> field) {
        fields.push_back(field);
    }
    if (fields.size() < 20) {
        return std::nullopt;
    }
    facts.state = fields[0].empty() ? '?' : fields[0][0];
    const long ticks = sysconf(_SC_CLK_TCK);
    if (const auto boot = bootTime(); boot && ticks > 0) {
        facts.startTime = *boot + std::stoll(fields[19]) / ticks;
    }
    return facts;
}

} // namespace

bool isPostmasterOf(const PostmasterLockInfo& lock) {
    if (lock.pid <= 0 || !processExists(lock.pid)) {
        return false;
    }
    const auto facts = processFacts(lock.pid);
    if (!facts || facts->state == 'Z' || facts->state == 'X') {
        return false; // gone, or a zombie: dead
    }
    if (facts->name != "postgres" && facts->name != "postmaster") {
        return false; // the PID now belongs to something else
    }
    // The server writes its start time into the lock file; a reused PID started at another time.
    if (lock.startTime != 0 && facts->startTime != 0 && std::llabs(facts->startTime - lock.startTime) > 3) {
        return false;
    }
    // Where we may look (our own processes, or root with CAP_SYS_PTRACE), the working directory
    // of a postmaster is its data directory.
    std::error_code ec;
    const fs::path cwd = fs::read_symlink(fs::path("/proc") / std::to_string(lock.pid) / "cwd", ec);
    if (!ec && !lock.dataDir.empty()) {
        const fs::path wanted = fs::weakly_canonical(lock.dataDir, ec);
        return cwd == (ec ? lock.dataDir : wanted);
    }
    return true;
}

} // namespace isobar
