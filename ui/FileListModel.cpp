// SPDX-License-Identifier: GPL-3.0-or-later

#include "FileListModel.h"

#include "Format.h"
#include "era5/Dataset.h"
#include "util/Error.h"
#include "util/Format.h"

#include <QColor>

#include <algorithm>
#include <map>

namespace isobar::ui {

namespace {

QString variablesOf(const FileInspection& f) {
    QStringList names;
    for (const auto& v : f.variables) {
        names << q(v.column.key);
    }
    return names.join(QStringLiteral(", "));
}

} // namespace

FileListModel::FileListModel(QObject* parent)
    : QAbstractTableModel(parent)
    , datasetCheck_(this, JobPool::Files) {}

int FileListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(entries_.size());
}

int FileListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FileListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case File:
        return tr("File");
    case Layout:
        return tr("Layout");
    case Variables:
        return tr("Variables");
    case Times:
        return tr("Time range");
    case Grid:
        return tr("Grid");
    case Levels:
        return tr("Levels");
    case Rows:
        return tr("Rows");
    case Status:
        return tr("Status");
    default:
        return {};
    }
}

QVariant FileListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) {
        return {};
    }
    const Entry& e = entries_[static_cast<std::size_t>(index.row())];
    const bool done = e.result.has_value();
    const bool bad = done && e.result->error.has_value();
    if (role == Qt::ToolTipRole) {
        if (!done) {
            return tr("Inspecting %1...").arg(q(e.path.string()));
        }
        if (bad) {
            return q(*e.result->error);
        }
        QStringList lines{q(e.path.string()), q(e.result->format), q(e.result->box)};
        for (const auto& n : e.result->notes) {
            lines << q(n);
        }
        return lines.join('\n');
    }
    if (role == Qt::ForegroundRole && bad && index.column() == Status) {
        return QColor(Qt::darkRed);
    }
    if (role == Qt::TextAlignmentRole && index.column() == Rows) {
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    if (index.column() == File) {
        return q(e.path.filename().string());
    }
    if (index.column() == Status) {
        if (!done) {
            return tr("inspecting...");
        }
        if (!bad) {
            return tr("ready");
        }
        // The row names the file already; the tooltip keeps the whole message.
        QString reason = q(*e.result->error);
        const QString prefix = q(e.path.string()) + QStringLiteral(": ");
        return reason.startsWith(prefix) ? reason.mid(prefix.size()) : reason;
    }
    if (!done || bad) {
        return {};
    }
    const FileInspection& f = *e.result;
    switch (index.column()) {
    case Layout:
        return q(f.layout);
    case Variables:
        return variablesOf(f);
    case Times:
        return f.firstTime == f.lastTime ? q(f.firstTime)
                                         : q(f.firstTime) + QStringLiteral(" .. ") + q(f.lastTime);
    case Grid:
        return q(f.grid);
    case Levels:
        return q(f.levels);
    case Rows:
        return formatCount(f.rows);
    default:
        return {};
    }
}

bool FileListModel::removeRows(int row, int count, const QModelIndex& parent) {
    if (parent.isValid() || row < 0 || count <= 0 || row + count > rowCount()) {
        return false;
    }
    beginRemoveRows(parent, row, row + count - 1);
    entries_.erase(entries_.begin() + row, entries_.begin() + row + count);
    endRemoveRows();
    listChanged();
    return true;
}

void FileListModel::clear() {
    beginResetModel();
    entries_.clear();
    endResetModel();
    listChanged();
}

void FileListModel::setOpenOptions(const OpenOptions& options) {
    options_ = options;
    for (Entry& e : entries_) {
        e.result.reset();
        inspectInBackground(e); // supersedes an inspection with the old options
    }
    if (!entries_.empty()) {
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    }
    listChanged();
}

QStringList FileListModel::addPaths(const QStringList& paths) {
    QStringList problems;
    std::vector<std::filesystem::path> files;
    for (const QString& p : paths) {
        try {
            const auto expanded = expandInputs({std::filesystem::path(p.toStdString())});
            files.insert(files.end(), expanded.begin(), expanded.end());
        } catch (const Error& e) {
            problems << q(e.what());
        }
    }
    bool added = false;
    for (const auto& file : files) {
        const bool known =
            std::any_of(entries_.begin(), entries_.end(), [&file](const Entry& e) { return e.path == file; });
        if (known) {
            continue;
        }
        const int row = rowCount();
        beginInsertRows({}, row, row);
        entries_.push_back(Entry{file, JobTracker(this, JobPool::Files), std::nullopt});
        endInsertRows();
        inspectInBackground(entries_.back());
        added = true;
    }
    if (added) {
        listChanged();
    }
    return problems;
}

