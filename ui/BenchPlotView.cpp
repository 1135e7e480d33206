// SPDX-License-Identifier: GPL-3.0-or-later

#include "BenchPlotView.h"

#include "ChartAxes.h"
#include "Format.h"
#include "util/Format.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QCursor>
#include <QLineSeries>
#include <QMetaObject>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace isobar::ui {

namespace {

// How the value axis counts: sizes in binary units, long times in minutes and hours; a time under
// ten seconds (a query's) reads better as plain numbers than as "0s 1s".
AxisScale scaleOf(const std::string& format, double max) {
    if (format == "bytes") {
        return AxisScale::Bytes;
    }
    if (format == "seconds" && max >= 10) {
        return AxisScale::Seconds;
    }
    return AxisScale::Count;
}

} // namespace

BenchPlotView::BenchPlotView(QWidget* parent)
    : QChartView(parent) {
    setRenderHint(QPainter::Antialiasing);
    setMinimumHeight(280);
}

void BenchPlotView::showPlot(const BenchPlot& plot) {
    plot_ = plot;
    auto* chart = new QChart;
    chart->setTitle(q(plot_.title));
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->setAnimationOptions(QChart::NoAnimation);

    QStringList categories;
    for (const std::string& c : plot_.categories) {
        categories << q(c);
    }
    auto* x = new QBarCategoryAxis;
    x->append(categories);
    x->setTitleText(q(plot_.xLabel));
    auto* y = new QCategoryAxis;
    y->setTitleText(q(plot_.yLabel));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);

    double max = 0;
    for (const BenchPlot::Series& s : plot_.series) {
        for (const std::optional<double>& v : s.values) {
            if (v && std::isfinite(*v)) {
                max = std::max(max, *v);
            }
        }
    }
    if (plot_.kind == BenchPlot::Kind::Bars) {
        auto* bars = new QBarSeries;
        for (const BenchPlot::Series& s : plot_.series) {
            auto* set = new QBarSet(q(s.name));
            for (std::size_t i = 0; i < plot_.categories.size(); ++i) {
                // A bar set has a value per category; one not measured is a bar of no height.
                const bool measured = i < s.values.size() && s.values[i] && std::isfinite(*s.values[i]);
                set->append(measured ? *s.values[i] : 0.0);
            }
            connect(set, &QBarSet::hovered, this, [this, set](bool entered, int index) {
                hover(entered, set->label(), index, set->at(index));
            });
            bars->append(set);
        }
        chart->addSeries(bars);
        bars->attachAxis(x);
        bars->attachAxis(y);
    } else {
        for (const BenchPlot::Series& s : plot_.series) {
            auto* line = new QLineSeries;
            line->setName(q(s.name));
            line->setPointsVisible(true);
            // On a category axis, category i is at x = i.
            for (std::size_t i = 0; i < s.values.size() && i < plot_.categories.size(); ++i) {
                if (s.values[i] && std::isfinite(*s.values[i])) {
                    line->append(static_cast<double>(i), *s.values[i]);
                }
            }
            connect(line, &QLineSeries::hovered, this, [this, line](const QPointF& point, bool entered) {
                hover(entered, line->name(), static_cast<int>(std::lround(point.x())), point.y());
            });
            chart->addSeries(line);
            line->attachAxis(x);
            line->attachAxis(y);
        }
    }
    // setChart() releases the chart shown before without deleting it.
    QChart* old = this->chart();
    setChart(chart);
    delete old;
    valueAxis_ = y;
    max_ = max;
    fitValueAxis();
}

void BenchPlotView::fitValueAxis() {
    if (valueAxis_ == nullptr) {
        return;
    }
    const double max = max_;
    const std::string format = plot_.yFormat;
    showTicks(valueAxis_, fitTicks(5, chart()->plotArea().height(), valueAxis_->labelsFont(), Qt::Vertical,
                                   [max, &format](int n) {
                                       AxisTicks ticks = axisTicks(max, scaleOf(format, max), n);
                                       if (format == "seconds" && max < 10) {
                                           for (auto& [value, label] : ticks.labels) {
                                               // "5.0 ms", as the tables say it
                                               label = formatBenchValue(BenchValue{value}, "seconds");
                                           }
                                       }
                                       return ticks;
                                   }));
}

void BenchPlotView::resizeEvent(QResizeEvent* event) {
    QChartView::resizeEvent(event);
    // After the chart's layout has taken the new size: then the plot area is the new one.
    QMetaObject::invokeMethod(
        this, [this] { fitValueAxis(); }, Qt::QueuedConnection);
}

QString BenchPlotView::valueText(double value) const {
    return q(formatBenchValue(BenchValue{value}, plot_.yFormat));
}

void BenchPlotView::hover(bool entered, const QString& series, int category, double value) {
    if (!entered) {
        QToolTip::hideText();
        return;
    }
    const QString where = category >= 0 && static_cast<std::size_t>(category) < plot_.categories.size()
                              ? q(plot_.categories[static_cast<std::size_t>(category)])
                              : QString();
    QToolTip::showText(QCursor::pos(), tr("%1, %2: %3").arg(series, where, valueText(value)), this);
}

} // namespace isobar::ui
