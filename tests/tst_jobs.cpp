// SPDX-License-Identifier: GPL-3.0-or-later

// The widgets' background work (BackgroundJobs.h) and the long runs' thread (RunThread.h), without a
// server: a superseded job's result is dropped, nothing reaches an owner that is gone, errors come
// back as values on the GUI thread, a job sees its stop, a queue's jobs never overlap, and a run
// ends exactly once.

#include "BackgroundJobs.h"
#include "RunThread.h"
#include "util/Error.h"

#include <QThread>
#include <QThreadPool>
#include <QtTest>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <thread>
#include <vector>

using namespace isobar;
using namespace isobar::ui;
using namespace std::chrono_literals;

namespace {

// A door a job waits at until the test opens it (never more than 30 s: a broken test ends).
class Gate {
public:
    void open() { promise_.set_value(); }
    bool pass() const { return future_.wait_for(30s) == std::future_status::ready; }

private:
    std::promise<void> promise_;
    std::shared_future<void> future_ = promise_.get_future().share();
};

// Lets the pools finish what they run, then delivers what they posted.
void settle() {
    QThreadPool::globalInstance()->waitForDone();
    jobPool(JobPool::Server)->waitForDone();
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
}

} // namespace

class TestJobs : public QObject {
    Q_OBJECT

private slots:
    // The newer job's result is shown; the one it superseded was told to stop and is dropped, even
    // when it ends last.
    void staleResultsAreDropped() {
        QObject owner;
        JobTracker tracker(&owner, JobPool::Server);
        auto gate = std::make_shared<Gate>();
        auto started = std::make_shared<std::atomic<bool>>(false);
        auto sawStop = std::make_shared<std::atomic<bool>>(false);
        std::vector<int> delivered;
        std::vector<QString> errors;
        const JobTracker::Id first = tracker.start(
            [gate, started, sawStop](const std::stop_token& stop) {
                *started = true;
                gate->pass();
                *sawStop = stop.stop_requested();
                return 1;
            },
            [&delivered](int v) { delivered.push_back(v); },
            [&errors](const JobError& e) { errors.push_back(e.message); });
        QCOMPARE(tracker.current(), first);
        QVERIFY(tracker.isRunning());
        QTRY_VERIFY(started->load()); // superseded while it runs (one superseded before is skipped)
        const JobTracker::Id second =
            tracker.start([] { return 2; }, [&delivered](int v) { delivered.push_back(v); },
                          [&errors](const JobError& e) { errors.push_back(e.message); });
        QVERIFY(second != first);
        QCOMPARE(tracker.current(), second);
        QTRY_COMPARE(delivered, std::vector<int>{2});
        QVERIFY(!tracker.isRunning());
        gate->open(); // the first ends now, after the second was shown
        settle();
        QVERIFY(*sawStop);
        QCOMPARE(delivered, std::vector<int>{2});
        QVERIFY(errors.empty());
    }

    // A result that arrives after its owner is gone calls nothing; nor after its tracker is gone.
    void nothingReachesAGoneOwner() {
        auto gate = std::make_shared<Gate>();
        bool called = false;
        auto owner = std::make_unique<QObject>();
        JobTracker tracker(owner.get(), JobPool::Files);
        tracker.start(
            [gate] {
                gate->pass();
                return 1;
            },
            [&called](int) { called = true; }, [&called](const JobError&) { called = true; });
        owner.reset();
        gate->open();
        settle();
        QVERIFY(!called);

        QObject kept;
        auto second = std::make_shared<Gate>();
        auto started = std::make_shared<std::atomic<bool>>(false);
        auto sawStop = std::make_shared<std::atomic<bool>>(false);
        {
            JobTracker gone(&kept, JobPool::Files);
            gone.start(
                [second, started, sawStop](const std::stop_token& stop) {
                    *started = true;
                    second->pass();
                    *sawStop = stop.stop_requested();
                    return 1;
                },
                [&called](int) { called = true; }, [&called](const JobError&) { called = true; });
            QTRY_VERIFY(started->load());
        } // the tracker goes first, as it does with its owner: the job is cancelled, not waited for
        second->open();
        settle();
        QVERIFY(*sawStop);
        QVERIFY(!called);
    }

    // What a job throws comes back as its message, on the GUI thread; `done` is not called.
    void errorsAreDelivered() {
        QObject owner;
        JobTracker tracker(&owner, JobPool::Files);
        QString message;
        Qt::HANDLE thread = nullptr;
        bool done = false;
        tracker.start([]() -> int { throw Error("the file is not NetCDF"); }, [&done](int) { done = true; },
                      [&message, &thread](const JobError& e) {
                          message = e.message;
                          thread = QThread::currentThreadId();
                      });
        QTRY_COMPARE(message, QString("the file is not NetCDF"));
        QCOMPARE(thread, QThread::currentThreadId());
        QVERIFY(!done);
        QVERIFY(!tracker.isRunning());
        // Anything thrown, not only std::exception.
        tracker.start([]() -> int { throw 42; }, [&done](int) { done = true; },
                      [&message](const JobError& e) { message = e.message; });
        QTRY_COMPARE(message, QString("an unknown error"));
        QVERIFY(!done);
    }

