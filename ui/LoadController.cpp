// SPDX-License-Identifier: GPL-3.0-or-later

#include "LoadController.h"

#include "report/ReportRecorder.h"

namespace isobar::ui {

// The engine's sink, living on the load's thread: each event is copied into a call posted to the
// controller's (GUI) thread (RunThread::post), so the engine never waits for the GUI.
class LoadController::Bridge final : public LoadSink {
public:
    explicit Bridge(LoadController* owner)
        : owner_(owner) {}

    template <typename F>
    void post(F&& f) {
        owner_->run_.post(std::forward<F>(f));
    }

    void settingsChecked(const ServerInfo& server, const std::vector<SettingWarning>& warnings) override {
        post([o = owner_, server, w = QVector<SettingWarning>(warnings.begin(), warnings.end())] {
            emit o->settingsChecked(server, w);
        });
    }
    void started(const LoadStart& s) override {
        post([o = owner_, s] { emit o->started(s); });
    }
    void warning(const std::string& message) override {
        post([o = owner_, m = QString::fromStdString(message)] { emit o->warning(m); });
    }
    void note(const std::string& message) override {
        post([o = owner_, m = QString::fromStdString(message)] { emit o->note(m); });
    }
    void rateMeasured(const RateReading& s) override {
        post([o = owner_, s] { emit o->rateMeasured(s); });
    }
    void serverMeasured(const ServerReading& s) override {
        post([o = owner_, s] { emit o->serverMeasured(s); });
    }
    void workersChanged(const WorkerChange& c) override {
        post([o = owner_, c] { emit o->workersChanged(c); });
    }
    void unitCommitted(const UnitEvent& e) override {
        post([o = owner_, e] { emit o->unitCommitted(e); });
    }

private:
    LoadController* owner_;
};

LoadController::LoadController(QObject* parent)
    : QObject(parent)
    , bridge_(std::make_unique<Bridge>(this))
    , run_(this) {
    qRegisterMetaType<LoadStart>();
    qRegisterMetaType<RateReading>();
    qRegisterMetaType<ServerReading>();
    qRegisterMetaType<WorkerChange>();
    qRegisterMetaType<UnitEvent>();
    qRegisterMetaType<LoadSummary>();
    qRegisterMetaType<LoadError>();
    qRegisterMetaType<ServerInfo>();
    qRegisterMetaType<RunReport>();
    qRegisterMetaType<SettingWarning>();
}

LoadController::~LoadController() = default;

bool LoadController::start(const LoadRequest& request) {
    if (run_.isRunning()) {
        return false;
    }
    request_ = std::make_unique<LoadRequest>(request);
    // The whole load - engine, report, writing it - runs on the run's thread; only posted copies
    // of its events reach the GUI thread.
    return run_.start(
        [this](const std::stop_token& stop) -> RunThread::End {
            ReportRecorder recorder(*bridge_, *request_);
            const LoadSummary summary = runLoad(*request_, stop, recorder);
            const RunReport report = recorder.finish(summary);
            QString path;
            QString problem;
            try {
                path = QString::fromStdString(writeRunReport(report).string());
            } catch (const std::exception& e) {
                problem = QString::fromStdString(e.what());
            }
            return [this, summary, report, path, problem] {
                emit ended(summary, report, path, problem);
            };
        },
        [this](const std::string& why) -> RunThread::End {
            // runLoad never throws; making or writing the report did (out of memory, most likely).
            LoadSummary summary;
            summary.status = LoadStatus::Failed;
            summary.error = LoadError{};
            summary.error->message = why;
            RunReport report;
            report.status = "failed";
            report.table = request_->table.display();
            report.error = why;
            return [this, summary, report, why = QString::fromStdString(why)] {
                emit ended(summary, report, {}, tr("no report: %1").arg(why));
            };
        });
}

LoadSink& LoadController::events() {
    return *bridge_;
}

void LoadController::cancel() {
    run_.cancel();
}

void LoadController::wait() {
    run_.wait();
}

} // namespace isobar::ui
