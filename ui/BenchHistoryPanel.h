// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#ifndef Q_MOC_RUN // moc 6.4 cannot parse some C++20 standard headers the core pulls in
#include "bench/BenchReport.h"
#endif

#include "BackgroundJobs.h"

#include <QUrl>
#include <QWidget>

#include <functional>
#include <vector>

class QPushButton;
class QTableWidget;

namespace isobar::ui {

// The past bench runs, newest first (when, which bench, how it ended), read in the background
// from where bench reports are kept; the selected one can be opened as its HTML page or exported.
class BenchHistoryPanel : public QWidget {
    Q_OBJECT

public:
    explicit BenchHistoryPanel(QWidget* parent = nullptr);

    // Reads the reports again; selects `path` (a report's JSON file) once listed, else keeps
    // the selection (the newest when there was none).
    void refresh(const QString& path = {});
    int count() const { return static_cast<int>(reports_.size()); }
    const BenchReport* selectedReport() const;
    QString selectedPath() const;
    void select(int row);

    // Opens the HTML page beside the selected report's JSON.
    void openSelectedHtml();
    // Writes the selected report in the format `path`'s extension names; the problem, or empty.
    QString exportSelected(const QString& path);
    // How a page is opened; replaceable for tests.
    void setOpenUrl(std::function<bool(const QUrl&)> open);

    QTableWidget* list() const { return list_; }
    QPushButton* openHtmlButton() const { return openHtml_; }
    QPushButton* exportButton() const { return export_; }

signals:
    void refreshed();
    // The selection changed (selectedReport() may be null).
    void selectionChanged();
    // What opening or exporting did, for the page to say.
    void message(const QString& text);

private:
    void show(std::vector<BenchReportEntry> entries, const QString& path);
    int selectedRow() const; // -1: none
    void exportWithDialog();

    std::function<bool(const QUrl&)> openUrl_;
    QTableWidget* list_;
    QPushButton* openHtml_;
    QPushButton* export_;
    std::vector<BenchReportEntry> reports_;
    JobTracker reading_; // of the reports; a refresh supersedes it
};

} // namespace isobar::ui
