#pragma once

#include "ServerCheck.h"
#include "SettingsPanel.h"

#include <QMainWindow>

#include <optional>

class QTabWidget;

namespace isobar::ui {

class FilesPage;
class HistoryPanel;
class LoadController;
class RunPanel;
class TargetPanel;

// The desktop app: Files -> Target -> Settings -> Run -> History, one tab each. Starting a load
// checks the server first (starting the embedded cluster when it is the target), then hands the
// request to the LoadController; the window never waits for the engine.
class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // What the app does once shown: say what killed runs left behind, check the chosen server.
    void startupChecks();

    // Starts a load of the files on the Files tab (after a server check). `resume` ignores
    // "replace" (a resume never empties the table).
    void startLoad(bool resume = false);
    void cancelLoad();
    // Checks the chosen server in the background; the result goes to the Target and Settings tabs.
    void checkTarget();

    // How the window asks the user yes/no (the durability confirmation included); replaceable
    // for tests.
    void setConfirm(SettingsPanel::Confirm confirm);

    FilesPage* filesPage() const { return files_; }
    TargetPanel* targetPanel() const { return target_; }
    SettingsPanel* settingsPanel() const { return settings_; }
    RunPanel* runPanel() const { return run_; }
    HistoryPanel* historyPanel() const { return history_; }
    LoadController* controller() const { return controller_; }
    QTabWidget* tabs() const { return tabs_; }
    const std::optional<ServerCheck>& lastCheck() const { return check_; }

signals:
    // A server check finished (also one that failed: see lastCheck()->error).
    void targetChecked();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    void takeCheck(quint64 job, const ServerCheck& check);
    void offerRestore(const ServerCheck& check);
    void launch(const ServerCheck& check);
    void loadEnded();
    void saveSettings() const;
    void restoreSettings();

    FilesPage* files_;
    TargetPanel* target_;
    SettingsPanel* settings_;
    LoadController* controller_;
    RunPanel* run_;
    HistoryPanel* history_;
    QTabWidget* tabs_;
    SettingsPanel::Confirm confirm_;
    std::optional<ServerCheck> check_;
    quint64 checkJob_ = 0;
    bool startAfterCheck_ = false;
    bool resume_ = false;
    bool closeAfterRun_ = false;
};

} // namespace isobar::ui
