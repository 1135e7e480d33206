// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "SettingsPanel.h"
#include "StartFlow.h"
#include "TargetCheck.h"

#ifndef Q_MOC_RUN // moc 6.4 cannot parse some C++20 standard headers the core pulls in
#include "report/RunReport.h"
#endif

#include <QMainWindow>
#include <QPointer>

#include <optional>

class QTabWidget;
class QThreadPool;

namespace isobar::ui {

class BenchmarksPage;
class FilesPage;
class HistoryPanel;
class LoadController;
class RunPanel;
class StartFlow;
class TableAuditDialog;
class TableMapDialog;
class TargetPanel;

// The desktop app: Files -> Target -> Settings -> Run -> History, one tab each, and Benchmarks
// (the published experiments on the chosen server). The window builds
// the tabs and wires them; the StartFlow takes a start from Start to the run's end (a server
// check first, then the LoadController), and the window never waits for either.
class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Help > About: the version, the formats Isobar reads, the licence (rich text).
    static QString aboutText();

    // What the app does once shown: say what killed runs left behind, check the chosen server.
    void startupChecks();

    // Starts a load of the files on the Files tab (after a server check). `resume` ignores
    // "replace" (a resume never empties the table).
    void startLoad(bool resume = false);
    void cancelLoad();
    // Checks the chosen server in the background; the result goes to the Target and Settings tabs.
    void checkTarget();
    // Opens a map of what `report`'s run wrote (Run and History tabs), read through the Target
    // tab's connection.
    void openTableMap(const isobar::RunReport& report);
    // An audit of `table` (the History's Audit table), on the Target tab's connection.
    void openTableAudit(const QString& table);
    // The audit opened last, while it is open.
    TableAuditDialog* auditDialog() const;
    // The map opened last, while it is open.
    TableMapDialog* mapDialog() const;

    // How the window asks the user yes/no (the durability confirmation included); replaceable
    // for tests.
    void setConfirm(SettingsPanel::Confirm confirm);
    // How the window asks the user to pick one of several answers (a load refused for rows already
    // in the table: keep them or replace them); replaceable for tests.
    void setChoose(StartFlow::Choose choose);

    FilesPage* filesPage() const { return files_; }
    TargetPanel* targetPanel() const { return target_; }
    SettingsPanel* settingsPanel() const { return settings_; }
    RunPanel* runPanel() const { return run_; }
    HistoryPanel* historyPanel() const { return history_; }
    BenchmarksPage* benchmarksPage() const { return bench_; }
    LoadController* controller() const { return controller_; }
    QTabWidget* tabs() const { return tabs_; }
    const std::optional<TargetCheck>& lastCheck() const;
    // Where server checks and restores run, with the other work that waits on a server (tests wait
    // for it to be idle).
    QThreadPool* checkPool() const;

signals:
    // A server check finished (also one that failed: see lastCheck()->error).
    void targetChecked();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createActions();
    void saveSettings() const;
    void restoreSettings();

    FilesPage* files_;
    TargetPanel* target_;
    SettingsPanel* settings_;
    LoadController* controller_;
    RunPanel* run_;
    HistoryPanel* history_;
    BenchmarksPage* bench_;
    QTabWidget* tabs_;
    SettingsPanel::Confirm confirm_;
    StartFlow* flow_ = nullptr;
    QPointer<TableMapDialog> mapDialog_;
    QPointer<TableAuditDialog> auditDialog_;
    bool closeAfterBench_ = false; // the user chose to quit: the bench is cancelled first
};

} // namespace isobar::ui
