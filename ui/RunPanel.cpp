// SPDX-License-Identifier: GPL-3.0-or-later

#include "RunPanel.h"

#include "DiskChart.h"
#include "Format.h"
#include "RateChart.h"
#include "ReportExport.h"
#include "SummaryText.h"
#include "TableMapDialog.h"
#include "util/Format.h"

#include <QDateTime>
#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace isobar::ui {

namespace {

QString bottleneckText(const RateReading& s) {
    const std::string b = s.bottleneck();
    if (b == "reader") {
        return RunPanel::tr("Reader-bound: the workers wait for decoded data (queue empty)");
    }
    if (b == "server") {
        return RunPanel::tr("Server-bound: the reader waits for the workers (queue full)");
    }
    if (b == "balanced") {
        return RunPanel::tr("Balanced: queue %1 of %2").arg(s.queueDepth).arg(s.queueCapacity);
    }
    return RunPanel::tr("Bottleneck: not known yet");
}

// A standby this far behind loses what the load wrote since if the primary fails, and holds WAL
// on the primary's disk: worth a look, not yet a problem at a few seconds.
constexpr double kStandbyLagWarningSeconds = 60;

double worstLag(const ServerReading::Standby& s) {
    return std::max({s.writeLag, s.flushLag, s.replayLag});
}

// "free 45.1 GiB, pg_wal 1.0 GiB, 85.3 bytes/row, 3 worker(s)": the figures the monitor could see.
QString diskFacts(const ServerReading& s) {
    QStringList facts;
    if (s.freeBytes >= 0) {
        facts << RunPanel::tr("free %1").arg(q(formatByteFigure(s.freeBytes)));
    }
    if (s.walFreeBytes >= 0) {
        facts << RunPanel::tr("%1 free for pg_wal").arg(q(formatByteFigure(s.walFreeBytes)));
    }
    if (s.walDirBytes >= 0) {
        facts << RunPanel::tr("pg_wal %1").arg(q(formatByteFigure(s.walDirBytes)));
    }
    if (s.bytesPerRow >= 0) {
        facts << RunPanel::tr("%1 bytes/row").arg(s.bytesPerRow, 0, 'f', 1);
    }
    if (s.workers > 0) {
        facts << RunPanel::tr("%n worker(s)", nullptr, s.workers);
    }
    return facts.join(QStringLiteral(", "));
}

} // namespace

