// SPDX-License-Identifier: GPL-3.0-or-later

#include "util/Files.h"

#include "util/Error.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace isobar {

namespace {

// Flushes a directory's entries (a rename or unlink in it) to disk. Best effort: some file
// systems refuse fsync on directories, and the data itself is already safe by then.
void syncDirectory(const fs::path& dir) {
    const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

} // namespace

fs::path stateDirectory() {
    if (const char* dir = std::getenv("ISOBAR_STATE_DIR"); dir != nullptr && *dir != '\0') {
        return dir;
    }
    if (geteuid() == 0) {
        return "/var/lib/isobar";
    }
    if (const char* state = std::getenv("XDG_STATE_HOME"); state != nullptr && *state == '/') {
        return fs::path(state) / "isobar";
    }
    const char* home = std::getenv("HOME");
    return fs::path(home != nullptr ? home : "/tmp") / ".local/state/isobar";
}

void writeFileAtomically(const fs::path& path, const std::string& content, fs::perms permissions) {
    std::error_code ec;
    if (path.has_parent_path()) {
        fs::create_directories(path.parent_path(), ec);
        if (ec) {
            throw Error("cannot create " + path.parent_path().string() + ": " + ec.message());
        }
    }
    // A name of its own: two processes (or threads) writing the same file at once must not write
    // into one temporary file; the last rename wins with a whole file. Created with the
    // permissions asked for, less the umask.
    static std::atomic<unsigned> serial{0};
    fs::path tmp;
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
        tmp = path.string() + ".part-" + std::to_string(::getpid()) + "-" + std::to_string(serial++);
        fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, static_cast<mode_t>(permissions));
        if (fd < 0 && errno != EEXIST) {
            break;
        }
    }
    if (fd < 0) {
        throw Error("cannot write " + tmp.string() + ": " + systemErrorText(errno));
    }
    int error = 0;
    std::size_t written = 0;
    while (error == 0 && written < content.size()) {
        const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            error = errno;
            break;
        }
        written += static_cast<std::size_t>(n);
    }
    if (error == 0 && ::fsync(fd) != 0) {
        error = errno;
    }
    if (::close(fd) != 0 && error == 0) {
        error = errno;
    }
    if (error != 0) {
        fs::remove(tmp, ec);
        throw Error("cannot write " + path.string() + ": " + systemErrorText(error) +
                    (error == ENOSPC ? " (the disk is full)" : ""));
    }
    fs::rename(tmp, path, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw Error("cannot write " + path.string() + ": " + ec.message());
    }
    syncDirectory(path.parent_path());
}

std::string readWholeFile(const fs::path& path, std::error_code& error) {
    error.clear();
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        error = std::error_code(errno, std::generic_category());
        return {};
    }
    // The size is a first guess only: /proc files say 0 and have text, and a file may grow while
    // it is read. One byte more than it, so that a file of that size ends without a second buffer.
    struct stat info {};
    const std::size_t guess =
        ::fstat(fd, &info) == 0 && info.st_size > 0 ? static_cast<std::size_t>(info.st_size) + 1 : 4096;
    std::string content(guess, '\0');
    std::size_t used = 0;
    for (;;) {
        if (used == content.size()) {
            content.resize(content.size() * 2);
        }
        const ssize_t n = ::read(fd, content.data() + used, content.size() - used);
        if (n == 0) {
            break;
        }
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            error = std::error_code(errno, std::generic_category());
            break;
        }
        used += static_cast<std::size_t>(n);
    }
    ::close(fd);
    if (error) {
        return {};
    }
    content.resize(used);
    return content;
}

std::string readWholeFile(const fs::path& path) {
    std::error_code error;
    std::string content = readWholeFile(path, error);
    if (error) {
        throw Error("cannot read " + path.string() + ": " + error.message());
    }
    return content;
}

bool removeFileDurably(const fs::path& path) {
    std::error_code ec;
    const bool removed = fs::remove(path, ec);
    if (ec) {
        throw Error("cannot remove " + path.string() + ": " + ec.message());
    }
    if (removed) {
        syncDirectory(path.parent_path());
    }
    return removed;
}

} // namespace isobar