void FileListModel::inspectInBackground(Entry& entry) {
    const std::filesystem::path path = entry.path;
    const OpenOptions options = options_;
    // Thread boundary: the inspection (netcdf-c, HDF5 decompression of coordinates) runs on the
    // pool; only its result, a plain struct, comes back.
    entry.inspection.start(
        [path, options] {
            const Inspection inspection = inspect({path}, options, false);
            if (inspection.files.empty()) {
                throw Error("nothing to inspect");
            }
            return inspection.files.front();
        },
        [this, path](const FileInspection& result) { takeResult(path, result); },
        [this, path](const JobError& e) {
            FileInspection result;
            result.name = path.filename().string();
            result.error = e.message.toStdString();
            takeResult(path, result);
        });
}

void FileListModel::takeResult(const std::filesystem::path& path, const FileInspection& result) {
    // The entry is there: its removal would have cancelled the inspection.
    for (std::size_t i = 0; i < entries_.size(); ++i) {
        if (entries_[i].path == path) {
            entries_[i].result = result;
            const int row = static_cast<int>(i);
            emit dataChanged(index(row, 0), index(row, ColumnCount - 1));
            listChanged();
            return;
        }
    }
}

void FileListModel::listChanged() {
    dataset_.reset();
    datasetCheck_.cancel(); // a check under way was of another list: its result is dropped
    const bool allInspected =
        std::all_of(entries_.begin(), entries_.end(), [](const Entry& e) { return e.result; });
    std::vector<std::filesystem::path> files = loadableFiles();
    if (allInspected && files.size() > 1) {
        // Thread boundary: opening every file together (netcdf-c again, ZIP members extracted)
        // runs on the pool; only the plain result comes back.
        datasetCheck_.start(
            [files = std::move(files), options = options_] { return inspectDataset(files, options); },
            [this](const DatasetInspection& result) { takeDataset(result); },
            [this](const JobError& e) {
                DatasetInspection result;
                result.error = e.message.toStdString();
                takeDataset(result);
            });
    }
    emit filesChanged();
}

void FileListModel::takeDataset(const DatasetInspection& result) {
    dataset_ = result;
    emit filesChanged();
}

std::vector<std::filesystem::path> FileListModel::loadableFiles() const {
    std::vector<std::filesystem::path> out;
    for (const Entry& e : entries_) {
        if (e.result && !e.result->error) {
            out.push_back(e.path);
        }
    }
    return out;
}

std::vector<PresentVariable> FileListModel::presentVariables() const {
    // Catalog variables by their place in the catalog, then unknown ones by key.
    using Order = std::pair<std::size_t, std::string>;
    std::map<Order, PresentVariable> found;
    for (const Entry& e : entries_) {
        if (!e.result || e.result->error) {
            continue;
        }
        std::vector<const PresentVariable*> counted; // a file with a variable twice counts once
        for (const VariableInspection& v : e.result->variables) {
            const Order order{v.column.variable ? v.column.variable->index() : variableCount(),
                              v.column.variable ? std::string() : v.column.key};
            PresentVariable& p = found.try_emplace(order, PresentVariable{v.column, {}, 0}).first->second;
            if (!v.units.empty() && !p.fileUnits.contains(q(v.units))) {
                p.fileUnits << q(v.units);
            }
            if (std::find(counted.begin(), counted.end(), &p) == counted.end()) {
                counted.push_back(&p);
                ++p.files;
            }
        }
    }
    std::vector<PresentVariable> out;
    out.reserve(found.size());
    for (auto& [order, p] : found) {
        out.push_back(std::move(p));
    }
    return out;
}

std::uint64_t FileListModel::totalRows() const {
    std::uint64_t rows = 0;
    for (const Entry& e : entries_) {
        if (e.result && !e.result->error) {
            rows += e.result->rows;
        }
    }
    return rows;
}

bool FileListModel::inspecting() const {
    return checkingTogether() ||
           std::any_of(entries_.begin(), entries_.end(), [](const Entry& e) { return !e.result; });
}

int FileListModel::problemCount() const {
    return static_cast<int>(std::count_if(entries_.begin(), entries_.end(),
                                          [](const Entry& e) { return e.result && e.result->error; }));
}

const FileInspection* FileListModel::inspection(int row) const {
    if (row < 0 || row >= rowCount() || !entries_[static_cast<std::size_t>(row)].result) {
        return nullptr;
    }
    return &*entries_[static_cast<std::size_t>(row)].result;
}

} // namespace isobar::ui
