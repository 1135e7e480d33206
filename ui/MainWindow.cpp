#include "MainWindow.h"

#include "FileListModel.h"
#include "FilesPage.h"
#include "Format.h"
#include "HistoryPanel.h"
#include "LoadController.h"
#include "RunPanel.h"
#include "TargetPanel.h"
#include "Version.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QCloseEvent>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QRegularExpression>
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
    , tabs_(new QTabWidget) {
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
    connect(target_, &TargetPanel::targetChanged, this, [this] {
        check_.reset();
        settings_->clear(
            tr("The target changed: test the connection to see what its settings mean for the load."));
    });
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
    connect(controller_, &LoadController::ended, this, &MainWindow::loadEnded);
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
    QThreadPool::globalInstance()->start([self, job, choice, table, workers, type] {
        ServerCheck check = checkServer(choice, table, workers, type);
        QMetaObject::invokeMethod(
            self.data(),
            [self, job, check = std::move(check)] {
                if (self) {
                    self->takeCheck(job, check);
                }
            },
            Qt::QueuedConnection);
    });
}

void MainWindow::takeCheck(quint64 job, const ServerCheck& check) {
    if (job != checkJob_) {
        return; // superseded
    }
    check_ = check;
    target_->applyCheck(check);
    settings_->showCheck(check);
    emit targetChecked();
    if (!check.pendingRestores.empty()) {
        offerRestore(check);
        return;
    }
    if (startAfterCheck_) {
        startAfterCheck_ = false;
        launch(check);
    }
}

void MainWindow::offerRestore(const ServerCheck& check) {
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
        if (startAfterCheck_) {
            startAfterCheck_ = false;
            run_->showNotStarted(
                tr("this server still has the settings a killed run changed (%1); restore them "
                   "first (Test connection)")
                    .arg(what.join(QStringLiteral("; "))));
        }
        return;
    }
    run_->log(tr("restoring the settings a killed run left on %1...").arg(q(check.info.version)));
    QPointer<MainWindow> self(this);
    const std::string conninfo = check.conninfo;
    QThreadPool::globalInstance()->start([self, conninfo] {
        QStringList lines;
        try {
            for (const DurabilityOutcome& o : restoreAbandoned(conninfo, [](const std::string&) {})) {
                lines << (o.restored ? tr("settings restored and verified")
                                     : tr("NOT restored: %1").arg(q(o.problem)));
            }
        } catch (const std::exception& e) {
            lines << tr("NOT restored: %1").arg(q(e.what()));
        }
        QMetaObject::invokeMethod(
            self.data(),
            [self, lines] {
                if (self) {
                    for (const QString& l : lines) {
                        self->run_->log(l, l.startsWith(QLatin1String("NOT")));
                    }
                    self->checkTarget(); // look again; a pending start goes on from there
                }
            },
            Qt::QueuedConnection);
    });
}

void MainWindow::startLoad(bool resume) {
    if (controller_->isRunning() || startAfterCheck_) {
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
    resume_ = resume;
    startAfterCheck_ = true;
    run_->showPreparing(target_->connection().embedded
                            ? tr("Starting the embedded cluster and checking it...")
                            : tr("Checking the server..."));
    checkTarget();
}

void MainWindow::launch(const ServerCheck& check) {
    if (check.error) {
        run_->showNotStarted(q(*check.error));
        return;
    }
    LoadRequest request;
    request.conninfo = check.conninfo;
    try {
        request.table = TableName::parse(target_->tableName());
    } catch (const std::exception& e) {
        run_->showNotStarted(q(e.what()));
        return;
    }
    if (!check.info.table) {
        request.tableOptions.type = target_->tableType(); // an existing table stays what it is
    }
    request.tableOptions.chunkInterval = target_->chunkInterval();
    request.files = files_->model()->loadableFiles();
    request.open = files_->openOptions();
    request.allMissing = files_->allMissing();
    if (!files_->allPresentChosen()) {
        request.variables = files_->chosenVariables();
    }
    request.workers = target_->workers();
    request.replace = target_->replace() && !resume_;
    request.durability = settings_->durability();
    if (!controller_->start(request)) {
        run_->showNotStarted(tr("a load is already running"));
        return;
    }
    statusBar()->showMessage(tr("Loading into %1...").arg(q(target_->tableName())));
}

void MainWindow::cancelLoad() {
    if (controller_->isRunning()) {
        controller_->cancel();
        run_->log(tr("cancelling: the units in flight roll back, changed settings are restored..."));
        statusBar()->showMessage(tr("Cancelling..."));
    } else if (startAfterCheck_) {
        startAfterCheck_ = false;
        ++checkJob_; // the check's result no longer starts anything
        ServerCheck cancelled;
        cancelled.error = tr("cancelled before it started").toStdString();
        target_->applyCheck(cancelled);
        run_->showNotStarted(tr("cancelled before it started"));
    }
}

void MainWindow::loadEnded() {
    // Durability trades are for one run only: the next one asks again.
    settings_->resetDurability();
    statusBar()->showMessage(
        run_->statusLabel()->text().remove(QRegularExpression(QStringLiteral("<[^>]*>"))));
    history_->refresh();
    if (closeAfterRun_) {
        QTimer::singleShot(0, this, &QWidget::close);
    }
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
            closeAfterRun_ = true;
            cancelLoad();
        }
        return;
    }
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
