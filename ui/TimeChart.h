// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "util/Format.h"

#include <QChartView>
#include <QPointF>
#include <QTimer>
#include <QVector>

class QCategoryAxis;

namespace isobar::ui {

// What the run's charts share: a time axis and a value axis whose ticks read as people read them
// (ChartAxes), a time span that a chart drawn above or below follows (setMinimumTimeSpan /
// timeSpanChanged), and redraws coalesced to at most one per 40 ms however fast samples come.
// A subclass fills its series in redraw() and ends it with showSpan().
class TimeChart : public QChartView {
    Q_OBJECT

public:
    // Each series keeps at most this many points (halved by thinPoints()).
    static constexpr int kPointBudget = 2000;

    QCategoryAxis* timeAxis() const { return xAxis_; }

    // The time axis reaches at least `seconds` (the other chart's span).
    void setMinimumTimeSpan(double seconds);

    // Halves `points`, each pair of neighbours becoming one point at the later time with the lower
    // or higher value of the two (the one that matters: a dip in free space, a peak of the rate).
    static void thinPoints(QVector<QPointF>& points, bool keepLowest);

signals:
    // The last time the data reaches, when it moved (on redraw).
    void timeSpanChanged(double seconds);

protected:
    TimeChart(const QString& valueTitle, int minimumHeight, QWidget* parent);

    virtual void redraw() = 0;
    void scheduleRedraw();
    // The end of a redraw: the value axis up to `maxValue` in `scale` with up to `valueTicks` ticks
    // (fewer when their labels would not fit the chart's height), the time axis up to `maxTime` (or
    // the other chart's span, when longer) with as many as fit its width.
    void showSpan(double maxTime, double maxValue, AxisScale scale, int valueTicks);
    void resizeEvent(QResizeEvent* event) override;
    // Forgets the spans (a new run).
    void resetSpan();

    QCategoryAxis* xAxis_;
    QCategoryAxis* yAxis_;

private:
    void showTimeAxis();

    double dataSpan_ = 0;    // the last time any series reaches
    double minimumSpan_ = 0; // what the other chart reaches
    QTimer redrawTimer_;
};

} // namespace isobar::ui
