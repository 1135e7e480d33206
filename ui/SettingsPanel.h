// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "TargetCheck.h"

#include <QWidget>

#include <functional>

class QCheckBox;
class QLabel;
class QTreeWidget;

namespace isobar::ui {

// The server's warnings for the planned load (severity icon, explanation, the SQL that fixes it
// in the tooltip and on copy), and the durability toggles for the next run. Turning any of them
// on asks for a confirmation that names the risks; without it the box stays off.
class SettingsPanel : public QWidget {
    Q_OBJECT

public:
    // Asks the user; returns true when they agree. Replaceable for tests.
    using Confirm = std::function<bool(const QString& title, const QString& text)>;

    explicit SettingsPanel(QWidget* parent = nullptr);

    void showCheck(const TargetCheck& check);
    void clear(const QString& why);
    // What the next run trades (consent set: every box was confirmed).
    DurabilityRequest durability() const;
    void resetDurability();
    // While a start waits for its server or a load runs: what was ticked is what the run trades.
    void setDurabilityLocked(bool locked);

    void setConfirm(Confirm confirm) { confirm_ = std::move(confirm); }
    QTreeWidget* warningsView() const { return warnings_; }
    QLabel* detailsLabel() const { return details_; }
    QCheckBox* fsyncBox() const { return fsync_; }
    QCheckBox* fullPageWritesBox() const { return fullPageWrites_; }
    QCheckBox* synchronousCommitBox() const { return synchronousCommit_; }

private:
    void guard(QCheckBox* box, const DurabilityRequest& alone);

    QLabel* summary_;
    QTreeWidget* warnings_;
    QLabel* details_;
    QCheckBox* fsync_;
    QCheckBox* fullPageWrites_;
    QCheckBox* synchronousCommit_;
    QWidget* durabilityGroup_ = nullptr;
    Confirm confirm_;
};

} // namespace isobar::ui
