// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "util/Format.h"

#include <Qt>

#include <functional>

class QCategoryAxis;
class QFont;

namespace isobar::ui {

// Puts ticks computed by axisTicks() on a Qt Charts axis: a label on each tick's value (not
// between ticks) and the range 0 to the last tick. Does nothing when the axis shows them already,
// so the charts can call it on every redraw.
void showTicks(QCategoryAxis* axis, const AxisTicks& ticks);

// The time axis of the run's charts, one call for all of them: the same span, the same ticks.
AxisTicks timeTicks(double seconds, int ticks = 6);

// The ticks `make(n)` gives for the largest n up to `wanted` whose labels fit an axis `length`
// pixels long in `font`. Qt Charts gives each label of a category axis the axis' length over the
// labels' number plus one, less its padding, and elides a label that does not fit into "...": so
// a short chart, or a narrow one, gets fewer ticks rather than dots. A `length` of 0 (a chart not
// laid out yet) takes `wanted` as it is.
AxisTicks fitTicks(int wanted, double length, const QFont& font, Qt::Orientation orientation,
                   const std::function<AxisTicks(int)>& make);

// Whether a label of `text` fits an axis of `length` pixels carrying `labels` labels: the rule
// fitTicks() keeps to (for tests: a label drawn elided is one that does not).
bool labelFits(const QString& text, int labels, double length, const QFont& font,
               Qt::Orientation orientation);

} // namespace isobar::ui
