// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "MapImage.h"

#include <QWidget>

#include <memory>

namespace isobar::ui {

// A field drawn as a heat map with its colour bar and units. The picture is downsampled to the
// widget's size; what the pointer is over (pointAt) and what a click picks are the field's own
// grid points and values, at full resolution.
class MapView : public QWidget {
    Q_OBJECT

public:
    explicit MapView(QWidget* parent = nullptr);

    void setField(std::shared_ptr<const GridField> field);
    // A message instead of a map ("drawing...", "no rows at ...").
    void setMessage(const QString& text);
    const GridField* field() const { return field_.get(); }
    const QString& message() const { return message_; }
    // The rectangle the map takes in the widget (empty without a field).
    QRect mapRect() const;
    // The grid point under a widget position; nullopt outside the map.
    std::optional<std::pair<std::size_t, std::size_t>> pointAt(QPointF pos) const;
    // The picture as shown (for tests and screenshots): the widget's current rendering.
    const QImage& shownImage() const { return image_; }

    QSize sizeHint() const override { return {640, 360}; }
    QSize minimumSizeHint() const override { return {240, 140}; }

signals:
    // The pointer is over a grid point (pointText()), or left the map (empty text).
    void hovered(const QString& text);
    // A grid point was clicked.
    void pointClicked(std::size_t row, std::size_t col);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    void render();

    std::shared_ptr<const GridField> field_;
    ColourScale scale_;
    QString message_;
    QImage image_; // the field at the map rectangle's size
};

} // namespace isobar::ui
