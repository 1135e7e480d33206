// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/CopyStream.h"

#include <limits>
#include <memory>

namespace isobar {

CopyStream::CopyStream(Connection& conn, const std::string& copySql)
    : conn_(conn) {
    Result result(PQexec(conn_.raw(), copySql.c_str()));
    const ExecStatusType status = result.raw() != nullptr ? PQresultStatus(result.raw()) : PGRES_FATAL_ERROR;
    switch (status) {
    case PGRES_COPY_IN:
        active_ = true;
        return;
    case PGRES_FATAL_ERROR:
    case PGRES_NONFATAL_ERROR:
    case PGRES_BAD_RESPONSE:
        throwResultError(conn_, result.raw(), "COPY could not start on " + conn_.target());
    default:
        throw DbError("COPY could not start on " + conn_.target() + ": the server answered " +
                          PQresStatus(status) + " instead of COPY IN",
                      "");
    }
}

CopyStream::~CopyStream() {
    if (active_) {
        abort("the client stopped before the end of the data");
    }
}

void CopyStream::send(std::span<const char> bytes) {
    constexpr std::size_t kMaxChunk = static_cast<std::size_t>(std::numeric_limits<int>::max());
    while (!bytes.empty()) {
        const std::size_t n = std::min(bytes.size(), kMaxChunk);
        const int rc = PQputCopyData(conn_.raw(), bytes.data(), static_cast<int>(n));
        if (rc == 1) {
            bytes = bytes.subspan(n);
            continue;
        }
        if (rc == 0) {
            // Only a non-blocking connection answers "would block"; ours are blocking.
            throw DbError(
                "COPY to " + conn_.target() + ": libpq could not queue data on a blocking connection", "");
        }
        // rc == -1: the connection is broken or the server already ended the COPY with an error,
        // whose message is in the pending result.
        active_ = false;
        Result error = drainResults();
        if (error.raw() != nullptr) {
            throwResultError(conn_, error.raw(), "COPY to " + conn_.target() + " failed");
        }
        throw DbError("COPY to " + conn_.target() + " failed while sending data: " + conn_.lastError(),
                      PQstatus(conn_.raw()) == CONNECTION_BAD ? "08006" : "");
    }
}

std::uint64_t CopyStream::finish() {
    if (!active_) {
        throw DbError("COPY to " + conn_.target() + " was already ended", "");
    }
    active_ = false;
    const int rc = PQputCopyEnd(conn_.raw(), nullptr);
    if (rc == 0) {
        throw DbError("COPY to " + conn_.target() + ": libpq could not queue the end of data", "");
    }
    if (rc < 0) {
        Result error = drainResults();
        if (error.raw() != nullptr) {
            throwResultError(conn_, error.raw(), "COPY to " + conn_.target() + " failed");
        }
        throw DbError("COPY to " + conn_.target() + " failed at the end of data: " + conn_.lastError(),
                      PQstatus(conn_.raw()) == CONNECTION_BAD ? "08006" : "");
    }
    std::uint64_t rows = 0;
    Result failure;
    bool sawCommandOk = false;
    while (PGresult* raw = PQgetResult(conn_.raw())) {
        Result result(raw);
        switch (PQresultStatus(raw)) {
        case PGRES_COMMAND_OK:
            sawCommandOk = true;
            rows = std::stoull(PQcmdTuples(raw)[0] != '\0' ? PQcmdTuples(raw) : "0");
            break;
        case PGRES_FATAL_ERROR:
        case PGRES_NONFATAL_ERROR:
        case PGRES_BAD_RESPONSE:
            if (failure.raw() == nullptr) {
                failure = std::move(result);
            }
            break;
        default:
            break; // nothing else is expected after a COPY; libpq has consumed it
        }
    }
    if (failure.raw() != nullptr) {
        throwResultError(conn_, failure.raw(), "COPY to " + conn_.target() + " was rejected");
    }
    if (!sawCommandOk) {
        throw DbError("COPY to " + conn_.target() + " ended without a result: " + conn_.lastError(),
                      PQstatus(conn_.raw()) == CONNECTION_BAD ? "08006" : "");
    }
    return rows;
}

void CopyStream::abort(const std::string& reason) noexcept {
    if (!active_) {
        return;
    }
    active_ = false;
    // The server answers a client-side COPY failure with an error result (57014-like "COPY from
    // stdin failed"), which is what we want: everything sent is discarded.
    if (PQputCopyEnd(conn_.raw(), reason.c_str()) >= 0) {
        (void)drainResults();
    }
}

Result CopyStream::drainResults() {
    Result failure;
    while (PGresult* raw = PQgetResult(conn_.raw())) {
        Result result(raw);
        const ExecStatusType status = PQresultStatus(raw);
        if ((status == PGRES_FATAL_ERROR || status == PGRES_NONFATAL_ERROR || status == PGRES_BAD_RESPONSE) &&
            failure.raw() == nullptr) {
            failure = std::move(result);
        }
        if (status == PGRES_COPY_IN) {
            // Still in COPY IN: end it so the loop can finish.
            PQputCopyEnd(conn_.raw(), "aborted by the client");
        }
    }
    return failure;
}

std::uint64_t copyOut(Connection& conn, const std::string& copySql, const std::string& context,
                      const std::function<void(std::span<const char>)>& sink) {
    const Result start(PQexec(conn.raw(), copySql.c_str()));
    if (start.raw() == nullptr || PQresultStatus(start.raw()) != PGRES_COPY_OUT) {
        throwResultError(conn, start.raw(), context);
    }
    std::uint64_t bytes = 0;
    for (;;) {
        char* buffer = nullptr;
        const int n = PQgetCopyData(conn.raw(), &buffer, 0);
        if (n > 0) {
            const std::unique_ptr<char, decltype(&PQfreemem)> owned(buffer, &PQfreemem);
            bytes += static_cast<std::uint64_t>(n);
            sink(std::span<const char>(buffer, static_cast<std::size_t>(n)));
            continue;
        }
        if (n == -2) {
            throw DbError(context + ": " + conn.lastError(), conn.connected() ? "" : "08006");
        }
        break; // -1: the COPY is done; its result follows
    }
    Result failure;
    while (PGresult* raw = PQgetResult(conn.raw())) {
        Result end(raw);
        if (PQresultStatus(raw) != PGRES_COMMAND_OK && failure.raw() == nullptr) {
            failure = std::move(end);
        }
    }
    if (failure.raw() != nullptr) {
        throwResultError(conn, failure.raw(), context);
    }
    return bytes;
}

} // namespace isobar
