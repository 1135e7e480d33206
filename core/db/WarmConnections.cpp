// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/WarmConnections.h"

#include <spdlog/spdlog.h>

namespace isobar {

WarmConnections::WarmConnections(std::vector<std::pair<std::string, Opener>> openers) {
    for (auto& opener : openers) {
        // Thread boundary: each connection is opened on a thread of its own and handed, whole, to
        // the one thread that takes it; no two threads ever use it at once.
        pending_.emplace(std::move(opener.first),
                         std::async(std::launch::async, [open = std::move(opener.second)] {
                             return std::make_unique<Connection>(open());
                         }));
    }
}

WarmConnections::~WarmConnections() {
    // A future of std::async waits for its thread when it goes: the connections are closed by then.
    std::lock_guard lock(mutex_);
    pending_.clear();
}

std::unique_ptr<Connection> WarmConnections::take(const std::string& name) {
    std::future<std::unique_ptr<Connection>> opening;
    {
        std::lock_guard lock(mutex_);
        const auto it = pending_.find(name);
        if (it == pending_.end()) {
            return nullptr;
        }
        opening = std::move(it->second);
        pending_.erase(it);
    }
    try {
        return opening.get();
    } catch (const std::exception& e) {
        spdlog::debug("{}: the connection opened ahead failed ({}); it connects again", name, e.what());
        return nullptr;
    }
}

} // namespace isobar
