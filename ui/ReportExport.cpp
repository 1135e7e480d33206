#include "ReportExport.h"

#include "Format.h"
#include "RateChart.h"

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QImageWriter>
#include <QMessageBox>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTextDocument>
#include <QUrl>

namespace isobar::ui {

QString reportExportFilter() {
    return QObject::tr("JSON report (*.json);;CSV rate series (*.csv);;HTML report with chart (*.html);;"
                       "PDF report with chart (*.pdf);;PNG image of the chart (*.png)");
}

QImage renderRateChart(const RunReport& report, QSize size) {
    // A chart of its own, never shown: the same drawing whether the run is live, finished or
    // reopened from the history.
    RateChart chart;
    chart.resize(size);
    chart.showReport(report, QString::fromStdString(report.table));
    return chart.grab().toImage();
}

QString reportSummaryHtml(const RunReport& r) {
    QString html;
    const auto row = [&html](const QString& name, const QString& value) {
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>").arg(name, value.toHtmlEscaped());
    };
    html += QStringLiteral("<table cellspacing='2' cellpadding='2'>");
    row(QObject::tr("Status"), q(r.status) + (r.error ? QStringLiteral(": ") + q(*r.error) : QString()));
    row(QObject::tr("Started"), q(r.startedAt));
    row(QObject::tr("Target"), q(r.target) + QStringLiteral(" / ") + q(r.table) + QStringLiteral(" (") +
                                   q(r.tableType) + QStringLiteral(")"));
    row(QObject::tr("Rows"),
        QObject::tr("%1 loaded, %2 already there, %3 planned")
            .arg(formatCount(r.rows), formatCount(r.resumedRows), formatCount(r.plannedRows)));
    row(QObject::tr("Speed"), QObject::tr("%1 rows/s mean, %2 rows/s median sustained, %3 workers, %4")
                                  .arg(formatRate(r.meanRate), formatRate(r.medianSustainedRate))
                                  .arg(r.workers)
                                  .arg(formatDuration(r.seconds)));
    row(QObject::tr("Server"), QObject::tr("%1; %2 checkpoint(s), %3 of WAL")
                                   .arg(q(r.serverVersion))
                                   .arg(r.checkpoints)
                                   .arg(formatBytes(r.walBytes)));
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

namespace {

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
    doc.addResource(QTextDocument::ImageResource, QUrl(QStringLiteral("isobar:chart.png")),
                    renderRateChart(report, {1400, 560}));
    QString html = QStringLiteral("<h2>%1</h2>")
                       .arg(QObject::tr("Isobar run: %1 into %2")
                                .arg(q(report.startedAt), q(report.table))
                                .toHtmlEscaped());
    html += QStringLiteral("<p><img src='isobar:chart.png' width='900'></p>");
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
            if (!writer.write(renderRateChart(report))) {
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
