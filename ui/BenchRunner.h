// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "RunThread.h"
#include "TargetCheck.h"

#ifndef Q_MOC_RUN // moc 6.4 cannot parse some C++20 standard headers the core pulls in
#include "bench/WarehouseBenchmarks.h"
#endif

#include <QMetaType>
#include <QObject>

#include <atomic>
#include <memory>
#include <mutex>

Q_DECLARE_METATYPE(isobar::BenchReport)

namespace isobar::ui {

// A bench the Benchmarks tab asks for: which one, with its options. The connection is a choice,
// not yet a string: starting the embedded cluster can take seconds, so it is resolved on the
// bench's thread, which fills in the options' conninfo.
struct BenchRequest {
    enum class Kind : std::uint8_t { Methods, Matrix, Queries };
    Kind kind = Kind::Methods;
    ConnectionChoice connection;
    MethodsBenchmarkOptions methods;
    MatrixBenchmarkOptions matrix;
    QueryBenchmarkOptions queries;
    // Queries: restart the embedded cluster before each table type's cold runs.
    bool restartEmbedded = false;
};

// The report kind of a bench ("methods", "matrix", "query") and how the tab names it.
std::string benchKindKey(BenchRequest::Kind kind);
QString benchKindTitle(BenchRequest::Kind kind);
// "Loading methods" for a report's kind; the kind itself for one the tab does not run.
QString benchKindTitle(const std::string& key);

// Runs one bench at a time on a thread of its own (a RunThread) and writes its report where bench
// reports are kept, whatever the end (a bench that throws leaves a report saying why). What the
// bench says comes out as signals on the GUI thread.
class BenchRunner : public QObject {
    Q_OBJECT

public:
    explicit BenchRunner(QObject* parent = nullptr);
    // Cancels a running bench and waits for it: its tables are dropped, the server's settings
    // restored, before this returns.
    ~BenchRunner() override;

    bool isRunning() const noexcept { return run_.isRunning(); }
    // False (and nothing happens) while a bench runs.
    bool start(const BenchRequest& request);
    // Asks the running bench to stop; `ended` follows once it has cleaned up.
    void cancel();
    // Blocks until the bench has ended (after cancel(), for quitting), delivering `ended`.
    void wait();

signals:
    // At most one queued at a time: a bench that reports faster than the GUI draws skips steps.
    void progressed(const QString& step, double done);
    // The last event of a bench: its report (status completed, cancelled or failed), the JSON
    // file it was written to, or why it could not be written.
    void ended(const isobar::BenchReport& report, const QString& path, const QString& problem);

private:
    // The newest progress, handed from the bench's thread to the GUI's.
    struct Progress {
        std::mutex mutex;
        std::string step;
        double done = 0;
        std::atomic<bool> posted{false};
    };
    void report(const std::string& step, double done);

    std::unique_ptr<BenchRequest> request_; // outlives the thread that reads it
    std::shared_ptr<Progress> progress_;
    RunThread run_; // last: joined before what it reads goes
};

} // namespace isobar::ui
