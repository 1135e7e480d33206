// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "BackgroundJobs.h"
#include "TargetCheck.h"

#ifndef Q_MOC_RUN // moc 6.4 cannot parse some C++20 standard headers the core pulls in
#include "db/Connection.h"
#include "db/TableField.h"
#include "domain/Columns.h"
#include "report/RunReport.h"
#endif

#include <QDialog>

#include <functional>
#include <memory>

class QChartView;
class QComboBox;
class QLabel;
class QPushButton;

namespace isobar::ui {

class MapView;
class ServerSession;

// What a run wrote, read back from its table: a map of one variable at one of the run's time steps
// (in the run's box), and the time series of a clicked point over the run's time range, drawn
// with Qt Charts. Every read is bounded by the run's time, box and level; when the server's plan
// would still scan a big table whole (no index serves the filter), the dialog says so and reads
// only when asked (Read anyway). A read runs in the background on the dialog's connection, one at a
// time; Stop, a newer read of the same kind, or closing the dialog cancels it on the server at once,
// and closing never waits for it.
class TableMapDialog : public QDialog {
    Q_OBJECT

public:
    TableMapDialog(const RunReport& report, ConnectionChoice connection, QWidget* parent = nullptr);
    ~TableMapDialog() override;

    // Why a run's table cannot be mapped (an old report without the extent, a run that failed
    // before it knew its files); empty when it can.
    static QString unavailableReason(const RunReport& report);

    MapView* view() const { return view_; }
    QComboBox* variableBox() const { return variable_; }
    QComboBox* timeBox() const { return time_; }
    QComboBox* levelBox() const { return level_; }
    QLabel* statusLabel() const { return status_; }
    QPushButton* anywayButton() const { return anyway_; }
    // Stops the reads under way (enabled while there are some); Read again reads them again.
    QPushButton* stopButton() const { return stop_; }
    QChartView* seriesChart() const { return chart_; }
    QLabel* seriesLabel() const { return seriesStatus_; }
    // The series shown (time, value) after a click.
    const std::vector<SeriesPoint>& series() const { return series_; }
    bool busy() const { return mapRead_.isRunning() || seriesRead_.isRunning(); }
    // The most a map or a series may scan sequentially before the dialog asks (kCheapScanBytes).
    void setScanLimit(std::uint64_t bytes) { scanLimit_ = bytes; }
    // Shows the series of the box's point (row, col), as a click does.
    void showSeries(std::size_t row, std::size_t col, bool evenIfCostly = false);

signals:
    // A map, a series or a message about either is shown.
    void updated();

private:
    void readColumns();
    void showColumns(const std::optional<std::vector<ValueColumn>>& columns);
    void draw(bool evenIfCostly);
    void showSeriesPoints(std::vector<SeriesPoint> points, const QString& title);
    void stopReading();
    // Shows the button above the map as `label` (Read anyway, Read again), doing `action`.
    void offer(const QString& label, std::function<void()> action);
    // After a read starts or ends: Stop works while one runs.
    void readsChanged();

    RunReport report_;
    ConnectionChoice connection_;
    GlobalGrid grid_;
    std::vector<PgTimestamp> times_;
    std::vector<ValueColumn> columns_;
    std::shared_ptr<ServerSession> session_;
    JobQueue reads_; // the session's connection: one read at a time
    JobTracker mapRead_;
    JobTracker seriesRead_;
    std::function<void()> mapAgain_;    // the map's read (or the columns'), as started last
    std::function<void()> seriesAgain_; // the series' read, as started last
    MapView* view_;
    QComboBox* variable_;
    QComboBox* time_;
    QComboBox* level_;
    QLabel* status_;
    QPushButton* anyway_;
    QPushButton* stop_;
    QChartView* chart_;
    QLabel* seriesStatus_;
    std::vector<SeriesPoint> series_;
    std::function<void()> anywayAction_;
    std::uint64_t scanLimit_ = kCheapScanBytes;
    bool filling_ = false;
};

} // namespace isobar::ui
