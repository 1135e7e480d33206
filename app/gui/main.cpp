// isobar: the desktop face of Isobar. Thin: sets up Qt and shows the main window.

#include "MainWindow.h"
#include "Version.h"

#include <QApplication>
#include <QIcon>

#include <cstring>
#include <iostream>

int main(int argc, char** argv) {
    // Answered before QApplication exists, so they work without a display.
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--version") == 0 || std::strcmp(argv[i], "-V") == 0) {
            std::cout << "isobar " << isobar::kVersion << "\n";
            return 0;
        }
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            std::cout << "usage: isobar [--version] [Qt options]\n\n"
                         "The Isobar desktop app. For the command line, see isobar-cli --help.\n";
            return 0;
        }
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("Isobar"));
    QApplication::setOrganizationName(QStringLiteral("Isobar"));
    QApplication::setApplicationVersion(QString::fromUtf8(isobar::kVersion));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/isobar/icons/isobar.svg")));
    isobar::ui::MainWindow window;
    window.show();
    window.startupChecks();
    return QApplication::exec();
}
