// SPDX-License-Identifier: GPL-3.0-or-later

#include "ChartAxes.h"

#include <QCategoryAxis>

#include <algorithm>

namespace isobar::ui {

void showTicks(QCategoryAxis* axis, const AxisTicks& ticks) {
    QStringList labels;
    for (const auto& tick : ticks.labels) {
        labels << QString::fromStdString(tick.second);
    }
    if (axis->categoriesLabels() == labels && axis->max() == ticks.top) {
        return;
    }
    for (const QString& old : axis->categoriesLabels()) {
        axis->remove(old);
    }
    // A QCategoryAxis knows categories, not ticks: each tick is the end of one, its label drawn on
    // that value. The first ends where the axis starts (0) and carries the "0".
    axis->setStartValue(0);
    axis->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    for (const auto& [value, label] : ticks.labels) {
        axis->append(QString::fromStdString(label), value);
    }
    axis->setRange(0, ticks.top);
}

AxisTicks timeTicks(double seconds) {
    // A short run fills the width too: the axis is at least a second long.
    return axisTicks(std::max(seconds, 1.0), AxisScale::Seconds, 6);
}

} // namespace isobar::ui
