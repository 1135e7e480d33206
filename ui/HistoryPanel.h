// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "BackgroundJobs.h"
#include "LoadController.h" // RunReport, and its metatype for mapRequested()

#include <QWidget>

#include <vector>

class QLabel;
class QPushButton;
class QTableWidget;

namespace isobar::ui {

class DiskChart;
class RateChart;

// Past runs, read from their JSON reports (where every run writes one, or a folder the user
// picks): reopen one to see its charts (rows/s, and the disk under it on the same time span) and
// summary, compare two on one chart, export one again, map what it wrote, audit its table.
// Reports are read in the background; a refresh supersedes one still reading.
class HistoryPanel : public QWidget {
    Q_OBJECT

public:
    explicit HistoryPanel(QWidget* parent = nullptr);

    // Reads the reports in `directory` (default: where runs write them).
    void refresh();
    void setDirectory(const QString& directory);
    QString directory() const { return directory_; }

    int runCount() const { return static_cast<int>(reports_.size()); }
    void select(const std::vector<int>& rows);
    void openSelected();
    void compareSelected();

    QTableWidget* table() const { return table_; }
    RateChart* chart() const { return chart_; }
    // The shown run's disk (of the first run when two are compared); hidden when it has none.
    DiskChart* diskChart() const { return disk_; }
    QLabel* summaryLabel() const { return summary_; }

    QPushButton* mapButton() const { return map_; }
    QPushButton* auditButton() const { return audit_; }

signals:
    void refreshed();
    // Map of the table: the selected run's table, read back (TableMapDialog).
    void mapRequested(const isobar::RunReport& report);
    // Audit of the selected run's table (TableAuditDialog).
    void auditRequested(const QString& table);

private:
    struct Entry {
        QString path;
        RunReport report;
    };
    void show(std::vector<Entry> entries, const QStringList& problems);
    std::vector<int> selectedRows() const;
    // Both charts show `report` (the rate chart first: see DiskChart::showReport).
    void showCharts(const RunReport& report);

    QString directory_;
    QTableWidget* table_;
    RateChart* chart_;
    DiskChart* disk_;
    QLabel* summary_;
    QPushButton* open_;
    QPushButton* compare_;
    QPushButton* export_;
    QPushButton* map_;
    QPushButton* audit_;
    std::vector<Entry> reports_;
    JobTracker reading_; // of the reports; a refresh supersedes it
};

} // namespace isobar::ui
