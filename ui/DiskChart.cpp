// SPDX-License-Identifier: GPL-3.0-or-later

#include "DiskChart.h"

#include <QCategoryAxis>
#include <QChart>
#include <QLineSeries>

#include <algorithm>

namespace isobar::ui {

namespace {

void addKnown(QVector<QPointF>& points, double elapsed, double bytes, bool keepLowest) {
    if (bytes < 0) { // not seen
        return;
    }
    points.push_back(QPointF(elapsed, bytes));
    if (points.size() > DiskChart::kPointBudget) {
        TimeChart::thinPoints(points, keepLowest);
    }
}

} // namespace

DiskChart::DiskChart(QWidget* parent)
    : TimeChart(tr("bytes"), 160, parent)
    , freeSeries_(new QLineSeries)
    , walFreeSeries_(new QLineSeries)
    , walSeries_(new QLineSeries)
    , tableSeries_(new QLineSeries) {
    freeSeries_->setName(tr("free disk"));
    walFreeSeries_->setName(tr("free for pg_wal"));
    walSeries_->setName(tr("pg_wal"));
    tableSeries_->setName(tr("table"));
    freeSeries_->setColor(QColor(0x2d, 0xa4, 0x4e));
    QPen dashed(QColor(0x2d, 0xa4, 0x4e));
    dashed.setStyle(Qt::DashLine);
    dashed.setWidth(2);
    walFreeSeries_->setPen(dashed);
    walSeries_->setColor(QColor(0xd4, 0x76, 0x0b));
    tableSeries_->setColor(QColor(0x1f, 0x6f, 0xeb));
    reset();
}

DiskChart::~DiskChart() {
    // The chart deletes the series it shows; those it does not are ours.
    for (QLineSeries* s : {freeSeries_, walFreeSeries_, walSeries_, tableSeries_}) {
        if (!chart()->series().contains(s)) {
            delete s;
        }
    }
}

void DiskChart::showIfSeen(QLineSeries* series, bool seen) {
    const bool shown = chart()->series().contains(series);
    if (seen && !shown) {
        chart()->addSeries(series);
        series->attachAxis(xAxis_);
        series->attachAxis(yAxis_);
    } else if (!seen && shown) {
        chart()->removeSeries(series); // ours again
    }
}

void DiskChart::reset() {
    free_.clear();
    walFree_.clear();
    wal_.clear();
    table_.clear();
    resetSpan();
    redraw();
}

void DiskChart::addServerSample(const ServerReading& sample) {
    addKnown(free_, sample.elapsed, sample.freeBytes, true);
    addKnown(walFree_, sample.elapsed, sample.walFreeBytes, true);
    addKnown(wal_, sample.elapsed, sample.walDirBytes, false);
    addKnown(table_, sample.elapsed, sample.tableBytes, false);
    scheduleRedraw();
}

void DiskChart::showReport(const RunReport& report) {
    reset();
    for (const RunReport::Server& s : report.server) {
        addKnown(free_, s.elapsed, s.freeBytes, true);
        addKnown(walFree_, s.elapsed, s.walFreeBytes, true);
        addKnown(wal_, s.elapsed, s.walDirBytes, false);
        addKnown(table_, s.elapsed, s.tableBytes, false);
    }
    if (!report.samples.empty()) {
        setMinimumTimeSpan(report.samples.back().elapsed);
    }
    redraw();
}

bool DiskChart::hasFigures() const {
    return !free_.isEmpty() || !walFree_.isEmpty() || !wal_.isEmpty() || !table_.isEmpty();
}

void DiskChart::redraw() {
    double maxX = 0;
    double maxY = 0;
    const std::pair<QLineSeries*, const QVector<QPointF>*> drawn[] = {
        {freeSeries_, &free_}, {walFreeSeries_, &walFree_}, {walSeries_, &wal_}, {tableSeries_, &table_}};
    for (const auto& [series, points] : drawn) {
        series->replace(*points);
        showIfSeen(series, !points->isEmpty());
        for (const QPointF& p : *points) {
            maxX = std::max(maxX, p.x());
            maxY = std::max(maxY, p.y());
        }
    }
    showSpan(maxX, std::max(maxY * 1.05, 1024.0 * 1024.0), AxisScale::Bytes, 4);
}

} // namespace isobar::ui
