// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "ingest/LoadEvents.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

namespace isobar::ui {

// What the end of a run says, made from its summary: a headline ("Completed:", "Cancelled:",
// "Failed:", "The server went away:") and the lines after it. The run view shows it as rich text,
// the status bar as one plain line.
class SummaryText {
    Q_DECLARE_TR_FUNCTIONS(SummaryText)

public:
    explicit SummaryText(const LoadSummary& summary);

    // "<b>Completed:</b> ..." with a line break between the lines.
    QString html() const;
    // "Completed: ...", the lines joined by "; ".
    QString plain() const;
    // Cancelled or failed: a resume loads what is missing.
    bool offersResume() const { return offersResume_; }

private:
    QString headline_;
    QStringList lines_;
    bool offersResume_ = false;
};

} // namespace isobar::ui
