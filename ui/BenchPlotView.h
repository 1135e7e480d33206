// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#ifndef Q_MOC_RUN // moc 6.4 cannot parse some C++20 standard headers the core pulls in
#include "bench/BenchReport.h"
#endif

#include <QChartView>

class QCategoryAxis;

namespace isobar::ui {

// One plot of a bench report, drawn with Qt Charts: grouped bars (a bar set per series) or lines
// (a line per series) over the plot's categories, the value axis from 0 with ticks that read as
// the plot's format says (rows/s as 250k, bytes as 1.5 GiB). A value the bench did not measure
// has no bar and no point. Hovering a bar or point tells its series, category and value.
class BenchPlotView : public QChartView {
    Q_OBJECT

public:
    explicit BenchPlotView(QWidget* parent = nullptr);

    void showPlot(const BenchPlot& plot);
    const BenchPlot& plot() const { return plot_; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    // The value axis' ticks, as many as fit the plot's height.
    void fitValueAxis();
    QString valueText(double value) const;
    void hover(bool entered, const QString& series, int category, double value);

    BenchPlot plot_;
    QCategoryAxis* valueAxis_ = nullptr; // the shown chart's
    double max_ = 0;
};

} // namespace isobar::ui
