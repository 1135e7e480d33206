// SPDX-License-Identifier: GPL-3.0-or-later

#include "TimeChart.h"

#include "ChartAxes.h"

#include <QCategoryAxis>
#include <QChart>

#include <algorithm>

namespace isobar::ui {

TimeChart::TimeChart(const QString& valueTitle, int minimumHeight, QWidget* parent)
    : QChartView(parent)
    , xAxis_(new QCategoryAxis)
    , yAxis_(new QCategoryAxis) {
    auto* chart = new QChart;
    xAxis_->setTitleText(tr("elapsed"));
    yAxis_->setTitleText(valueTitle);
    chart->addAxis(xAxis_, Qt::AlignBottom);
    chart->addAxis(yAxis_, Qt::AlignLeft);
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    // setChart() releases the chart the view made for itself without deleting it (LeakSanitizer
    // found it: one QChart per chart view).
    QChart* made = this->chart();
    setChart(chart);
    delete made;
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(minimumHeight);
    // Bursts of samples become one redraw (at most ~25 per second).
    redrawTimer_.setSingleShot(true);
    redrawTimer_.setInterval(40);
    connect(&redrawTimer_, &QTimer::timeout, this, [this] { redraw(); });
}

void TimeChart::thinPoints(QVector<QPointF>& points, bool keepLowest) {
    QVector<QPointF> kept;
    kept.reserve(points.size() / 2 + 1);
    for (qsizetype i = 1; i < points.size(); i += 2) {
        const double a = points[i - 1].y();
        const double b = points[i].y();
        kept.push_back(QPointF(points[i].x(), keepLowest ? std::min(a, b) : std::max(a, b)));
    }
    if (points.size() % 2 == 1) {
        kept.push_back(points.back());
    }
    points = std::move(kept);
}

void TimeChart::scheduleRedraw() {
    if (!redrawTimer_.isActive()) {
        redrawTimer_.start();
    }
}

void TimeChart::showSpan(double maxTime, const AxisTicks& valueTicks) {
    showTicks(yAxis_, valueTicks);
    if (maxTime != dataSpan_) {
        dataSpan_ = maxTime;
        emit timeSpanChanged(dataSpan_);
    }
    showTimeAxis();
}

void TimeChart::resetSpan() {
    dataSpan_ = 0;
    minimumSpan_ = 0;
}

void TimeChart::setMinimumTimeSpan(double seconds) {
    minimumSpan_ = seconds;
    showTimeAxis();
}

void TimeChart::showTimeAxis() {
    showTicks(xAxis_, timeTicks(std::max(dataSpan_, minimumSpan_)));
}

} // namespace isobar::ui
