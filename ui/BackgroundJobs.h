// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <QCoreApplication>
#include <QPointer>
#include <QString>

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <type_traits>
#include <utility>

class QThreadPool;

namespace isobar::ui {

// The widgets' background work, done one way. A widget that reads files, reports or a server
// without blocking the window owns a JobTracker for each kind of work it does (a map, a series,
// a check of the server) and starts every job through it:
//
//     mapRead_.start([request](std::stop_token stop) { return readMap(request, stop); }, // a pool thread
//                    [this](const Map& map) { show(map); },                              // the GUI thread
//                    [this](const JobError& e) { say(e.message); });                     // the GUI thread
//
// - Each job has an id. Starting another through the same tracker supersedes it: the old job's
//   stop token is set and whatever it returns is dropped. cancel() does the same without a new
//   job, and so does the tracker's destruction (its owner going away). Nothing ever waits for a job.
// - The owner is held as a QPointer: nothing is called once it is gone.
// - What the job returns, or the message of what it threw, comes back on the GUI thread (`done`
//   or `failed`) only while the job is its tracker's current one and nobody asked it to stop: a
//   superseded or cancelled job is never shown, its error included (a cancelled query's "canceling
//   statement due to user request" was the user's choice, not a failure).
// - The job gets a std::stop_token. Work that can end early looks at it (a query: ServerSession
//   sends the server a cancel). What a job uses (a connection, a file reader) it holds by
//   shared_ptr, since its owner may be gone before it ends.
// Thread boundary: `work` runs on a pool thread and never touches the owner; `done` and `failed`
// run on the GUI thread. The callables are copied into the pool's queue (they must be copyable).

// Where jobs run. Both pools belong to the application, which waits for them when it ends.
enum class JobPool : std::uint8_t {
    // Qt's global pool (as many threads as cores): reading and decoding files, parsing reports.
    Files,
    // Work that waits on a server or the network (connecting, starting the embedded cluster,
    // queries), in a pool of its own with more threads than cores: a server that does not answer
    // never holds up the files' work, nor the other windows' reads.
    Server,
    // Requests to a server to cancel a query (ServerSession): never queued behind the very
    // queries they are to end.
    Cancels,
};

// The pool behind `pool` (tests wait for it to be idle). On the GUI thread, with an application.
QThreadPool* jobPool(JobPool pool);

// What a job threw: its message, for the user.
struct JobError {
    QString message;
};

// Jobs that must not overlap, because they share something that belongs to one thread at a time
// (a connection, a file reader): they run one after another in the order they were started, on
// their pool, and one waiting its turn holds no thread. Trackers made with copies of one queue
// share it.
class JobQueue {
public:
    explicit JobQueue(JobPool pool);

private:
    friend class JobTracker;
    // On the GUI thread.
    void run(std::function<void()> task) const;

    struct State;
    std::shared_ptr<State> state_;
};

// One kind of background work of one owner (see above); movable, for owners that keep one per
// item of a list. Used on the GUI thread only.
class JobTracker {
public:
    using Id = std::uint64_t;

    JobTracker(QObject* owner, JobPool pool);
    JobTracker(QObject* owner, JobQueue queue);
    // Cancels the current job: it is told to stop and its result is dropped, without waiting.
    ~JobTracker();
    JobTracker(JobTracker&& other) noexcept;
    JobTracker& operator=(JobTracker&& other) noexcept;
    JobTracker(const JobTracker&) = delete;
    JobTracker& operator=(const JobTracker&) = delete;

    // Runs `work(stop_token)` (or `work()`) on the pool, superseding the current job, then calls
    // `done(result)` or `failed(JobError)` on the GUI thread as described above. Returns the job's
    // id.
    template <typename Work, typename Done, typename Failed>
    Id start(Work work, Done done, Failed failed);

    // Drops the current job: its stop token is set, and neither `done` nor `failed` is called.
    void cancel();
    // A job was started and neither delivered nor cancelled yet.
    bool isRunning() const { return state_ && state_->current != 0; }
    // The current job's id (0: none).
    Id current() const { return state_ ? state_->current : 0; }

private:
    // Shared with the jobs, which outlive the tracker. `current` and `last` are the GUI thread's;
    // the job gets a token of `stop`.
    struct State {
        Id current = 0;
        Id last = 0;
        std::stop_source stop{std::nostopstate};
    };
    Id begin();
    void dispatch(std::function<void()> task) const;

    QPointer<QObject> owner_;
    std::shared_ptr<State> state_;
    std::optional<JobQueue> queue_;
    JobPool pool_ = JobPool::Files;
};

namespace detail {

// Runs `f` on the GUI thread, later: posted to the application object, which outlives every
// widget, so a pool thread never touches a widget that may be gone by then. Dropped when the
// application is gone (a job that ends while it shuts down).
template <typename F>
void postToGui(F&& f) {
    if (QCoreApplication* app = QCoreApplication::instance()) {
        QMetaObject::invokeMethod(app, std::forward<F>(f), Qt::QueuedConnection);
    }
}

template <typename Work>
auto invokeWork(Work& work, const std::stop_token& stop) {
    if constexpr (std::is_invocable_v<Work&, std::stop_token>) {
        return work(stop);
    } else {
        return work();
    }
}

JobError jobError(const std::exception_ptr& error);

} // namespace detail

template <typename Work, typename Done, typename Failed>
JobTracker::Id JobTracker::start(Work work, Done done, Failed failed) {
    using Result = std::decay_t<decltype(detail::invokeWork(work, std::stop_token()))>;
    static_assert(!std::is_void_v<Result>, "a job returns what it found");
    const Id id = begin();
    // Thread boundary: the task runs on a pool thread; only `state` (its stop source and the ids,
    // which that thread never reads), the QPointer and the callables cross, and the GUI thread
    // looks at the ids again when the result arrives.
    dispatch([state = state_, owner = owner_, id, stop = state_->stop.get_token(), work = std::move(work),
              done = std::move(done), failed = std::move(failed)]() mutable {
        if (stop.stop_requested()) {
            return; // superseded or cancelled before its turn
        }
        std::optional<Result> result;
        std::optional<JobError> error;
        try {
            result.emplace(detail::invokeWork(work, stop));
        } catch (...) {
            error = detail::jobError(std::current_exception());
        }
        if (stop.stop_requested()) {
            return; // whoever stopped it knows; a cancelled query's error is not news
        }
        detail::postToGui([state = std::move(state), owner = std::move(owner), id, result = std::move(result),
                           error = std::move(error), done = std::move(done),
                           failed = std::move(failed)]() mutable {
            if (owner.isNull() || state->current != id) {
                return; // the owner is gone, or the job was superseded or cancelled meanwhile
            }
            state->current = 0; // before the call, which may start the next job
            if (result) {
                done(std::move(*result));
            } else {
                failed(*error);
            }
        });
    });
    return id;
}

} // namespace isobar::ui
