// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/LocalCluster.h"

#include <filesystem>
#include <optional>
#include <string>

namespace isobar {

// The options of the embedded cluster that Isobar runs when no server is configured: bulk-load
// friendly settings that keep every durability guarantee (fsync, full_page_writes and
// synchronous_commit stay on): shared_buffers a quarter of RAM (128MB..4GB), max_wal_size 4GB so a
// load does not checkpoint every few seconds, checkpoint_timeout 15min.
LocalClusterOptions embeddedClusterOptions(const std::optional<std::filesystem::path>& rootDir = std::nullopt,
                                           std::optional<int> port = std::nullopt);

// Starts the embedded cluster (with embeddedClusterOptions()) unless it runs already; returns its
// connection string. Blocking (initdb on first use takes seconds); throws isobar::Error.
std::string startEmbeddedCluster();

} // namespace isobar
