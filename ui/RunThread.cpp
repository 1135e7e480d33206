// SPDX-License-Identifier: GPL-3.0-or-later

#include "RunThread.h"

#include <QCoreApplication>
#include <QEvent>

namespace isobar::ui {

RunThread::~RunThread() {
    if (thread_.joinable()) {
        thread_.request_stop();
        thread_.join();
    }
}

bool RunThread::start(std::function<End(std::stop_token)> run,
                      std::function<End(const std::string&)> failed) {
    if (running_) {
        return false;
    }
    running_ = true;
    // Thread boundary: the whole run happens here; what it says reaches the owner's thread only as
    // posted copies (post()), its end last of all.
    thread_ = std::jthread([this, run = std::move(run), failed = std::move(failed)](std::stop_token stop) {
        End end;
        try {
            end = run(stop);
        } catch (const std::exception& e) {
            end = failed(e.what());
        } catch (...) {
            end = failed("an unknown error");
        }
        post([this, end = std::move(end)] { finish(end); });
    });
    return true;
}

void RunThread::cancel() {
    if (running_) {
        thread_.request_stop();
    }
}

void RunThread::wait() {
    if (thread_.joinable()) {
        thread_.join();
    }
    // Deliver what the finished run posted, its end included, before returning.
    QCoreApplication::sendPostedEvents(owner_, QEvent::MetaCall);
}

void RunThread::finish(const End& end) {
    if (thread_.joinable()) {
        thread_.join(); // it posted this as its last act
    }
    running_ = false;
    end();
}

} // namespace isobar::ui
