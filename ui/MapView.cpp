// SPDX-License-Identifier: GPL-3.0-or-later

#include "MapView.h"

#include <QKeyEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QRubberBand>

#include <algorithm>
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
    setFocusPolicy(Qt::ClickFocus);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setToolTip(tr("Drag a box to zoom to it; right-click or Esc goes back"));
}

namespace {

bool sameGrid(const GridField& a, const GridField& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() && a.latitudes == b.latitudes &&
           a.longitudes == b.longitudes;
}

} // namespace

void MapView::setField(std::shared_ptr<const GridField> field) {
    // Another time step or level of the same grid keeps the zoom; another grid starts whole.
    if (!field || !whole_ || !sameGrid(*field, *whole_)) {
        zooms_.clear();
    }
    whole_ = std::move(field);
    message_.clear();
    applyZooms();
}

void MapView::applyZooms() {
    if (whole_ && !zooms_.empty()) {
        const Zoom& z = zooms_.back();
        field_ = std::make_shared<const GridField>(whole_->cropped(z.row, z.rows, z.col, z.cols));
    } else {
        field_ = whole_;
    }
    scale_ = field_ ? ColourScale::of(*field_) : ColourScale{};
    render();
    update();
}

void MapView::zoomTo(std::size_t row, std::size_t rows, std::size_t col, std::size_t cols) {
    if (!field_ || field_->rows() < 2 || field_->cols() < 2) {
        return;
    }
    // At least 2 x 2 points, inside the field shown.
    row = std::min(row, field_->rows() - 2);
    col = std::min(col, field_->cols() - 2);
    rows = std::clamp<std::size_t>(rows, 2, field_->rows() - row);
    cols = std::clamp<std::size_t>(cols, 2, field_->cols() - col);
    const std::size_t baseRow = zooms_.empty() ? 0 : zooms_.back().row;
    const std::size_t baseCol = zooms_.empty() ? 0 : zooms_.back().col;
    zooms_.push_back({baseRow + row, rows, baseCol + col, cols});
    applyZooms();
    emit zoomChanged();
}

bool MapView::zoomOut() {
    if (!field_ || zooms_.empty()) {
        return false;
    }
    zooms_.pop_back();
    applyZooms();
    emit zoomChanged();
    return true;
}

void MapView::showPointsIn(QLabel* label) {
    connect(this, &MapView::hovered, label, [label](const QString& text) {
        if (!text.isEmpty()) {
            label->setText(text);
        }
    });
    connect(this, &MapView::pointClicked, label, [this, label](std::size_t row, std::size_t col) {
        if (const GridField* f = field()) {
            label->setText(pointText(*f, row, col));
        }
    });
}

void MapView::setLayers(const MapLayers& layers) {
    layers_ = layers;
    render();
    update();
}

void MapView::setMessage(const QString& text) {
    field_.reset(); // the whole field and the zoom stay, for the next field of the same grid
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
    image_ =
        field_ && !r.isEmpty() ? mapImage(*field_, scale_, r.size(), layers_, &missingLayers_) : QImage();
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
    if (!missingLayers_.isEmpty()) {
        // What the map lacks (the coastlines' package), over its top edge where no label goes.
        const QRect note(r.left() + 4, r.top() + 4, r.width() - 8, fontMetrics().height() + 4);
        const QString text = fontMetrics().elidedText(missingLayers_, Qt::ElideRight, note.width() - 8);
        p.fillRect(QRect(note.topLeft(), QSize(fontMetrics().horizontalAdvance(text) + 8, note.height())),
                   QColor(255, 255, 255, 210));
        p.setPen(Qt::black);
        p.drawText(note.adjusted(4, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter, text);
    }
    if (zoomed()) {
        const QString back = tr("zoomed: right-click or Esc to go back");
        const int w = fontMetrics().horizontalAdvance(back) + 8;
        const QRect plate(r.right() - w - 3, r.top() + 4, w, fontMetrics().height() + 4);
        p.fillRect(plate, QColor(255, 255, 255, 210));
        p.setPen(Qt::black);
        p.drawText(plate, Qt::AlignCenter, back);
    }
}

void MapView::resizeEvent(QResizeEvent*) {
    render();
}

void MapView::mouseMoveEvent(QMouseEvent* event) {
    const auto point = pointAt(event->position());
    emit hovered(point ? pointText(*field_, point->first, point->second) : QString());
    if (dragFrom_ && (event->buttons() & Qt::LeftButton) && band_ != nullptr) {
        band_->setGeometry(
            QRect(*dragFrom_, event->position().toPoint()).normalized().intersected(mapRect()));
        band_->show();
    }
}

void MapView::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::RightButton) {
        zoomOut();
        return;
    }
    if (event->button() != Qt::LeftButton || !pointAt(event->position())) {
        return;
    }
    dragFrom_ = event->position().toPoint();
    if (band_ == nullptr) {
        band_ = new QRubberBand(QRubberBand::Rectangle, this);
    }
}

void MapView::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !dragFrom_) {
        return;
    }
    const QPoint from = *dragFrom_;
    dragFrom_.reset();
    if (band_ != nullptr) {
        band_->hide();
    }
    const QRect box = QRect(from, event->position().toPoint()).normalized();
    if (box.width() < 6 && box.height() < 6) {
        // A click, not a drag: the point under it.
        if (const auto point = pointAt(event->position())) {
            emit pointClicked(point->first, point->second);
        }
        return;
    }
    // The points under the box's corners (a corner past the map's edge takes the edge's point).
    const QRect r = mapRect();
    const auto clampInto = [&r](QPointF p) {
        return QPointF(std::clamp<double>(p.x(), r.left(), r.left() + r.width() - 0.01),
                       std::clamp<double>(p.y(), r.top(), r.top() + r.height() - 0.01));
    };
    const auto first = pointAt(clampInto(box.topLeft()));
    const auto last = pointAt(clampInto(box.bottomRight()));
    if (first && last) {
        zoomTo(first->first, last->first - first->first + 1, first->second, last->second - first->second + 1);
    }
}

void MapView::keyPressEvent(QKeyEvent* event) {
    if ((event->key() == Qt::Key_Escape || event->key() == Qt::Key_Backspace) && zoomOut()) {
        return;
    }
    QWidget::keyPressEvent(event);
}

void MapView::leaveEvent(QEvent*) {
    emit hovered(QString());
}

} // namespace isobar::ui
