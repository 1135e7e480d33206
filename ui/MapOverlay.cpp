// SPDX-License-Identifier: GPL-3.0-or-later

#include "MapOverlay.h"

#include "util/Error.h"

#include <QFont>
#include <QFontMetricsF>
#include <QPainter>
#include <QPen>
#include <QPolygonF>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <iterator>

namespace isobar::ui {

namespace {

// The fractional index of `v` in `axis` (monotone, either way), extrapolated by the end steps
// outside it: the inverse of the axis, cell centres at whole indices.
double fractionalIndex(const std::vector<double>& axis, double v) {
    const std::size_t n = axis.size();
    if (n == 0) {
        return 0.0;
    }
    if (n == 1) {
        return v - axis[0]; // a one-point axis: one degree per cell, the point at 0
    }
    const bool rising = axis.back() > axis.front();
    // The first k with v before axis[k] in the axis' direction, within [1, n - 1].
    const auto after = rising ? std::upper_bound(axis.begin(), axis.end(), v)
                              : std::upper_bound(axis.begin(), axis.end(), v, std::greater<>());
    const auto k = static_cast<std::size_t>(
        std::clamp<std::ptrdiff_t>(after - axis.begin(), 1, static_cast<std::ptrdiff_t>(n) - 1));
    const double a = axis[k - 1];
    const double b = axis[k];
    return static_cast<double>(k - 1) + (b == a ? 0.0 : (v - a) / (b - a));
}

// Half a cell beyond the axis' ends: where the picture's edges are, in degrees.
std::pair<double, double> outerEdges(const std::vector<double>& axis) {
    if (axis.empty()) {
        return {0.0, 0.0};
    }
    const double lo = std::min(axis.front(), axis.back());
    const double hi = std::max(axis.front(), axis.back());
    const double half = axis.size() > 1 ? std::fabs(axis[1] - axis[0]) / 2.0 : 0.5;
    return {lo - half, hi + half};
}

constexpr std::array<double, 9> kSteps{0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0};

int decimalsOf(double step) {
    if (step >= 1.0) {
        return 0;
    }
    return std::fabs(step * 10.0 - std::round(step * 10.0)) < 1e-9 ? 1 : 2;
}

// "36°", "35.5°", "35.25°": the step's decimals, without trailing zeros.
QString degreesText(double magnitude, int decimals) {
    QString text = QString::number(magnitude, 'f', decimals);
    if (text.contains(QLatin1Char('.'))) {
        while (text.endsWith(QLatin1Char('0'))) {
            text.chop(1);
        }
        if (text.endsWith(QLatin1Char('.'))) {
            text.chop(1);
        }
    }
    return text + QChar(0x00B0);
}

std::atomic<bool>& missingLogged() {
    static std::atomic<bool> logged{false};
    return logged;
}

void drawShorelines(QPainter& p, const MapFrame& frame, const std::vector<geo::Shoreline>& lines) {
    // Each line as a polyline in pixels, those wholly outside the picture left out (a bin's
    // segments reach past the box). Polylines stroke several times faster than one path of
    // thousands of subpaths.
    const QRectF visible = QRectF(QPointF(0, 0), QSizeF(frame.size())).adjusted(-4, -4, 4, 4);
    std::vector<QPolygonF> solid;
    std::vector<QPolygonF> dashed;
    for (const geo::Shoreline& line : lines) {
        QPolygonF pixels;
        pixels.reserve(static_cast<qsizetype>(line.points.size()));
        for (const geo::LonLat& point : line.points) {
            pixels << frame.toPixel(point.lon, point.lat);
        }
        if (pixels.boundingRect().intersects(visible)) {
            (line.kind == geo::ShoreKind::Border ? dashed : solid).push_back(std::move(pixels));
        }
    }
    // A light halo under a dark line, so a coast reads on viridis' dark blue as on its yellow, and
    // on the missing grey.
    const auto stroke = [&p](const std::vector<QPolygonF>& polylines, const QPen& pen) {
        p.setPen(pen);
        for (const QPolygonF& polyline : polylines) {
            p.drawPolyline(polyline);
        }
    };
    p.setBrush(Qt::NoBrush);
    stroke(solid, QPen(QColor(255, 255, 255, 170), 2.6, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    stroke(dashed, QPen(QColor(255, 255, 255, 120), 2.2, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    stroke(solid, QPen(QColor(20, 20, 20), 1.1, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    stroke(dashed, QPen(QColor(45, 45, 45), 0.9, Qt::DashLine, Qt::FlatCap, Qt::RoundJoin));
}

void drawGraticule(QPainter& p, const MapFrame& frame) {
    const std::vector<GraticuleLine> lines = graticule(frame);
    const QSize size = frame.size();
    p.setPen(QPen(QColor(255, 255, 255, 110), 0.8, Qt::DotLine));
    for (const GraticuleLine& line : lines) {
        if (line.meridian) {
            p.drawLine(QPointF(line.pixel, 0), QPointF(line.pixel, size.height()));
        } else {
            p.drawLine(QPointF(0, line.pixel), QPointF(size.width(), line.pixel));
        }
    }
    // Labels on the map's edges: latitudes down the left, longitudes along the bottom, each on a
    // pale plate; one that would leave the map or touch the one before is left out.
    QFont font = p.font();
    font.setPixelSize(std::clamp(size.height() / 22, 9, 12));
    p.setFont(font);
    const QFontMetricsF metrics(font);
    const double pad = 2.0;
    const double plateHeight = metrics.height() + 2 * pad;
    // Top to bottom, whichever way the field's latitudes run.
    std::vector<GraticuleLine> parallels;
    std::copy_if(lines.begin(), lines.end(), std::back_inserter(parallels),
                 [](const GraticuleLine& line) { return !line.meridian; });
    std::sort(parallels.begin(), parallels.end(),
              [](const GraticuleLine& a, const GraticuleLine& b) { return a.pixel < b.pixel; });
    double lastEdge = -1e9;
    for (const GraticuleLine& line : parallels) {
        const double w = metrics.horizontalAdvance(line.label) + 2 * pad;
        const QRectF plate(1.0, line.pixel - plateHeight / 2, w, plateHeight);
        if (plate.top() < 0 || plate.bottom() > size.height() - plateHeight || plate.top() < lastEdge) {
            continue;
        }
        lastEdge = plate.bottom() + 2;
        p.fillRect(plate, QColor(255, 255, 255, 190));
        p.setPen(QColor(20, 20, 20));
        p.drawText(plate, Qt::AlignCenter, line.label);
    }
    lastEdge = -1e9;
    for (const GraticuleLine& line : lines) {
        if (!line.meridian) {
            continue;
        }
        const double w = metrics.horizontalAdvance(line.label) + 2 * pad;
        const QRectF plate(line.pixel - w / 2, size.height() - plateHeight - 1.0, w, plateHeight);
        if (plate.left() < 0 || plate.right() > size.width() || plate.left() < lastEdge) {
            continue;
        }
        lastEdge = plate.right() + 4;
        p.fillRect(plate, QColor(255, 255, 255, 190));
        p.setPen(QColor(20, 20, 20));
        p.drawText(plate, Qt::AlignCenter, line.label);
    }
}

} // namespace

MapFrame::MapFrame(const GridField& field, QSize size)
    : lats_(field.latitudes)
    , size_(size) {
    lons_.reserve(field.longitudes.size());
    for (const double lon : field.longitudes) {
        if (lons_.empty()) {
            lons_.push_back(lon);
            continue;
        }
        // The step to the next column, taken the short way round: 179.75 -> -180 is +0.25.
        const double step = std::remainder(lon - lons_.back(), 360.0);
        lons_.push_back(lons_.back() + step);
    }
    const auto [west, east] = outerEdges(lons_);
    const auto [south, north] = outerEdges(lats_);
    box_ = {std::max(-90.0, south), std::min(90.0, north), west, east};
}

double MapFrame::xOfLongitude(double lon) const {
    const auto n = static_cast<double>(std::max<std::size_t>(1, lons_.size()));
    return (fractionalIndex(lons_, lon) + 0.5) * size_.width() / n;
}

double MapFrame::yOfLatitude(double lat) const {
    const auto n = static_cast<double>(std::max<std::size_t>(1, lats_.size()));
    return (fractionalIndex(lats_, lat) + 0.5) * size_.height() / n;
}

QPointF MapFrame::toPixel(double lon, double lat) const {
    return {xOfLongitude(lon), yOfLatitude(lat)};
}

double MapFrame::degreesPerPixel() const {
    const double x = (box_.east - box_.west) / std::max(1, size_.width());
    const double y = (box_.north - box_.south) / std::max(1, size_.height());
    return std::min(x, y);
}

double graticuleStep(const MapFrame& frame, double minSpacing) {
    const geo::Box box = frame.box();
    const QSize size = frame.size();
    const double xDegreesPerPixel = (box.east - box.west) / std::max(1, size.width());
    const double yDegreesPerPixel = (box.north - box.south) / std::max(1, size.height());
    const double needed = minSpacing * std::max(xDegreesPerPixel, yDegreesPerPixel);
    for (const double step : kSteps) {
        if (step >= needed) {
            return step;
        }
    }
    return kSteps.back();
}

QString latitudeLabel(double degrees, double step) {
    const int decimals = decimalsOf(step);
    const double rounded = std::round(degrees / step) * step;
    if (std::fabs(rounded) < step / 2) {
        return degreesText(0.0, decimals);
    }
    return degreesText(std::fabs(rounded), decimals) +
           (rounded > 0 ? QStringLiteral("N") : QStringLiteral("S"));
}

QString longitudeLabel(double degrees, double step) {
    const int decimals = decimalsOf(step);
    double v = std::remainder(std::round(degrees / step) * step, 360.0); // [-180, 180]
    if (std::fabs(v) < step / 2) {
        return degreesText(0.0, decimals);
    }
    if (std::fabs(std::fabs(v) - 180.0) < step / 2) {
        return degreesText(180.0, decimals);
    }
    return degreesText(std::fabs(v), decimals) + (v > 0 ? QStringLiteral("E") : QStringLiteral("W"));
}

std::vector<GraticuleLine> graticule(const MapFrame& frame) {
    std::vector<GraticuleLine> lines;
    const geo::Box box = frame.box();
    if (!(box.east > box.west) || !(box.north > box.south) || frame.size().isEmpty()) {
        return lines;
    }
    const double step = graticuleStep(frame);
    const auto addAll = [&](bool meridian, double from, double to) {
        for (auto k = static_cast<long long>(std::ceil(from / step - 1e-9));
             static_cast<double>(k) * step <= to + 1e-9; ++k) {
            const double degrees = static_cast<double>(k) * step;
            if (!meridian && std::fabs(degrees) >= 90.0) {
                continue; // the poles are points, not lines
            }
            const double pixel = meridian ? frame.xOfLongitude(degrees) : frame.yOfLatitude(degrees);
            lines.push_back({meridian, degrees, pixel,
                             meridian ? longitudeLabel(degrees, step) : latitudeLabel(degrees, step)});
        }
    };
    addAll(true, box.west, box.east);
    addAll(false, box.south, box.north);
    return lines;
}

QString drawMapLayers(QImage& image, const GridField& field, const MapLayers& layers) {
    if (image.isNull() || field.rows() == 0 || field.cols() == 0) {
        return {};
    }
    const MapFrame frame(field, image.size());
    QString missing;
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    p.setClipRect(QRect(QPoint(0, 0), image.size()));
    if (layers.shorelines) {
        geo::Shorelines shores;
        try {
            shores = geo::shorelines(frame.box(), geo::resolutionFor(frame.degreesPerPixel()));
        } catch (const Error& e) {
            shores.missing = e.what();
        }
        if (shores.missing.empty()) {
            drawShorelines(p, frame, shores.lines);
        } else {
            missing = QString::fromStdString(shores.missing);
            if (!missingLogged().exchange(true)) {
                spdlog::warn("maps are drawn without coastlines: {}", shores.missing);
            }
        }
    }
    if (layers.graticule) {
        drawGraticule(p, frame);
    }
    return missing;
}

} // namespace isobar::ui
