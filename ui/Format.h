#pragma once

#include <QString>

#include <cstdint>
#include <string>

namespace isobar::ui {

// How numbers read in the app: grouped digits, durations as 1h 02m 03s, bytes in binary units.
QString formatCount(std::uint64_t n);
QString formatRate(double rowsPerSecond);
QString formatDuration(double seconds);
QString formatBytes(std::uint64_t bytes);
// A size the monitor measured (a double, as ServerSample and the report keep them; not negative).
QString formatByteFigure(double bytes);
inline QString q(const std::string& s) {
    return QString::fromStdString(s);
}

} // namespace isobar::ui
