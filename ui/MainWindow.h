#pragma once

#include <QMainWindow>

class QLabel;

namespace isobar::ui {

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
};

} // namespace isobar::ui
