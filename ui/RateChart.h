#pragma once

#include "monitor/RateSample.h"
#include "report/RunReport.h"

#include <QChartView>
#include <QPointF>
#include <QTimer>
#include <QVector>

class QLineSeries;
class QScatterSeries;
class QValueAxis;

namespace isobar::ui {

// Rows/s of a load over time: per sampling interval and the overall mean, with a marker wherever
// the server ran a checkpoint. Stays responsive for runs of hours: each series keeps at most
// kPointBudget points (halved by merging neighbours, keeping the peak of each pair), and new
// samples are drawn at most every 40 ms (one redraw for a burst).
class RateChart : public QChartView {
    Q_OBJECT

public:
    static constexpr int kPointBudget = 2000;

    explicit RateChart(QWidget* parent = nullptr);

    void reset();
    void addSample(const RateSample& sample);
    void addServerSample(const ServerSample& sample);
    // Shows a finished run from its report (replacing what is shown); compareWith() adds another
    // run's rate curve on the same axes.
    void showReport(const RunReport& report, const QString& label);
    void compareWith(const RunReport& report, const QString& label);

    int pointCount() const { return static_cast<int>(interval_.size()); }
    int checkpointCount() const { return static_cast<int>(checkpoints_.size()); }
    int seriesCount() const;
    // The data as drawn (after the next redraw).
    const QVector<QPointF>& intervalPoints() const { return interval_; }

private:
    void scheduleRedraw();
    void redraw();
    static void thin(QVector<QPointF>& points);
    static double niceCeiling(double value);

    QLineSeries* intervalSeries_;
    QLineSeries* overallSeries_;
    QScatterSeries* checkpointSeries_;
    QValueAxis* xAxis_;
    QValueAxis* yAxis_;
    QVector<QPointF> interval_;
    QVector<QPointF> overall_;
    QVector<QPointF> checkpoints_;
    std::uint64_t lastCheckpoints_ = 0;
    double lastRate_ = 0;
    QVector<QLineSeries*> comparisons_;
    QTimer redrawTimer_;
};

} // namespace isobar::ui
