// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// A disk small enough to fill: a tmpfs mounted for one test executable (root only), the free space
// on it as statvfs has it, and a TestCluster placed on it.

#include "TestCluster.h"
#include "db/ServerStorage.h"
#include "util/Error.h"

#include <QFile>
#include <QProcess>
#include <QScopeGuard>
#include <QString>
#include <QTemporaryDir>

#include <cerrno>
#include <chrono>
#include <fcntl.h>
#include <filesystem>
#include <memory>
#include <optional>
#include <sys/statvfs.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

namespace isobar::test {

// The free and total bytes of the filesystem of `dir`, as statvfs has them.
inline ServerFilesystem statvfsOf(const std::filesystem::path& dir) {
    struct statvfs v {};
    if (::statvfs(dir.c_str(), &v) != 0) {
        return {dir, -1, -1};
    }
    const auto block = static_cast<double>(v.f_frsize);
    return {dir, static_cast<double>(v.f_bavail) * block, static_cast<double>(v.f_blocks) * block};
}

// A tmpfs of its own mounted for the test (root only): a disk small enough to fill in a second,
// with a file that takes its free space down to what a test wants left (fallocate: instant on
// tmpfs). Unmounted when it goes, which must be after the cluster on it is stopped.
class SmallDisk {
public:
    explicit SmallDisk(const QString& size) {
        const int rc =
            geteuid() != 0
                ? -1
                : QProcess::execute("mount", {"-t", "tmpfs", "-o", "size=" + size, "tmpfs", dir_.path()});
        mounted_ = rc == 0;
        why_ = geteuid() != 0 ? QString("mounting a small disk needs root")
                              : QString("mount -t tmpfs %1 failed (exit %2)").arg(dir_.path()).arg(rc);
    }
    SmallDisk(const SmallDisk&) = delete;
    SmallDisk& operator=(const SmallDisk&) = delete;
    ~SmallDisk() {
        unfill();
        // The server's last processes may still be leaving it: a few tries, then a lazy unmount.
        for (int i = 0; mounted_ && i < 20; ++i) {
            mounted_ = QProcess::execute("umount", {dir_.path()}) != 0;
            std::this_thread::sleep_for(std::chrono::milliseconds(mounted_ ? 100 : 0));
        }
        if (mounted_ && QProcess::execute("umount", {"-l", dir_.path()}) != 0) {
            qWarning("cannot unmount %s", qPrintable(dir_.path()));
        }
    }
    bool mounted() const { return mounted_; }
    QString why() const { return why_; }
    QString path() const { return dir_.path(); }

    // Empty when the filler leaves `leaveFree` bytes free, else why not.
    QString fillTo(double leaveFree) const {
        const double free = statvfsOf(dir_.path().toStdString()).freeBytes;
        const int fd = ::open(QFile::encodeName(filler()).constData(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        const int rc =
            fd < 0 || free < leaveFree ? -1 : ::posix_fallocate(fd, 0, static_cast<off_t>(free - leaveFree));
        if (fd >= 0) {
            ::close(fd);
        }
        return rc == 0 ? QString()
                       : QString("cannot fill %1 (%2 bytes free): %3").arg(filler()).arg(free).arg(rc);
    }
    // Empty when the filler takes every byte left, so that the next page anyone writes there meets
    // ENOSPC, else why not.
    QString fillUp() const {
        const int fd =
            ::open(QFile::encodeName(filler()).constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd < 0) {
            return QString("cannot create %1: %2")
                .arg(filler(), QString::fromStdString(systemErrorText(errno)));
        }
        // The bulk at once; the server writes meanwhile, and a fallocate of more than is free takes
        // nothing: a MiB less at each try.
        constexpr off_t kMiB = 1024 * 1024;
        off_t size = 0;
        for (off_t less = 0; size == 0 && less < 10 * kMiB; less += kMiB) {
            const auto free = static_cast<off_t>(statvfsOf(dir_.path().toStdString()).freeBytes) - less;
            size = free > 0 && ::posix_fallocate(fd, 0, free) == 0 ? free : 0;
        }
        // Then a page at a time until there is none.
        const std::vector<char> page(4096, 'x');
        ssize_t written = 0;
        while ((written = ::pwrite(fd, page.data(), page.size(), size)) > 0) {
            size += written;
        }
        const int error = errno;
        ::close(fd);
        return written < 0 && error == ENOSPC ? QString()
                                              : QString("cannot fill %1 (%2 bytes in it): %3")
                                                    .arg(filler())
                                                    .arg(size)
                                                    .arg(QString::fromStdString(systemErrorText(error)));
    }
    void unfill() const { QFile::remove(filler()); }

private:
    QString filler() const { return dir_.path() + "/filler"; }

    QTemporaryDir dir_;
    bool mounted_ = false;
    QString why_;
};

// A TestCluster whose directory (data, socket, work) is under `dir`: TestCluster places itself in
// QDir::tempPath(), $TMPDIR. The load reports stay where they were (not on the small disk).
inline std::unique_ptr<TestCluster> clusterUnder(const QString& dir, const LocalClusterOptions& options) {
    std::vector<std::pair<const char*, std::optional<QByteArray>>> saved;
    for (const char* name : {"TMPDIR", "ISOBAR_REPORT_DIR", "ISOBAR_STATE_DIR"}) {
        saved.emplace_back(name,
                           qEnvironmentVariableIsSet(name) ? std::optional(qgetenv(name)) : std::nullopt);
    }
    const auto restore = qScopeGuard([&saved] {
        for (const auto& [name, value] : saved) {
            value ? qputenv(name, *value) : qunsetenv(name);
        }
    });
    qputenv("TMPDIR", QFile::encodeName(dir));
    return std::make_unique<TestCluster>(options);
}

} // namespace isobar::test
