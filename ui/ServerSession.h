// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "TargetCheck.h"
#include "db/Connection.h"

#include <atomic>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>

namespace isobar::ui {

// A window's connection for its reads from a server (the table map's maps and series, an audit),
// opened on first use on the job's thread and used by one job at a time (the window's JobQueue).
// The window and each of its jobs hold it by shared_ptr: the window may close while a job still
// reads, and the connection then goes with the job.
//
// A job's stop interrupts the query it runs: the server is asked to cancel it (libpq's cancel request,
// through the connection's CancelHandle, sent from a pool of its own so that the GUI thread that stops a job
// never waits for the network), and the job's later queries throw Cancelled without reaching the server. The
// next job opens a connection of its own, so a cancel on its way can never interrupt its queries.
class ServerSession {
public:
    ServerSession(ConnectionChoice choice, std::string applicationName)
        : choice_(std::move(choice))
        , applicationName_(std::move(applicationName)) {}

    // On the job's thread: `work(Connection&)` on the session's connection (opened first when
    // needed, which may start the embedded cluster), its queries interrupted once `stop` is
    // requested. Throws what `work` throws (Cancelled after a stop), and DbError when the
    // connection cannot be made.
    template <typename Work>
    auto read(const std::stop_token& stop, Work&& work) {
        if (stop.stop_requested()) {
            throw Cancelled();
        }
        Connection& conn = connection();
        // Runs on the thread that asks for the stop (the GUI's), or here when that happened
        // since the look above.
        const std::stop_callback interrupt(stop, [this, handle = conn.cancelHandle()] {
            abandoned_ = true;
            cancel(handle);
        });
        return std::forward<Work>(work)(conn);
    }

private:
    Connection& connection();
    // Sends `handle`'s cancel: from the pool for cancels when called on the GUI thread, else right
    // here (a job's thread may wait for the server).
    static void cancel(const CancelHandle& handle);

    ConnectionChoice choice_;
    std::string applicationName_;
    std::optional<Connection> conn_;     // the job's thread's (one job at a time)
    std::atomic<bool> abandoned_{false}; // a job's stop cancelled conn_: the next job opens another
};

} // namespace isobar::ui
