#pragma once

#ifndef Q_MOC_RUN // moc 6.4 cannot parse some C++20 standard headers the core pulls in
#include "era5/Inspection.h"
#endif

#include <QAbstractTableModel>
#include <QStringList>

#include <filesystem>
#include <optional>
#include <set>
#include <vector>

namespace isobar::ui {

// The files a user picked, each inspected in the background exactly as `isobar-cli inspect` does
// (a folder of hundreds of files never blocks the window). A file that cannot be loaded stays in
// the list with the reason. Results of a file removed meanwhile are dropped.
class FileListModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { File, Layout, Variables, Times, Grid, Rows, Status, ColumnCount };

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
    // The variables at least one loadable file has.
    std::set<Variable> presentVariables() const;
    // Rows of the loadable files together (before merging: files of one step add up).
    std::uint64_t totalRows() const;
    bool inspecting() const;
    int problemCount() const;
    const FileInspection* inspection(int row) const;

signals:
    // A file was added, inspected or removed.
    void filesChanged();

private:
    struct Entry {
        std::filesystem::path path;
        quint64 job = 0;
        std::optional<FileInspection> result; // nullopt while inspecting
    };
    void inspectInBackground(Entry& entry);
    void takeResult(quint64 job, const FileInspection& result);

    std::vector<Entry> entries_;
    quint64 nextJob_ = 1;
    OpenOptions options_;
};

} // namespace isobar::ui
