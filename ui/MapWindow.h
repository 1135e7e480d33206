// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "MapView.h"

#include <QDialog>

#include <memory>

class QLabel;

namespace isobar::ui {

// A map in a window of its own, as large as the screen allows: the field a panel shows, its
// coastlines and graticule, zoom by dragging a box (right-click or Esc goes back), the value under
// the pointer. Closing it deletes it.
class MapWindow : public QDialog {
    Q_OBJECT

public:
    explicit MapWindow(std::shared_ptr<const GridField> field, QWidget* parent = nullptr);

    MapView* view() const { return view_; }
    QLabel* statusLabel() const { return status_; }

private:
    MapView* view_;
    QLabel* status_;
};

} // namespace isobar::ui
