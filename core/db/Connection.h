#pragma once

#include "util/Error.h"

#include <libpq-fe.h>

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

// One libpq connection. A Connection belongs to one thread at a time (libpq's rule): the engine
// gives each worker its own and never shares them.
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

    // Runs SQL that returns no rows (or whose rows are not needed). Throws DbError.
    void exec(const std::string& sql);
    // Runs a query with text parameters ($1, $2, ...) and returns its rows. Throws DbError.
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

private:
    Connection(PGconn* conn, std::string target)
        : conn_(conn, &PQfinish)
        , target_(std::move(target)) {}

    std::unique_ptr<PGconn, decltype(&PQfinish)> conn_;
    std::string target_;
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
