// SPDX-License-Identifier: GPL-3.0-or-later

#include "MapImage.h"

#include "domain/Timestamp.h"

#include <QFont>
#include <QFontMetrics>
#include <QPainter>

#include <algorithm>
#include <array>
#include <cmath>

namespace isobar::ui {

namespace {

// viridis at nine evenly spaced points (its published table, sampled).
constexpr std::array<QRgb, 9> kStops{0x440154, 0x472d7b, 0x3b528b, 0x2c728e, 0x21918c,
                                     0x28ae80, 0x5ec962, 0xaddc30, 0xfde725};

QString number(double v) {
    const double a = std::fabs(v);
    if (a != 0.0 && (a < 1e-3 || a >= 1e6)) {
        return QString::number(v, 'g', 4);
    }
    return QString::number(v, 'f', a < 1 ? 4 : (a < 100 ? 2 : 1));
}

} // namespace

QColor ColourScale::ramp(double t) {
    t = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0);
    const double pos = t * (kStops.size() - 1);
    const auto i = std::min(static_cast<std::size_t>(pos), kStops.size() - 2);
    const double f = pos - static_cast<double>(i);
    const QColor a = QColor::fromRgb(kStops[i]);
    const QColor b = QColor::fromRgb(kStops[i + 1]);
    const auto mix = [f](int x, int y) {
        return static_cast<int>(std::lround(x + (y - x) * f));
    };
    return {mix(a.red(), b.red()), mix(a.green(), b.green()), mix(a.blue(), b.blue())};
}

QColor ColourScale::colour(float value) const {
    if (std::isnan(value)) {
        return missingColour();
    }
    return ramp((static_cast<double>(value) - low) / (static_cast<double>(high) - low));
}

ColourScale ColourScale::of(const GridField& field) {
    const auto range = field.range();
    if (!range) {
        return {};
    }
    ColourScale s{range->first, range->second};
    if (!(s.high > s.low)) {
        s.low -= 0.5F;
        s.high += 0.5F;
    }
    return s;
}

std::pair<std::size_t, std::size_t> pixelToPoint(const GridField& field, int width, int height, double x,
                                                 double y) {
    const auto clampIndex = [](double v, std::size_t n) {
        return std::min(n - 1, static_cast<std::size_t>(std::max(0.0, std::floor(v))));
    };
    return {clampIndex(y * static_cast<double>(field.rows()) / height, field.rows()),
            clampIndex(x * static_cast<double>(field.cols()) / width, field.cols())};
}

QImage fieldImage(const GridField& field, const ColourScale& scale, int maxWidth, int maxHeight) {
    if (field.rows() == 0 || field.cols() == 0 || maxWidth < 1 || maxHeight < 1) {
        return {};
    }
    // One pixel per point where it fits; else the largest size of the field's shape that does.
    const double shrink = std::min(
        {1.0, maxWidth / static_cast<double>(field.cols()), maxHeight / static_cast<double>(field.rows())});
    const int w = std::max(1, static_cast<int>(std::lround(static_cast<double>(field.cols()) * shrink)));
    const int h = std::max(1, static_cast<int>(std::lround(static_cast<double>(field.rows()) * shrink)));
    QImage image(w, h, QImage::Format_RGB32);
    // The colours of 1024 steps of the scale, so a pixel is one lookup.
    std::array<QRgb, 1024> table{};
    for (std::size_t k = 0; k < table.size(); ++k) {
        table[k] = ColourScale::ramp(static_cast<double>(k) / (table.size() - 1)).rgb();
    }
    const QRgb missing = ColourScale::missingColour().rgb();
    const double span = static_cast<double>(scale.high) - scale.low;
    for (int y = 0; y < h; ++y) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        const std::size_t row = pixelToPoint(field, w, h, 0.5, y + 0.5).first;
        for (int x = 0; x < w; ++x) {
            const std::size_t col = pixelToPoint(field, w, h, x + 0.5, 0.5).second;
            const float v = field.at(row, col);
            if (std::isnan(v)) {
                line[x] = missing;
                continue;
            }
            const double t = std::clamp((static_cast<double>(v) - scale.low) / span, 0.0, 1.0);
            line[x] = table[static_cast<std::size_t>(std::lround(t * (table.size() - 1)))];
        }
    }
    return image;
}

QImage mapImage(const GridField& field, const ColourScale& scale, QSize size, const MapLayers& layers,
                QString* missing) {
    if (missing != nullptr) {
        missing->clear();
    }
    const QImage cells = fieldImage(field, scale, size.width(), size.height());
    if (cells.isNull()) {
        return {};
    }
    QImage image =
        cells.size() == size ? cells : cells.scaled(size, Qt::IgnoreAspectRatio, Qt::FastTransformation);
    const QString note = drawMapLayers(image, field, layers);
    if (missing != nullptr) {
        *missing = note;
    }
    return image;
}

