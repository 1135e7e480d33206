// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "BackgroundJobs.h"
#include "SettingsPanel.h"
#include "TargetCheck.h"

#ifndef Q_MOC_RUN // moc 6.4 cannot parse some C++20 standard headers the core pulls in
#include "ingest/Loader.h"
#include "report/RunReport.h"
#endif

#include <QObject>
#include <QStringList>

#include <functional>
#include <optional>

namespace isobar::ui {

class FilesPage;
class LoadController;
class RunPanel;
class TargetPanel;

// The desktop's way from Start to the end of a run, as one state machine: Start takes the
// window's choices and waits for a check of the server (starting the embedded cluster when it is
// the target); a killed run's settings found there are offered back first; then the
// LoadController runs the load, which Cancel or closing the window stops. moveTo() is the one
// place the state changes, and it sets what depends on it: the run view's buttons, the lock on the
// durability boxes, the start that waits. The window never waits for the server or the engine.
class StartFlow : public QObject {
    Q_OBJECT

public:
    enum class State {
        Idle,                 // nothing under way; a check of the target only shows what it finds
        Checking,             // Start was pressed: the start waits for its server check
        Restoring,            // settings a killed run left changed are being put back
        RestoringBeforeStart, // the same, and a start waits for it
        Running,              // the engine loads
        Cancelling,           // Cancel was pressed: the run rolls back what is in flight
        Closing,              // the same, and the window closes once the run has ended
    };
    Q_ENUM(State)

    struct Widgets {
        FilesPage* files = nullptr;
        TargetPanel* target = nullptr;
        SettingsPanel* settings = nullptr;
        RunPanel* run = nullptr;
    };

    // `confirm` asks the user yes/no (restore, replace, quit during a run).
    StartFlow(const Widgets& widgets, LoadController* controller, SettingsPanel::Confirm confirm,
              QObject* parent = nullptr);

    // Asks the user to pick one of `choices`: its index, or -1 for none (the dialog closed).
    using Choose = std::function<int(const QString& title, const QString& text, const QStringList& choices)>;
    // How a load refused for rows already in the table (with other values) asks what to do:
    // keep the table's rows or replace them, and the same load runs again with that choice
    // (--overlap skip or replace); without an answer nothing more happens.
    void setChoose(Choose choose) { choose_ = std::move(choose); }

    State state() const { return state_; }
    const std::optional<TargetCheck>& lastCheck() const { return check_; }

    // Start pressed: loads the files of the Files tab once the server is checked. `resume`
    // ignores "replace" (a resume never empties the table). False, and nothing happens, while a
    // start waits or a load runs.
    bool start(bool resume);
    // Drops a start that waits, or stops the running load (`ended` follows).
    void cancel();
    // Checks the chosen target in the background; the result goes to the Target and Settings tabs.
    void checkTarget();
    // The window is asked to close. True: it may close now. False: not (the user said no), or not
    // yet: the run is cancelled first, and closeAgreed() follows its end.
    bool mayClose();

signals:
    // A server check finished (also one that failed: see lastCheck()->error).
    void targetChecked();
    // For the window's status bar.
    void statusMessage(const QString& text);
    // The run cancelled for closing has ended (and the user agreed if its settings did not come
    // back): the window closes now.
    void closeAgreed();

private:
    // What a start loads, taken from the window when Start is pressed.
    struct PendingStart {
        std::vector<std::filesystem::path> files;
        OpenOptions open;
        AllMissingPolicy allMissing = AllMissingPolicy::Skip;
        std::vector<std::string> variables; // column keys; empty: every variable (or the table's)
        std::string table;
        TableType type = TableType::Regular;
        std::string chunkInterval;
        bool compress = false;
        int workers = 1; // with autoWorkers, the most
        bool autoWorkers = false;
        bool replace = false;
        DurabilityRequest durability;
    };
    // Why a check was made. The one that follows a restore does not offer it again when the
    // settings are still changed: that would loop.
    enum class CheckKind { Plain, AfterRestore };

    // The one place the state changes. `why` is what the run view says when a waiting start is
    // dropped by this move.
    void moveTo(State next, const QString& why = {});
    void dropStart(const QString& why);
    void check(CheckKind kind);
    void takeCheck(CheckKind kind, const TargetCheck& check);
    void targetChanged();
    void offerRestore(const TargetCheck& check);
    void restoreDone(const std::vector<std::pair<bool, QString>>& outcomes);
    void launch(const TargetCheck& check);
    void cancelRun(State next);
    void runEnded(const LoadSummary& summary, const RunReport& report, const QString& path,
                  const QString& problem);
    void offerOverlapChoice(const LoadError& error);

    FilesPage* files_;
    TargetPanel* target_;
    SettingsPanel* settings_;
    RunPanel* run_;
    LoadController* controller_;
    SettingsPanel::Confirm confirm_;
    Choose choose_;
    State state_ = State::Idle;
    std::optional<PendingStart> start_; // in Checking and RestoringBeforeStart only
    std::optional<TargetCheck> check_;
    JobTracker checking_;  // the server check whose result counts; a newer one supersedes it
    JobTracker restoring_; // putting back the settings a killed run left changed
};

} // namespace isobar::ui
