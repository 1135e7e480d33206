// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <QObject>

#include <functional>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>

namespace isobar::ui {

// The thread of a long run (a load, a bench) and its one lifecycle, shared by LoadController and
// BenchRunner: start() while none runs, cancel() asks it to stop (the run's std::stop_token),
// wait() blocks until it has ended, and every start is followed by exactly one end, delivered on
// the owner's (GUI) thread once the thread is joined: the end's handler may start the next run.
// Short background work with a result goes through a JobTracker instead (BackgroundJobs.h).
class RunThread {
public:
    // What ends a run, called on the owner's thread: it emits the owner's `ended`.
    using End = std::function<void()>;

    // `owner` receives the posted calls; it owns this object.
    explicit RunThread(QObject* owner)
        : owner_(owner) {}
    // Asks a running run to stop and waits for it (a load puts the server's settings back first).
    ~RunThread();
    RunThread(const RunThread&) = delete;
    RunThread& operator=(const RunThread&) = delete;

    // Running from start() until its end is delivered; when false, no thread of this object is alive.
    bool isRunning() const noexcept { return running_; }
    // False (and nothing happens) while a run runs. `run` runs on a thread of its own and returns
    // its End; when it throws instead, `failed(message)` (on that thread) makes the End.
    bool start(std::function<End(std::stop_token)> run, std::function<End(const std::string&)> failed);
    // Asks the running run to stop; its end follows.
    void cancel();
    // Blocks until the run has ended (after cancel(), for quitting), delivering its end.
    void wait();

    // From the run's thread: `f` runs on the owner's thread later, dropped by Qt if the owner is
    // gone by then. The run's events leave this way, never blocking the run.
    template <typename F>
    void post(F&& f) const {
        QMetaObject::invokeMethod(owner_, std::forward<F>(f), Qt::QueuedConnection);
    }

private:
    void finish(const End& end);

    QObject* owner_;
    std::jthread thread_;
    bool running_ = false;
};

} // namespace isobar::ui
