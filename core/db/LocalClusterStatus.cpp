#include "db/Connection.h"
#include "db/LocalCluster.h"
#include "db/PostmasterLock.h"
#include "util/Error.h"
#include "util/Process.h"
#include "util/Text.h"

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
        if (s.state == ClusterState::Running) {
            Connection conn = Connection::open(connectionString("postgres"));
            s.preloadLibraries = conn.query("SHOW shared_preload_libraries").text(0, 0);
        } else {
            const ProcessResult r =
                runServerTool("postgres", {"-C", "shared_preload_libraries", "-D", dataDir().string()},
                              std::chrono::seconds(10));
            s.preloadLibraries = r.ok() ? trim(r.output) : "(unknown: " + trim(r.output) + ")";
        }
    } catch (const Error& e) {
        s.preloadLibraries = std::string("(unknown: ") + e.what() + ")";
    }
    return s;
}

} // namespace isobar
