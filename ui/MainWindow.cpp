// SPDX-License-Identifier: GPL-3.0-or-later

#include "MainWindow.h"

#include "BackgroundJobs.h"
#include "BenchmarksPage.h"
#include "FileListModel.h"
#include "FilesPage.h"
#include "Format.h"
#include "HistoryPanel.h"
#include "LoadController.h"
#include "RunPanel.h"
#include "StartFlow.h"
#include "TableAuditDialog.h"
#include "TableMapDialog.h"
#include "TargetPanel.h"
#include "Version.h"

#include <QAbstractButton>
#include <QAction>
#include <QCloseEvent>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>

#include <algorithm>
#include <vector>

namespace isobar::ui {

namespace {

enum Tab { FilesTab, TargetTab, SettingsTab, RunTab, HistoryTab, BenchmarksTab };

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , files_(new FilesPage)
    , target_(new TargetPanel)
    , settings_(new SettingsPanel)
    , controller_(new LoadController(this))
    , run_(new RunPanel(controller_))
    , history_(new HistoryPanel)
    , bench_(new BenchmarksPage([this] { return target_->connection(); }))
    , tabs_(new QTabWidget) {
    setWindowTitle(QStringLiteral("Isobar %1").arg(QString::fromUtf8(kVersion)));
    tabs_->addTab(files_, tr("Files"));
    tabs_->addTab(target_, tr("Target"));
    tabs_->addTab(settings_, tr("Server settings"));
    tabs_->addTab(run_, tr("Run"));
    tabs_->addTab(history_, tr("History"));
    tabs_->addTab(bench_, tr("Benchmarks"));
    setCentralWidget(tabs_);
    setConfirm([this](const QString& title, const QString& text) {
        return QMessageBox::question(this, title, text, QMessageBox::Yes | QMessageBox::No,
                                     QMessageBox::No) == QMessageBox::Yes;
    });
    // Every question goes through confirm_ (which tests replace). The durability boxes keep their
    // own wording (a warning icon), only the asking is shared.
    const auto ask = [this](const QString& title, const QString& text) {
        return confirm_(title, text);
    };
    settings_->setConfirm(ask);
    bench_->setConfirm(ask);
    flow_ = new StartFlow({files_, target_, settings_, run_}, controller_, ask, this);
    setChoose([this](const QString& title, const QString& text, const QStringList& choices) {
        QMessageBox box(QMessageBox::Question, title, text, QMessageBox::Cancel, this);
        std::vector<QAbstractButton*> buttons;
        for (const QString& c : choices) {
            buttons.push_back(box.addButton(c, QMessageBox::AcceptRole));
        }
        box.exec();
        const auto it = std::find(buttons.begin(), buttons.end(), box.clickedButton());
        return it == buttons.end() ? -1 : static_cast<int>(it - buttons.begin());
    });
    createActions();

    connect(run_, &RunPanel::startRequested, this, [this] { startLoad(false); });
    connect(run_, &RunPanel::resumeRequested, this, [this] { startLoad(true); });
    connect(run_, &RunPanel::cancelRequested, this, &MainWindow::cancelLoad);
    connect(flow_, &StartFlow::targetChecked, this, &MainWindow::targetChecked);
    connect(flow_, &StartFlow::statusMessage, this,
            [this](const QString& text) { statusBar()->showMessage(text); });
    // Queued: the close comes after the run's end has been handled.
    connect(flow_, &StartFlow::closeAgreed, this, &QWidget::close, Qt::QueuedConnection);
    connect(controller_, &LoadController::ended, history_, &HistoryPanel::refresh);
    connect(run_, &RunPanel::mapRequested, this, &MainWindow::openTableMap);
    connect(history_, &HistoryPanel::mapRequested, this, &MainWindow::openTableMap);
    connect(history_, &HistoryPanel::auditRequested, this, &MainWindow::openTableAudit);
    connect(target_, &TargetPanel::targetChanged, bench_, &BenchmarksPage::targetChanged);
    // A bench and a load on one server would each measure the other.
    connect(controller_, &LoadController::started, bench_, [this] { bench_->setLoadRunning(true); });
    connect(controller_, &LoadController::ended, bench_, [this] { bench_->setLoadRunning(false); });
    connect(files_, &FilesPage::selectionChanged, this, [this] {
        const auto* model = files_->model();
        bench_->setFiles(model->loadableFiles(), files_->openOptions(), files_->notReady());
        const QString why = files_->notReady();
        statusBar()->showMessage(why.isEmpty() || model->rowCount() == 0
                                     ? tr("%n file(s), %1 rows ready", nullptr, model->rowCount())
                                           .arg(formatCount(model->totalRows()))
                                     : tr("%n file(s): %1", nullptr, model->rowCount()).arg(why));
    });
    restoreSettings();
    history_->refresh();
    statusBar()->showMessage(tr("Add ERA5 files to start (Ctrl+O), or drop them on the Files tab."));
}

MainWindow::~MainWindow() = default;

TableMapDialog* MainWindow::mapDialog() const {
    return mapDialog_;
}

void MainWindow::openTableMap(const RunReport& report) {
    // Not modal: the map stays open beside the window, several runs' maps side by side. It reads
    // through the connection the Target tab shows now (a history run's server may be another).
    auto* dialog = new TableMapDialog(report, target_->connection(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    mapDialog_ = dialog;
    dialog->show();
}

void MainWindow::openTableAudit(const QString& table) {
    // Not modal, like the map; on the server the Target tab shows now.
    auto* dialog = new TableAuditDialog(table, target_->connection(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auditDialog_ = dialog;
    dialog->show();
}

TableAuditDialog* MainWindow::auditDialog() const {
    return auditDialog_;
}

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
    const QStringList names{tr("&Files"), tr("&Target"),  tr("Server &settings"),
                            tr("&Run"),   tr("&History"), tr("&Benchmarks")};
    for (int i = 0; i < names.size(); ++i) {
        add(view, names[i], QKeySequence(tr("Ctrl+%1").arg(i + 1)), [this, i] { tabs_->setCurrentIndex(i); });
    }
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    add(help, tr("&About Isobar"), QKeySequence(),
        [this] { QMessageBox::about(this, tr("About Isobar"), aboutText()); });
}

QString MainWindow::aboutText() {
    QString licence = QString::fromUtf8(kLicence).toHtmlEscaped();
    licence.replace(QLatin1Char('\n'), QStringLiteral("<br>"));
    return tr("<h3>Isobar %1</h3><p>Loads ERA5 reanalysis files into PostgreSQL with parallel binary COPY: "
              "%2.</p>"
              "<p>The same engine runs from a shell: <code>isobar-cli --help</code>.</p><p>%3<br>%4</p>")
        .arg(QString::fromUtf8(kVersion), QString::fromUtf8(kFormatsRead).toHtmlEscaped(),
             QString::fromUtf8(kCopyright).toHtmlEscaped(), licence);
}

void MainWindow::setConfirm(SettingsPanel::Confirm confirm) {
    confirm_ = std::move(confirm);
}

void MainWindow::setChoose(StartFlow::Choose choose) {
    flow_->setChoose(std::move(choose));
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

const std::optional<TargetCheck>& MainWindow::lastCheck() const {
    return flow_->lastCheck();
}

QThreadPool* MainWindow::checkPool() const {
    return jobPool(JobPool::Server);
}

void MainWindow::checkTarget() {
    flow_->checkTarget();
}

void MainWindow::startLoad(bool resume) {
    if (bench_->isRunning()) {
        // Each would measure the other, and a bench may restart the server or turn fsync off.
        statusBar()->showMessage(
            tr("A bench is running on the Benchmarks tab: cancel it or let it end first"));
        tabs_->setCurrentWidget(bench_);
        return;
    }
    if (flow_->start(resume)) {
        tabs_->setCurrentWidget(run_);
    }
}

void MainWindow::cancelLoad() {
    flow_->cancel();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (bench_->isRunning()) {
        // The bench drops its tables and puts back the server's settings before the window goes.
        if (!closeAfterBench_ &&
            confirm_(tr("Quit Isobar?"),
                     tr("A bench is running. Cancel it and quit once it has cleaned up?"))) {
            closeAfterBench_ = true;
            bench_->cancel();
            connect(bench_, &BenchmarksPage::benchEnded, this, &QWidget::close,
                    static_cast<Qt::ConnectionType>(Qt::QueuedConnection | Qt::SingleShotConnection));
        }
        event->ignore();
        return;
    }
    if (!flow_->mayClose()) {
        event->ignore();
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
