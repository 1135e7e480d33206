// SPDX-License-Identifier: GPL-3.0-or-later

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
// `isobar-cli report` writes them (the HTML embeds the rate and disk charts), .pdf (the summary
// and the charts, one document), .png (the charts). Returns what went wrong, empty when it worked.
QString exportReport(const RunReport& report, const QString& path);

// Asks where to export (any of the formats above, suggested beside the user's documents) and
// writes it; a problem is shown to the user. Returns the path written, empty when nothing was.
QString exportWithDialog(QWidget* parent, const RunReport& report);

// The run's charts as the app draws them, in one image: the rate chart at `rateSize` pixels and,
// when the report has any disk figure, the disk chart under it (as wide, two thirds as high),
// both on the same time span and plotted between the same left and right edges.
QImage renderRunCharts(const RunReport& report, QSize rateSize = {1000, 420});

// Rich text saying what the run did: status, rows, speed, target, durability, and what the HTML
// report says of the workers (auto, its bound, each change and why), the disk (the forecast, the
// lowest free space, pg_wal's peak, the table's size), the standbys and the archiver.
QString reportSummaryHtml(const RunReport& report);

} // namespace isobar::ui
