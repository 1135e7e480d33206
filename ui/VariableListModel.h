// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "FileListModel.h"

#include <QAbstractTableModel>
#include <QSet>
#include <QStringList>

#include <string>
#include <vector>

namespace isobar::ui {

// The variables of the files, one row each, with a tick for whether to load it: what it is, the
// units the files declare, the column it loads into and in which units, and whether Isobar's
// catalog knows it. Ticks are kept by key, so a variable unticked stays unticked when the files
// change (and across sessions, through untickedKeys()).
class VariableListModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Load, Key, LongName, FileUnits, TableColumn, TableUnits, Catalog, ColumnCount };
    // What the filter on the Files tab matches: the key, the long name and the table column.
    static constexpr int SearchRole = Qt::UserRole + 1;

    explicit VariableListModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

    // The files' variables, in the order to list them (FileListModel::presentVariables()). The
    // ticks stay with their keys; no ticksChanged().
    void setVariables(std::vector<PresentVariable> variables);
    const std::vector<PresentVariable>& variables() const { return rows_; }
    QString keyAt(int row) const;
    bool isTicked(const QString& key) const { return !unticked_.contains(key); }
    void setTicked(const QStringList& keys, bool ticked);

    // The keys of the ticked variables, in list order.
    std::vector<std::string> tickedKeys() const;
    bool allTicked() const;
    // Every key unticked, also of variables the files have not (to remember the choice).
    QStringList untickedKeys() const;
    void setUntickedKeys(const QStringList& keys);

signals:
    // A variable was ticked or unticked.
    void ticksChanged();

private:
    std::vector<PresentVariable> rows_;
    QSet<QString> unticked_;
};

} // namespace isobar::ui
