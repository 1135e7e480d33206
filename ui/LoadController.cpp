#include "LoadController.h"

#include "report/ReportRecorder.h"

#include <QCoreApplication>
#include <QEvent>

namespace isobar::ui {

// The engine's sink, living on the load's thread: each event is copied into a call posted to the
// controller's (GUI) thread, so the engine never waits for the GUI. Posted calls to a controller
// that is gone are dropped by Qt.
class LoadController::Bridge final : public LoadSink {
public:
    explicit Bridge(LoadController* owner)
        : owner_(owner) {}

    template <typename F>
    void post(F&& f) {
        QMetaObject::invokeMethod(owner_, std::forward<F>(f), Qt::QueuedConnection);
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
    void rateSampled(const RateSample& s) override {
        post([o = owner_, s] { emit o->rateSampled(s); });
    }
    void serverSampled(const ServerSample& s) override {
        post([o = owner_, s] { emit o->serverSampled(s); });
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
    , bridge_(std::make_unique<Bridge>(this)) {
    qRegisterMetaType<LoadStart>();
    qRegisterMetaType<RateSample>();
    qRegisterMetaType<ServerSample>();
    qRegisterMetaType<WorkerChange>();
    qRegisterMetaType<UnitEvent>();
    qRegisterMetaType<LoadSummary>();
    qRegisterMetaType<LoadError>();
    qRegisterMetaType<ServerInfo>();
    qRegisterMetaType<RunReport>();
    qRegisterMetaType<SettingWarning>();
}

LoadController::~LoadController() {
    if (thread_.joinable()) {
        thread_.request_stop();
        thread_.join();
    }
}

bool LoadController::start(const LoadRequest& request) {
    if (running_) {
        return false;
    }
    if (thread_.joinable()) {
        thread_.join(); // the previous run's thread, already done
    }
    request_ = std::make_unique<LoadRequest>(request);
    running_ = true;
    // Thread boundary: the whole load - engine, report, writing it - runs here; only posted copies
    // of its events reach the GUI thread.
    thread_ = std::jthread([this](std::stop_token stop) {
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
        bridge_->post([this, summary, report, path, problem] { finish(summary, report, path, problem); });
    });
    return true;
}

LoadSink& LoadController::events() {
    return *bridge_;
}

void LoadController::cancel() {
    if (running_) {
        thread_.request_stop();
    }
}

void LoadController::wait() {
    if (thread_.joinable()) {
        thread_.join();
    }
    // Deliver what the finished run posted, `ended` included, before returning.
    QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
}

void LoadController::finish(const LoadSummary& summary, const RunReport& report, const QString& path,
                            const QString& problem) {
    if (thread_.joinable()) {
        thread_.join(); // it posted this as its last act
    }
    running_ = false;
    emit ended(summary, report, path, problem);
}

} // namespace isobar::ui
