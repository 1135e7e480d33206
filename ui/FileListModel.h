// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#ifndef Q_MOC_RUN // moc 6.4 cannot parse some C++20 standard headers the core pulls in
#include "era5/Inspection.h"
#endif

#include "BackgroundJobs.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <filesystem>
#include <optional>
#include <vector>

namespace isobar::ui {

// A variable at least one loadable file has, as the Files tab lists it: the column it loads
// into, the units the files declare for it (each spelling once) and how many files have it.
struct PresentVariable {
    ValueColumn column;
    QStringList fileUnits;
    int files = 0;
};

// The files a user picked, each inspected in the background exactly as `isobar-cli inspect` does
// (a folder of hundreds of files never blocks the window), then - once every file is inspected -
// the loadable ones checked together as a load opens them (one grid, one product, surface or
// pressure levels). A file that cannot be loaded stays in the list with the reason. Results of a
// file removed meanwhile, and checks of a list that has changed since, are dropped.
class FileListModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { File, Layout, Variables, Times, Grid, Levels, Rows, Status, ColumnCount };

    explicit FileListModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    bool removeRows(int row, int count, const QModelIndex& parent = {}) override;

    // Files or folders (a folder stands for the NetCDF files in it). Returns what could not be
    // added and why (a folder without NetCDF files); files already in the list are skipped.
    QStringList addPaths(const QStringList& paths);
    void clear();
    // How files are read (off-grid points, product, grid step); every file is inspected again.
    void setOpenOptions(const OpenOptions& options);
    const OpenOptions& openOptions() const { return options_; }

    // The files that inspected without error, in list order.
    std::vector<std::filesystem::path> loadableFiles() const;
    // The variables at least one loadable file has: catalog variables in the catalog's order (the
    // seed's six first), then the ones the catalog does not know, by key - the order of a load's
    // columns.
    std::vector<PresentVariable> presentVariables() const;
    // Rows of the loadable files together (before merging: files of one step add up).
    std::uint64_t totalRows() const;
    // A file is being inspected, or the loadable files are being checked together.
    bool inspecting() const;
    // The loadable files are being checked together (every file is inspected).
    bool checkingTogether() const { return datasetCheck_.isRunning(); }
    int problemCount() const;
    const FileInspection* inspection(int row) const;
    const std::filesystem::path& path(int row) const {
        return entries_.at(static_cast<std::size_t>(row)).path;
    }
    // The loadable files as one dataset, once checked; null while inspecting and when fewer than
    // two files are loadable (a file on its own was opened as a dataset by its inspection).
    // Its `error` says why the files cannot be loaded together.
    const DatasetInspection* dataset() const { return dataset_ ? &*dataset_ : nullptr; }

signals:
    // A file was added, inspected or removed, or the files' check together ended.
    void filesChanged();

private:
    struct Entry {
        std::filesystem::path path;
        JobTracker inspection;                // a file removed from the list takes its inspection with it
        std::optional<FileInspection> result; // nullopt while inspecting
    };
    void inspectInBackground(Entry& entry);
    void takeResult(const std::filesystem::path& path, const FileInspection& result);
    // The list changed: a check of the files together under way no longer counts; a new one
    // starts once every file is inspected. Then filesChanged().
    void listChanged();
    void takeDataset(const DatasetInspection& result);

    std::vector<Entry> entries_;
    JobTracker datasetCheck_; // the check of the files together (running: under way)
    std::optional<DatasetInspection> dataset_;
    OpenOptions options_;
};

} // namespace isobar::ui
