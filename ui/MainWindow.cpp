#include "MainWindow.h"

#include "Version.h"

#include <QLabel>
#include <QVBoxLayout>

namespace isobar::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent) {
    setWindowTitle(QStringLiteral("Isobar %1").arg(QString::fromUtf8(kVersion)));
    auto* central = new QWidget(this);
    auto* layout = new QVBoxLayout(central);
    auto* label =
        new QLabel(tr("<h2>Isobar</h2>"
                      "<p>Loads ERA5 reanalysis NetCDF files into PostgreSQL with parallel binary COPY.</p>"
                      "<p>Loading from the desktop is being built. Until then, load from a shell:<br>"
                      "<code>isobar-cli load FILE.nc</code></p>"),
                   central);
    label->setTextFormat(Qt::RichText);
    label->setWordWrap(true);
    layout->addWidget(label);
    layout->addStretch();
    setCentralWidget(central);
    resize(720, 480);
}

} // namespace isobar::ui
