// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <stdexcept>
#include <string>
#include <system_error>

namespace isobar {

// The one exception type that leaves core functions. It carries a message written for the user:
// it names what was being done and why it failed. Thread entry points catch it and turn it into
// a value (see ingest/LoadEvents.h), so it never crosses a thread boundary.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A failure reported by the PostgreSQL server or by libpq, with the SQLSTATE when there is one
// (empty for client-side failures such as a refused connection).
class DbError : public Error {
public:
    DbError(const std::string& message, std::string sqlState)
        : Error(message)
        , sqlState_(std::move(sqlState)) {}

    const std::string& sqlState() const noexcept { return sqlState_; }

private:
    std::string sqlState_;
};

// The user asked to stop (Ctrl-C, SIGTERM, the Cancel button) and the work stopped cleanly.
class Cancelled : public Error {
public:
    Cancelled()
        : Error("cancelled") {}
};

// The text for an errno value; thread-safe, unlike strerror().
inline std::string systemErrorText(int err) {
    return std::error_code(err, std::generic_category()).message();
}

} // namespace isobar
