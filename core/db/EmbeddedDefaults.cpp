// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/EmbeddedDefaults.h"

#include <algorithm>
#include <unistd.h>

namespace isobar {

LocalClusterOptions embeddedClusterOptions(const std::optional<std::filesystem::path>& rootDir,
                                           std::optional<int> port) {
    LocalClusterOptions options;
    if (rootDir) {
        options.rootDir = *rootDir;
    }
    if (port) {
        options.port = *port;
    }
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long pageSize = sysconf(_SC_PAGE_SIZE);
    const long long ramMb =
        pages > 0 && pageSize > 0 ? static_cast<long long>(pages) * pageSize / (1024 * 1024) : 4096;
    const long long sharedBuffersMb = std::clamp(ramMb / 4, 128LL, 4096LL);
    options.settings["shared_buffers"] = "'" + std::to_string(sharedBuffersMb) + "MB'";
    options.settings["max_wal_size"] = "'4GB'";
    options.settings["checkpoint_timeout"] = "'15min'";
    options.settings["checkpoint_completion_target"] = "0.9";
    return options;
}

std::string startEmbeddedCluster() {
    LocalCluster cluster(embeddedClusterOptions());
    cluster.start();
    return cluster.connectionString();
}

} // namespace isobar
