// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"

#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace isobar {

// Connections opened ahead, each on a thread of its own, while the caller goes on: a load opens its
// workers' and its monitor's connections while its control connection prepares the table, so the
// first rows go out as soon as the table is ready. Each connection costs the server a new process
// (12-25 ms on a 2-core virtual machine), which was otherwise paid, several at once, between the
// table's preparation and the first row.
class WarmConnections {
public:
    using Opener = std::function<Connection()>;

    WarmConnections() = default;
    // Starts opening a connection with each opener, known by its name (one connection a name).
    explicit WarmConnections(std::vector<std::pair<std::string, Opener>> openers);
    WarmConnections(const WarmConnections&) = delete;
    WarmConnections& operator=(const WarmConnections&) = delete;
    // Waits for the openings still under way and closes what was not taken.
    ~WarmConnections();

    // The connection opened under `name`, once it is open (waits for it); nullptr when none was
    // opened under that name, it was taken already, or it could not be opened: the taker then opens
    // its own and meets the failure there, with its own handling (retries, a message naming it).
    std::unique_ptr<Connection> take(const std::string& name);

private:
    std::mutex mutex_;
    std::map<std::string, std::future<std::unique_ptr<Connection>>> pending_;
};

} // namespace isobar