RunPanel::RunPanel(LoadController* controller, QWidget* parent)
    : QWidget(parent)
    , controller_(controller)
    , chart_(new RateChart)
    , disk_(new DiskChart)
    , start_(new QPushButton(tr("&Start load")))
    , cancel_(new QPushButton(tr("Ca&ncel")))
    , resume_(new QPushButton(tr("&Resume")))
    , export_(new QPushButton(tr("E&xport report...")))
    , map_(new QPushButton(tr("&Map of the table...")))
    , status_(new QLabel(tr("Add files, choose the target, then start.")))
    , progress_(new QProgressBar)
    , rows_(new QLabel)
    , speed_(new QLabel)
    , bottleneck_(new QLabel)
    , server_(new QLabel)
    , workers_(new QTableWidget(0, 4))
    , log_(new QPlainTextEdit) {
    start_->setDefault(true);
    cancel_->setToolTip(tr("Stop: units in flight roll back, settings are restored (Shift+F5)"));
    resume_->hide();
    export_->setEnabled(false);
    map_->setEnabled(false);
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    progress_->setFormat(QString());
    workers_->setHorizontalHeaderLabels({tr("Worker"), tr("rows/s"), tr("Rows sent"), tr("Server waits on")});
    workers_->verticalHeader()->hide();
    workers_->horizontalHeader()->setStretchLastSection(true);
    workers_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    workers_->setMinimumWidth(480);
    workers_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(5000);
    log_->setPlaceholderText(tr("What the load says: layouts, notes, warnings, errors."));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(start_);
    buttons->addWidget(cancel_);
    buttons->addWidget(resume_);
    buttons->addStretch();
    buttons->addWidget(map_);
    buttons->addWidget(export_);

    auto* facts = new QGridLayout;
    facts->addWidget(progress_, 0, 0, 1, 2);
    facts->addWidget(rows_, 1, 0);
    facts->addWidget(speed_, 1, 1);
    facts->addWidget(bottleneck_, 2, 0);
    facts->addWidget(server_, 2, 1);

    auto* bottom = new QSplitter(Qt::Horizontal);
    bottom->addWidget(workers_);
    bottom->addWidget(log_);
    bottom->setStretchFactor(1, 2);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(chart_);
    split->addWidget(disk_);
    split->addWidget(bottom);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setStretchFactor(2, 2);
    // One time span for both charts: the moment a rate and a disk figure share is one x.
    connect(chart_, &RateChart::timeSpanChanged, disk_, &DiskChart::setMinimumTimeSpan);
    connect(disk_, &DiskChart::timeSpanChanged, chart_, &RateChart::setMinimumTimeSpan);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(status_);
    layout->addLayout(facts);
    layout->addWidget(split, 1);
    setTabOrder(start_, cancel_);
    setTabOrder(cancel_, resume_);
    setTabOrder(resume_, map_);
    setTabOrder(map_, export_);

    connect(start_, &QPushButton::clicked, this, &RunPanel::startRequested);
    connect(resume_, &QPushButton::clicked, this, &RunPanel::resumeRequested);
    connect(cancel_, &QPushButton::clicked, this, &RunPanel::cancelRequested);
    connect(export_, &QPushButton::clicked, this, &RunPanel::exportReportAs);
    connect(map_, &QPushButton::clicked, this, [this] {
        if (report_) {
            emit mapRequested(*report_);
        }
    });
    connect(controller_, &LoadController::started, this, &RunPanel::onStarted);
    connect(controller_, &LoadController::rateMeasured, this, &RunPanel::onRate);
    connect(controller_, &LoadController::serverMeasured, this, &RunPanel::onServer);
    connect(controller_, &LoadController::workersChanged, this, &RunPanel::onWorkersChanged);
    connect(controller_, &LoadController::note, this, [this](const QString& m) { log(m); });
    connect(controller_, &LoadController::warning, this, [this](const QString& m) { log(m, true); });
    setBusy(false);
}

void RunPanel::setBusy(bool busy) {
    busy_ = busy;
    cancel_->setEnabled(busy);
    if (busy) {
        resume_->hide();
        map_->setEnabled(false); // the table is being written; the map is of a run that ended
    }
    updateStartButtons();
}

void RunPanel::setStartBlocked(const QString& why) {
    blocked_ = why;
    updateStartButtons();
}

void RunPanel::updateStartButtons() {
    start_->setEnabled(!busy_ && blocked_.isEmpty());
    resume_->setEnabled(!busy_ && blocked_.isEmpty());
    // A disabled button still shows its tooltip: the reason is one hover away.
    start_->setToolTip(blocked_.isEmpty() ? tr("Load the files of the Files tab into the target (F5)")
                                          : tr("Cannot start: %1").arg(blocked_));
    resume_->setToolTip(blocked_.isEmpty() ? tr("Start again: only what is not in the table yet is loaded")
                                           : tr("Cannot resume: %1").arg(blocked_));
}

void RunPanel::log(const QString& line, bool problem) {
    const QString time = QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss"));
    log_->appendPlainText(QStringLiteral("%1  %2%3").arg(time, problem ? tr("warning: ") : QString(), line));
}

void RunPanel::showPreparing(const QString& what) {
    chart_->reset();
    disk_->reset();
    workers_->setRowCount(0);
    progress_->setValue(0);
    progress_->setFormat(QString());
    for (QLabel* l : {rows_, speed_, bottleneck_, server_}) {
        l->clear();
    }
    status_->setText(what);
    log(what);
}

void RunPanel::showNotStarted(const QString& why) {
    status_->setText(tr("<b>Not started:</b> %1").arg(why.toHtmlEscaped()));
    log(tr("not started: %1").arg(why), true);
}

