// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#ifndef Q_MOC_RUN // moc 6.4 cannot parse some C++20 standard headers the core pulls in
#include "ingest/Loader.h"
#endif

#include <QWidget>

#include <string>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSettings;
class QSortFilterProxyModel;
class QTableView;
class QTabWidget;
class QTextBrowser;

namespace isobar::ui {

class FileListModel;
class FileMapPanel;
class VariableListModel;

// The first step of a load: the files (added by dialog or dropped; folders stand for the NetCDF
// files in them), what each one is and whether they can be loaded together, and which of their
// variables to load (a table of every variable the files have, with a filter).
class FilesPage : public QWidget {
    Q_OBJECT

public:
    explicit FilesPage(QWidget* parent = nullptr);

    FileListModel* model() const { return model_; }
    // Returns what could not be added, also shown on the page.
    QStringList addPaths(const QStringList& paths);
    void addFilesWithDialog();
    void addFolderWithDialog();
    void removeSelected();

    // The keys of the ticked variables the files have, in the table's order.
    std::vector<std::string> tickedVariables() const;
    // What a load asks for (LoadRequest::variables): the ticked keys, or nothing when every
    // variable of the files is ticked - the default, which also lets an existing table take its
    // own columns. Empty too when none is ticked: notReady() says so.
    std::vector<std::string> chosenVariables() const;
    // True when every present variable is ticked (the load then takes every variable).
    bool allPresentChosen() const;
    // Why the files cannot be loaded now (no files, still inspecting, none loadable, not loadable
    // together, no variable ticked), as the run view says it; empty when they can.
    QString notReady() const;
    // How the files are read, as the CLI's --off-grid, --product and --grid-step say it.
    OpenOptions openOptions() const;
    // Units whose every value is missing: skipped, or loaded as rows of NULLs (--all-missing).
    AllMissingPolicy allMissing() const;
    // Remembers the variable choice and the reading options.
    void save(QSettings& settings) const;
    void restore(QSettings& settings);

    VariableListModel* variableModel() const { return variables_; }
    QLineEdit* variableFilter() const { return filter_; }
    // The variable table as shown (filtered): rows of variableProxy().
    QTableView* variableView() const { return variableView_; }
    QSortFilterProxyModel* variableProxy() const { return proxy_; }
    QPushButton* tickAllButton() const { return tickAll_; }
    QPushButton* tickNoneButton() const { return tickNone_; }
    QLabel* variableCountLabel() const { return variableCount_; }
    QComboBox* offGridBox() const { return offGrid_; }
    QTableView* view() const { return view_; }
    QLabel* summaryLabel() const { return summary_; }
    // The selected file's details and its map, one tab each.
    QTabWidget* detailTabs() const { return detailTabs_; }
    FileMapPanel* mapPanel() const { return map_; }

signals:
    // Files, what is known of them, or the variable choice changed.
    void selectionChanged();

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void updateSummary();
    void fitColumns();
    void showDetails();
    // The map tab shows the selected file (opened only while the tab is shown).
    void showMap();
    // Ticks or unticks the variables the filter shows.
    void tickShown(bool ticked);

    FileListModel* model_;
    VariableListModel* variables_;
    QSortFilterProxyModel* proxy_;
    QTableView* view_;
    QTextBrowser* details_;
    FileMapPanel* map_;
    QTabWidget* detailTabs_;
    QLabel* summary_;
    QPushButton* remove_;
    QLineEdit* filter_;
    QTableView* variableView_;
    QPushButton* tickAll_;
    QPushButton* tickNone_;
    QLabel* variableCount_;
    QComboBox* offGrid_;
    QComboBox* product_;
    QComboBox* gridStep_;
    QCheckBox* loadAllMissing_;
    QStringList problems_;
};

} // namespace isobar::ui
