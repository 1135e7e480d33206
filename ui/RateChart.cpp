// SPDX-License-Identifier: GPL-3.0-or-later

#include "RateChart.h"

#include <QCategoryAxis>
#include <QChart>
#include <QCursor>
#include <QLineSeries>
#include <QScatterSeries>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace isobar::ui {

RateChart::RateChart(QWidget* parent)
    : TimeChart(tr("rows/s"), 220, parent)
    , intervalSeries_(new QLineSeries)
    , overallSeries_(new QLineSeries)
    , checkpointSeries_(new QScatterSeries)
    , workerSeries_(new QScatterSeries) {
    // Short legend entries: the legend shares the chart's width, and Qt elides one that does not fit.
    intervalSeries_->setName(tr("rows/s"));
    overallSeries_->setName(tr("mean rows/s"));
    checkpointSeries_->setName(tr("checkpoint"));
    checkpointSeries_->setMarkerSize(9);
    checkpointSeries_->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    workerSeries_->setName(tr("workers changed"));
    workerSeries_->setMarkerSize(12);
    workerSeries_->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
    workerSeries_->setColor(QColor(0x82, 0x50, 0xdf));
    // Why the count changed is one hover away.
    connect(workerSeries_, &QScatterSeries::hovered, this, [this](const QPointF& point, bool entered) {
        if (!entered) {
            return;
        }
        for (qsizetype i = 0; i < workerChanges_.size(); ++i) {
            if (workerChanges_[i] == point && i < workerTexts_.size()) {
                QToolTip::showText(QCursor::pos(), workerTexts_[i], this);
            }
        }
    });
    for (QXYSeries* s : std::initializer_list<QXYSeries*>{intervalSeries_, overallSeries_, checkpointSeries_,
                                                          workerSeries_}) {
        chart()->addSeries(s);
        s->attachAxis(xAxis_);
        s->attachAxis(yAxis_);
    }
    reset();
}

void RateChart::reset() {
    interval_.clear();
    overall_.clear();
    checkpoints_.clear();
    workerChanges_.clear();
    workerTexts_.clear();
    lastCheckpoints_ = 0;
    lastRate_ = 0;
    resetSpan();
    for (QLineSeries* s : comparisons_) {
        chart()->removeSeries(s);
        delete s;
    }
    comparisons_.clear();
    redraw();
}

int RateChart::seriesCount() const {
    return static_cast<int>(chart()->series().size());
}

void RateChart::addSample(const RateReading& sample) {
    interval_.push_back(QPointF(sample.elapsed, sample.intervalRate));
    overall_.push_back(QPointF(sample.elapsed, sample.overallRate));
    lastRate_ = sample.intervalRate;
    if (interval_.size() > kPointBudget) {
        thinPoints(interval_, false);
        thinPoints(overall_, false);
    }
    scheduleRedraw();
}

void RateChart::addServerSample(const ServerReading& sample) {
    const std::uint64_t total = sample.checkpointsTimed + sample.checkpointsRequested;
    if (total > lastCheckpoints_) {
        checkpoints_.push_back(QPointF(sample.elapsed, lastRate_));
        if (checkpoints_.size() > kPointBudget) {
            checkpoints_.remove(0, checkpoints_.size() - kPointBudget);
        }
        scheduleRedraw();
    }
    lastCheckpoints_ = total;
}

void RateChart::addWorkerChange(const WorkerChange& change) {
    // Where the rate was when it changed: the marker sits on the curve.
    workerChanges_.push_back(QPointF(change.elapsed, lastRate_));
    workerTexts_.push_back(describe(change));
    scheduleRedraw();
}

QString RateChart::describe(const WorkerChange& change) {
    return tr("workers %1 \u2192 %2: %3")
        .arg(change.from)
        .arg(change.to)
        .arg(QString::fromStdString(change.reason));
}

double RateChart::rateAt(double elapsed) const {
    // The first sample at or after `elapsed`.
    const auto it = std::lower_bound(interval_.begin(), interval_.end(), elapsed,
                                     [](const QPointF& p, double t) { return p.x() < t; });
    return it != interval_.end() ? it->y() : 0.0;
}

void RateChart::showReport(const RunReport& report, const QString& label) {
    reset();
    for (const auto& s : report.samples) {
        interval_.push_back(QPointF(s.elapsed, s.intervalRate));
        overall_.push_back(QPointF(s.elapsed, s.overallRate));
    }
    while (interval_.size() > kPointBudget) {
        thinPoints(interval_, false);
        thinPoints(overall_, false);
    }
    std::uint64_t last = 0;
    for (const auto& s : report.server) {
        const std::uint64_t total = s.checkpointsTimed + s.checkpointsRequested;
        if (total > last) {
            checkpoints_.push_back(QPointF(s.elapsed, rateAt(s.elapsed)));
        }
        last = total;
    }
    for (const WorkerChange& c : report.workerChanges) {
        workerChanges_.push_back(QPointF(c.elapsed, rateAt(c.elapsed)));
        workerTexts_.push_back(describe(c));
    }
    intervalSeries_->setName(label + tr(" rows/s"));
    redraw();
}

void RateChart::compareWith(const RunReport& report, const QString& label) {
    auto* series = new QLineSeries;
    series->setName(label + tr(" rows/s"));
    QVector<QPointF> points;
    for (const auto& s : report.samples) {
        points.push_back(QPointF(s.elapsed, s.intervalRate));
    }
    while (points.size() > kPointBudget) {
        thinPoints(points, false);
    }
    series->replace(points);
    chart()->addSeries(series);
    series->attachAxis(xAxis_);
    series->attachAxis(yAxis_);
    comparisons_.push_back(series);
    redraw();
}

void RateChart::redraw() {
    intervalSeries_->replace(interval_);
    overallSeries_->replace(overall_);
    checkpointSeries_->replace(checkpoints_);
    workerSeries_->replace(workerChanges_);
    double maxX = 0;
    double maxY = 1000; // an empty chart's axis still reads as rows/s
    QVector<const QLineSeries*> curves{intervalSeries_, overallSeries_};
    curves.append(QVector<const QLineSeries*>(comparisons_.begin(), comparisons_.end()));
    for (const QLineSeries* s : curves) {
        for (const QPointF& p : s->points()) {
            maxX = std::max(maxX, p.x());
            maxY = std::max(maxY, p.y());
        }
    }
    showSpan(maxX, maxY * 1.05, AxisScale::Count, 5);
}

} // namespace isobar::ui
