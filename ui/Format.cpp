#include "Format.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace isobar::ui {

namespace {

const QLocale& numbers() {
    // Grouped digits the same way whatever the desktop's locale, like the reports and the CLI.
    static const QLocale locale(QLocale::English, QLocale::UnitedStates);
    return locale;
}

} // namespace

QString formatCount(std::uint64_t n) {
    return numbers().toString(static_cast<qulonglong>(n));
}

QString formatRate(double rowsPerSecond) {
    return formatCount(static_cast<std::uint64_t>(std::llround(std::max(0.0, rowsPerSecond))));
}

QString formatDuration(double seconds) {
    if (!(seconds >= 0) || !std::isfinite(seconds)) {
        return QStringLiteral("-");
    }
    if (seconds < 10) {
        return QStringLiteral("%1 s").arg(seconds, 0, 'f', 1);
    }
    const auto total = static_cast<long long>(std::llround(seconds));
    const long long h = total / 3600;
    const long long m = total / 60 % 60;
    const long long s = total % 60;
    if (h > 0) {
        return QStringLiteral("%1h %2m %3s")
            .arg(h)
            .arg(m, 2, 10, QLatin1Char('0'))
            .arg(s, 2, 10, QLatin1Char('0'));
    }
    if (m > 0) {
        return QStringLiteral("%1m %2s").arg(m).arg(s, 2, 10, QLatin1Char('0'));
    }
    return QStringLiteral("%1 s").arg(s);
}

QString formatBytes(std::uint64_t bytes) {
    return numbers().formattedDataSize(static_cast<qint64>(bytes), 1, QLocale::DataSizeIecFormat);
}

QString formatByteFigure(double bytes) {
    return formatBytes(static_cast<std::uint64_t>(std::max(0.0, bytes)));
}

} // namespace isobar::ui
