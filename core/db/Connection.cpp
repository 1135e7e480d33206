// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/Connection.h"

#include "db/ConnInfo.h"

#include <spdlog/spdlog.h>

#include <array>
#include <cctype>
#include <cstdlib>
#include <string_view>
#include <vector>

namespace isobar {

std::string trimTrailingNewlines(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
        text.pop_back();
    }
    return text;
}

std::string Result::text(int row, int column) const {
    return std::string(PQgetvalue(result_.get(), row, column),
                       static_cast<size_t>(PQgetlength(result_.get(), row, column)));
}

std::optional<std::string> Result::optionalText(int row, int column) const {
    if (isNull(row, column)) {
        return std::nullopt;
    }
    return text(row, column);
}

long long Result::integer(int row, int column) const {
    const std::string value = text(row, column);
    try {
        return std::stoll(value);
    } catch (const std::exception&) {
        throw Error("the server returned '" + value + "' where a whole number was expected");
    }
}

std::uint64_t Result::affectedRows() const {
    const char* tuples = result_ ? PQcmdTuples(result_.get()) : "";
    return *tuples == '\0' ? 0 : std::stoull(tuples);
}

Connection::Connection(PGconn* conn, std::string target)
    : conn_(conn, &PQfinish)
    , target_(std::move(target))
    , cancel_(std::make_shared<CancelHandle::State>()) {
    // Made now, on the thread that opened the connection: PQgetCancel reads the PGconn, which
    // another thread may not touch later while this one runs a query.
    cancel_.state_->cancel.reset(PQgetCancel(conn));
    cancel_.state_->target = target_;
}

bool CancelHandle::cancel() const {
    if (!state_) {
        return false;
    }
    // The flag first: a query the connection sends after this moment is never sent, so the
    // request below cannot interrupt one it was not meant for.
    state_->requested = true;
    if (!state_->cancel) {
        spdlog::warn("cannot cancel the query on {}: libpq gave no cancel object", state_->target);
        return false;
    }
    std::array<char, 256> why{};
    if (PQcancel(state_->cancel.get(), why.data(), static_cast<int>(why.size())) == 0) {
        spdlog::warn("cannot cancel the query on {}: {}", state_->target, trimTrailingNewlines(why.data()));
        return false;
    }
    return true;
}

Connection Connection::open(const std::string& conninfo) {
    return open(conninfo, {});
}

Connection Connection::open(const std::string& conninfo, const std::string& applicationName) {
    // libpq's parse errors quote the offending text, which may be a password: check the string
    // first and say what is wrong without echoing it.
    bool usesService = false;
    {
        char* parseError = nullptr;
        PQconninfoOption* parsed = PQconninfoParse(conninfo.c_str(), &parseError);
        if (parseError != nullptr) {
            PQfreemem(parseError);
        }
        if (parsed == nullptr) {
            throw DbError("cannot connect: the connection string cannot be parsed (check its quoting and "
                          "%-escapes; it is not shown because it may hold a password)",
                          "");
        }
        for (const PQconninfoOption* o = parsed; o->keyword != nullptr; ++o) {
            if (std::string_view(o->keyword) == "service" && o->val != nullptr && *o->val != '\0') {
                usesService = true;
            }
        }
        PQconninfoFree(parsed);
    }
    const std::string target = redactConnInfo(conninfo);
    // The string is passed as an expanded dbname: its own settings override the entries before it.
    // A service file only fills settings left unset, so with a service the default stays out.
    const auto unset = [](const char* name) {
        const char* env = std::getenv(name);
        return env == nullptr || *env == '\0';
    };
    std::vector<const char*> keywords;
    std::vector<const char*> values;
    if (unset("PGCONNECT_TIMEOUT") && unset("PGSERVICE") && !usesService) {
        keywords.push_back("connect_timeout");
        values.push_back(kDefaultConnectTimeout);
    }
    keywords.push_back("dbname");
    values.push_back(conninfo.c_str());
    if (!applicationName.empty()) { // after the string: what follows it overrides it
        keywords.push_back("application_name");
        values.push_back(applicationName.c_str());
    }
    keywords.push_back(nullptr);
    values.push_back(nullptr);
    PGconn* conn = PQconnectdbParams(keywords.data(), values.data(), 1);
    if (conn == nullptr) {
        throw DbError("cannot connect to " + target + ": out of memory", "");
    }
    if (PQstatus(conn) != CONNECTION_OK) {
        std::string reason = trimTrailingNewlines(PQerrorMessage(conn));
        PQfinish(conn);
        throw DbError("cannot connect to " + target + ": " + reason, "08001");
    }
    // Server notices ("schema already exists, skipping") are for the log, not the user's terminal.
    PQsetNoticeProcessor(
        conn,
        [](void*, const char* message) { spdlog::debug("server notice: {}", trimTrailingNewlines(message)); },
        nullptr);
    return Connection(conn, target);
}

std::string Connection::lastError() const {
    return trimTrailingNewlines(PQerrorMessage(conn_.get()));
}

