#include "MainWindow.h"

#include "FileListModel.h"
#include "FilesPage.h"
#include "Format.h"
#include "GuiThread.h"
#include "HistoryPanel.h"
#include "LoadController.h"
#include "RunPanel.h"
#include "SummaryText.h"
#include "TargetPanel.h"
#include "Version.h"
#include "db/ConnInfo.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QThreadPool>
#include <QTimer>

namespace isobar::ui {

namespace {

enum Tab { FilesTab, TargetTab, SettingsTab, RunTab, HistoryTab };

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , files_(new FilesPage)
    , target_(new TargetPanel)
    , settings_(new SettingsPanel)
    , controller_(new LoadController(this))
    , run_(new RunPanel(controller_))
    , history_(new HistoryPanel)
    , tabs_(new QTabWidget)
    , checks_(new QThreadPool(this)) {
    // Server checks and restores can wait on the network for minutes: a pool of their own, so
    // file inspection and the history never wait behind them.
    checks_->setMaxThreadCount(2);
    setWindowTitle(QStringLiteral("Isobar %1").arg(QString::fromUtf8(kVersion)));
    tabs_->addTab(files_, tr("Files"));
    tabs_->addTab(target_, tr("Target"));
    tabs_->addTab(settings_, tr("Server settings"));
    tabs_->addTab(run_, tr("Run"));
    tabs_->addTab(history_, tr("History"));
    setCentralWidget(tabs_);
    setConfirm([this](const QString& title, const QString& text) {
        return QMessageBox::question(this, title, text, QMessageBox::Yes | QMessageBox::No,
                                     QMessageBox::No) == QMessageBox::Yes;
    });
    // The durability boxes keep their own wording (a warning icon), only the asking is shared.
    settings_->setConfirm(
        [this](const QString& title, const QString& text) { return confirm_(title, text); });
    createActions();

    connect(target_, &TargetPanel::testRequested, this, &MainWindow::checkTarget);
    connect(target_, &TargetPanel::targetChanged, this, &MainWindow::targetChanged);
    connect(run_, &RunPanel::startRequested, this, [this] { startLoad(false); });
    connect(run_, &RunPanel::resumeRequested, this, [this] { startLoad(true); });
    connect(run_, &RunPanel::cancelRequested, this, &MainWindow::cancelLoad);
    connect(controller_, &LoadController::settingsChecked, this,
            [this](const ServerInfo&, const QVector<SettingWarning>& warnings) {
                if (check_) {
                    check_->warnings.assign(warnings.begin(), warnings.end());
                    settings_->showCheck(*check_);
                }
            });
    connect(controller_, &LoadController::ended, this,
            [this](const LoadSummary& summary, const RunReport& report, const QString& path,
                   const QString& problem) {
                run_->showEnded(summary, report, path, problem);
                loadEnded(summary);
            });
    connect(files_, &FilesPage::selectionChanged, this, [this] {
        const auto* model = files_->model();
        statusBar()->showMessage(
            tr("%n file(s), %1 rows ready", nullptr, model->rowCount()).arg(formatCount(model->totalRows())));
    });
    restoreSettings();
    history_->refresh();
    statusBar()->showMessage(tr("Add ERA5 files to start (Ctrl+O), or drop them on the Files tab."));
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    const auto add = [this](QMenu* menu, const QString& text, const QKeySequence& key, auto slot) {
        QAction* a = menu->addAction(text);
        a->setShortcut(key);
        connect(a, &QAction::triggered, this, slot);
        return a;
    };
    add(file, tr("Add &files..."), QKeySequence::Open, [this] { files_->addFilesWithDialog(); });
    add(file, tr("Add f&older..."), QKeySequence(tr("Ctrl+Shift+O")),
        [this] { files_->addFolderWithDialog(); });
    file->addSeparator();
    add(file, tr("&Export run report..."), QKeySequence(tr("Ctrl+E")),
        [this] { run_->exportButton()->click(); });
    file->addSeparator();
    add(file, tr("&Quit"), QKeySequence::Quit, [this] { close(); });
    QMenu* load = menuBar()->addMenu(tr("&Load"));
    add(load, tr("&Test connection"), QKeySequence(tr("Ctrl+T")), [this] { checkTarget(); });
    add(load, tr("&Start"), QKeySequence(Qt::Key_F5), [this] { startLoad(false); });
    add(load, tr("&Cancel"), QKeySequence(tr("Shift+F5")), [this] { cancelLoad(); });
    QMenu* view = menuBar()->addMenu(tr("&View"));
    const QStringList names{tr("&Files"), tr("&Target"), tr("Server &settings"), tr("&Run"), tr("&History")};
    for (int i = 0; i < names.size(); ++i) {
        add(view, names[i], QKeySequence(tr("Ctrl+%1").arg(i + 1)), [this, i] { tabs_->setCurrentIndex(i); });
    }
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    add(help, tr("&About Isobar"), QKeySequence(), [this] {
        QMessageBox::about(this, tr("About Isobar"),
                           tr("<h3>Isobar %1</h3><p>Loads ERA5 reanalysis NetCDF files into PostgreSQL with "
                              "parallel binary COPY.</p><p>The same engine runs from a shell: "
                              "<code>isobar-cli --help</code>.</p>")
                               .arg(QString::fromUtf8(kVersion)));
    });
}

void MainWindow::setConfirm(SettingsPanel::Confirm confirm) {
    confirm_ = std::move(confirm);
}

void MainWindow::startupChecks() {
    for (const DurabilityJournal& j : abandonedJournals()) {
        run_->log(tr("An Isobar load that was killed left %1 on %2. Test the connection to that server to "
                     "restore it "
                     "(a load there restores it first).")
                      .arg(q(j.describeChanges()), q(j.target)),
                  true);
        statusBar()->showMessage(tr("A killed run left server settings changed: see the Run tab's log."));
    }
    checkTarget();
}

void MainWindow::checkTarget() {
    const quint64 job = ++checkJob_;
    target_->showChecking();
    const ConnectionChoice choice = target_->connection();
    const std::string table = target_->tableName();
    const int workers = target_->workers();
    const TableType type = target_->tableType();
    QPointer<MainWindow> self(this);
    // Thread boundary: connecting (or starting the embedded cluster) can take seconds; the check
    // runs on the pool and only its result comes back, dropped when a newer check superseded it.
    checks_->start([self, job, choice, table, workers, type] {
        TargetCheck check = ui::checkTarget(choice, table, workers, type);
        postToGui([self, job, check = std::move(check)] {
            if (self) {
                self->takeCheck(job, check);
            }
        });
    });
}

void MainWindow::takeCheck(quint64 job, const TargetCheck& check) {
    if (job != checkJob_) {
        return; // superseded
    }
    check_ = check;
    {
        // What the check finds (types it cannot do, fewer workers) is shown, not taken for a
        // change of target by the user.
        const QSignalBlocker quiet(target_);
        target_->applyCheck(check);
    }
    settings_->showCheck(check);
    emit targetChecked();
    if (!check.pendingRestores.empty()) {
        if (restoring_) {
            return; // the restore under way looks again when it is done
        }
        if (!restoreTried_) {
            offerRestore(check);
            return;
        }
        // Restoring was tried and the journals are still there: asking again would loop.
        restoreTried_ = false;
        if (pending_) {
            notStarted(tr("the settings a killed run changed on this server could not be restored (see the "
                          "log); fix that first"));
        }
        return;
    }
    restoreTried_ = false;
    if (pending_) {
        const PendingStart start = *pending_;
        pending_.reset();
        launch(check, start);
    }
}

void MainWindow::targetChanged() {
    // A check of the old target says nothing about the new one, and consent to trade durability
    // was given for the old server.
    check_.reset();
    ++checkJob_;
    target_->showUnchecked();
    settings_->resetDurability();
    settings_->clear(
        tr("The target changed: test the connection to see what its settings mean for the load."));
    if (pending_) {
        notStarted(tr("the target changed before the load started; start again"));
    }
}

void MainWindow::offerRestore(const TargetCheck& check) {
    QStringList what;
    for (const DurabilityJournal& j : check.pendingRestores) {
        what << q(j.describeChanges());
    }
    const bool yes =
        confirm_(tr("Restore server settings?"),
                 tr("An Isobar load that was killed left %1 on this server. Restore the original "
                    "settings now?")
                     .arg(what.join(QStringLiteral("; "))));
    if (!yes) {
        if (pending_) {
            notStarted(tr("this server still has the settings a killed run changed (%1); restore them "
                          "first (Test connection)")
                           .arg(what.join(QStringLiteral("; "))));
        }
        return;
    }
    restoreTried_ = true;
    restoring_ = true;
    run_->log(tr("restoring the settings a killed run left on %1...").arg(q(redactConnInfo(check.conninfo))));
    QPointer<MainWindow> self(this);
    const std::string conninfo = check.conninfo;
    checks_->start([self, conninfo] {
        std::vector<std::pair<bool, QString>> outcomes; // restored?, what happened
        try {
            for (const DurabilityOutcome& o : restoreAbandoned(conninfo, [](const std::string&) {})) {
                outcomes.emplace_back(o.restored, o.restored
                                                      ? tr("settings restored and verified")
                                                      : tr("settings NOT restored: %1").arg(q(o.problem)));
            }
        } catch (const std::exception& e) {
            outcomes.emplace_back(false, tr("settings NOT restored: %1").arg(q(e.what())));
        }
        postToGui([self, outcomes] {
            if (self) {
                self->restoring_ = false;
                for (const auto& [restored, line] : outcomes) {
                    self->run_->log(line, !restored);
                }
                self->checkTarget(); // look again; a pending start goes on from there
            }
        });
    });
}

void MainWindow::startLoad(bool resume) {
    if (controller_->isRunning() || pending_) {
        return;
    }
    tabs_->setCurrentWidget(run_);
    const FileListModel* model = files_->model();
    if (model->inspecting()) {
        run_->showNotStarted(tr("the files are still being inspected; start again in a moment"));
        return;
    }
    if (model->loadableFiles().empty()) {
        run_->showNotStarted(model->rowCount() == 0
                                 ? tr("no files: add ERA5 files on the Files tab")
                                 : tr("none of the files can be loaded (see the Files tab)"));
        return;
    }
    if (files_->chosenVariables().empty()) {
        run_->showNotStarted(tr("no variable is ticked on the Files tab"));
        return;
    }
    // What the user chose now is what loads, whatever they touch while the server is checked.
    PendingStart start;
    start.files = model->loadableFiles();
    start.open = files_->openOptions();
    start.allMissing = files_->allMissing();
    if (!files_->allPresentChosen()) {
        start.variables = files_->chosenVariables();
    }
    start.table = target_->tableName();
    start.type = target_->tableType();
    start.chunkInterval = target_->chunkInterval();
    start.workers = target_->workers();
    start.replace = target_->replace() && !resume; // a resume never empties the table
    start.durability = settings_->durability();
    pending_ = start;
    settings_->setDurabilityLocked(true); // what was ticked is what this run trades
    run_->showPreparing(target_->connection().embedded
                            ? tr("Starting the embedded cluster and checking it...")
                            : tr("Checking the server..."));
    if (restoring_) {
        return; // the restore under way checks the server again when it is done, then this starts
    }
    restoreTried_ = false;
    checkTarget();
}

void MainWindow::notStarted(const QString& why) {
    pending_.reset();
    settings_->setDurabilityLocked(false);
    run_->showNotStarted(why);
}

void MainWindow::launch(const TargetCheck& check, const PendingStart& start) {
    if (check.error) {
        notStarted(q(*check.error));
        return;
    }
    LoadRequest request;
    request.conninfo = check.conninfo;
    try {
        request.table = TableName::parse(start.table);
    } catch (const std::exception& e) {
        notStarted(q(e.what()));
        return;
    }
    if (!check.info.table) {
        // A new table: of the chosen type, if this server can make it.
        const ExtensionStatus* needs = start.type == TableType::Hypertable    ? &check.timescaledb
                                       : start.type == TableType::Distributed ? &check.citus
                                                                              : nullptr;
        if (needs != nullptr && !needs->usable) {
            notStarted(tr("a %1 table cannot be made on this server: %2")
                           .arg(q(std::string(tableTypeName(start.type))), q(needs->reason)));
            return;
        }
        request.tableOptions.type = start.type; // an existing table stays what it is
    } else if (start.replace &&
               !confirm_(tr("Replace the table's contents?"),
                         tr("%1 exists. Replace empties it (TRUNCATE) before loading: every row in it now "
                            "is deleted, also rows other loads put there. Continue?")
                             .arg(q(start.table)))) {
        notStarted(tr("the table was not to be emptied"));
        return;
    }
    request.tableOptions.chunkInterval = start.chunkInterval;
    request.files = start.files;
    request.open = start.open;
    request.allMissing = start.allMissing;
    request.variables = start.variables;
    request.workers = std::min(start.workers, check.maxWorkers);
    if (request.workers < start.workers) {
        run_->log(tr("%1 workers instead of %2: that is what the server's max_connections leaves")
                      .arg(request.workers)
                      .arg(start.workers));
    }
    request.replace = start.replace;
    request.durability = start.durability;
    if (!controller_->start(request)) {
        run_->log(tr("a load is already running; this start is dropped"), true);
        return;
    }
    statusBar()->showMessage(tr("Loading into %1...").arg(q(start.table)));
}

void MainWindow::cancelLoad() {
    if (controller_->isRunning()) {
        controller_->cancel();
        run_->log(tr("cancelling: the units in flight roll back, changed settings are restored..."));
        statusBar()->showMessage(tr("Cancelling..."));
    } else if (pending_) {
        ++checkJob_; // the check's result no longer starts anything
        target_->showUnchecked();
        notStarted(tr("cancelled before it started"));
    }
}

void MainWindow::loadEnded(const LoadSummary& summary) {
    // Durability trades are for one run only: the next one asks again.
    settings_->setDurabilityLocked(false);
    settings_->resetDurability();
    statusBar()->showMessage(SummaryText(summary).plain());
    history_->refresh();
    if (!closeAfterRun_) {
        return;
    }
    closeAfterRun_ = false;
    // Quitting was agreed on the promise that the settings come back: if they did not, the user
    // decides knowing it.
    if (summary.durability.any() && !summary.durability.restored &&
        !confirm_(tr("Settings NOT restored"),
                  tr("The load was cancelled, but the server's settings could not be put back: %1\n\nThey "
                     "stay recorded; `isobar-cli settings --restore` or the next load on that server "
                     "restores them. Quit anyway?")
                      .arg(q(summary.durability.problem)))) {
        return;
    }
    QTimer::singleShot(0, this, &QWidget::close);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (controller_->isRunning()) {
        event->ignore();
        if (closeAfterRun_) {
            return; // already on the way out
        }
        if (confirm_(
                tr("A load is running"),
                tr("Cancel the load and quit? The units in flight roll back (what was committed stays, a "
                   "later run resumes) and changed server settings are restored before Isobar quits."))) {
            if (!controller_->isRunning()) { // it ended while the question was open
                saveSettings();
                event->accept();
                return;
            }
            closeAfterRun_ = true;
            cancelLoad();
        }
        return;
    }
    cancelLoad(); // a start still waiting for its server check starts nothing now
    saveSettings();
    event->accept();
}

void MainWindow::saveSettings() const {
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    s.setValue(QStringLiteral("window/tab"), tabs_->currentIndex());
    files_->save(s);
    target_->save(s);
}

void MainWindow::restoreSettings() {
    QSettings s;
    if (!restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray())) {
        resize(1100, 760);
    }
    restoreState(s.value(QStringLiteral("window/state")).toByteArray());
    tabs_->setCurrentIndex(s.value(QStringLiteral("window/tab"), FilesTab).toInt());
    files_->restore(s);
    target_->restore(s);
}

} // namespace isobar::ui
