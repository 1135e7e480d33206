// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"

#include <cstdint>
#include <stop_token>
#include <string>

namespace isobar {

// A statement sent without waiting for its answer: the client goes on with other work (the file
// write method writes the next file) while the server runs it, then waits for it, or cancels it.
// The connection runs nothing else meanwhile.
class SentStatement {
public:
    // Sends `sql` and returns at once. Throws DbError (`context` says what the statement does).
    SentStatement(Connection& conn, const std::string& sql, std::string context);
    SentStatement(const SentStatement&) = delete;
    SentStatement& operator=(const SentStatement&) = delete;
    // Cancels a statement still running. Never throws.
    ~SentStatement();

    // Waits for the answer and returns the rows the statement reports. A stop request is seen
    // within 100 ms: Cancelled is thrown and the statement still runs (cancel() stops it). Throws
    // DbError when the statement fails.
    std::uint64_t wait(const std::stop_token& stop);
    // Asks the server to stop the statement and discards its answer, so the connection can roll
    // back. Never throws; nothing happens once the answer was read.
    void cancel() noexcept;

    bool running() const noexcept { return running_; }

private:
    Connection& conn_;
    std::string context_;
    bool running_ = false;
};

} // namespace isobar