    // cancel() sets the job's stop token (a job that looks at it ends early), and neither its result
    // nor its error is delivered.
    void aJobSeesItsCancel() {
        QObject owner;
        JobTracker tracker(&owner, JobPool::Server);
        auto started = std::make_shared<std::atomic<bool>>(false);
        auto sawStop = std::make_shared<std::atomic<bool>>(false);
        bool called = false;
        tracker.start(
            [started, sawStop](const std::stop_token& stop) -> int {
                *started = true;
                const auto deadline = std::chrono::steady_clock::now() + 30s;
                while (!stop.stop_requested() && std::chrono::steady_clock::now() < deadline) {
                    std::this_thread::sleep_for(1ms);
                }
                *sawStop = stop.stop_requested();
                throw Cancelled(); // as a cancelled query does: not shown
            },
            [&called](int) { called = true; }, [&called](const JobError&) { called = true; });
        QTRY_VERIFY(started->load());
        QElapsedTimer clock;
        clock.start();
        tracker.cancel();
        QVERIFY(!tracker.isRunning());
        QCOMPARE(tracker.current(), JobTracker::Id(0));
        settle();
        QVERIFY(*sawStop);
        QVERIFY2(clock.elapsed() < 10'000, "the job ended when told, not at its deadline");
        QVERIFY(!called);
    }

    // A job's `done` may start the next job of its tracker, which then runs.
    void doneMayStartTheNext() {
        QObject owner;
        JobTracker tracker(&owner, JobPool::Files);
        std::vector<int> delivered;
        std::function<void(int)> next = [&](int v) {
            delivered.push_back(v);
            if (v < 3) {
                tracker.start([v] { return v + 1; }, next, [](const JobError&) {});
            }
        };
        tracker.start([] { return 1; }, next, [](const JobError&) {});
        QTRY_COMPARE(delivered, (std::vector<int>{1, 2, 3}));
        QVERIFY(!tracker.isRunning());
    }

    // Jobs of one queue, from several trackers, run one at a time in the order they were started;
    // one superseded while it waits never runs.
    void aQueueRunsOneJobAtATime() {
        QObject owner;
        const JobQueue queue(JobPool::Server);
        std::vector<std::unique_ptr<JobTracker>> trackers;
        auto running = std::make_shared<std::atomic<int>>(0);
        auto most = std::make_shared<std::atomic<int>>(0);
        auto order = std::make_shared<std::vector<int>>(); // written by one job at a time
        std::vector<int> delivered;
        for (int i = 0; i < 6; ++i) {
            trackers.push_back(std::make_unique<JobTracker>(&owner, queue));
            trackers.back()->start(
                [i, running, most, order] {
                    const int now = ++*running;
                    int seen = most->load();
                    while (now > seen && !most->compare_exchange_weak(seen, now)) {
                    }
                    order->push_back(i);
                    std::this_thread::sleep_for(20ms);
                    --*running;
                    return i;
                },
                [&delivered](int v) { delivered.push_back(v); }, [](const JobError&) {});
        }
        trackers[4]->cancel(); // waiting its turn: skipped
        QTRY_COMPARE(delivered.size(), std::size_t(5));
        settle();
        QCOMPARE(most->load(), 1);
        QCOMPARE(*order, (std::vector<int>{0, 1, 2, 3, 5}));
        QCOMPARE(delivered, (std::vector<int>{0, 1, 2, 3, 5}));
    }

    // A long run: exactly one end per start, delivered after its thread is joined; cancel() is its
    // stop token; a run that throws ends all the same; no second start while one runs.
    void aRunEndsExactlyOnce() {
        QObject owner;
        RunThread run(&owner);
        QStringList ends;
        auto gate = std::make_shared<Gate>();
        QVERIFY(run.start(
            [gate, &ends](const std::stop_token& stop) -> RunThread::End {
                gate->pass();
                const auto deadline = std::chrono::steady_clock::now() + 30s;
                while (!stop.stop_requested() && std::chrono::steady_clock::now() < deadline) {
                    std::this_thread::sleep_for(1ms);
                }
                const bool stopped = stop.stop_requested();
                return [&ends, stopped] {
                    ends << (stopped ? "cancelled" : "completed");
                };
            },
            [&ends](const std::string& why) -> RunThread::End {
                return [&ends, why] {
                    ends << QString::fromStdString(why);
                };
            }));
        QVERIFY(run.isRunning());
        QVERIFY(!run.start(
            [](const std::stop_token&) -> RunThread::End {
                return [] {
                };
            },
            [](const std::string&) -> RunThread::End {
                return [] {
                };
            }));
        gate->open();
        run.cancel();
        run.wait(); // joins and delivers the end
        QCOMPARE(ends, QStringList{"cancelled"});
        QVERIFY(!run.isRunning());
        QCoreApplication::processEvents();
        QCOMPARE(ends.size(), 1);

        // A run that throws: its failed end, once; the next start works from its end's handler.
        QVERIFY(run.start([](const std::stop_token&) -> RunThread::End { throw Error("the disk is full"); },
                          [&ends, &run](const std::string& why) -> RunThread::End {
                              return [&ends, &run, why] {
                                  ends << QString::fromStdString(why);
                                  QVERIFY(!run.isRunning());
                                  QVERIFY(run.start(
                                      [](const std::stop_token&) -> RunThread::End {
                                          return [] {
                                          };
                                      },
                                      [](const std::string&) -> RunThread::End {
                                          return [] {
                                          };
                                      }));
                              };
                          }));
        QTRY_COMPARE(ends, (QStringList{"cancelled", "the disk is full"}));
        QTRY_VERIFY(!run.isRunning());
    }
};

QTEST_GUILESS_MAIN(TestJobs)
#include "tst_jobs.moc"
