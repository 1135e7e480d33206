// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/Connection.h"
#include "db/HugePages.h"
#include "db/LocalCluster.h"
#include "db/PostmasterLock.h"
#include "util/Error.h"
#include "util/Process.h"
#include "util/Text.h"

#include <cstdlib>
#include <filesystem>

namespace isobar {

namespace fs = std::filesystem;

std::vector<std::string> LocalCluster::installedExtensionLibraries() const {
    std::vector<std::string> names;
    for (const char* name : {"citus", "timescaledb"}) { // Citus must come first
        std::error_code ec;
        if (fs::exists(binDir_.parent_path() / "lib" / (std::string(name) + ".so"), ec)) {
            names.emplace_back(name);
        }
    }
    return names;
}

ClusterStatus LocalCluster::status() const {
    ClusterStatus s;
    s.rootDir = rootDir_;
    s.dataDir = dataDir();
    s.socketDir = socketDir_;
    s.port = port_;
    s.serverUser = runAs_ ? runAs_->name : currentUserName();
    std::error_code ec;
    if (!fs::exists(dataDir() / "PG_VERSION", ec)) {
        return s;
    }
    s.state = ClusterState::Stopped;
    if (const auto pid = runningPostmaster()) {
        s.state = ClusterState::Running;
        s.pid = *pid;
        if (const auto info = readPostmasterLockFile(dataDir() / "postmaster.pid")) {
            if (info->port != 0) {
                s.port = info->port;
            }
            if (!info->socketDir.empty()) {
                s.socketDir = info->socketDir;
            }
        }
    }
    s.extensionLibraries = installedExtensionLibraries();
    try {
        std::optional<HugePages> pages = probeHugePages(s.state == ClusterState::Running ? s.pid : 0);
        std::string needed;
        if (s.state == ClusterState::Running) {
            Connection conn = Connection::open(connectionString("postgres"));
            s.preloadLibraries = conn.query("SHOW shared_preload_libraries").text(0, 0);
            needed = conn.query("SHOW shared_memory_size_in_huge_pages").text(0, 0);
        } else {
            const auto setting = [this](const char* name) {
                const ProcessResult r = runServerTool("postgres", {"-C", name, "-D", dataDir().string()},
                                                      std::chrono::seconds(10));
                return r.ok() ? trim(r.output) : "(unknown: " + trim(r.output) + ")";
            };
            s.preloadLibraries = setting("shared_preload_libraries");
            needed = setting("shared_memory_size_in_huge_pages");
        }
        if (pages) {
            pages->needed = std::atoll(needed.c_str());
            s.sharedMemory = describeHugePages(*pages);
        }
    } catch (const Error& e) {
        s.preloadLibraries = std::string("(unknown: ") + e.what() + ")";
    }
    return s;
}

} // namespace isobar
