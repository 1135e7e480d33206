// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "BackgroundJobs.h"
#include "BenchRunner.h"
#include "SettingsPanel.h"

#include <QWidget>

#include <functional>
#include <vector>

class QLabel;
class QProgressBar;
class QPushButton;

namespace isobar::ui {

class BenchHistoryPanel;
class BenchOptionsPanel;
class BenchReportView;

// The published experiments, run from the desktop on the Target tab's server: the bench and its
// options (BenchOptionsPanel), Run and Cancel with the bench's step and progress, the past bench
// runs newest first (Open HTML, Export...), and the chosen run's tables, plots and machine.
// Which table types the server can make is asked in the background when the tab is shown or the
// target changes; the bench runs on a thread of its own (BenchRunner). The page never waits.
class BenchmarksPage : public QWidget {
    Q_OBJECT

public:
    enum class State {
        Unchecked,  // the server was not asked since the target changed (the tab was not shown)
        Checking,   // asking the server which table types it can make
        Ready,      // Run works
        NoServer,   // the server could not be reached: Run waits for one
        Running,    // a bench runs
        Cancelling, // Cancel was pressed: the bench drops its tables, restores what it changed
    };
    Q_ENUM(State)

    // `connection` is the Target tab's choice, asked whenever it matters.
    explicit BenchmarksPage(std::function<ConnectionChoice()> connection, QWidget* parent = nullptr);

    State state() const { return state_; }
    bool isRunning() const { return state_ == State::Running || state_ == State::Cancelling; }

    // The target may have changed: the table types are asked again (now when the tab is shown).
    void targetChanged();
    // The Files tab's files a bench may use instead of synthetic hours, or why none can be used.
    void setFiles(std::vector<std::filesystem::path> files, const OpenOptions& open, const QString& notReady);
    // A load runs on the Run tab: no bench meanwhile (each would skew the other's numbers).
    void setLoadRunning(bool running);
    // How the page asks yes/no (the durability trade); replaceable for tests.
    void setConfirm(SettingsPanel::Confirm confirm);

    // Run pressed: checks the options, asks before a durability trade, starts the bench.
    void run();
    void cancel();
    void checkServer();

    BenchOptionsPanel* options() const { return options_; }
    BenchHistoryPanel* history() const { return history_; }
    QPushButton* runButton() const { return run_; }
    QPushButton* cancelButton() const { return cancel_; }
    QPushButton* checkButton() const { return check_; }
    QProgressBar* progressBar() const { return progress_; }
    QLabel* stepLabel() const { return step_; }
    QLabel* messageLabel() const { return message_; }
    BenchReportView* reportView() const { return view_; }

signals:
    void serverChecked();
    // The bench ended (completed, cancelled or failed) and its report is shown.
    void benchEnded(const QString& status);

protected:
    void showEvent(QShowEvent* event) override;

private:
    // The one place the state changes, and what depends on it: Run, Cancel, the options.
    void moveTo(State next);
    void takeCheck(const std::vector<BenchTableType>& available,
                   const std::vector<std::pair<std::string, std::string>>& skipped, const QString& error);
    void takeEnd(const BenchReport& report, const QString& path, const QString& problem);
    void showSelected();

    std::function<ConnectionChoice()> connection_;
    SettingsPanel::Confirm confirm_;
    BenchOptionsPanel* options_;
    BenchRunner* runner_;
    QPushButton* run_;
    QPushButton* cancel_;
    QPushButton* check_;
    QProgressBar* progress_;
    QLabel* step_;
    QLabel* message_;
    BenchHistoryPanel* history_;
    BenchReportView* view_;
    State state_ = State::Unchecked;
    bool loadRunning_ = false;
    std::optional<ConnectionChoice> checked_; // the target the last check was of
    JobTracker checking_;                     // the check whose result counts; a newer one supersedes it
};

} // namespace isobar::ui
