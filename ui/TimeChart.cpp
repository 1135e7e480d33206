// SPDX-License-Identifier: GPL-3.0-or-later

#include "TimeChart.h"

#include "ChartAxes.h"

#include <QCategoryAxis>
#include <QChart>
#include <QFontMetrics>
#include <QLegend>

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
    // Under the plot go the time axis' labels, its title and the legend, each a line of text: a
    // chart given less height than they and a small plot need draws its labels as "...". So the
    // least height is what the fonts need, or the subclass' own when that is more.
    const auto line = [](const QFont& font) {
        return QFontMetrics(font).height();
    };
    const int textHeight =
        line(xAxis_->labelsFont()) + line(xAxis_->titleFont()) + line(chart->legend()->font());
    constexpr int kPlotAndPadding = 60 + 75; // a plot a few ticks tall; margins, paddings, legend markers
    setMinimumHeight(std::max(minimumHeight, textHeight + kPlotAndPadding));
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

void TimeChart::showSpan(double maxTime, double maxValue, AxisScale scale, int valueTicks) {
    showTicks(yAxis_,
              fitTicks(valueTicks, isVisible() ? chart()->plotArea().height() : 0, yAxis_->labelsFont(),
                       Qt::Vertical, [&](int n) { return axisTicks(maxValue, scale, n); }));
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
    const double span = std::max(dataSpan_, minimumSpan_);
    // The view's width less what the value axis and margins take, not the plot area's own: charts
    // stacked on one time span (rates over disk) are as wide as each other but their value labels
    // are not, and they must show the same time ticks.
    constexpr int kValueAxisAllowance = 130;
    const double length = isVisible() ? std::max(0, width() - kValueAxisAllowance) : 0;
    showTicks(xAxis_, fitTicks(6, length, xAxis_->labelsFont(), Qt::Horizontal,
                               [span](int n) { return timeTicks(span, n); }));
}

void TimeChart::resizeEvent(QResizeEvent* event) {
    QChartView::resizeEvent(event);
    // The plot area is laid out anew: the ticks that fit it may be more or fewer.
    scheduleRedraw();
}

} // namespace isobar::ui
