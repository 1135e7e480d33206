// SPDX-License-Identifier: GPL-3.0-or-later

#include "BenchmarksPage.h"

#include "BenchHistoryPanel.h"
#include "BenchOptionsPanel.h"
#include "BenchReportView.h"
#include "Format.h"
#include "db/ConnInfo.h"
#include "db/EmbeddedDefaults.h"
#include "util/Format.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include <cmath>

namespace isobar::ui {

namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

bool sameTarget(const ConnectionChoice& a, const ConnectionChoice& b) {
    return a.embedded == b.embedded && (a.embedded || a.conninfo == b.conninfo);
}

QString targetName(const ConnectionChoice& c) {
    return c.embedded ? BenchmarksPage::tr("the embedded cluster") : q(redactConnInfo(c.conninfo));
}

} // namespace

BenchmarksPage::BenchmarksPage(std::function<ConnectionChoice()> connection, QWidget* parent)
    : QWidget(parent)
    , connection_(std::move(connection))
    , options_(new BenchOptionsPanel)
    , runner_(new BenchRunner(this))
    , run_(new QPushButton(tr("&Run bench")))
    , cancel_(new QPushButton(tr("Ca&ncel")))
    , check_(new QPushButton(tr("Check the &server")))
    , progress_(new QProgressBar)
    , step_(new QLabel)
    , message_(new QLabel)
    , history_(new BenchHistoryPanel)
    , view_(new BenchReportView)
    // Connecting can wait on the network (or start the embedded cluster): off the GUI thread and
    // the files' pool.
    , checking_(this, JobPool::Server) {
    confirm_ = [this](const QString& title, const QString& text) {
        return QMessageBox::warning(this, title, text, QMessageBox::Yes | QMessageBox::No, QMessageBox::No) ==
               QMessageBox::Yes;
    };
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    step_->setWordWrap(true);
    message_->setWordWrap(true);
    message_->setTextFormat(Qt::PlainText); // errors and paths as they are
    step_->setTextFormat(Qt::PlainText);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    cancel_->setToolTip(tr("Stop the bench: its tables are dropped and the server's settings restored"));
    run_->setDefault(true);

    auto* runLine = new QHBoxLayout;
    runLine->addWidget(run_);
    runLine->addWidget(cancel_);
    runLine->addWidget(check_);
    runLine->addStretch();
    auto* left = new QWidget;
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(options_);
    leftLayout->addLayout(runLine);
    leftLayout->addWidget(progress_);
    leftLayout->addWidget(step_);
    leftLayout->addWidget(message_);
    leftLayout->addWidget(history_, 1);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(left);
    split->addWidget(view_);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 5);
    split->setSizes({420, 980}); // the results get the room; scaled to the window when shown
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(split);

    connect(run_, &QPushButton::clicked, this, &BenchmarksPage::run);
    connect(cancel_, &QPushButton::clicked, this, &BenchmarksPage::cancel);
    connect(check_, &QPushButton::clicked, this, &BenchmarksPage::checkServer);
    connect(history_, &BenchHistoryPanel::selectionChanged, this, &BenchmarksPage::showSelected);
    connect(history_, &BenchHistoryPanel::message, message_, &QLabel::setText);
    connect(runner_, &BenchRunner::progressed, this, [this](const QString& step, double done) {
        // A step of unknown length (writing synthetic hours) says so: a busy bar.
        progress_->setRange(0, done < 0 ? 0 : 1000);
        if (done >= 0) {
            progress_->setValue(static_cast<int>(std::lround(std::min(done, 1.0) * 1000)));
        }
        step_->setText(state_ == State::Cancelling ? tr("Cancelling (%1)...").arg(step) : step);
    });
    connect(runner_, &BenchRunner::ended, this, &BenchmarksPage::takeEnd);
    moveTo(State::Unchecked);
    history_->refresh();
}

void BenchmarksPage::setConfirm(SettingsPanel::Confirm confirm) {
    confirm_ = std::move(confirm);
}

void BenchmarksPage::setFiles(std::vector<std::filesystem::path> files, const OpenOptions& open,
                              const QString& notReady) {
    options_->setFiles(std::move(files), open, notReady);
}

void BenchmarksPage::setLoadRunning(bool running) {
    loadRunning_ = running;
    moveTo(state_);
}

void BenchmarksPage::moveTo(State next) {
    state_ = next;
    const bool busy = isRunning();
    run_->setEnabled(next == State::Ready && !loadRunning_);
    run_->setToolTip(loadRunning_ && !busy ? tr("A load runs on the Run tab: a bench beside it would measure "
                                                "both, and slow it down")
                                           : QString());
    cancel_->setEnabled(next == State::Running);
    check_->setVisible(next == State::NoServer);
    options_->setEnabled(!busy);
}

void BenchmarksPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (state_ == State::Unchecked) {
        checkServer();
    }
}

void BenchmarksPage::targetChanged() {
    const ConnectionChoice now = connection_();
    options_->setEmbedded(now.embedded);
    if (checked_ && sameTarget(*checked_, now)) {
        return; // the table, its type or the workers changed: nothing the benches use
    }
    checked_.reset();
    checking_.cancel();
    if (isRunning()) {
        return; // the bench goes on with the server it started on; the new one is checked after
    }
    moveTo(State::Unchecked);
    if (isVisible()) {
        checkServer();
    } else {
        message_->setText(tr("The target changed: it is checked when this tab is shown."));
    }
}

