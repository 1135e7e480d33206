// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "util/Format.h"

class QCategoryAxis;

namespace isobar::ui {

// Puts ticks computed by axisTicks() on a Qt Charts axis: a label on each tick's value (not
// between ticks) and the range 0 to the last tick. Does nothing when the axis shows them already,
// so the charts can call it on every redraw.
void showTicks(QCategoryAxis* axis, const AxisTicks& ticks);

// The time axis of the run's charts, one call for all of them: the same span, the same ticks.
AxisTicks timeTicks(double seconds);

} // namespace isobar::ui
