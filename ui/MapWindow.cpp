// SPDX-License-Identifier: GPL-3.0-or-later

#include "MapWindow.h"

#include <QGuiApplication>
#include <QLabel>
#include <QScreen>
#include <QVBoxLayout>

namespace isobar::ui {

MapWindow::MapWindow(std::shared_ptr<const GridField> field, QWidget* parent)
    : QDialog(parent)
    , view_(new MapView)
    , status_(new QLabel) {
    setAttribute(Qt::WA_DeleteOnClose);
    setWindowTitle(field ? fieldTitle(*field) : tr("Map"));
    setSizeGripEnabled(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    status_->setText(tr("Point at the map for a value; drag a box to zoom, right-click or Esc to go back."));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(view_, 1);
    layout->addWidget(status_);
    view_->showPointsIn(status_);
    view_->setField(std::move(field));
    // Most of the screen: a global 0.25 degree field is 1440 x 721 points.
    const QScreen* screen = parent != nullptr && parent->screen() != nullptr
                                ? parent->screen()
                                : QGuiApplication::primaryScreen();
    const QSize room = screen != nullptr ? screen->availableSize() * 0.85 : QSize(1200, 800);
    resize(room.boundedTo(QSize(1600, 1000)).expandedTo(QSize(640, 420)));
}

} // namespace isobar::ui
