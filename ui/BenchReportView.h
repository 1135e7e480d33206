// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#ifndef Q_MOC_RUN // moc 6.4 cannot parse some C++20 standard headers the core pulls in
#include "bench/BenchReport.h"
#endif

#include <QScrollArea>

#include <vector>

class QLabel;
class QTableWidget;
class QToolButton;
class QVBoxLayout;

namespace isobar::ui {

class BenchPlotView;

// One bench report as the tab shows it, top to bottom: what ran and how it ended; each table
// (values as the column's format says, numbers right-aligned) with its notes under it; each plot;
// and, folded away until asked for, the machine, the server and the settings it ran with.
class BenchReportView : public QScrollArea {
    Q_OBJECT

public:
    explicit BenchReportView(QWidget* parent = nullptr);

    void showReport(const BenchReport& report);
    // Nothing shown; `text` says why.
    void showMessage(const QString& text);

    const std::vector<QTableWidget*>& tables() const { return tables_; }
    const std::vector<BenchPlotView*>& plots() const { return plots_; }
    QLabel* headerLabel() const { return header_; }
    QToolButton* environmentButton() const { return environmentButton_; }
    QLabel* environmentLabel() const { return environment_; }

private:
    void clearParts();

    QLabel* header_;
    QWidget* parts_; // the tables and plots of the report shown
    QVBoxLayout* partsLayout_;
    QToolButton* environmentButton_;
    QLabel* environment_;
    std::vector<QTableWidget*> tables_;
    std::vector<BenchPlotView*> plots_;
};

} // namespace isobar::ui