QString fieldTitle(const GridField& field) {
    QString t = QString::fromStdString(field.column);
    if (!field.key.empty() && field.key != field.column) {
        t += QStringLiteral(" (%1)").arg(QString::fromStdString(field.key));
    }
    t += QStringLiteral(" at %1 UTC").arg(QString::fromStdString(formatTimestamp(field.time)).left(16));
    if (field.level) {
        t += QStringLiteral(", %1 hPa").arg(*field.level);
    }
    return t;
}

QString pointText(const GridField& field, std::size_t row, std::size_t col) {
    const float v = field.at(row, col);
    return QStringLiteral("lat %1, lon %2 (location_id %3): %4")
        .arg(field.latitudes[row], 0, 'f', 2)
        .arg(field.longitudes[col], 0, 'f', 2)
        .arg(field.locationAt(row, col).value)
        .arg(std::isnan(v) ? QStringLiteral("missing")
                           : number(v) + (field.units.empty()
                                              ? QString()
                                              : QStringLiteral(" ") + QString::fromStdString(field.units)));
}

QImage mapPicture(const GridField& field, int width) {
    const int margin = 12;
    const int mapWidth = std::max(64, width - 2 * margin);
    const ColourScale scale = ColourScale::of(field);
    const double aspect =
        field.cols() == 0 ? 0.5 : static_cast<double>(field.rows()) / static_cast<double>(field.cols());
    const int mapHeight = std::max(16, static_cast<int>(std::lround(mapWidth * std::min(aspect, 2.0))));
    // Fonts need the QGuiApplication the caller made; the map's labels take its default font.
    QString missingLayers;
    const QImage map = mapImage(field, scale, QSize(mapWidth, mapHeight), {}, &missingLayers);
    QFont font;
    font.setPixelSize(13);
    const QFontMetrics metrics(font);
    const int line = metrics.height();
    const int barHeight = 14;
    const int notes = missingLayers.isEmpty() ? 1 : 2;
    const int height = margin + line + 6 + mapHeight + 8 + barHeight + 4 + line + 6 + notes * line + margin;
    QImage picture(width, height, QImage::Format_RGB32);
    picture.fill(Qt::white);
    QPainter p(&picture);
    p.setFont(font);
    p.setPen(Qt::black);
    int y = margin;
    p.drawText(QRect(margin, y, mapWidth, line), Qt::AlignLeft, fieldTitle(field));
    y += line + 6;
    if (!map.isNull()) {
        p.drawImage(QPoint(margin, y), map);
    }
    p.drawRect(QRect(margin - 1, y - 1, mapWidth + 1, mapHeight + 1));
    y += mapHeight + 8;
    for (int x = 0; x < mapWidth; ++x) {
        p.setPen(ColourScale::ramp(static_cast<double>(x) / (mapWidth - 1)));
        p.drawLine(margin + x, y, margin + x, y + barHeight - 1);
    }
    p.setPen(Qt::black);
    y += barHeight + 4;
    const QString units = QString::fromStdString(field.units);
    p.drawText(QRect(margin, y, mapWidth, line), Qt::AlignLeft,
               number(scale.low) + QStringLiteral(" ") + units);
    p.drawText(QRect(margin, y, mapWidth, line), Qt::AlignRight,
               number(scale.high) + QStringLiteral(" ") + units);
    y += line + 6;
    const std::size_t missing = field.missingCount();
    QString footer = QStringLiteral("lat %1..%2, lon %3..%4, %5 x %6 points")
                         .arg(field.latitudes.empty() ? 0.0 : field.latitudes.front(), 0, 'f', 2)
                         .arg(field.latitudes.empty() ? 0.0 : field.latitudes.back(), 0, 'f', 2)
                         .arg(field.longitudes.empty() ? 0.0 : field.longitudes.front(), 0, 'f', 2)
                         .arg(field.longitudes.empty() ? 0.0 : field.longitudes.back(), 0, 'f', 2)
                         .arg(field.rows())
                         .arg(field.cols());
    footer += missing == 0 ? QStringLiteral("; no value missing")
                           : QStringLiteral("; %1 missing (grey)").arg(missing);
    p.drawText(QRect(margin, y, mapWidth, line), Qt::AlignLeft, footer);
    if (!missingLayers.isEmpty()) {
        y += line;
        p.drawText(QRect(margin, y, mapWidth, line), Qt::AlignLeft, missingLayers);
    }
    return picture;
}

} // namespace isobar::ui
