// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "RunThread.h"
#include "ingest/Loader.h"
#include "report/RunReport.h"

#include <QObject>
#include <QString>
#include <QVector>

#include <memory>

Q_DECLARE_METATYPE(isobar::LoadStart)
Q_DECLARE_METATYPE(isobar::RateReading)
Q_DECLARE_METATYPE(isobar::ServerReading)
Q_DECLARE_METATYPE(isobar::WorkerChange)
Q_DECLARE_METATYPE(isobar::UnitEvent)
Q_DECLARE_METATYPE(isobar::LoadSummary)
Q_DECLARE_METATYPE(isobar::LoadError)
Q_DECLARE_METATYPE(isobar::ServerInfo)
Q_DECLARE_METATYPE(isobar::RunReport)
Q_DECLARE_METATYPE(isobar::SettingWarning)

namespace isobar::ui {

// The one adapter between the engine and the widgets. start() runs a load on a thread of its own
// (a RunThread); the engine's sink events come out as signals delivered on the GUI thread (queued:
// the engine never waits for the GUI). Every run - completed, cancelled or failed - ends with
// exactly one `ended` signal carrying its summary and its run report, which is also written where
// the CLI writes them.
class LoadController : public QObject {
    Q_OBJECT

public:
    explicit LoadController(QObject* parent = nullptr);
    // Cancels a running load and waits for it: durability settings are restored before this returns.
    ~LoadController() override;

    bool isRunning() const noexcept { return run_.isRunning(); }
    // The request of the last start(), as the engine got it (null before the first).
    const LoadRequest* lastRequest() const noexcept { return request_.get(); }
    // False (and nothing happens) while a load is running.
    bool start(const LoadRequest& request);
    // Asks the running load to stop: the units in flight roll back, `ended` follows.
    void cancel();
    // Blocks until the running load has ended (after cancel(), for quitting).
    void wait();
    // The sink the engine's events go to, callable from any thread: what it is told comes out as
    // this controller's signals on its own thread (the tests tell it events of their own).
    LoadSink& events();

signals:
    void settingsChecked(const isobar::ServerInfo& server, const QVector<isobar::SettingWarning>& warnings);
    void started(const isobar::LoadStart& start);
    void rateMeasured(const isobar::RateReading& sample);
    void serverMeasured(const isobar::ServerReading& sample);
    void workersChanged(const isobar::WorkerChange& change);
    void unitCommitted(const isobar::UnitEvent& unit);
    void note(const QString& message);
    void warning(const QString& message);
    // The last event of a run. `error` is set when it failed; `reportPath` is where its JSON
    // report was written (empty when that failed, with the reason in `reportProblem`).
    void ended(const isobar::LoadSummary& summary, const isobar::RunReport& report, const QString& reportPath,
               const QString& reportProblem);

private:
    class Bridge;

    std::unique_ptr<LoadRequest> request_; // outlives the thread that reads it
    std::unique_ptr<Bridge> bridge_;
    RunThread run_; // last: joined before what it reads goes
};

} // namespace isobar::ui
