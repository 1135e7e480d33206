// SPDX-License-Identifier: GPL-3.0-or-later

#include "SettingsPanel.h"

#include "Format.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QStyle>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace isobar::ui {

namespace {

QIcon iconFor(Severity severity) {
    QStyle* style = QApplication::style();
    switch (severity) {
    case Severity::Error:
        return style->standardIcon(QStyle::SP_MessageBoxCritical);
    case Severity::Danger:
        return style->standardIcon(QStyle::SP_MessageBoxWarning);
    case Severity::Slows:
        return style->standardIcon(QStyle::SP_BrowserReload);
    case Severity::Info:
        return style->standardIcon(QStyle::SP_MessageBoxInformation);
    }
    return {};
}

} // namespace

SettingsPanel::SettingsPanel(QWidget* parent)
    : QWidget(parent)
    , summary_(new QLabel)
    , warnings_(new QTreeWidget)
    , details_(new QLabel)
    , fsync_(
          new QCheckBox(tr("fsync &off (server-wide: an OS crash or power loss can corrupt every database)")))
    , fullPageWrites_(new QCheckBox(tr("full_page_&writes off (server-wide: a crash can leave torn pages)")))
    , synchronousCommit_(
          new QCheckBox(tr("synchronous_commit off (this load's connections: a crash may lose the "
                           "last commits, reloaded by the next run)")))
    , confirm_([this](const QString& title, const QString& text) {
        return QMessageBox::warning(this, title, text, QMessageBox::Yes | QMessageBox::No, QMessageBox::No) ==
               QMessageBox::Yes;
    }) {
    auto* found = new QGroupBox(tr("What the server's settings mean for this load"));
    auto* foundLayout = new QVBoxLayout(found);
    summary_->setWordWrap(true);
    warnings_->setColumnCount(2);
    warnings_->setHeaderLabels({tr("Severity"), tr("Finding")});
    warnings_->setRootIsDecorated(false);
    warnings_->setWordWrap(true);
    warnings_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    warnings_->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto* copy = new QAction(tr("Copy the fix SQL"), warnings_);
    copy->setShortcut(QKeySequence::Copy);
    copy->setShortcutContext(Qt::WidgetShortcut); // Ctrl+C elsewhere copies what it always copies
    connect(copy, &QAction::triggered, this, [this] {
        QTreeWidgetItem* item = warnings_->currentItem();
        if (item != nullptr && !item->data(1, Qt::UserRole).toString().isEmpty()) {
            QApplication::clipboard()->setText(item->data(1, Qt::UserRole).toString());
        }
    });
    warnings_->addAction(copy);
    foundLayout->addWidget(summary_);
    foundLayout->addWidget(warnings_);
    details_->setWordWrap(true);
    details_->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    foundLayout->addWidget(details_);
    connect(warnings_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (item == nullptr) {
            details_->clear();
            return;
        }
        const QString fix = item->data(1, Qt::UserRole).toString();
        details_->setText(QStringLiteral("%1<br><b>%2</b> %3")
                              .arg(item->text(1).toHtmlEscaped(), tr("Fix:"),
                                   fix.isEmpty()
                                       ? tr("no SQL fixes this (a restart or an offline tool does)")
                                       : QStringLiteral("<code>%1</code>").arg(fix.toHtmlEscaped())));
    });

    auto* durability = new QGroupBox(tr("Durability for the next run only (restored when it ends)"));
    durabilityGroup_ = durability;
    auto* durabilityLayout = new QVBoxLayout(durability);
    auto* explain =
        new QLabel(tr("Trading crash safety for speed: Isobar records the original settings on disk "
                      "first, and puts them back when the run ends - completed, failed or cancelled - "
                      "or at the next start if it is killed."));
    explain->setWordWrap(true);
    durabilityLayout->addWidget(explain);
    durabilityLayout->addWidget(fsync_);
    durabilityLayout->addWidget(fullPageWrites_);
    durabilityLayout->addWidget(synchronousCommit_);
    DurabilityRequest fsyncAlone;
    fsyncAlone.fsync = false;
    DurabilityRequest fpwAlone;
    fpwAlone.fullPageWrites = false;
    DurabilityRequest syncAlone;
    syncAlone.synchronousCommit = "off";
    guard(fsync_, fsyncAlone);
    guard(fullPageWrites_, fpwAlone);
    guard(synchronousCommit_, syncAlone);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(found, 1);
    layout->addWidget(durability);
    clear(tr("Test the connection to see what the server's settings mean for the load."));
}

