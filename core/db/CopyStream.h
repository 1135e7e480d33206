// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>

namespace isobar {

// One `COPY ... FROM STDIN` on a connection, from start to its explicit end (the libpqxx shape):
// construct it to enter COPY IN state, send() data, then finish() to end it and read the server's
// verdict. If it is destroyed unfinished (an exception, a cancel), it aborts the COPY so the
// connection is usable again; the destructor never throws.
class CopyStream {
public:
    // Sends `copySql` and expects the server to enter COPY IN. Throws DbError.
    CopyStream(Connection& conn, const std::string& copySql);
    CopyStream(const CopyStream&) = delete;
    CopyStream& operator=(const CopyStream&) = delete;
    ~CopyStream();

    // Hands bytes to libpq (which sends them; blocking connection). Throws DbError.
    void send(std::span<const char> bytes);
    // Ends the COPY successfully and returns the row count the server reports. Throws DbError when
    // the server rejects the data (constraint violation, bad format, ...).
    std::uint64_t finish();
    // Ends the COPY with a failure so the server discards everything sent; the transaction is then
    // aborted. Never throws.
    void abort(const std::string& reason) noexcept;

    bool active() const noexcept { return active_; }

private:
    // Reads results until libpq has none left; returns the error one if any.
    Result drainResults();

    Connection& conn_;
    bool active_ = false;
};

// Runs `copySql`, a `COPY ... TO STDOUT`, and hands each piece the server sends to `sink` in
// order. Returns the bytes read. Throws DbError (`context` says what was being read).
std::uint64_t copyOut(Connection& conn, const std::string& copySql, const std::string& context,
                      const std::function<void(std::span<const char>)>& sink);

} // namespace isobar
