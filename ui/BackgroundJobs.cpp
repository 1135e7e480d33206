// SPDX-License-Identifier: GPL-3.0-or-later

#include "BackgroundJobs.h"

#include <QThreadPool>

#include <deque>
#include <mutex>

namespace isobar::ui {

QThreadPool* jobPool(JobPool pool) {
    // Children of the application: it waits for their jobs when it ends, as it does for the
    // global pool, after the windows that started them are gone.
    static QPointer<QThreadPool> server;
    static QPointer<QThreadPool> cancels;
    const auto make = [](QPointer<QThreadPool>& p, const char* name, int threads) {
        if (p.isNull()) {
            p = new QThreadPool(QCoreApplication::instance());
            p->setObjectName(QString::fromLatin1(name));
            p->setMaxThreadCount(threads);
        }
        return p.data();
    };
    switch (pool) {
    case JobPool::Files:
        return QThreadPool::globalInstance();
    case JobPool::Server:
        // Threads that mostly wait on the network: more than the cores, enough for the checks,
        // restores and a few windows' reads at once.
        return make(server, "isobar server jobs", 8);
    case JobPool::Cancels:
        return make(cancels, "isobar cancels", 2);
    }
    return QThreadPool::globalInstance();
}

namespace detail {

JobError jobError(const std::exception_ptr& error) {
    try {
        std::rethrow_exception(error);
    } catch (const std::exception& e) {
        return JobError{QString::fromUtf8(e.what())};
    } catch (...) {
        return JobError{QCoreApplication::translate("isobar::ui::JobTracker", "an unknown error")};
    }
}

} // namespace detail

struct JobQueue::State {
    JobPool pool = JobPool::Files;
    std::mutex mutex;
    std::deque<std::function<void()>> waiting; // guarded by mutex
    bool draining = false;                     // a pool thread runs the waiting tasks; by mutex
};

JobQueue::JobQueue(JobPool pool)
    : state_(std::make_shared<State>()) {
    state_->pool = pool;
}

void JobQueue::run(std::function<void()> task) const {
    {
        const std::lock_guard lock(state_->mutex);
        state_->waiting.push_back(std::move(task));
        if (state_->draining) {
            return; // the thread that drains the queue takes it in its turn
        }
        state_->draining = true;
    }
    // Thread boundary: one pool thread at a time runs the queue's tasks until none is left.
    jobPool(state_->pool)->start([state = state_] {
        for (;;) {
            std::function<void()> next;
            {
                const std::lock_guard lock(state->mutex);
                if (state->waiting.empty()) {
                    state->draining = false;
                    return;
                }
                next = std::move(state->waiting.front());
                state->waiting.pop_front();
            }
            next();
        }
    });
}

JobTracker::JobTracker(QObject* owner, JobPool pool)
    : owner_(owner)
    , state_(std::make_shared<State>())
    , pool_(pool) {}

JobTracker::JobTracker(QObject* owner, JobQueue queue)
    : owner_(owner)
    , state_(std::make_shared<State>())
    , queue_(std::move(queue)) {}

JobTracker::~JobTracker() {
    cancel();
}

JobTracker::JobTracker(JobTracker&& other) noexcept
    : owner_(std::move(other.owner_))
    , state_(std::move(other.state_))
    , queue_(std::move(other.queue_))
    , pool_(other.pool_) {}

JobTracker& JobTracker::operator=(JobTracker&& other) noexcept {
    if (this != &other) {
        cancel();
        owner_ = std::move(other.owner_);
        state_ = std::move(other.state_);
        queue_ = std::move(other.queue_);
        pool_ = other.pool_;
    }
    return *this;
}

void JobTracker::cancel() {
    if (state_) {
        state_->current = 0;
        state_->stop.request_stop(); // runs the job's stop callbacks (a query's cancel) here, at once
    }
}

JobTracker::Id JobTracker::begin() {
    cancel();
    state_->stop = std::stop_source();
    state_->current = ++state_->last;
    return state_->current;
}

void JobTracker::dispatch(std::function<void()> task) const {
    if (queue_) {
        queue_->run(std::move(task));
    } else {
        jobPool(pool_)->start(std::move(task));
    }
}

} // namespace isobar::ui
