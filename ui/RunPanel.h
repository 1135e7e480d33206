// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "LoadController.h"

#include <QSet>
#include <QWidget>

#include <optional>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace isobar::ui {

class DiskChart;
class RateChart;

// A run as it happens: Start / Cancel, the live rate chart and under it the disk (free space,
// pg_wal, the table), progress with % and ETA, rows, bytes, elapsed, per-worker rates and what each
// worker's server process waits on, whether the reader or the server holds the load back, the
// server's disk and worker count, a log (with a warning, once, when the disk will be full before
// the end, a standby falls behind or the archiver fails); when it has ended, what happened (and
// Resume when the server went away) and the export of its report. The live figures come from the controller's
// events; what the panel is doing (busy, not started, ended) is the StartFlow's to say.
class RunPanel : public QWidget {
    Q_OBJECT

public:
    explicit RunPanel(LoadController* controller, QWidget* parent = nullptr);

    // Busy from Start to the run's end: Start is disabled, Cancel enabled, Resume hidden.
    void setBusy(bool busy);
    // Start and Resume are disabled while `why` (what keeps the files from loading) is not empty;
    // their tooltip says it.
    void setStartBlocked(const QString& why);
    // Before the engine starts: the server is being checked (the embedded cluster may be starting).
    void showPreparing(const QString& what);
    // The run could not start; `why` names what is wrong.
    void showNotStarted(const QString& why);
    // What the run that ended did (Resume offered when it did not complete), its report ready to
    // export.
    void showEnded(const LoadSummary& summary, const RunReport& report, const QString& path,
                   const QString& problem);
    void log(const QString& line, bool problem = false);

    const std::optional<RunReport>& lastReport() const { return report_; }
    const QString& lastReportPath() const { return reportPath_; }

    RateChart* chart() const { return chart_; }
    DiskChart* diskChart() const { return disk_; }
    QLabel* serverLabel() const { return server_; }
    QPushButton* startButton() const { return start_; }
    QPushButton* cancelButton() const { return cancel_; }
    QPushButton* resumeButton() const { return resume_; }
    QPushButton* exportButton() const { return export_; }
    QPushButton* mapButton() const { return map_; }
    QLabel* statusLabel() const { return status_; }
    QProgressBar* progressBar() const { return progress_; }
    QTableWidget* workersTable() const { return workers_; }
    QPlainTextEdit* logView() const { return log_; }

signals:
    void startRequested();
    void resumeRequested();
    void cancelRequested();
    // Map of the table: what the run that ended wrote, read back (TableMapDialog).
    void mapRequested(const isobar::RunReport& report);

private:
    void onStarted(const LoadStart& start);
    void onRate(const RateReading& sample);
    void onServer(const ServerReading& sample);
    void onWorkersChanged(const WorkerChange& change);
    // Logs a warning the first time `condition` holds in this run.
    void warnOnce(const QString& condition, const QString& line);
    // Says each checkpoint once, with its cause.
    void logCheckpoints(const ServerReading& s);
    void warnAboutServer(const ServerReading& sample);
    void ensureWorkerRows(int workers);
    void exportReportAs();
    void updateStartButtons();

    LoadController* controller_;
    RateChart* chart_;
    DiskChart* disk_;
    QPushButton* start_;
    QPushButton* cancel_;
    QPushButton* resume_;
    QPushButton* export_;
    QPushButton* map_;
    QLabel* status_;
    QProgressBar* progress_;
    QLabel* rows_;
    QLabel* speed_;
    QLabel* bottleneck_;
    QLabel* server_;
    QTableWidget* workers_;
    QPlainTextEdit* log_;
    std::optional<RunReport> report_;
    QString reportPath_;
    std::uint64_t plannedRows_ = 0;
    std::uint64_t lastWalBytes_ = 0;
    QSet<QString> warned_;               // the conditions this run has warned about
    std::uint64_t checkpointsTimed_ = 0; // checkpoints of this run logged so far
    std::uint64_t checkpointsRequested_ = 0;
    bool busy_ = false;
    QString blocked_; // why the files cannot be loaded now; empty: they can
};

} // namespace isobar::ui
