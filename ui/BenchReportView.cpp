// SPDX-License-Identifier: GPL-3.0-or-later

#include "BenchReportView.h"

#include "BenchPlotView.h"
#include "BenchRunner.h"
#include "Format.h"
#include "util/Format.h"

#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace isobar::ui {

namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

// "<h4>Server</h4><table>...</table>": one section of the machine, server and settings.
QString pairsHtml(const QString& title, const Pairs& pairs) {
    if (pairs.empty()) {
        return {};
    }
    QString html = QStringLiteral("<h4>%1</h4><table cellspacing=\"0\" cellpadding=\"2\">").arg(title);
    for (const auto& [name, value] : pairs) {
        html += QStringLiteral("<tr><td><i>%1</i></td><td>%2</td></tr>")
                    .arg(q(name).toHtmlEscaped(), q(value).toHtmlEscaped());
    }
    return html + QStringLiteral("</table>");
}

// A table as tall as its rows: the view scrolls, not each table in it.
void fitHeight(QTableWidget* table) {
    table->resizeColumnsToContents();
    table->resizeRowsToContents();
    int height = table->horizontalHeader()->height() + 2 * table->frameWidth();
    for (int row = 0; row < table->rowCount(); ++row) {
        height += table->rowHeight(row);
    }
    if (table->horizontalScrollBar()->isVisible() || table->horizontalHeader()->length() > table->width()) {
        height += table->horizontalScrollBar()->sizeHint().height();
    }
    table->setFixedHeight(height);
}

QTableWidget* tableWidget(const BenchTable& t) {
    auto* table = new QTableWidget(static_cast<int>(t.rows.size()), static_cast<int>(t.columns.size()));
    QStringList labels;
    for (const BenchColumn& c : t.columns) {
        labels << q(c.label);
    }
    table->setHorizontalHeaderLabels(labels);
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    table->horizontalHeader()->setStretchLastSection(true);
    table->setObjectName(q(t.id));
    for (std::size_t row = 0; row < t.rows.size(); ++row) {
        for (std::size_t col = 0; col < t.columns.size() && col < t.rows[row].size(); ++col) {
            const BenchValue& v = t.rows[row][col];
            auto* item = new QTableWidgetItem(q(formatBenchValue(v, t.columns[col].format)));
            if (std::holds_alternative<double>(v)) {
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                item->setData(Qt::UserRole, std::get<double>(v)); // the number itself, unrounded
            }
            table->setItem(static_cast<int>(row), static_cast<int>(col), item);
        }
    }
    return table;
}

} // namespace

BenchReportView::BenchReportView(QWidget* parent)
    : QScrollArea(parent)
    , header_(new QLabel)
    , parts_(new QWidget)
    , partsLayout_(new QVBoxLayout(parts_))
    , environmentButton_(new QToolButton)
    , environment_(new QLabel) {
    header_->setWordWrap(true);
    header_->setTextFormat(Qt::RichText);
    header_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    partsLayout_->setContentsMargins(0, 0, 0, 0);
    environmentButton_->setText(tr("Machine, server and settings"));
    environmentButton_->setCheckable(true);
    environmentButton_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    environmentButton_->setArrowType(Qt::RightArrow);
    environmentButton_->setAutoRaise(true);
    environment_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    environment_->setWordWrap(true);
    environment_->hide();
    connect(environmentButton_, &QToolButton::toggled, this, [this](bool open) {
        environmentButton_->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
        environment_->setVisible(open);
    });

    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    layout->addWidget(header_);
    layout->addWidget(parts_);
    layout->addWidget(environmentButton_, 0, Qt::AlignLeft);
    layout->addWidget(environment_);
    layout->addStretch();
    setWidget(content);
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    showMessage(tr("Run a bench, or pick one of the past runs."));
}

void BenchReportView::clearParts() {
    tables_.clear();
    plots_.clear();
    while (QLayoutItem* item = partsLayout_->takeAt(0)) {
        delete item->widget();
        delete item;
    }
}

void BenchReportView::showMessage(const QString& text) {
    clearParts();
    header_->setText(text);
    environmentButton_->hide();
    environment_->hide();
}

void BenchReportView::showReport(const BenchReport& report) {
    clearParts();
    QString started = q(report.started).left(19).replace(QLatin1Char('T'), QLatin1Char(' '));
    QString text = tr("<h3>%1</h3>Started %2 UTC, took %3: <b>%4</b>")
                       .arg(benchKindTitle(report.kind).toHtmlEscaped(), started,
                            q(formatDuration(report.seconds)), q(report.status).toHtmlEscaped());
    if (!report.problem.empty()) {
        text += tr("<br><span style=\"color:#b00020\">%1</span>").arg(q(report.problem).toHtmlEscaped());
    }
    if (report.status == "cancelled") {
        text += tr("<br>Cancelled: the tables below hold what was measured before (its tables are dropped).");
    }
    if (report.tables.empty()) {
        text += tr("<br>No results were measured.");
    }
    header_->setText(text);
    header_->setToolTip(q(report.command));

    for (const BenchTable& t : report.tables) {
        auto* title = new QLabel(QStringLiteral("<b>%1</b>").arg(q(t.title).toHtmlEscaped()));
        partsLayout_->addWidget(title);
        QTableWidget* table = tableWidget(t);
        partsLayout_->addWidget(table);
        tables_.push_back(table);
        fitHeight(table);
        if (!t.notes.empty()) {
            QStringList notes;
            for (const std::string& n : t.notes) {
                notes << q(n).toHtmlEscaped();
            }
            auto* label = new QLabel(notes.join(QStringLiteral("<br>")));
            label->setWordWrap(true);
            label->setTextInteractionFlags(Qt::TextSelectableByMouse);
            partsLayout_->addWidget(label);
        }
        partsLayout_->addSpacing(8);
    }
    for (const BenchPlot& p : report.plots) {
        auto* plot = new BenchPlotView;
        plot->showPlot(p);
        partsLayout_->addWidget(plot);
        plots_.push_back(plot);
    }

    const QString environment = pairsHtml(tr("Machine"), report.machine) +
                                pairsHtml(tr("Server"), report.server) +
                                pairsHtml(tr("Settings"), report.settings);
    environment_->setText(environment);
    environmentButton_->setVisible(!environment.isEmpty());
    environment_->setVisible(!environment.isEmpty() && environmentButton_->isChecked());
}

} // namespace isobar::ui