std::string resultErrorMessage(const PGresult* result) {
    if (result == nullptr) {
        return "no result";
    }
    std::string message = trimTrailingNewlines(PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY) != nullptr
                                                   ? PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY)
                                                   : PQresultErrorMessage(result));
    if (const char* detail = PQresultErrorField(result, PG_DIAG_MESSAGE_DETAIL)) {
        message += "; " + trimTrailingNewlines(detail);
    }
    if (const char* hint = PQresultErrorField(result, PG_DIAG_MESSAGE_HINT)) {
        message += "; hint: " + trimTrailingNewlines(hint);
    }
    if (const char* where = PQresultErrorField(result, PG_DIAG_CONTEXT)) {
        message += "; context: " + trimTrailingNewlines(where);
    }
    return message;
}

void throwResultError(const Connection& conn, const PGresult* result, const std::string& context) {
    std::string sqlState;
    std::string message;
    if (result != nullptr && PQresultErrorField(result, PG_DIAG_SQLSTATE) != nullptr) {
        sqlState = PQresultErrorField(result, PG_DIAG_SQLSTATE);
        message = resultErrorMessage(result);
    } else {
        // No server error fields: the failure is on the client side or the connection broke.
        message = conn.lastError();
        if (PQstatus(conn.raw()) == CONNECTION_BAD) {
            sqlState = "08006";
        }
    }
    if (message.empty()) {
        message = "unknown error";
    }
    throw DbError(context + ": " + message + (sqlState.empty() ? "" : " (SQLSTATE " + sqlState + ")"),
                  sqlState);
}

void Connection::throwFailure(const PGresult* result) const {
    if (cancelRequested()) {
        // "canceling statement due to user request" (57014), or whatever broke while the work was
        // being abandoned: the caller asked for the end, it is not news to them.
        throw Cancelled();
    }
    throwResultError(*this, result, "on " + target_);
}

void Connection::exec(const std::string& sql) {
    if (cancelRequested()) {
        throw Cancelled();
    }
    Result result(PQexec(conn_.get(), sql.c_str()));
    const ExecStatusType status = result.raw() != nullptr ? PQresultStatus(result.raw()) : PGRES_FATAL_ERROR;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        throwFailure(result.raw());
    }
}

Result Connection::query(const std::string& sql, const std::vector<std::optional<std::string>>& params) {
    if (cancelRequested()) {
        throw Cancelled();
    }
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const auto& p : params) {
        values.push_back(p ? p->c_str() : nullptr);
    }
    Result result(PQexecParams(conn_.get(), sql.c_str(), static_cast<int>(values.size()), nullptr,
                               values.data(), nullptr, nullptr, 0));
    const ExecStatusType status = result.raw() != nullptr ? PQresultStatus(result.raw()) : PGRES_FATAL_ERROR;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        throwFailure(result.raw());
    }
    return result;
}

void Connection::prepare(const std::string& name, const std::string& sql, int parameters) {
    const Result result(PQprepare(conn_.get(), name.c_str(), sql.c_str(), parameters, nullptr));
    if (result.raw() == nullptr || PQresultStatus(result.raw()) != PGRES_COMMAND_OK) {
        throwResultError(*this, result.raw(), "preparing " + name + " on " + target_);
    }
}

Result Connection::runPrepared(const std::string& name, std::span<const char* const> values) {
    Result result(PQexecPrepared(conn_.get(), name.c_str(), static_cast<int>(values.size()), values.data(),
                                 nullptr, nullptr, 0));
    const ExecStatusType status = result.raw() != nullptr ? PQresultStatus(result.raw()) : PGRES_FATAL_ERROR;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        throwResultError(*this, result.raw(), name + " on " + target_);
    }
    return result;
}

std::string Connection::quoteIdentifier(std::string_view identifier) const {
    char* quoted = PQescapeIdentifier(conn_.get(), identifier.data(), identifier.size());
    if (quoted == nullptr) {
        throw DbError("cannot quote the identifier '" + std::string(identifier) + "': " + lastError(), "");
    }
    std::string out(quoted);
    PQfreemem(quoted);
    return out;
}

std::string Connection::quoteLiteral(std::string_view literal) const {
    char* quoted = PQescapeLiteral(conn_.get(), literal.data(), literal.size());
    if (quoted == nullptr) {
        throw DbError("cannot quote a literal: " + lastError(), "");
    }
    std::string out(quoted);
    PQfreemem(quoted);
    return out;
}

TableName TableName::parse(std::string_view text) {
    // SQL rules: unquoted parts fold to lower case, "quoted" parts keep their case and may
    // contain dots; "" inside quotes is one quote.
    std::vector<std::string> parts(1);
    bool inQuotes = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inQuotes) {
            if (c == '"') {
                if (i + 1 < text.size() && text[i + 1] == '"') {
                    parts.back() += '"';
                    ++i;
                } else {
                    inQuotes = false;
                }
            } else {
                parts.back() += c;
            }
        } else if (c == '"') {
            inQuotes = true;
        } else if (c == '.') {
            if (parts.back().empty()) {
                break;
            }
            parts.emplace_back();
        } else {
            parts.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    if (inQuotes || parts.size() > 2 || parts.back().empty() || parts.front().empty()) {
        throw Error("'" + std::string(text) + "' is not a valid table name (expected name or schema.name)");
    }
    if (parts.size() == 2) {
        return TableName{parts[0], parts[1]};
    }
    return TableName{"", parts[0]};
}

std::string TableName::quoted(const Connection& conn) const {
    if (schema.empty()) {
        return conn.quoteIdentifier(name);
    }
    return conn.quoteIdentifier(schema) + "." + conn.quoteIdentifier(name);
}

} // namespace isobar
