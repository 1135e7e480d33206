// SPDX-License-Identifier: GPL-3.0-or-later

#include "StartFlow.h"

#include "FileListModel.h"
#include "FilesPage.h"
#include "Format.h"
#include "LoadController.h"
#include "RunPanel.h"
#include "SummaryText.h"
#include "TargetPanel.h"
#include "db/ConnInfo.h"

#include <QSignalBlocker>
#include <QStringList>

#include <algorithm>
#include <utility>

namespace isobar::ui {

namespace {

using State = StartFlow::State;

// A start is waiting: Start was pressed, the load has not begun.
bool holdsStart(State s) {
    return s == State::Checking || s == State::RestoringBeforeStart;
}

// The engine runs (until its `ended`).
bool runs(State s) {
    return s == State::Running || s == State::Cancelling || s == State::Closing;
}

} // namespace

StartFlow::StartFlow(const Widgets& widgets, LoadController* controller, SettingsPanel::Confirm confirm,
                     QObject* parent)
    : QObject(parent)
    , files_(widgets.files)
    , target_(widgets.target)
    , settings_(widgets.settings)
    , run_(widgets.run)
    , controller_(controller)
    , confirm_(std::move(confirm))
    // Server checks and restores can wait on the network for minutes: on the server pool, so file
    // inspection and the history never wait behind them.
    , checking_(this, JobPool::Server)
    , restoring_(this, JobPool::Server) {
    connect(target_, &TargetPanel::testRequested, this, &StartFlow::checkTarget);
    connect(target_, &TargetPanel::targetChanged, this, &StartFlow::targetChanged);
    connect(controller_, &LoadController::settingsChecked, this,
            [this](const ServerInfo&, const QVector<SettingWarning>& warnings) {
                if (check_) {
                    check_->warnings.assign(warnings.begin(), warnings.end());
                    settings_->showCheck(*check_);
                }
            });
    connect(controller_, &LoadController::ended, this, &StartFlow::runEnded);
    // Start (and Resume) wait for files that can be loaded, saying why not.
    connect(files_, &FilesPage::selectionChanged, this,
            [this] { run_->setStartBlocked(files_->notReady()); });
    run_->setStartBlocked(files_->notReady());
    moveTo(State::Idle);
}

void StartFlow::moveTo(State next, const QString& why) {
    const State was = std::exchange(state_, next);
    if (!holdsStart(next)) {
        start_.reset();
    }
    const bool busy = holdsStart(next) || runs(next);
    run_->setBusy(busy);                  // Cancel works from Start on: a waiting start is dropped
    settings_->setDurabilityLocked(busy); // what was ticked at Start is what the run trades
    if (holdsStart(was) && !holdsStart(next) && next != State::Running) {
        Q_ASSERT(!why.isEmpty());
        run_->showNotStarted(why);
    }
    if (runs(was) && !runs(next)) {
        settings_->resetDurability(); // durability trades are for one run only: the next one asks again
    }
}

void StartFlow::dropStart(const QString& why) {
    moveTo(state_ == State::RestoringBeforeStart ? State::Restoring : State::Idle, why);
}

bool StartFlow::start(bool resume) {
    if (holdsStart(state_) || runs(state_) || controller_->isRunning()) {
        return false;
    }
    if (const QString why = files_->notReady(); !why.isEmpty()) {
        run_->showNotStarted(why);
        return true;
    }
    // What the user chose now is what loads, whatever they touch while the server is checked.
    PendingStart start;
    start.files = files_->model()->loadableFiles();
    start.open = files_->openOptions();
    start.allMissing = files_->allMissing();
    start.variables = files_->chosenVariables();
    start.table = target_->tableName();
    start.type = target_->tableType();
    start.chunkInterval = target_->chunkInterval();
    start.compress = target_->compressAfter();
    start.workers = target_->workers();
    start.autoWorkers = target_->autoWorkers();
    start.replace = target_->replace() && !resume; // a resume never empties the table
    start.durability = settings_->durability();
    start_ = std::move(start);
    // A restore under way checks the server again when it is done; the start goes on from there.
    const bool restoring = state_ == State::Restoring;
    moveTo(restoring ? State::RestoringBeforeStart : State::Checking);
    run_->showPreparing(target_->connection().embedded
                            ? tr("Starting the embedded cluster and checking it...")
                            : tr("Checking the server..."));
    if (!restoring) {
        check(CheckKind::Plain);
    }
    return true;
}

void StartFlow::checkTarget() {
    check(CheckKind::Plain);
}

void StartFlow::check(CheckKind kind) {
    target_->showChecking();
    const ConnectionChoice choice = target_->connection();
    const std::string table = target_->tableName();
    // Auto needs a connection for one worker; it runs as many more as the server leaves.
    const int workers = target_->autoWorkers() ? 1 : target_->workers();
    const TableType type = target_->tableType();
    // Thread boundary: connecting (or starting the embedded cluster) can take seconds; only the
    // check's result comes back, dropped when a newer check superseded it.
    checking_.start(
        [choice, table, workers, type] { return ui::checkTarget(choice, table, workers, type); },
        [this, kind](const TargetCheck& result) { takeCheck(kind, result); },
        [this, kind](const JobError& e) {
            TargetCheck result; // checkTarget says what failed itself; this is what broke around it
            result.error = e.message.toStdString();
            takeCheck(kind, result);
        });
}

void StartFlow::takeCheck(CheckKind kind, const TargetCheck& check) {
    check_ = check;
    {
        // What the check finds (types it cannot do, fewer workers) is shown, not taken for a
        // change of target by the user.
        const QSignalBlocker quiet(target_);
        target_->applyCheck(check);
    }
    settings_->showCheck(check);
    emit targetChecked();
    const bool offer = !check.pendingRestores.empty() && kind == CheckKind::Plain;
    switch (state_) {
    case State::Idle:
        if (offer) {
            offerRestore(check);
        }
        return;
    case State::Checking:
        if (offer) {
            offerRestore(check);
        } else if (!check.pendingRestores.empty()) {
            // Restoring was tried and the settings are still changed: asking again would loop.
            dropStart(tr("the settings a killed run changed on this server could not be restored (see the "
                         "log); fix that first"));
        } else {
            launch(check);
        }
        return;
    case State::Restoring:
    case State::RestoringBeforeStart: // the restore under way checks again when it is done
    case State::Running:
    case State::Cancelling:
    case State::Closing: // shown only: a restore waits for the run's end
        return;
    }
}

void StartFlow::targetChanged() {
    // A check of the old target says nothing about the new one, and consent to trade durability
    // was given for the old server.
    check_.reset();
    checking_.cancel();
    target_->showUnchecked();
    settings_->resetDurability();
    settings_->clear(
        tr("The target changed: test the connection to see what its settings mean for the load."));
    if (holdsStart(state_)) {
        dropStart(tr("the target changed before the load started; start again"));
    }
}

void StartFlow::offerRestore(const TargetCheck& check) {
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
        if (state_ == State::Checking) {
            dropStart(tr("this server still has the settings a killed run changed (%1); restore them first "
                         "(Test connection)")
                          .arg(what.join(QStringLiteral("; "))));
        }
        return;
    }
    moveTo(state_ == State::Checking ? State::RestoringBeforeStart : State::Restoring);
    run_->log(tr("restoring the settings a killed run left on %1...").arg(q(redactConnInfo(check.conninfo))));
    // Thread boundary: restoring reloads, verifies and checkpoints on the server; only what
    // happened comes back.
    using Outcomes = std::vector<std::pair<bool, QString>>; // restored?, what happened
    restoring_.start(
        [conninfo = check.conninfo] {
            Outcomes outcomes;
            for (const DurabilityOutcome& o : restoreAbandoned(conninfo, [](const std::string&) {})) {
                outcomes.emplace_back(o.restored, o.restored
                                                      ? tr("settings restored and verified")
                                                      : tr("settings NOT restored: %1").arg(q(o.problem)));
            }
            return outcomes;
        },
        [this](const Outcomes& outcomes) { restoreDone(outcomes); },
        [this](const JobError& e) {
            restoreDone({{false, tr("settings NOT restored: %1").arg(e.message)}});
        });
}

