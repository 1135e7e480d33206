// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "TimeChart.h"
#include "monitor/RateReading.h"
#include "report/RunReport.h"

#include <QStringList>

class QLineSeries;
class QScatterSeries;

namespace isobar::ui {

// Rows/s of a load over time: per sampling interval and the overall mean, with a marker wherever
// the server ran a checkpoint and wherever the worker count changed. Stays responsive for runs of
// hours: each series keeps at most kPointBudget points (halved by merging neighbours, keeping the
// peak of each pair), and new samples are drawn at most every 40 ms (one redraw for a burst). The
// axes read as people read them: "1.2M" rows/s, "1m30s".
class RateChart : public TimeChart {
    Q_OBJECT

public:
    explicit RateChart(QWidget* parent = nullptr);

    void reset();
    void addSample(const RateReading& sample);
    void addServerSample(const ServerReading& sample);
    void addWorkerChange(const WorkerChange& change);
    // Shows a finished run from its report (replacing what is shown); compareWith() adds another
    // run's rate curve on the same axes.
    void showReport(const RunReport& report, const QString& label);
    void compareWith(const RunReport& report, const QString& label);

    int pointCount() const { return static_cast<int>(interval_.size()); }
    int checkpointCount() const { return static_cast<int>(checkpoints_.size()); }
    int workerChangeCount() const { return static_cast<int>(workerChanges_.size()); }
    int seriesCount() const;
    // The data as drawn (after the next redraw).
    const QVector<QPointF>& intervalPoints() const { return interval_; }
    QCategoryAxis* rateAxis() const { return yAxis_; }

private:
    void redraw() override;
    double rateAt(double elapsed) const;
    static QString describe(const WorkerChange& change);

    QLineSeries* intervalSeries_;
    QLineSeries* overallSeries_;
    QScatterSeries* checkpointSeries_;
    QScatterSeries* workerSeries_;
    QVector<QPointF> interval_;
    QVector<QPointF> overall_;
    QVector<QPointF> checkpoints_;
    QVector<QPointF> workerChanges_;
    QStringList workerTexts_; // what each worker change marker says on hover
    std::uint64_t lastCheckpoints_ = 0;
    double lastRate_ = 0;
    QVector<QLineSeries*> comparisons_;
};

} // namespace isobar::ui
