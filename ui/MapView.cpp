// SPDX-License-Identifier: GPL-3.0-or-later

#include "MapView.h"

#include <QMouseEvent>
#include <QPainter>

#include <cmath>

namespace isobar::ui {

namespace {

constexpr int kBarHeight = 12;

QString scaleNumber(float v) {
    return QString::number(static_cast<double>(v), 'g', 4);
}

} // namespace

MapView::MapView(QWidget* parent)
    : QWidget(parent) {
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void MapView::setField(std::shared_ptr<const GridField> field) {
    field_ = std::move(field);
    message_.clear();
    scale_ = field_ ? ColourScale::of(*field_) : ColourScale{};
    render();
    update();
}

void MapView::setMessage(const QString& text) {
    field_.reset();
    message_ = text;
    image_ = {};
    update();
}

QRect MapView::mapRect() const {
    if (!field_ || field_->rows() == 0 || field_->cols() == 0) {
        return {};
    }
    const int textHeight = fontMetrics().height();
    const QRect area = rect().adjusted(4, 4, -4, -(kBarHeight + textHeight + 12));
    if (area.width() < 8 || area.height() < 8) {
        return {};
    }
    // The field's shape, as large as fits (grid cells square in degrees).
    const double aspect = static_cast<double>(field_->rows()) / static_cast<double>(field_->cols());
    int w = area.width();
    int h = static_cast<int>(std::lround(w * aspect));
    if (h > area.height()) {
        h = area.height();
        w = std::max(1, static_cast<int>(std::lround(h / aspect)));
    }
    return {area.left() + (area.width() - w) / 2, area.top() + (area.height() - h) / 2, w, h};
}

void MapView::render() {
    const QRect r = mapRect();
    image_ = field_ && !r.isEmpty() ? fieldImage(*field_, scale_, r.width(), r.height()) : QImage();
}

std::optional<std::pair<std::size_t, std::size_t>> MapView::pointAt(QPointF pos) const {
    const QRect r = mapRect();
    // Pixel x covers [x, x + 1): the map's last pixel reaches left + width.
    if (r.isEmpty() || pos.x() < r.left() || pos.y() < r.top() || pos.x() >= r.left() + r.width() ||
        pos.y() >= r.top() + r.height()) {
        return std::nullopt;
    }
    return pixelToPoint(*field_, r.width(), r.height(), pos.x() - r.left(), pos.y() - r.top());
}

void MapView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QRect r = mapRect();
    if (!field_ || r.isEmpty()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, message_);
        return;
    }
    p.drawImage(r, image_);
    p.setPen(palette().color(QPalette::Mid));
    p.drawRect(r.adjusted(-1, -1, 0, 0));
    // The colour bar under the map, its ends labelled with the units.
    const QRect bar(r.left(), r.bottom() + 6, r.width(), kBarHeight);
    for (int x = 0; x < bar.width(); ++x) {
        p.setPen(ColourScale::ramp(bar.width() == 1 ? 0.0 : static_cast<double>(x) / (bar.width() - 1)));
        p.drawLine(bar.left() + x, bar.top(), bar.left() + x, bar.bottom());
    }
    p.setPen(palette().color(QPalette::Text));
    const QString units = QString::fromStdString(field_->units);
    const QRect labels(bar.left(), bar.bottom() + 2, bar.width(), fontMetrics().height());
    p.drawText(labels, Qt::AlignLeft, scaleNumber(scale_.low) + QStringLiteral(" ") + units);
    p.drawText(labels, Qt::AlignRight, scaleNumber(scale_.high) + QStringLiteral(" ") + units);
    const std::size_t missing = field_->missingCount();
    if (missing > 0) {
        p.drawText(labels, Qt::AlignHCenter, tr("grey: %n missing", nullptr, static_cast<int>(missing)));
    }
}

void MapView::resizeEvent(QResizeEvent*) {
    render();
}

void MapView::mouseMoveEvent(QMouseEvent* event) {
    const auto point = pointAt(event->position());
    emit hovered(point ? pointText(*field_, point->first, point->second) : QString());
}

void MapView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) {
        return;
    }
    if (const auto point = pointAt(event->position())) {
        emit pointClicked(point->first, point->second);
    }
}

void MapView::leaveEvent(QEvent*) {
    emit hovered(QString());
}

} // namespace isobar::ui
