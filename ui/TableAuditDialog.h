// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "BackgroundJobs.h"
#include "TargetCheck.h"

#include <QDialog>

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace isobar::ui {

// `isobar-cli audit` in a window: a table's health (rows held twice, holes, ERA5T still there,
// the ledger against the rows, columns without values) and the SQL that removes duplicates, which
// the user may copy and never sees run. The audit runs in the background with a connection of its
// own; the dialog shows "Auditing..." meanwhile and can be closed at any time: the query running
// is cancelled on the server, and the dialog goes at once.
class TableAuditDialog : public QDialog {
    Q_OBJECT

public:
    TableAuditDialog(const QString& table, const ConnectionChoice& connection, QWidget* parent = nullptr);
    ~TableAuditDialog() override;

    QLabel* statusLabel() const { return status_; }
    QPlainTextEdit* text() const { return text_; }
    QPushButton* copySqlButton() const { return copySql_; }
    bool busy() const { return audit_.isRunning(); }

signals:
    // The audit has ended (its text shown, or why it could not run).
    void finished();

private:
    QLabel* status_;
    QPlainTextEdit* text_;
    QPushButton* copySql_;
    QString sql_;
    JobTracker audit_;
};

} // namespace isobar::ui
