// SPDX-License-Identifier: GPL-3.0-or-later

#include "HistoryPanel.h"

#include "DiskChart.h"
#include "Format.h"
#include "RateChart.h"
#include "ReportExport.h"
#include "TableMapDialog.h"
#include "util/Format.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <filesystem>

namespace isobar::ui {

namespace {

// A run in a chart's legend: "05-02 10:00" (month, day, UTC time), short enough for the legend of
// a small window; the summary and tooltips give the whole start.
QString legendLabel(const std::string& startedAt) {
    return q(startedAt).mid(5, 11).replace(QLatin1Char('T'), QLatin1Char(' '));
}

enum Column { Started, Status, Table, Type, Workers, Rows, Rate, Duration, Files, ColumnCount };

QTableWidgetItem* cell(const QString& text, bool number = false) {
    auto* item = new QTableWidgetItem(text);
    if (number) {
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    return item;
}

} // namespace

HistoryPanel::HistoryPanel(QWidget* parent)
    : QWidget(parent)
    , directory_(q(defaultReportDirectory().string()))
    , table_(new QTableWidget(0, ColumnCount))
    , chart_(new RateChart)
    , disk_(new DiskChart)
    , summary_(new QLabel)
    , open_(new QPushButton(tr("&Open")))
    , compare_(new QPushButton(tr("Com&pare two")))
    , export_(new QPushButton(tr("E&xport...")))
    , map_(new QPushButton(tr("&Map...")))
    , audit_(new QPushButton(tr("A&udit table...")))
    , reading_(this, JobPool::Files) {
    auto* refresh = new QPushButton(tr("&Refresh"));
    auto* folder = new QPushButton(tr("Reports fol&der..."));
    table_->setHorizontalHeaderLabels({tr("Started (UTC)"), tr("Status"), tr("Table"), tr("Type"),
                                       tr("Workers"), tr("Rows"), tr("rows/s"), tr("Time"), tr("Files")});
    table_->verticalHeader()->hide();
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::ExtendedSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setSortingEnabled(false);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    compare_->setToolTip(tr("Select two runs: both rate curves on one chart"));

    auto* buttons = new QHBoxLayout;
    audit_->setToolTip(
        tr("The run's table now: rows held twice, holes, ERA5T still there, the ledger against "
           "the rows, columns without values (on the server of the Target tab)"));
    for (QPushButton* b : {open_, compare_, export_, map_, audit_, refresh, folder}) {
        buttons->addWidget(b);
    }
    buttons->addStretch();
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(table_);
    split->addWidget(chart_);
    split->addWidget(disk_);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 2);
    disk_->hide(); // until a run with disk figures is shown
    // One time span for both charts, as in the run view.
    connect(chart_, &RateChart::timeSpanChanged, disk_, &DiskChart::setMinimumTimeSpan);
    connect(disk_, &DiskChart::timeSpanChanged, chart_, &RateChart::setMinimumTimeSpan);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);
    layout->addWidget(summary_);

