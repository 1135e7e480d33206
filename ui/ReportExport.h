#pragma once

#include "report/RunReport.h"

#include <QImage>
#include <QSize>
#include <QString>

class QWidget;

namespace isobar::ui {

// The formats a run report can be exported to, as a file dialog filter.
QString reportExportFilter();

// Writes `report` to `path` in the format its extension names: .json, .csv and .html exactly as
// `isobar-cli report` writes them (the HTML embeds the rate chart), .pdf (the summary and the
// chart, one document), .png (the chart). Returns what went wrong, empty when it worked.
QString exportReport(const RunReport& report, const QString& path);

// Asks where to export (any of the formats above, suggested beside the user's documents) and
// writes it; a problem is shown to the user. Returns the path written, empty when nothing was.
QString exportWithDialog(QWidget* parent, const RunReport& report);

// The run's rate chart as the app draws it, at `size` pixels.
QImage renderRateChart(const RunReport& report, QSize size = {1000, 420});

// A few lines of rich text saying what the run did (status, rows, speed, target, durability).
QString reportSummaryHtml(const RunReport& report);

} // namespace isobar::ui
