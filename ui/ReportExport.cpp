// SPDX-License-Identifier: GPL-3.0-or-later

#include "ReportExport.h"

#include "DiskChart.h"
#include "Format.h"
#include "RateChart.h"
#include "report/ReportText.h"
#include "util/Format.h"

#include <QChart>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QGraphicsLayout>
#include <QImageWriter>
#include <QMessageBox>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTextDocument>
#include <QUrl>

#include <algorithm>

namespace isobar::ui {

QString reportExportFilter() {
    return QObject::tr("JSON report (*.json);;CSV rate series (*.csv);;HTML report with charts (*.html);;"
                       "PDF report with charts (*.pdf);;PNG image of the charts (*.png)");
}

namespace {

// Lowest free space, pg_wal's peak, the table's final size: those the run saw.
QString diskText(const RunReport& r) {
    const RunReport::StorageFigures f = r.storageFigures();
    QStringList parts;
    if (f.lowestFreeBytes >= 0) {
        parts << QObject::tr("lowest free space %1").arg(q(formatByteFigure(f.lowestFreeBytes)));
    }
    if (f.peakWalDirBytes >= 0) {
        parts << QObject::tr("pg_wal peak %1").arg(q(formatByteFigure(f.peakWalDirBytes)));
    }
    if (f.finalTableBytes >= 0) {
        parts << QObject::tr("table %1 at the end").arg(q(formatByteFigure(f.finalTableBytes))) +
                     (f.finalBytesPerRow >= 0
                          ? QObject::tr(" (%1 bytes/row)").arg(f.finalBytesPerRow, 0, 'f', 1)
                          : QString());
    }
    return parts.join(QStringLiteral("; "));
}

QString writePdf(const RunReport& report, const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        return QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    }
    QPdfWriter pdf(&file);
    pdf.setPageSize(QPageSize(QPageSize::A4));
    pdf.setPageOrientation(QPageLayout::Landscape);
    pdf.setResolution(150);
    pdf.setTitle(QObject::tr("Isobar run report"));
    pdf.setCreator(q(report.tool));
    QTextDocument doc;
    doc.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("isobar:charts.png")),
                    renderRunCharts(report, {1400, 560}));
    QString html = QStringLiteral("<h2>%1</h2>")
                       .arg(QObject::tr("Isobar run: %1 into %2")
                                .arg(q(report.startedAt), q(report.table))
                                .toHtmlEscaped());
    html += QStringLiteral("<p><img src='isobar:charts.png' width='900'></p>");
    html += reportSummaryHtml(report);
    for (const auto& w : report.settingWarnings) {
        html += QStringLiteral("<p>%1: %2</p>")
                    .arg(q(std::string(severityName(w.severity))), q(w.message).toHtmlEscaped());
    }
    doc.setHtml(html);
    doc.setPageSize(pdf.pageLayout().paintRectPixels(pdf.resolution()).size());
    doc.print(&pdf);
    file.close();
    if (file.error() != QFileDevice::NoError) {
        return QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    }
    return {};
}

} // namespace

QImage renderRunCharts(const RunReport& report, QSize rateSize) {
    // Charts of their own, never shown: the same drawing whether the run is live, finished or
    // reopened from the history. Linked as the run view links them, the rate chart filled first.
    RateChart rates;
    DiskChart disk;
    QObject::connect(&rates, &RateChart::timeSpanChanged, &disk, &DiskChart::setMinimumTimeSpan);
    QObject::connect(&disk, &DiskChart::timeSpanChanged, &rates, &RateChart::setMinimumTimeSpan);
    rates.showReport(report, q(report.table));
    disk.showReport(report);
    rates.resize(rateSize);
    if (!disk.hasFigures()) {
        return rates.grab().toImage();
    }
    disk.setMinimumSize(0, 0); // the caller's size, whatever the chart's minimum on screen
    disk.resize(rateSize.width(), rateSize.height() * 2 / 3);
    // Laid out once, then both plots between the same left and right edges: one moment is one x
    // in both (the value labels, "1.5M" and "1.5 GiB", are not as wide).
    rates.grab();
    disk.grab();
    QRectF ratePlot = rates.chart()->plotArea();
    QRectF diskPlot = disk.chart()->plotArea();
    const qreal left = std::max(ratePlot.left(), diskPlot.left());
    const qreal right = std::min(ratePlot.right(), diskPlot.right());
    for (QRectF* plot : {&ratePlot, &diskPlot}) {
        plot->setLeft(left);
        plot->setRight(right);
    }
    for (auto [chart, plot] : {std::pair{rates.chart(), ratePlot}, std::pair{disk.chart(), diskPlot}}) {
        chart->setPlotArea(plot);
        chart->layout()->activate(); // now, not on the event loop's next turn
    }
    const QImage top = rates.grab().toImage();
    const QImage bottom = disk.grab().toImage();
    QImage image(top.width(), top.height() + bottom.height(), QImage::Format_RGB32);
    image.setDevicePixelRatio(top.devicePixelRatio());
    image.fill(Qt::white);
    QPainter painter(&image);
    painter.drawImage(QPoint(0, 0), top);
    painter.drawImage(QPointF(0, top.height() / top.devicePixelRatio()), bottom);
    return image;
}