    connect(refresh, &QPushButton::clicked, this, &HistoryPanel::refresh);
    connect(folder, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Folder of run reports"), directory_);
        if (!dir.isEmpty()) {
            setDirectory(dir);
        }
    });
    connect(open_, &QPushButton::clicked, this, &HistoryPanel::openSelected);
    connect(compare_, &QPushButton::clicked, this, &HistoryPanel::compareSelected);
    connect(table_, &QTableWidget::itemActivated, this, &HistoryPanel::openSelected);
    connect(export_, &QPushButton::clicked, this, [this] {
        const auto rows = selectedRows();
        if (!rows.empty()) {
            exportWithDialog(this, reports_[static_cast<std::size_t>(rows.front())].report);
        }
    });
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        const auto rows = selectedRows();
        const auto n = rows.size();
        open_->setEnabled(n == 1);
        export_->setEnabled(n == 1);
        audit_->setEnabled(n == 1 && !reports_[static_cast<std::size_t>(rows.front())].report.table.empty());
        compare_->setEnabled(n == 2);
        const QString why =
            n == 1
                ? TableMapDialog::unavailableReason(reports_[static_cast<std::size_t>(rows.front())].report)
                : tr("select one run");
        map_->setEnabled(why.isEmpty());
        map_->setToolTip(why.isEmpty()
                             ? tr("A map of what the run wrote, read back from its table, and the time "
                                  "series of a point")
                             : tr("No map: %1").arg(why));
    });
    connect(map_, &QPushButton::clicked, this, [this] {
        const auto rows = selectedRows();
        if (rows.size() == 1) {
            emit mapRequested(reports_[static_cast<std::size_t>(rows.front())].report);
        }
    });
    connect(audit_, &QPushButton::clicked, this, [this] {
        const auto rows = selectedRows();
        if (rows.size() == 1) {
            emit auditRequested(q(reports_[static_cast<std::size_t>(rows.front())].report.table));
        }
    });
    open_->setEnabled(false);
    export_->setEnabled(false);
    audit_->setEnabled(false);
    map_->setEnabled(false);
    compare_->setEnabled(false);
}

void HistoryPanel::setDirectory(const QString& directory) {
    directory_ = directory;
    refresh();
}

void HistoryPanel::refresh() {
    summary_->setText(tr("Reading the reports in %1...").arg(directory_));
    struct Reading {
        std::vector<Entry> entries;
        QStringList problems;
    };
    // Thread boundary: reading and parsing reports (each up to 10,000 samples) happens on the
    // pool, the parsed reports come back; a newer refresh stops this one at its next file.
    reading_.start(
        [dir = directory_](const std::stop_token& stop) {
            Reading reading;
            const QFileInfoList files =
                QDir(dir).entryInfoList({QStringLiteral("*.json")}, QDir::Files | QDir::Readable, QDir::Name);
            for (const QFileInfo& f : files) {
                if (stop.stop_requested()) {
                    break; // superseded: what it read is dropped anyway
                }
                if (f.size() == 0) {
                    continue; // a name a run reserved for the report it is writing this moment
                }
                try {
                    reading.entries.push_back(
                        Entry{f.absoluteFilePath(), readReport(f.absoluteFilePath().toStdString())});
                } catch (const std::exception& e) {
                    reading.problems << QStringLiteral("%1: %2").arg(f.fileName(), q(e.what()));
                }
            }
            std::sort(reading.entries.begin(), reading.entries.end(),
                      [](const Entry& a, const Entry& b) { return a.report.startedAt > b.report.startedAt; });
            return reading;
        },
        [this](Reading reading) { show(std::move(reading.entries), reading.problems); },
        [this](const JobError& e) {
            summary_->setText(tr("The reports in %1 could not be read: %2").arg(directory_, e.message));
            emit refreshed();
        });
}

void HistoryPanel::show(std::vector<Entry> entries, const QStringList& problems) {
    reports_ = std::move(entries);
    table_->clearSelection();
    table_->setRowCount(static_cast<int>(reports_.size()));
    for (int row = 0; row < table_->rowCount(); ++row) {
        const RunReport& r = reports_[static_cast<std::size_t>(row)].report;
        table_->setItem(row, Started,
                        cell(q(r.startedAt).left(19).replace(QLatin1Char('T'), QLatin1Char(' '))));
        table_->setItem(row, Status, cell(q(r.status)));
        table_->setItem(row, Table, cell(q(r.table)));
        table_->setItem(row, Type, cell(q(r.tableType)));
        table_->setItem(row, Workers, cell(QString::number(r.workers), true));
        table_->setItem(row, Rows, cell(formatCount(r.rows), true));
        table_->setItem(row, Rate, cell(formatRate(r.meanRate), true));
        table_->setItem(row, Duration, cell(q(formatDuration(r.seconds)), true));
        QStringList files;
        for (const auto& f : r.files) {
            files << QString::fromStdString(std::filesystem::path(f.name).filename().string());
        }
        table_->setItem(row, Files, cell(files.join(QStringLiteral(", "))));
        table_->item(row, Started)->setToolTip(reports_[static_cast<std::size_t>(row)].path);
    }
    table_->resizeColumnsToContents();
    const bool showNewest = !reports_.empty() && chart_->pointCount() == 0;
    if (showNewest) {
        // The newest run's curve until the user opens another.
        showCharts(reports_.front().report);
    }
    QString text = reports_.empty()
                       ? tr("No run reports in %1 yet: every load writes one there.").arg(directory_)
                       : tr("%n run(s) in %1. Open one, or select two and compare.", nullptr,
                            static_cast<int>(reports_.size()))
                             .arg(directory_);
    if (showNewest) {
        text += tr(" The charts show the newest.");
    }
    for (const QString& p : problems) {
        text += tr("<br>Not a readable report: %1").arg(p.toHtmlEscaped());
    }
    summary_->setText(text);
    emit refreshed();
}

