// SPDX-License-Identifier: GPL-3.0-or-later

#include "BenchHistoryPanel.h"

#include "BenchRunner.h"
#include "Format.h"

#include <QDesktopServices>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

namespace isobar::ui {

BenchHistoryPanel::BenchHistoryPanel(QWidget* parent)
    : QWidget(parent)
    , openUrl_([](const QUrl& url) { return QDesktopServices::openUrl(url); })
    , list_(new QTableWidget(0, 3))
    , openHtml_(new QPushButton(tr("Open &HTML")))
    , export_(new QPushButton(tr("E&xport...")))
    , reading_(this, JobPool::Files) {
    list_->setHorizontalHeaderLabels({tr("Started (UTC)"), tr("Bench"), tr("Status")});
    list_->verticalHeader()->hide();
    list_->setSelectionBehavior(QAbstractItemView::SelectRows);
    list_->setSelectionMode(QAbstractItemView::SingleSelection);
    list_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    list_->horizontalHeader()->setStretchLastSection(true);
    openHtml_->setToolTip(tr("The report as one page (tables, plots, machine) in the browser"));
    export_->setToolTip(tr("Write the report as JSON, CSV, HTML or Markdown where you choose"));
    auto* refreshButton = new QPushButton(tr("Re&fresh"));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(openHtml_);
    buttons->addWidget(export_);
    buttons->addWidget(refreshButton);
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(new QLabel(tr("<b>Past bench runs</b>")));
    layout->addWidget(list_, 1);
    layout->addLayout(buttons);

    connect(refreshButton, &QPushButton::clicked, this, [this] { refresh(); });
    connect(openHtml_, &QPushButton::clicked, this, &BenchHistoryPanel::openSelectedHtml);
    connect(export_, &QPushButton::clicked, this, &BenchHistoryPanel::exportWithDialog);
    connect(list_, &QTableWidget::itemSelectionChanged, this, [this] {
        openHtml_->setEnabled(selectedRow() >= 0);
        export_->setEnabled(selectedRow() >= 0);
        emit selectionChanged();
    });
    openHtml_->setEnabled(false);
    export_->setEnabled(false);
}

void BenchHistoryPanel::setOpenUrl(std::function<bool(const QUrl&)> open) {
    openUrl_ = std::move(open);
}

void BenchHistoryPanel::refresh(const QString& path) {
    // Thread boundary: reading and parsing every report happens on the pool; the list comes back.
    reading_.start([] { return listBenchReports(benchReportDirectory()); },
                   [this, path](std::vector<BenchReportEntry> entries) { show(std::move(entries), path); },
                   [this, path](const JobError&) {
                       show({}, path); // no directory yet (no bench has run): an empty list
                   });
}

void BenchHistoryPanel::show(std::vector<BenchReportEntry> entries, const QString& path) {
    const QString wanted = path.isEmpty() ? selectedPath() : path;
    reports_ = std::move(entries);
    int chosen = reports_.empty() ? -1 : 0; // the newest, unless another was chosen
    {
        const QSignalBlocker quiet(list_);
        list_->clearSelection();
        list_->setRowCount(static_cast<int>(reports_.size()));
        for (int row = 0; row < list_->rowCount(); ++row) {
            const BenchReportEntry& e = reports_[static_cast<std::size_t>(row)];
            list_->setItem(row, 0, new QTableWidgetItem(q(e.report.started).left(19).replace('T', ' ')));
            list_->setItem(row, 1, new QTableWidgetItem(benchKindTitle(e.report.kind)));
            list_->setItem(row, 2, new QTableWidgetItem(q(e.report.status)));
            list_->item(row, 0)->setToolTip(q(e.path.string()));
            if (q(e.path.string()) == wanted) {
                chosen = row;
            }
        }
        list_->resizeColumnsToContents();
    }
    select(chosen);
    emit refreshed();
}

void BenchHistoryPanel::select(int row) {
    {
        const QSignalBlocker quiet(list_);
        if (row < 0 || row >= list_->rowCount()) {
            list_->clearSelection();
        } else {
            list_->selectRow(row);
        }
    }
    // Also when the row was selected already: the page shows it again (after a refresh).
    openHtml_->setEnabled(selectedRow() >= 0);
    export_->setEnabled(selectedRow() >= 0);
    emit selectionChanged();
}

int BenchHistoryPanel::selectedRow() const {
    const auto rows = list_->selectionModel()->selectedRows();
    if (rows.isEmpty() || static_cast<std::size_t>(rows.front().row()) >= reports_.size()) {
        return -1;
    }
    return rows.front().row();
}

const BenchReport* BenchHistoryPanel::selectedReport() const {
    const int row = selectedRow();
    return row < 0 ? nullptr : &reports_[static_cast<std::size_t>(row)].report;
}

QString BenchHistoryPanel::selectedPath() const {
    const int row = selectedRow();
    return row < 0 ? QString() : q(reports_[static_cast<std::size_t>(row)].path.string());
}

void BenchHistoryPanel::openSelectedHtml() {
    const int row = selectedRow();
    if (row < 0) {
        return;
    }
    std::filesystem::path html = reports_[static_cast<std::size_t>(row)].path;
    html.replace_extension(".html");
    if (!std::filesystem::exists(html)) {
        emit message(tr("No HTML page beside the report: %1 is missing.").arg(q(html.string())));
    } else if (!openUrl_(QUrl::fromLocalFile(q(html.string())))) {
        emit message(tr("Could not open %1: no program for HTML pages?").arg(q(html.string())));
    }
}

void BenchHistoryPanel::exportWithDialog() {
    const BenchReport* r = selectedReport();
    if (!r) {
        return;
    }
    const QString suggested = QDir::home().filePath(
        QStringLiteral("bench-%1-%2.html").arg(q(r->kind), q(r->started).left(19).replace(':', '-')));
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export bench report"), suggested,
                                     tr("HTML page (*.html);;JSON (*.json);;CSV (*.csv);;Markdown (*.md)"));
    if (!path.isEmpty()) {
        const QString problem = exportSelected(path);
        emit message(problem.isEmpty() ? tr("Exported to %1.").arg(path)
                                       : tr("Not exported: %1").arg(problem));
    }
}

QString BenchHistoryPanel::exportSelected(const QString& path) {
    const int row = selectedRow();
    if (row < 0) {
        return tr("no bench run selected");
    }
    try {
        exportBenchReport(reports_[static_cast<std::size_t>(row)].report,
                          std::filesystem::path(path.toStdString()));
        return {};
    } catch (const std::exception& ex) {
        return q(ex.what());
    }
}

} // namespace isobar::ui