QString reportSummaryHtml(const RunReport& r) {
    QString html;
    const auto rowHtml = [&html](const QString& name, const QString& valueHtml) {
        html += QStringLiteral("<tr><td valign='top'><b>%1</b></td><td>%2</td></tr>").arg(name, valueHtml);
    };
    const auto row = [&rowHtml](const QString& name, const QString& value) {
        rowHtml(name, value.toHtmlEscaped());
    };
    const auto lines = [](const QStringList& texts) {
        QStringList escaped;
        for (const QString& t : texts) {
            escaped << t.toHtmlEscaped();
        }
        return escaped.join(QStringLiteral("<br>"));
    };
    html += QStringLiteral("<table cellspacing='2' cellpadding='2'>");
    row(QObject::tr("Status"), q(r.status) + (r.error ? QStringLiteral(": ") + q(*r.error) : QString()));
    row(QObject::tr("Started"), q(r.startedAt));
    row(QObject::tr("Target"), q(r.target) + QStringLiteral(" / ") + q(r.table) + QStringLiteral(" (") +
                                   q(r.tableType) + QStringLiteral(")"));
    row(QObject::tr("Rows"),
        QObject::tr("%1 loaded, %2 already there, %3 planned")
            .arg(formatCount(r.rows), formatCount(r.resumedRows), formatCount(r.plannedRows)));
    row(QObject::tr("Speed"),
        QObject::tr("%1 rows/s mean, %2 rows/s median sustained, %3")
            .arg(formatRate(r.meanRate), formatRate(r.medianSustainedRate), q(formatDuration(r.seconds))));
    QStringList workers{q(workersText(r))};
    for (const WorkerChange& c : r.workerChanges) {
        workers << q(workerChangeText(c));
    }
    rowHtml(QObject::tr("Workers"), lines(workers));
    row(QObject::tr("Server"), QObject::tr("%1; %2 checkpoint(s), %3 of WAL")
                                   .arg(q(r.serverVersion))
                                   .arg(r.checkpoints)
                                   .arg(q(formatBytes(r.walBytes))));
    if (!r.forecast.empty()) {
        QStringList forecast;
        for (const auto& line : r.forecast) {
            forecast << q(line);
        }
        rowHtml(QObject::tr("Forecast"), lines(forecast));
    }
    if (const auto checkpoints = r.checkpointEffects(); !checkpoints.empty()) {
        QStringList said;
        constexpr std::size_t kListed = 10;
        for (std::size_t i = 0; i < checkpoints.size() && i < kListed; ++i) {
            said << QObject::tr("at %1: %2")
                        .arg(q(formatDuration(checkpoints[i].elapsed)), q(checkpointText(checkpoints[i])));
        }
        if (checkpoints.size() > kListed) {
            said << QObject::tr("and %1 more").arg(checkpoints.size() - kListed);
        }
        rowHtml(QObject::tr("Checkpoints"), lines(said));
    }
    if (seesTheDisk(r)) {
        row(QObject::tr("Disk"), diskText(r));
    } else if (!r.server.empty()) {
        row(QObject::tr("Disk"), QObject::tr("not seen (a server on another machine, or a role that may "
                                             "not look)"));
    }
    if (!r.standbys.empty()) {
        QStringList standbys;
        for (const auto& s : r.standbys) {
            standbys << q(s.name) + QStringLiteral(": ") + q(standbyLagText(s));
        }
        rowHtml(QObject::tr("Standbys"), lines(standbys));
    }
    if (const std::string archiver = archiverText(r); !archiver.empty()) {
        row(QObject::tr("Archiver"), q(archiver));
    }
    if (!r.durabilityRequested.empty()) {
        row(QObject::tr("Durability"),
            q(r.durabilityRequested) + QStringLiteral(" - ") +
                (r.durability.restored ? QObject::tr("restored")
                                       : QObject::tr("NOT restored: ") + q(r.durability.problem)));
    }
    if (!r.verification.empty()) {
        row(QObject::tr("Verified"), q(r.verification));
    }
    QStringList files;
    for (const auto& f : r.files) {
        files << q(f.name);
    }
    row(QObject::tr("Files"), files.join(QStringLiteral(", ")));
    html += QStringLiteral("</table>");
    return html;
}

QString exportReport(const RunReport& report, const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    try {
        if (suffix == QLatin1String("json") || suffix == QLatin1String("csv") ||
            suffix == QLatin1String("html")) {
            writeReport(report, path.toStdString());
            return {};
        }
        if (suffix == QLatin1String("pdf")) {
            return writePdf(report, path);
        }
        if (suffix == QLatin1String("png")) {
            QImageWriter writer(path, "png");
            if (!writer.write(renderRunCharts(report))) {
                return QObject::tr("cannot write %1: %2").arg(path, writer.errorString());
            }
            return {};
        }
    } catch (const std::exception& e) {
        return q(e.what());
    }
    return QObject::tr("%1: choose a name ending in .json, .csv, .html, .pdf or .png").arg(path);
}

QString exportWithDialog(QWidget* parent, const RunReport& report) {
    const QString suggested =
        QStringLiteral("%1/isobar-%2-%3.html")
            .arg(QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation),
                 q(report.table).replace(QLatin1Char('.'), QLatin1Char('-')),
                 q(report.startedAt).left(19).replace(QLatin1Char(':'), QLatin1Char('-')));
    QString filter;
    QString path = QFileDialog::getSaveFileName(parent, QObject::tr("Export the run report"), suggested,
                                                reportExportFilter(), &filter);
    if (path.isEmpty()) {
        return {};
    }
    if (QFileInfo(path).suffix().isEmpty()) {
        // A name typed without an extension takes the chosen format's.
        const auto match = QRegularExpression(QStringLiteral("\\*(\\.\\w+)")).match(filter);
        path += match.hasMatch() ? match.captured(1) : QStringLiteral(".html");
    }
    const QString problem = exportReport(report, path);
    if (!problem.isEmpty()) {
        QMessageBox::warning(parent, QObject::tr("Export failed"), problem);
        return {};
    }
    return path;
}

} // namespace isobar::ui
