#pragma once

#include "SettingsPanel.h"
#include "TargetCheck.h"

#ifndef Q_MOC_RUN // moc 6.4 cannot parse some C++20 standard headers the core pulls in
#include "ingest/Loader.h"
#endif

#include <QMainWindow>

#include <optional>

class QTabWidget;
class QThreadPool;

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
    const std::optional<TargetCheck>& lastCheck() const { return check_; }
    // Where server checks and restores run (tests wait for it to be idle).
    QThreadPool* checkPool() const { return checks_; }

signals:
    // A server check finished (also one that failed: see lastCheck()->error).
    void targetChecked();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    // What a start loads, taken from the window when Start is pressed.
    struct PendingStart {
        std::vector<std::filesystem::path> files;
        OpenOptions open;
        AllMissingPolicy allMissing = AllMissingPolicy::Skip;
        std::vector<Variable> variables; // empty: every variable
        std::string table;
        TableType type = TableType::Regular;
        std::string chunkInterval;
        int workers = 1;
        bool replace = false;
        DurabilityRequest durability;
    };

    void takeCheck(quint64 job, const TargetCheck& check);
    void targetChanged();
    void offerRestore(const TargetCheck& check);
    void launch(const TargetCheck& check, const PendingStart& start);
    // A start that will not run: says why, and the durability boxes can be changed again.
    void notStarted(const QString& why);
    void loadEnded(const LoadSummary& summary);
    void saveSettings() const;
    void restoreSettings();

    FilesPage* files_;
    TargetPanel* target_;
    SettingsPanel* settings_;
    LoadController* controller_;
    RunPanel* run_;
    HistoryPanel* history_;
    QTabWidget* tabs_;
    QThreadPool* checks_;
    SettingsPanel::Confirm confirm_;
    std::optional<TargetCheck> check_;
    quint64 checkJob_ = 0;
    std::optional<PendingStart> pending_; // Start pressed, the server check not back yet
    bool restoreTried_ = false;           // a pending restore was attempted since the last start
    bool restoring_ = false;              // a restore runs on checks_; it checks again when done
    bool closeAfterRun_ = false;          // quit once the cancelled load has ended
};

} // namespace isobar::ui
