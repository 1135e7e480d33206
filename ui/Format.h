// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <QString>

#include <cstdint>
#include <string>

namespace isobar::ui {

// Numbers in the desktop read as in the CLI and the reports: durations and bytes come from
// util/Format.h (formatDuration, formatBytes, formatByteFigure) through q(); counts and rates are
// grouped digits.
QString formatCount(std::uint64_t n);
QString formatRate(double rowsPerSecond);
inline QString q(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace isobar::ui
