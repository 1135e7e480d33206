// SPDX-License-Identifier: GPL-3.0-or-later

// isobar: the desktop face of Isobar. Thin: sets up Qt, hands the command line's files to the
// main window and shows it.

#include "FileListModel.h"
#include "FilesPage.h"
#include "LoadController.h"
#include "MainWindow.h"
#include "Version.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QTabWidget>
#include <QTimer>

#include <clocale>
#include <cstring>
#include <iostream>

namespace {

constexpr const char* kUsage =
    "usage: isobar [--tab files|target|settings|run|history|benchmarks] [--start]\n"
    "              [--screenshot FILE.png [--after SECONDS]] [FILE|FOLDER...]\n\n"
    "The Isobar desktop app. FILEs and FOLDERs of ERA5 files are added to the Files tab: NetCDF\n"
    "(classic, 64-bit offset, netCDF-4/HDF5), GRIB editions 1 and 2, and the CDS's ZIP archives.\n"
    "  --tab NAME         open on that tab\n"
    "  --start            start loading them at once (to the target chosen last time)\n"
    "  --screenshot FILE  save a picture of the window after --after seconds (default 3), then\n"
    "                     cancel any load and quit: for bug reports and documentation\n"
    "  --version          print the version and the licence\n\n"
    "For the command line, see isobar-cli --help.\n";

} // namespace

int main(int argc, char** argv) {
    // Answered before QApplication exists, so they work without a display.
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--version") == 0 || std::strcmp(argv[i], "-V") == 0) {
            std::cout << "isobar " << isobar::kVersion << "\n"
                      << isobar::kCopyright << "\n"
                      << isobar::kLicence << "\n";
            return 0;
        }
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            std::cout << kUsage;
            return 0;
        }
    }
    QApplication app(argc, argv);
    // Qt takes the user's locale for the C library too; the engine writes and reads numbers in SQL,
    // file names and reports with printf and strtod, which must keep the decimal point.
    std::setlocale(LC_NUMERIC, "C"); // NOLINT(concurrency-mt-unsafe): no other thread runs yet
    QApplication::setApplicationName(QStringLiteral("Isobar"));
    QApplication::setOrganizationName(QStringLiteral("Isobar"));
    QApplication::setApplicationVersion(QString::fromUtf8(isobar::kVersion));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/isobar/icons/isobar.svg")));

    QCommandLineParser parser;
    const QCommandLineOption tab(QStringLiteral("tab"), QString(), QStringLiteral("NAME"));
    const QCommandLineOption start(QStringLiteral("start"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"), QString(), QStringLiteral("FILE"));
    const QCommandLineOption after(QStringLiteral("after"), QString(), QStringLiteral("SECONDS"),
                                   QStringLiteral("3"));
    parser.addOptions({tab, start, screenshot, after});
    parser.addPositionalArgument(QStringLiteral("files"), QString());
    if (!parser.parse(QApplication::arguments())) {
        std::cerr << "isobar: " << parser.errorText().toStdString() << "\n\n" << kUsage;
        return 2;
    }
    const QStringList tabs{QStringLiteral("files"), QStringLiteral("target"),  QStringLiteral("settings"),
                           QStringLiteral("run"),   QStringLiteral("history"), QStringLiteral("benchmarks")};
    if (parser.isSet(tab) && !tabs.contains(parser.value(tab))) {
        std::cerr << "isobar: --tab: '" << parser.value(tab).toStdString() << "' is none of "
                  << tabs.join(QStringLiteral(", ")).toStdString() << "\n";
        return 2;
    }
    bool secondsOk = false;
    const double seconds = parser.value(after).toDouble(&secondsOk);
    if (!secondsOk || !(seconds >= 0 && seconds <= 86'400)) {
        std::cerr << "isobar: --after: a number of seconds, not '" << parser.value(after).toStdString()
                  << "'\n";
        return 2;
    }

    isobar::ui::MainWindow window;
    window.show();
    window.startupChecks();
    if (!parser.positionalArguments().isEmpty()) {
        window.filesPage()->addPaths(parser.positionalArguments());
        window.tabs()->setCurrentIndex(0);
    }
    if (parser.isSet(tab)) {
        window.tabs()->setCurrentIndex(static_cast<int>(tabs.indexOf(parser.value(tab))));
    }
    if (parser.isSet(start)) {
        // Once the files are inspected and the startup check of the target is done.
        auto* poll = new QTimer(&window);
        QObject::connect(poll, &QTimer::timeout, &window, [&window, poll, &parser, &tab, &tabs] {
            // Not while a question is open (a restore offer): the start would ask it again.
            if (!window.filesPage()->model()->inspecting() && window.lastCheck() &&
                QApplication::activeModalWidget() == nullptr) {
                poll->stop();
                window.startLoad();
                if (parser.isSet(tab)) {
                    window.tabs()->setCurrentIndex(static_cast<int>(tabs.indexOf(parser.value(tab))));
                }
            }
        });
        poll->start(100);
    }
    if (parser.isSet(screenshot)) {
        const QString file = parser.value(screenshot);
        QTimer::singleShot(static_cast<int>(seconds * 1000), &window, [&window, file] {
            if (!window.grab().save(file)) {
                std::cerr << "isobar: cannot write " << file.toStdString() << "\n";
            }
            window.controller()->cancel();
            window.controller()->wait(); // rolled back and restored before quitting
            QApplication::quit();
        });
    }
    return QApplication::exec();
}
