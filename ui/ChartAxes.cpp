// SPDX-License-Identifier: GPL-3.0-or-later

#include "ChartAxes.h"

#include <QCategoryAxis>
#include <QFont>
#include <QFontMetricsF>

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

AxisTicks timeTicks(double seconds, int ticks) {
    // A short run fills the width too: the axis is at least a second long.
    return axisTicks(std::max(seconds, 1.0), AxisScale::Seconds, ticks);
}

bool labelFits(const QString& text, int labels, double length, const QFont& font,
               Qt::Orientation orientation) {
    // Qt Charts' padding is a few pixels each side of a label; 6 each side leaves room for rounding
    // and for the bold or larger fonts of some styles.
    constexpr double kPadding = 6.0;
    const QFontMetricsF metrics(font);
    const double room = length / (labels + 1) - 2 * kPadding;
    const double needed = orientation == Qt::Vertical ? metrics.height() : metrics.horizontalAdvance(text);
    return needed <= room;
}

AxisTicks fitTicks(int wanted, double length, const QFont& font, Qt::Orientation orientation,
                   const std::function<AxisTicks(int)>& make) {
    AxisTicks ticks = make(std::max(wanted, 1));
    if (length <= 0) {
        return ticks;
    }
    for (int n = std::max(wanted, 1); n >= 1; --n) {
        ticks = make(n);
        const int labels = static_cast<int>(ticks.labels.size());
        const bool fits = std::all_of(ticks.labels.begin(), ticks.labels.end(), [&](const auto& tick) {
            return labelFits(QString::fromStdString(tick.second), labels, length, font, orientation);
        });
        if (fits) {
            return ticks;
        }
    }
    return ticks; // one interval: 0 and the top, the fewest an axis can have
}

} // namespace isobar::ui
