#pragma once

#ifndef Q_MOC_RUN // moc 6.4 cannot parse some C++20 standard headers the core pulls in
#include "ingest/Loader.h"
#endif

#include <QWidget>

#include <array>
#include <vector>

class QCheckBox;
class QComboBox;
class QSettings;
class QLabel;
class QPushButton;
class QTableView;
class QTextBrowser;

namespace isobar::ui {

class FileListModel;

// The first step of a load: the files (added by dialog or dropped; folders stand for the NetCDF
// files in them), what each one is, and which of the catalog's variables to load. A variable no file
// has cannot be ticked.
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

    // The ticked variables that some file has; empty when none is ticked.
    std::vector<Variable> chosenVariables() const;
    // True when every present variable is ticked (the load then takes every variable).
    bool allPresentChosen() const;
    // How the files are read, as the CLI's --off-grid, --product and --grid-step say it.
    OpenOptions openOptions() const;
    // Units whose every value is missing: skipped, or loaded as rows of NULLs (--all-missing).
    AllMissingPolicy allMissing() const;
    // Remembers the variable choice and the reading options.
    void save(QSettings& settings) const;
    void restore(QSettings& settings);

    QCheckBox* variableBox(Variable v) const { return boxes_[v.index()]; }
    QComboBox* offGridBox() const { return offGrid_; }
    QTableView* view() const { return view_; }
    QLabel* summaryLabel() const { return summary_; }

signals:
    // Files or the variable choice changed.
    void selectionChanged();

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void updateSummary();
    void fitColumns();
    void showDetails();

    FileListModel* model_;
    QTableView* view_;
    QTextBrowser* details_;
    QLabel* summary_;
    QPushButton* remove_;
    PerVariable<QCheckBox*> boxes_{};
    QComboBox* offGrid_;
    QComboBox* product_;
    QComboBox* gridStep_;
    QCheckBox* loadAllMissing_;
    QStringList problems_;
};

} // namespace isobar::ui
