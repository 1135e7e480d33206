// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "MapImage.h"

#include <QWidget>

#include <optional>
#include <vector>

class QLabel;
class QRubberBand;

#include <memory>

namespace isobar::ui {

// A field drawn as a heat map with its colour bar and units, coastlines and a graticule over it. The
// picture is downsampled to the widget's size; what the pointer is over (pointAt) and what a click
// picks are the field's own grid points and values, at full resolution. Dragging a box zooms to it
// (its points, its colour scale); a right click, Backspace or Escape goes back a step. A new field
// of the same grid (another time step) keeps the zoom.
class MapView : public QWidget {
    Q_OBJECT

public:
    explicit MapView(QWidget* parent = nullptr);

    void setField(std::shared_ptr<const GridField> field);
    // A message instead of a map ("drawing...", "no rows at ...").
    void setMessage(const QString& text);
    // The field as shown: the zoomed part when zoomed (rows and columns of pointAt() and
    // pointClicked() are this field's).
    const GridField* field() const { return field_.get(); }
    // The whole field given to setField().
    const std::shared_ptr<const GridField>& wholeField() const { return whole_; }

    // Shows rows [row, row + rows) and columns [col, col + cols) of the field shown now (at least
    // 2 x 2 points); the step before stays for zoomOut().
    void zoomTo(std::size_t row, std::size_t rows, std::size_t col, std::size_t cols);
    // One step back; false when not zoomed.
    bool zoomOut();
    bool zoomed() const { return !zooms_.empty(); }
    const QString& message() const { return message_; }
    // The rectangle the map takes in the widget (empty without a field).
    QRect mapRect() const;
    // The grid point under a widget position; nullopt outside the map.
    std::optional<std::pair<std::size_t, std::size_t>> pointAt(QPointF pos) const;
    // The picture as shown (for tests and screenshots): the widget's current rendering.
    const QImage& shownImage() const { return image_; }
    // Which layers are drawn over the field (all by default).
    void setLayers(const MapLayers& layers);
    // What the map could not draw ("coastlines need the Debian package ..."), empty when all.
    const QString& missingLayers() const { return missingLayers_; }
    // Shows in `label` the point under the pointer, and the point clicked (pointText()).
    void showPointsIn(QLabel* label);

    QSize sizeHint() const override { return {640, 360}; }
    QSize minimumSizeHint() const override { return {240, 140}; }

signals:
    // The pointer is over a grid point (pointText()), or left the map (empty text).
    void hovered(const QString& text);
    // A grid point was clicked.
    void pointClicked(std::size_t row, std::size_t col);
    // The map zoomed in or out (field() is another part of the whole).
    void zoomChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void leaveEvent(QEvent* event) override;

private:
    void render();
    // field_ from whole_ and zooms_.
    void applyZooms();

    struct Zoom {
        std::size_t row, rows, col, cols; // of the whole field
    };
    std::shared_ptr<const GridField> whole_;
    std::vector<Zoom> zooms_; // innermost last
    std::optional<QPoint> dragFrom_;
    QRubberBand* band_ = nullptr;
    std::shared_ptr<const GridField> field_;
    ColourScale scale_;
    QString message_;
    QImage image_; // the field at the map rectangle's size, with its layers
    MapLayers layers_;
    QString missingLayers_;
};

} // namespace isobar::ui
