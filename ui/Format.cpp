// SPDX-License-Identifier: GPL-3.0-or-later

#include "Format.h"

#include "util/Format.h"

#include <algorithm>
#include <cmath>

namespace isobar::ui {

QString formatCount(std::uint64_t n) {
    return q(formatThousands(n));
}

QString formatRate(double rowsPerSecond) {
    return formatCount(static_cast<std::uint64_t>(std::llround(std::max(0.0, rowsPerSecond))));
}

} // namespace isobar::ui
