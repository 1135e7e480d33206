// SPDX-License-Identifier: GPL-3.0-or-later

#include "VariableListModel.h"

#include "Format.h"
#include "domain/ParameterDatabase.h"

#include <QColor>

#include <algorithm>

namespace isobar::ui {

namespace {

QString formulaOf(Conversion c) {
    switch (c) {
    case Conversion::KelvinToCelsius:
        return QStringLiteral("x - 273.15");
    case Conversion::MetresToMillimetres:
        return QStringLiteral("x * 1000");
    case Conversion::PercentToFraction:
        return QStringLiteral("x / 100");
    case Conversion::None:
        break;
    }
    return {};
}

// "degC, from K (x - 273.15)", "m s**-1, as stored".
QString tableUnitsOf(const ValueColumn& c) {
    const QString units = q(c.units);
    const EcmwfParameter* p = c.paramId != 0 ? ecmwfParameters().byParamId(c.paramId) : nullptr;
    if (c.conversion == Conversion::None || p == nullptr) {
        return units.isEmpty() ? VariableListModel::tr("as stored")
                               : VariableListModel::tr("%1, as stored").arg(units);
    }
    return VariableListModel::tr("%1, from %2 (%3)").arg(units, q(p->units), formulaOf(c.conversion));
}

// "paramId 167, instantaneous", "paramId 228010, not in Isobar's catalog".
QString parameterOf(const ValueColumn& c) {
    if (c.variable) {
        const VariableSpec& s = spec(*c.variable);
        return VariableListModel::tr("paramId %1, %2").arg(s.paramId).arg(q(std::string(describe(s.timing))));
    }
    if (c.paramId != 0) {
        return VariableListModel::tr("paramId %1, not in Isobar's catalog").arg(c.paramId);
    }
    return VariableListModel::tr("not in ECMWF's database: loaded as stored");
}

} // namespace

VariableListModel::VariableListModel(QObject* parent)
    : QAbstractTableModel(parent) {}

int VariableListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int VariableListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant VariableListModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case Load:
        return tr("Load");
    case Key:
        return tr("Short name");
    case LongName:
        return tr("Long name");
    case FileUnits:
        return tr("File units");
    case TableColumn:
        return tr("Table column");
    case TableUnits:
        return tr("In the table");
    case Catalog:
        return tr("ECMWF parameter");
    default:
        return {};
    }
}

QVariant VariableListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) {
        return {};
    }
    const PresentVariable& v = rows_[static_cast<std::size_t>(index.row())];
    const ValueColumn& c = v.column;
    switch (role) {
    case SearchRole:
        return QStringList{q(c.key), q(c.longName), q(c.column)}.join('\n');
    case Qt::CheckStateRole:
        return index.column() == Load ? QVariant(isTicked(q(c.key)) ? Qt::Checked : Qt::Unchecked)
                                      : QVariant();
    case Qt::ToolTipRole:
        return tr("%1\nIn %n of the files", nullptr, v.files).arg(q(c.describe()));
    case Qt::ForegroundRole:
        return index.column() == Catalog && c.paramId == 0 ? QVariant(QColor(Qt::darkYellow)) : QVariant();
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }
    switch (index.column()) {
    case Key:
        return q(c.key);
    case LongName:
        return q(c.longName);
    case FileUnits:
        return v.fileUnits.join(QStringLiteral(", "));
    case TableColumn:
        return q(c.column);
    case TableUnits:
        return tableUnitsOf(c);
    case Catalog:
        return parameterOf(c);
    default:
        return {};
    }
}

Qt::ItemFlags VariableListModel::flags(const QModelIndex& index) const {
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == Load) {
        f |= Qt::ItemIsUserCheckable;
    }
    return f;
}

bool VariableListModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!index.isValid() || index.row() >= rowCount() || index.column() != Load ||
        role != Qt::CheckStateRole) {
        return false;
    }
    setTicked({keyAt(index.row())}, value.value<Qt::CheckState>() == Qt::Checked);
    return true;
}

void VariableListModel::setVariables(std::vector<PresentVariable> variables) {
    const bool sameRows = std::equal(
        rows_.begin(), rows_.end(), variables.begin(), variables.end(),
        [](const PresentVariable& a, const PresentVariable& b) { return a.column.key == b.column.key; });
    if (sameRows) {
        // A file more or less with the same variables: the rows stay (and the view's selection).
        rows_ = std::move(variables);
        if (!rows_.empty()) {
            emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        }
        return;
    }
    beginResetModel();
    rows_ = std::move(variables);
    endResetModel();
}

QString VariableListModel::keyAt(int row) const {
    return row >= 0 && row < rowCount() ? q(rows_[static_cast<std::size_t>(row)].column.key) : QString();
}

void VariableListModel::setTicked(const QStringList& keys, bool ticked) {
    bool changed = false;
    for (const QString& key : keys) {
        if (ticked) {
            changed = unticked_.remove(key) || changed;
        } else if (!unticked_.contains(key)) {
            unticked_.insert(key);
            changed = true;
        }
    }
    if (!changed) {
        return;
    }
    if (!rows_.empty()) {
        emit dataChanged(index(0, Load), index(rowCount() - 1, Load), {Qt::CheckStateRole});
    }
    emit ticksChanged();
}

std::vector<std::string> VariableListModel::tickedKeys() const {
    std::vector<std::string> out;
    for (const PresentVariable& v : rows_) {
        if (isTicked(q(v.column.key))) {
            out.push_back(v.column.key);
        }
    }
    return out;
}

bool VariableListModel::allTicked() const {
    return std::all_of(rows_.begin(), rows_.end(),
                       [this](const PresentVariable& v) { return isTicked(q(v.column.key)); });
}

QStringList VariableListModel::untickedKeys() const {
    QStringList out(unticked_.begin(), unticked_.end());
    out.sort();
    return out;
}

void VariableListModel::setUntickedKeys(const QStringList& keys) {
    unticked_ = QSet<QString>(keys.begin(), keys.end());
    if (!rows_.empty()) {
        emit dataChanged(index(0, Load), index(rowCount() - 1, Load), {Qt::CheckStateRole});
    }
    emit ticksChanged();
}

} // namespace isobar::ui