void StartFlow::restoreDone(const std::vector<std::pair<bool, QString>>& outcomes) {
    for (const auto& [restored, line] : outcomes) {
        run_->log(line, !restored);
    }
    moveTo(state_ == State::RestoringBeforeStart ? State::Checking : State::Idle);
    check(CheckKind::AfterRestore); // look again; a waiting start goes on from there
}

void StartFlow::launch(const TargetCheck& check) {
    Q_ASSERT(start_);
    const PendingStart start = *start_;
    if (check.error) {
        dropStart(q(*check.error));
        return;
    }
    LoadRequest request;
    request.conninfo = check.conninfo;
    try {
        request.table = TableName::parse(start.table);
    } catch (const std::exception& e) {
        dropStart(q(e.what()));
        return;
    }
    if (!check.info.table) {
        // A new table: of the chosen type, if this server can make it.
        const ExtensionStatus* needs = start.type == TableType::Hypertable    ? &check.timescaledb
                                       : start.type == TableType::Distributed ? &check.citus
                                                                              : nullptr;
        if (needs != nullptr && !needs->usable) {
            dropStart(tr("a %1 table cannot be made on this server: %2")
                          .arg(q(std::string(tableTypeName(start.type))), q(needs->reason)));
            return;
        }
        request.tableOptions.type = start.type; // an existing table stays what it is
    } else if (start.replace &&
               !confirm_(tr("Replace the table's contents?"),
                         tr("%1 exists. Replace empties it (TRUNCATE) before loading: every row in it now "
                            "is deleted, also rows other loads put there. Continue?")
                             .arg(q(start.table)))) {
        dropStart(tr("the table was not to be emptied"));
        return;
    }
    request.tableOptions.chunkInterval = start.chunkInterval;
    request.tableOptions.compressAfter = start.compress;
    request.files = start.files;
    request.open = start.open;
    request.allMissing = start.allMissing;
    request.variables = start.variables;
    request.autoWorkers = start.autoWorkers;
    request.workers = std::min(start.workers, check.maxWorkers);
    if (request.workers < start.workers && !start.autoWorkers) {
        run_->log(tr("%1 workers instead of %2: that is what the server's max_connections leaves")
                      .arg(request.workers)
                      .arg(start.workers));
    }
    request.replace = start.replace;
    request.durability = start.durability;
    if (!controller_->start(request)) {
        dropStart(tr("a load is already running; this start is dropped"));
        return;
    }
    moveTo(State::Running);
    emit statusMessage(tr("Loading into %1...").arg(q(start.table)));
}

