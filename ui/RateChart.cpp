#include "RateChart.h"

#include <QChart>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace isobar::ui {

RateChart::RateChart(QWidget* parent)
    : QChartView(parent)
    , intervalSeries_(new QLineSeries)
    , overallSeries_(new QLineSeries)
    , checkpointSeries_(new QScatterSeries)
    , xAxis_(new QValueAxis)
    , yAxis_(new QValueAxis) {
    auto* chart = new QChart;
    intervalSeries_->setName(tr("rows/s (interval)"));
    overallSeries_->setName(tr("rows/s (overall mean)"));
    checkpointSeries_->setName(tr("checkpoint"));
    checkpointSeries_->setMarkerSize(9);
    checkpointSeries_->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    xAxis_->setTitleText(tr("seconds"));
    xAxis_->setLabelFormat(QStringLiteral("%.0f"));
    yAxis_->setTitleText(tr("rows/s"));
    yAxis_->setLabelFormat(QStringLiteral("%.0f"));
    yAxis_->setTickCount(6);
    xAxis_->setTickCount(6);
    chart->addAxis(xAxis_, Qt::AlignBottom);
    chart->addAxis(yAxis_, Qt::AlignLeft);
    for (QXYSeries* s :
         std::initializer_list<QXYSeries*>{intervalSeries_, overallSeries_, checkpointSeries_}) {
        chart->addSeries(s);
        s->attachAxis(xAxis_);
        s->attachAxis(yAxis_);
    }
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    // setChart() releases the chart the view made for itself without deleting it (LeakSanitizer
    // found it: one QChart per chart view).
    QChart* made = this->chart();
    setChart(chart);
    delete made;
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(220);
    // Bursts of samples become one redraw (at most ~25 per second).
    redrawTimer_.setSingleShot(true);
    redrawTimer_.setInterval(40);
    connect(&redrawTimer_, &QTimer::timeout, this, &RateChart::redraw);
    reset();
}

double RateChart::niceCeiling(double value) {
    // 1, 2, 2.5 or 5 times a power of ten, so that five ticks fall on round numbers
    // (0, 500000, 1000000 ... rather than fractions of the peak).
    const double magnitude = std::pow(10.0, std::floor(std::log10(std::max(value, 1.0))));
    for (double step : {1.0, 2.0, 2.5, 5.0, 10.0}) {
        if (step * magnitude >= value) {
            return step * magnitude;
        }
    }
    return 10 * magnitude;
}

void RateChart::reset() {
    interval_.clear();
    overall_.clear();
    checkpoints_.clear();
    lastCheckpoints_ = 0;
    lastRate_ = 0;
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

void RateChart::thin(QVector<QPointF>& points) {
    QVector<QPointF> kept;
    kept.reserve(points.size() / 2 + 1);
    for (qsizetype i = 1; i < points.size(); i += 2) {
        kept.push_back(QPointF(points[i].x(), std::max(points[i - 1].y(), points[i].y())));
    }
    if (points.size() % 2 == 1) {
        kept.push_back(points.back());
    }
    points = std::move(kept);
}

void RateChart::addSample(const RateSample& sample) {
    interval_.push_back(QPointF(sample.elapsed, sample.intervalRate));
    overall_.push_back(QPointF(sample.elapsed, sample.overallRate));
    lastRate_ = sample.intervalRate;
    if (interval_.size() > kPointBudget) {
        thin(interval_);
        thin(overall_);
    }
    scheduleRedraw();
}

void RateChart::addServerSample(const ServerSample& sample) {
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

void RateChart::showReport(const RunReport& report, const QString& label) {
    reset();
    for (const auto& s : report.samples) {
        interval_.push_back(QPointF(s.elapsed, s.intervalRate));
        overall_.push_back(QPointF(s.elapsed, s.overallRate));
    }
    while (interval_.size() > kPointBudget) {
        thin(interval_);
        thin(overall_);
    }
    std::uint64_t last = 0;
    for (const auto& s : report.server) {
        const std::uint64_t total = s.checkpointsTimed + s.checkpointsRequested;
        if (total > last) {
            // At the rate the nearest sample shows.
            const auto it = std::lower_bound(interval_.begin(), interval_.end(), s.elapsed,
                                             [](const QPointF& p, double t) { return p.x() < t; });
            checkpoints_.push_back(QPointF(s.elapsed, it != interval_.end() ? it->y() : 0.0));
        }
        last = total;
    }
    intervalSeries_->setName(label + tr(" rows/s (interval)"));
    redraw();
}

void RateChart::compareWith(const RunReport& report, const QString& label) {
    auto* series = new QLineSeries;
    series->setName(label + tr(" rows/s (interval)"));
    QVector<QPointF> points;
    for (const auto& s : report.samples) {
        points.push_back(QPointF(s.elapsed, s.intervalRate));
    }
    while (points.size() > kPointBudget) {
        thin(points);
    }
    series->replace(points);
    chart()->addSeries(series);
    series->attachAxis(xAxis_);
    series->attachAxis(yAxis_);
    comparisons_.push_back(series);
    redraw();
}

void RateChart::scheduleRedraw() {
    if (!redrawTimer_.isActive()) {
        redrawTimer_.start();
    }
}

void RateChart::redraw() {
    intervalSeries_->replace(interval_);
    overallSeries_->replace(overall_);
    checkpointSeries_->replace(checkpoints_);
    double maxX = 1; // a short run fills the width too
    double maxY = 1000;
    for (const QLineSeries* s : std::initializer_list<const QLineSeries*>{intervalSeries_, overallSeries_}) {
        for (const QPointF& p : s->points()) {
            maxX = std::max(maxX, p.x());
            maxY = std::max(maxY, p.y());
        }
    }
    for (const QLineSeries* s : comparisons_) {
        for (const QPointF& p : s->points()) {
            maxX = std::max(maxX, p.x());
            maxY = std::max(maxY, p.y());
        }
    }
    yAxis_->setRange(0, niceCeiling(maxY * 1.05));
    xAxis_->setRange(0, niceCeiling(maxX));
}

} // namespace isobar::ui
