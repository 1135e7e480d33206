// SPDX-License-Identifier: GPL-3.0-or-later

#include "ServerSession.h"

#include "BackgroundJobs.h"
#include "db/EmbeddedDefaults.h"

#include <QThread>
#include <QThreadPool>

namespace isobar::ui {

Connection& ServerSession::connection() {
    if (abandoned_.exchange(false) || (conn_ && conn_->cancelRequested())) {
        conn_.reset(); // its backend may still get the cancel meant for the job before
    }
    if (!conn_) {
        conn_.emplace(
            Connection::open(choice_.embedded ? startEmbeddedCluster() : choice_.conninfo, applicationName_));
    }
    return *conn_;
}

void ServerSession::cancel(const CancelHandle& handle) {
    const QCoreApplication* app = QCoreApplication::instance();
    if (app != nullptr && QThread::currentThread() == app->thread()) {
        // Thread boundary: the cancel request waits for the server to take it; the GUI does not.
        jobPool(JobPool::Cancels)->start([handle] { handle.cancel(); });
    } else {
        handle.cancel();
    }
}

} // namespace isobar::ui