std::vector<int> HistoryPanel::selectedRows() const {
    std::vector<int> rows;
    for (const QModelIndex& i : table_->selectionModel()->selectedRows()) {
        rows.push_back(i.row());
    }
    std::sort(rows.begin(), rows.end());
    return rows;
}

void HistoryPanel::select(const std::vector<int>& rows) {
    table_->clearSelection();
    for (int row : rows) {
        table_->selectionModel()->select(table_->model()->index(row, 0),
                                         QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
}

void HistoryPanel::openSelected() {
    const auto rows = selectedRows();
    if (rows.empty()) {
        return;
    }
    const Entry& e = reports_[static_cast<std::size_t>(rows.front())];
    showCharts(e.report);
    summary_->setText(reportSummaryHtml(e.report) + tr("<br>Report: %1").arg(e.path.toHtmlEscaped()));
}

void HistoryPanel::compareSelected() {
    const auto rows = selectedRows();
    if (rows.size() != 2) {
        return;
    }
    const RunReport& a = reports_[static_cast<std::size_t>(rows[0])].report;
    const RunReport& b = reports_[static_cast<std::size_t>(rows[1])].report;
    const QString first = q(a.startedAt).left(19);
    // The second run's curve joins last: the disk chart follows the longer span it makes.
    showCharts(a);
    chart_->compareWith(b, legendLabel(b.startedAt));
    disk_->setToolTip(tr("The disk of the first run, started %1 (one run's disk at a time)").arg(first));
    const QString disk = disk_->hasFigures() ? tr("The disk chart shows the first run's (%1).").arg(first)
                                             : tr("No disk figures for the first run (%1).").arg(first);
    summary_->setText(tr("<table><tr><th></th><th>%1</th><th>%2</th></tr>"
                         "<tr><td>rows</td><td>%3</td><td>%4</td></tr>"
                         "<tr><td>mean rows/s</td><td>%5</td><td>%6</td></tr>"
                         "<tr><td>median sustained</td><td>%7</td><td>%8</td></tr>"
                         "<tr><td>workers, type</td><td>%9</td><td>%10</td></tr></table>")
                          .arg(first, q(b.startedAt).left(19), formatCount(a.rows), formatCount(b.rows),
                               formatRate(a.meanRate), formatRate(b.meanRate),
                               formatRate(a.medianSustainedRate), formatRate(b.medianSustainedRate),
                               QStringLiteral("%1, %2").arg(a.workers).arg(q(a.tableType)))
                          .arg(QStringLiteral("%1, %2").arg(b.workers).arg(q(b.tableType))) +
                      disk);
}

void HistoryPanel::showCharts(const RunReport& report) {
    const QString started = q(report.startedAt).left(19);
    chart_->showReport(report, legendLabel(report.startedAt));
    disk_->showReport(report);
    // A server on another machine shows nothing of its disk: no empty chart for it.
    disk_->setVisible(disk_->hasFigures());
    disk_->setToolTip(tr("The disk of the run started %1").arg(started));
}

} // namespace isobar::ui