void RunPanel::onStarted(const LoadStart& s) {
    plannedRows_ = s.plannedRows - std::min(s.plannedRows, s.resumedRows);
    lastWalBytes_ = 0;
    warned_.clear();
    checkpointsTimed_ = 0;
    checkpointsRequested_ = 0;
    status_->setText(tr("Loading %1 rows into %2 (%3, %4 workers)%5")
                         .arg(formatCount(plannedRows_), q(s.table), q(s.tableType))
                         .arg(s.workers)
                         .arg(s.resumedRows > 0
                                  ? tr("; %1 rows were already there").arg(formatCount(s.resumedRows))
                                  : QString()));
    log(tr("%1 file(s), %2, %3 -> %4 %5")
            .arg(s.files.size())
            .arg(q(s.product), q(s.grid), q(s.target), q(s.table)));
    for (std::size_t i = 0; i < s.files.size() && i < s.fileLayouts.size(); ++i) {
        log(QStringLiteral("%1: %2").arg(QFileInfo(q(s.files[i])).fileName(), q(s.fileLayouts[i])));
    }
    if (s.autoWorkers) {
        log(tr("workers: %1 to start with, more or fewer as the rate says (up to %2)")
                .arg(s.workers)
                .arg(s.maxWorkers));
    }
    for (const std::string& line : s.forecast) {
        log(q(line));
    }
    workers_->setRowCount(0);
    ensureWorkerRows(s.workers);
}

void RunPanel::ensureWorkerRows(int workers) {
    for (int w = workers_->rowCount(); w < workers; ++w) {
        workers_->insertRow(w);
        workers_->setItem(w, 0, new QTableWidgetItem(QString::number(w + 1)));
        for (int c = 1; c < 4; ++c) {
            workers_->setItem(w, c, new QTableWidgetItem);
        }
    }
}

void RunPanel::onWorkersChanged(const WorkerChange& c) {
    chart_->addWorkerChange(c);
    ensureWorkerRows(c.to);
    log(tr("workers %1 -> %2 at %3: %4")
            .arg(c.from)
            .arg(c.to)
            .arg(q(formatDuration(c.elapsed, DurationPrecision::WholeSeconds)), q(c.reason)));
}

void RunPanel::onRate(const RateReading& s) {
    chart_->addSample(s);
    progress_->setValue(static_cast<int>(std::clamp(s.percent, 0.0, 100.0) * 10));
    progress_->setFormat(tr("%1%  ETA %2")
                             .arg(s.percent, 0, 'f', 1)
                             .arg(s.etaSeconds < 0
                                      ? tr("unknown")
                                      : q(formatDuration(s.etaSeconds, DurationPrecision::WholeSeconds))));
    rows_->setText(tr("%1 of %2 rows committed, %3 sent, %4 elapsed")
                       .arg(formatCount(s.committedRows), formatCount(s.plannedRows), q(formatBytes(s.bytes)),
                            q(formatDuration(s.elapsed, DurationPrecision::WholeSeconds))));
    speed_->setText(
        tr("%1 rows/s now, %2 rows/s overall").arg(formatRate(s.intervalRate), formatRate(s.overallRate)));
    bottleneck_->setText(bottleneckText(s));
    for (const WorkerRate& w : s.workers) {
        const int row = w.worker - 1; // workers count from 1, as in the log and pg_stat_activity
        ensureWorkerRows(w.worker);
        if (row >= 0) {
            workers_->item(row, 1)->setText(formatRate(w.rowsPerSecond));
            workers_->item(row, 2)->setText(formatCount(w.rows));
        }
    }
}

void RunPanel::onServer(const ServerReading& s) {
    chart_->addServerSample(s);
    disk_->addServerSample(s);
    lastWalBytes_ = s.walBytes;
    const QString disk = diskFacts(s);
    if (!s.answered) {
        server_->setText(tr("Server: not answering (down or restarting)%1")
                             .arg(disk.isEmpty() ? QString() : QStringLiteral("; ") + disk));
        warnAboutServer(s);
        return;
    }
    server_->setText(tr("Server: %1 checkpoint(s), %2 of WAL (%3/s)%4")
                         .arg(s.checkpointsTimed + s.checkpointsRequested)
                         .arg(q(formatBytes(s.walBytes)),
                              q(formatBytes(static_cast<std::uint64_t>(s.walBytesPerSecond))),
                              disk.isEmpty() ? QString() : QStringLiteral("; ") + disk));
    warnAboutServer(s);
    logCheckpoints(s);
    for (int row = 0; row < workers_->rowCount(); ++row) {
        const auto i = static_cast<std::size_t>(row);
        const std::string event = i < s.waitEvents.size() ? s.waitEvents[i] : std::string(kNotConnected);
        workers_->item(row, 3)->setText(event.empty() ? tr("running") : q(event));
    }
}