void BenchmarksPage::checkServer() {
    if (isRunning()) {
        return;
    }
    const ConnectionChoice choice = connection_();
    checked_ = choice;
    options_->setEmbedded(choice.embedded);
    checking_.cancel(); // a check of another target says nothing of this one
    if (!choice.embedded && choice.conninfo.empty()) {
        options_->setTypesUnknown(tr("No server chosen"));
        message_->setText(tr("No server to bench: choose one on the Target tab."));
        moveTo(State::NoServer);
        emit serverChecked();
        return;
    }
    options_->setTypesUnknown(tr("Checking whether this server can make it..."));
    message_->setText(choice.embedded
                          ? tr("Starting the embedded cluster and asking what it can make...")
                          : tr("Asking %1 which table types it can make...").arg(targetName(choice)));
    moveTo(State::Checking);
    // Thread boundary: connecting takes seconds; only the answer comes back, dropped when a newer
    // check superseded it.
    struct Answer {
        std::vector<BenchTableType> available;
        Pairs skipped;
    };
    checking_.start(
        [choice] {
            Connection conn = Connection::open(choice.embedded ? startEmbeddedCluster() : choice.conninfo);
            Answer answer;
            answer.available = availableBenchTableTypes(conn, &answer.skipped);
            return answer;
        },
        [this](const Answer& answer) { takeCheck(answer.available, answer.skipped, {}); },
        [this](const JobError& e) { takeCheck({}, {}, e.message); });
}

void BenchmarksPage::takeCheck(const std::vector<BenchTableType>& available, const Pairs& skipped,
                               const QString& error) {
    if (isRunning()) {
        return; // a bench started meanwhile: it goes on with the server it started on
    }
    if (!error.isEmpty()) {
        options_->setTypesUnknown(tr("The server could not be reached"));
        message_->setText(
            tr("No server to bench: %1 could not be reached: %2").arg(targetName(*checked_), error));
        moveTo(State::NoServer);
    } else {
        options_->setAvailableTypes(available, skipped);
        message_->setText(tr("Benches run on %1.").arg(targetName(*checked_)));
        moveTo(State::Ready);
    }
    emit serverChecked();
}

void BenchmarksPage::run() {
    if (state_ != State::Ready || loadRunning_) {
        return;
    }
    QString why;
    std::optional<BenchRequest> request = options_->request(why);
    if (!request) {
        message_->setText(why);
        return;
    }
    request->connection = connection_();
    if (options_->asksForFastDurability()) {
        if (!confirm_(tr("Trade durability for speed?"),
                      tr("The fast runs turn fsync, full_page_writes and synchronous_commit off on the "
                         "whole server (%1), for every database and client on it, and put them back after "
                         "each run. A crash meanwhile can corrupt the cluster. Go on?")
                          .arg(targetName(request->connection)))) {
            message_->setText(tr("Not started: the fast runs need your agreement (or untick fast)."));
            return;
        }
        request->methods.consent = true;
    }
    if (!runner_->start(*request)) {
        return;
    }
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    message_->setToolTip({});
    step_->setText(tr("Starting %1...").arg(benchKindTitle(request->kind)));
    message_->setText(
        tr("%1 runs on %2.").arg(benchKindTitle(request->kind), targetName(request->connection)));
    moveTo(State::Running);
}

void BenchmarksPage::cancel() {
    if (state_ != State::Running) {
        return;
    }
    runner_->cancel();
    step_->setText(tr("Cancelling: the bench drops its tables and puts back what it changed..."));
    moveTo(State::Cancelling);
}

void BenchmarksPage::takeEnd(const BenchReport& report, const QString& path, const QString& problem) {
    const QString title = benchKindTitle(report.kind);
    QString text;
    progress_->setRange(0, 1000);
    if (report.status == "completed") {
        progress_->setValue(progress_->maximum());
        text = tr("%1 completed in %2.").arg(title, q(formatDuration(report.seconds)));
    } else if (report.status == "cancelled") {
        text = tr("%1 cancelled after %2; its tables were dropped.")
                   .arg(title, q(formatDuration(report.seconds)));
    } else {
        text = tr("%1 failed: %2").arg(title, q(report.problem));
    }
    // The file's name: a long path would not wrap, and widen the whole column.
    text += problem.isEmpty() ? tr(" Report: %1 (in the reports folder)").arg(QFileInfo(path).fileName())
                              : tr(" The report could not be written: %1").arg(problem);
    message_->setText(text);
    message_->setToolTip(path);
    step_->clear();
    view_->showReport(report);
    // A target changed during the bench is checked now; the same one stays ready.
    moveTo(checked_ ? State::Ready : State::Unchecked);
    if (!checked_ && isVisible()) {
        checkServer();
    }
    if (!path.isEmpty()) {
        history_->refresh(path); // a report that could not be written stays shown, not listed
    }
    emit benchEnded(q(report.status));
}

void BenchmarksPage::showSelected() {
    if (const BenchReport* r = history_->selectedReport()) {
        view_->showReport(*r);
    } else if (history_->count() == 0 && !isRunning()) {
        view_->showMessage(tr("No bench has run yet: choose one and press Run. Reports are kept in %1.")
                               .arg(q(benchReportDirectory().string()).toHtmlEscaped()));
    }
}

} // namespace isobar::ui
