// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "util/Error.h"

#include <libpq-fe.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace isobar {

// An owned PGresult with typed accessors.
class Result {
public:
    Result() = default;
    explicit Result(PGresult* result)
        : result_(result, &PQclear) {}

    PGresult* raw() const noexcept { return result_.get(); }
    int rows() const { return result_ ? PQntuples(result_.get()) : 0; }
    int columns() const { return result_ ? PQnfields(result_.get()) : 0; }
    bool isNull(int row, int column) const { return PQgetisnull(result_.get(), row, column) != 0; }
    std::string text(int row, int column) const;
    std::optional<std::string> optionalText(int row, int column) const;
    long long integer(int row, int column) const;
    // The rows a command reports it touched (INSERT, COPY, UPDATE ...): 0 when it reports none.
    std::uint64_t affectedRows() const;

private:
    std::unique_ptr<PGresult, decltype(&PQclear)> result_{nullptr, &PQclear};
};

// Stops a connection's work from another thread. cancel() asks the server to interrupt the query
// it runs for the connection (libpq's PQcancel), and from then on every exec() and query() of
// that connection throws Cancelled at once, without reaching the server: a cancel that arrives
// between two queries (which the server ignores) stops the work all the same, and one that arrives
// late can never interrupt a query sent after it. The connection is left to be closed. Copies
// share one connection's request; a handle may outlive its connection.
class CancelHandle {
public:
    CancelHandle() = default;

    // Thread-safe. Blocks for a round trip to the server on a connection of its own (it waits until
    // the server has taken the request): not for a GUI thread. False when the request could not be
    // sent (logged with libpq's reason); the connection's later queries throw Cancelled anyway.
    bool cancel() const;
    // cancel() was called, on this handle or a copy of it.
    bool requested() const noexcept { return state_ && state_->requested.load(); }

private:
    friend class Connection;
    struct State {
        std::unique_ptr<PGcancel, decltype(&PQfreeCancel)> cancel{nullptr, &PQfreeCancel};
        std::atomic<bool> requested{false};
        std::string target;
    };
    explicit CancelHandle(std::shared_ptr<State> state)
        : state_(std::move(state)) {}

    std::shared_ptr<State> state_;
};

// One libpq connection. A Connection belongs to one thread at a time (libpq's rule): the engine
// gives each worker its own and never shares them. Only its CancelHandle crosses threads.
class Connection {
public:
    // Connects or throws DbError naming the target (without password) and libpq's reason. A
    // server that does not answer (a host gone from the network, a firewall dropping packets)
    // fails after kDefaultConnectTimeout seconds instead of the operating system's minutes,
    // unless the string sets connect_timeout, PGCONNECT_TIMEOUT is set or a service
    // (service=, PGSERVICE) is used: its file decides.
    static Connection open(const std::string& conninfo);
    // The same, the session named `applicationName` in pg_stat_activity from its first moment (it
    // wins over an application_name in the string) without a SET's round trip afterwards.
    static Connection open(const std::string& conninfo, const std::string& applicationName);
    static constexpr const char* kDefaultConnectTimeout = "15";

    Connection(Connection&&) noexcept = default;
    Connection& operator=(Connection&&) noexcept = default;
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    ~Connection() = default;

    PGconn* raw() const noexcept { return conn_.get(); }
    const std::string& target() const noexcept { return target_; }

    // Runs SQL that returns no rows (or whose rows are not needed). Throws DbError, or Cancelled
    // once the connection's CancelHandle was used.
    void exec(const std::string& sql);
    // Runs a query with text parameters ($1, $2, ...) and returns its rows. Throws DbError, or
    // Cancelled once the connection's CancelHandle was used.
    Result query(const std::string& sql, const std::vector<std::optional<std::string>>& params = {});
    // Prepares `sql` (parameters $1 .. $parameters, their types left to the server) as the
    // statement `name` of this session, and runs it with text values (nullptr: NULL). Throw DbError.
    void prepare(const std::string& name, const std::string& sql, int parameters);
    Result runPrepared(const std::string& name, std::span<const char* const> values);

    std::string quoteIdentifier(std::string_view identifier) const;
    std::string quoteLiteral(std::string_view literal) const;

    int serverVersion() const { return PQserverVersion(conn_.get()); }
    // The connection is up, as libpq last saw it (a broken socket, a server gone: false).
    bool connected() const { return PQstatus(conn_.get()) == CONNECTION_OK; }
    // Inside a transaction block (BEGIN ... COMMIT), as libpq last heard from the server.
    bool inTransaction() const { return PQtransactionStatus(conn_.get()) != PQTRANS_IDLE; }
    // libpq's last error message, trimmed of trailing newlines.
    std::string lastError() const;

    // What stops this connection's work from another thread. Thread-safe: it is made when the
    // connection opens, so the call reads nothing the connection's own thread may be changing.
    CancelHandle cancelHandle() const { return cancel_; }
    bool cancelRequested() const noexcept { return cancel_.requested(); }

private:
    Connection(PGconn* conn, std::string target);
    // After a failed result: Cancelled when the failure came of a cancel, else DbError.
    [[noreturn]] void throwFailure(const PGresult* result) const;

    std::unique_ptr<PGconn, decltype(&PQfinish)> conn_;
    std::string target_;
    CancelHandle cancel_;
};

// Throws DbError built from a failed result: "<context>: <server message> (SQLSTATE xxxxx)".
[[noreturn]] void throwResultError(const Connection& conn, const PGresult* result,
                                   const std::string& context);

// The server's message for a result with its detail and hint lines, trimmed.
std::string resultErrorMessage(const PGresult* result);

std::string trimTrailingNewlines(std::string text);

// A table name as the user wrote it ("weather" or "schema.weather"), split and quoted.
struct TableName {
    std::string schema; // empty: the search path decides
    std::string name;

    static TableName parse(std::string_view text);
    std::string quoted(const Connection& conn) const;
    std::string display() const { return schema.empty() ? name : schema + "." + name; }
};

} // namespace isobar
