// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/SentStatement.h"

#include <cerrno>
#include <poll.h>

namespace isobar {

SentStatement::SentStatement(Connection& conn, const std::string& sql, std::string context)
    : conn_(conn)
    , context_(std::move(context)) {
    if (PQsendQuery(conn_.raw(), sql.c_str()) == 0) {
        throw DbError(context_ + " on " + conn_.target() + " failed: " + conn_.lastError(), "08006");
    }
    running_ = true;
}

SentStatement::~SentStatement() {
    cancel();
}

std::uint64_t SentStatement::wait(const std::stop_token& stop) {
    if (!running_) {
        return 0;
    }
    PGconn* raw = conn_.raw();
    while (PQisBusy(raw) != 0) {
        if (stop.stop_requested()) {
            throw Cancelled();
        }
        pollfd fd{PQsocket(raw), POLLIN, 0};
        if (::poll(&fd, 1, 100) < 0 && errno != EINTR) {
            break; // PQconsumeInput below reports the broken connection
        }
        if (PQconsumeInput(raw) == 0) {
            break;
        }
    }
    const Result result(PQgetResult(raw));
    while (PGresult* extra = PQgetResult(raw)) {
        PQclear(extra);
    }
    running_ = false;
    if (result.raw() == nullptr || PQresultStatus(result.raw()) != PGRES_COMMAND_OK) {
        throwResultError(conn_, result.raw(), context_ + " on " + conn_.target() + " failed");
    }
    return result.affectedRows();
}

void SentStatement::cancel() noexcept {
    if (!running_) {
        return;
    }
    if (PGcancel* cancel = PQgetCancel(conn_.raw())) {
        char why[256];
        PQcancel(cancel, why, sizeof why);
        PQfreeCancel(cancel);
    }
    while (PGresult* r = PQgetResult(conn_.raw())) {
        PQclear(r);
    }
    running_ = false;
}

} // namespace isobar
