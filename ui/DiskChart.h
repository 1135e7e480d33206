// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "TimeChart.h"
#include "monitor/RateReading.h"
#include "report/RunReport.h"

class QLineSeries;

namespace isobar::ui {

// What a load does to the server's disk, drawn under the rate chart on the same time span: free
// space (of the data directory's filesystem, and of pg_wal's when that is another one), the size
// of pg_wal and of the table, in bytes ("1.5 GiB"). Figures the monitor could not see (a server on
// another machine) leave their series off the chart. Bounded and coalesced like the RateChart.
class DiskChart : public TimeChart {
    Q_OBJECT

public:
    explicit DiskChart(QWidget* parent = nullptr);
    ~DiskChart() override;

    void reset();
    void addServerSample(const ServerReading& sample);
    // Shows a finished run's disk from its report (replacing what is shown), drawn at once. Its
    // time axis reaches the end of the run's rate series too, so that it lines up with a linked
    // RateChart showing the same report. Fill the RateChart first: its showReport() forgets the
    // span this chart told it, this one's tells it again.
    void showReport(const RunReport& report);
    // Whether any figure is drawn (a server on another machine shows none).
    bool hasFigures() const;

    // The data as drawn (after the next redraw).
    const QVector<QPointF>& freePoints() const { return free_; }
    const QVector<QPointF>& walFreePoints() const { return walFree_; }
    const QVector<QPointF>& walPoints() const { return wal_; }
    const QVector<QPointF>& tablePoints() const { return table_; }
    QCategoryAxis* bytesAxis() const { return yAxis_; }

private:
    void redraw() override;
    // Only what was seen is on the chart and in its legend: most servers keep pg_wal with the
    // data, and one on another machine shows nothing of its disk.
    void showIfSeen(QLineSeries* series, bool seen);

    QLineSeries* freeSeries_;
    QLineSeries* walFreeSeries_;
    QLineSeries* walSeries_;
    QLineSeries* tableSeries_;
    QVector<QPointF> free_;
    QVector<QPointF> walFree_;
    QVector<QPointF> wal_;
    QVector<QPointF> table_;
};

} // namespace isobar::ui