void SettingsPanel::guard(QCheckBox* box, const DurabilityRequest& alone) {
    // The confirmation comes before the box shows ticked; a "no" leaves it as it was.
    connect(box, &QCheckBox::clicked, this, [this, box, alone](bool checked) {
        if (!checked) {
            return;
        }
        const bool yes =
            confirm_(tr("Trade durability for speed?"),
                     tr("For this run only: %1.\n\nEverything is restored when the run ends, or at "
                        "the next start if Isobar is killed. Continue?")
                         .arg(q(alone.risks())));
        box->setChecked(yes);
    });
}

void SettingsPanel::clear(const QString& why) {
    warnings_->clear();
    details_->clear();
    summary_->setText(why);
}

void SettingsPanel::showCheck(const TargetCheck& check) {
    warnings_->clear();
    details_->setText(
        tr("Select a finding to read it in full, with the SQL that fixes it (Ctrl+C copies the SQL)."));
    if (check.error) {
        summary_->setText(tr("The server could not be checked: %1").arg(q(*check.error)));
        return;
    }
    int worst = 0;
    for (const SettingWarning& w : check.warnings) {
        auto* item = new QTreeWidgetItem(warnings_);
        item->setIcon(0, iconFor(w.severity));
        item->setText(0, q(std::string(severityName(w.severity))));
        item->setText(1, q(w.message));
        item->setData(1, Qt::UserRole, q(w.fix));
        item->setToolTip(1, q(w.message) + QStringLiteral("\n\n") +
                                (w.fix.empty() ? tr("No SQL fixes this (a restart or an offline tool does).")
                                               : tr("Fix: %1").arg(q(w.fix))));
        worst += w.severity == Severity::Error || w.severity == Severity::Danger ? 1 : 0;
    }
    if (QTreeWidgetItem* first = warnings_->topLevelItem(0)) {
        warnings_->setCurrentItem(first); // the worst comes first: read in full below
    }
    summary_->setText(check.warnings.empty() ? tr("Nothing on this server endangers or slows the load.")
                                             : tr("%n finding(s), %1 of them errors or dangers.", nullptr,
                                                  static_cast<int>(check.warnings.size()))
                                                   .arg(worst));
    // Who may change settings decides whether the toggles can work.
    const RoleInfo& role = check.info.role;
    const bool mayChange = role.mayAlterSystem("fsync") && role.mayAlterSystem("full_page_writes") &&
                           role.reloadConf && role.checkpoint && role.readFileSettings;
    for (QCheckBox* box : {fsync_, fullPageWrites_}) {
        box->setEnabled(mayChange);
        box->setToolTip(mayChange ? QString()
                                  : tr("Role %1 may not change server settings (needs superuser, or ALTER "
                                       "SYSTEM on the parameter, pg_reload_conf(), pg_file_settings and "
                                       "pg_checkpoint)")
                                        .arg(q(role.name)));
        if (!mayChange) {
            box->setChecked(false);
        }
    }
}

DurabilityRequest SettingsPanel::durability() const {
    DurabilityRequest r;
    if (fsync_->isChecked()) {
        r.fsync = false;
    }
    if (fullPageWrites_->isChecked()) {
        r.fullPageWrites = false;
    }
    if (synchronousCommit_->isChecked()) {
        r.synchronousCommit = "off";
    }
    r.consent = true; // every ticked box was confirmed
    return r;
}

void SettingsPanel::setDurabilityLocked(bool locked) {
    durabilityGroup_->setEnabled(!locked);
}

void SettingsPanel::resetDurability() {
    for (QCheckBox* box : {fsync_, fullPageWrites_, synchronousCommit_}) {
        box->setChecked(false);
    }
}

} // namespace isobar::ui