void StartFlow::cancel() {
    switch (state_) {
    case State::Running:
        cancelRun(State::Cancelling);
        return;
    case State::Checking:
    case State::RestoringBeforeStart:
        checking_.cancel(); // the check's result no longer starts anything
        target_->showUnchecked();
        dropStart(tr("cancelled before it started"));
        return;
    case State::Idle:
    case State::Restoring:
    case State::Cancelling:
    case State::Closing:
        return; // nothing to cancel, or cancelled already
    }
}

void StartFlow::cancelRun(State next) {
    controller_->cancel();
    moveTo(next);
    run_->log(tr("cancelling: the units in flight roll back, changed settings are restored..."));
    emit statusMessage(tr("Cancelling..."));
}

bool StartFlow::mayClose() {
    switch (state_) {
    case State::Idle:
    case State::Restoring:
        return true;
    case State::Checking:
    case State::RestoringBeforeStart:
        cancel(); // a start still waiting for its server check starts nothing now
        return true;
    case State::Closing:
        return false; // already on the way out
    case State::Running:
    case State::Cancelling:
        break;
    }
    if (!confirm_(tr("A load is running"),
                  tr("Cancel the load and quit? The units in flight roll back (what was committed stays, a "
                     "later run resumes) and changed server settings are restored before Isobar quits."))) {
        return false;
    }
    if (state_ == State::Running) {
        cancelRun(State::Closing);
    } else if (state_ == State::Cancelling) {
        moveTo(State::Closing);
    }
    return !runs(state_); // the run may have ended while the question was open: then it closes now
}

void StartFlow::runEnded(const LoadSummary& summary, const RunReport& report, const QString& path,
                         const QString& problem) {
    const bool closing = state_ == State::Closing;
    if (runs(state_)) {
        moveTo(State::Idle);
    }
    run_->showEnded(summary, report, path, problem);
    emit statusMessage(SummaryText(summary).plain());
    if (!closing) {
        if (summary.status == LoadStatus::Failed && summary.error && summary.error->overlap) {
            offerOverlapChoice(*summary.error);
        }
        return;
    }
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
    emit closeAgreed();
}

void StartFlow::offerOverlapChoice(const LoadError& error) {
    const LoadRequest* last = controller_->lastRequest();
    if (!choose_ || last == nullptr || state_ != State::Idle) {
        return;
    }
    const int choice = choose_(
        tr("Rows already in the table"),
        tr("%1\n\nNothing was loaded. Keep the rows the table holds (the files' rows there are left out, the "
           "rest loads), or replace them with these files' rows?")
            .arg(q(error.message)),
        {tr("Keep the table's rows"), tr("Replace them")});
    if (choice < 0) {
        return;
    }
    LoadRequest request = *last;
    request.overlap = choice == 0 ? OverlapPolicy::Skip : OverlapPolicy::Replace;
    request.replace = false; // the table was not emptied the first time: the choice is about its rows
    run_->log(choice == 0 ? tr("Loading again, keeping the rows the table already holds")
                          : tr("Loading again, replacing the rows the table already holds"));
    if (controller_->start(request)) {
        moveTo(State::Running);
        emit statusMessage(tr("Loading into %1...").arg(q(request.table.display())));
    }
}

} // namespace isobar::ui