void RunPanel::warnOnce(const QString& condition, const QString& line) {
    if (!warned_.contains(condition)) {
        warned_.insert(condition);
        log(line, true);
    }
}

void RunPanel::logCheckpoints(const ServerReading& s) {
    const bool requested = s.checkpointsRequested > checkpointsRequested_;
    if (requested || s.checkpointsTimed > checkpointsTimed_) {
        log(requested
                ? tr("checkpoint at %1, requested (WAL reached max_wal_size, or a CHECKPOINT): the server "
                     "writes its dirty pages, and the rate often dips for a while")
                      .arg(q(formatDuration(s.elapsed, DurationPrecision::WholeSeconds)))
                : tr("checkpoint at %1 (checkpoint_timeout): the server writes its dirty pages, and the "
                     "rate often dips for a while")
                      .arg(q(formatDuration(s.elapsed, DurationPrecision::WholeSeconds))));
    }
    checkpointsTimed_ = std::max(checkpointsTimed_, s.checkpointsTimed);
    checkpointsRequested_ = std::max(checkpointsRequested_, s.checkpointsRequested);
}

void RunPanel::warnAboutServer(const ServerReading& s) {
    if (s.secondsToFull >= 0) {
        const double room = s.walFreeBytes >= 0 && (s.freeBytes < 0 || s.walFreeBytes < s.freeBytes)
                                ? s.walFreeBytes
                                : s.freeBytes;
        warnOnce(QStringLiteral("disk full"),
                 tr("disk full in ~%1 min at this rate%2")
                     .arg(std::max(1.0, std::ceil(s.secondsToFull / 60)), 0, 'f', 0)
                     .arg(room >= 0 ? tr(" (%1 free)").arg(q(formatByteFigure(room))) : QString()));
    }
    for (const ServerReading::Standby& standby : s.standbys) {
        if (const double lag = worstLag(standby); lag > kStandbyLagWarningSeconds) {
            warnOnce(QStringLiteral("standby lag ") + q(standby.name),
                     tr("standby %1 (%2) is %3 behind")
                         .arg(q(standby.name), q(standby.state), q(formatDuration(lag))));
        }
    }
    if (s.archiveFailures > 0) {
        warnOnce(QStringLiteral("archiver"),
                 tr("the WAL archiver failed %n time(s) since the load started: pg_wal keeps what it could "
                    "not archive",
                    nullptr, static_cast<int>(s.archiveFailures)));
    }
}

void RunPanel::showEnded(const LoadSummary& summary, const RunReport& report, const QString& path,
                         const QString& problem) {
    report_ = report;
    reportPath_ = path;
    export_->setEnabled(true);
    const QString noMap = TableMapDialog::unavailableReason(report);
    map_->setEnabled(noMap.isEmpty());
    map_->setToolTip(noMap.isEmpty()
                         ? tr("A map of what the run wrote, read back from its table, and the time series "
                              "of a point")
                         : tr("No map: %1").arg(noMap));
    const SummaryText text(summary);
    status_->setText(text.html());
    if (summary.status == LoadStatus::Completed) {
        progress_->setValue(1000);
    }
    if (text.offersResume()) {
        resume_->show();
    }
    if (summary.status == LoadStatus::Failed) {
        log(q(summary.error.value_or(LoadError{}).message), true);
    }
    if (summary.durability.any()) {
        log(summary.durability.restored
                ? tr("durability settings restored and verified")
                : tr("durability settings NOT restored: %1").arg(q(summary.durability.problem)),
            !summary.durability.restored);
    }
    if (!report.verification.empty()) {
        log(q(report.verification));
    }
    log(path.isEmpty() ? tr("the run report could not be written: %1").arg(problem)
                       : tr("run report: %1").arg(path),
        path.isEmpty());
}

void RunPanel::exportReportAs() {
    if (report_) {
        if (const QString path = exportWithDialog(this, *report_); !path.isEmpty()) {
            log(tr("exported %1").arg(path));
        }
    }
}

} // namespace isobar::ui
