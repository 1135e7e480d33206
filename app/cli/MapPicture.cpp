// SPDX-License-Identifier: GPL-3.0-or-later

#include "MapPicture.h"

#include "util/Error.h"

#ifdef ISOBAR_WITH_MAPS
#include "MapImage.h"

#include <QByteArray>
#include <QGuiApplication>
#include <QImage>
#include <QString>
#include <QtGlobal>

#include <spdlog/spdlog.h>

#include <memory>
#endif

namespace isobar::cli {

#ifdef ISOBAR_WITH_MAPS

void writeMapPicture(const GridField& field, const std::filesystem::path& path, int width) {
    // Fonts need a QGuiApplication; a script on a remote machine has no display, so the offscreen
    // platform unless the caller chose one.
    std::unique_ptr<QGuiApplication> app;
    if (QGuiApplication::instance() == nullptr) {
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
            qputenv("QT_QPA_PLATFORM", QByteArrayLiteral("offscreen"));
        }
        // Qt's chatter about the platform (no XDG_RUNTIME_DIR under sudo or cron) is not the
        // command's output: --verbose shows it.
        qInstallMessageHandler([](QtMsgType, const QMessageLogContext&, const QString& message) {
            spdlog::debug("qt: {}", message.toStdString());
        });
        static int argc = 1;
        static char name[] = "isobar-cli";
        static char* argv[] = {name, nullptr};
        app = std::make_unique<QGuiApplication>(argc, argv);
    }
    const QImage picture = ui::mapPicture(field, width);
    const QString file = QString::fromStdString(path.string());
    if (!picture.save(file, "PNG")) {
        throw Error("cannot write the map to " + path.string() +
                    ": check that its folder exists and is writable, and that there is room on the disk");
    }
}

#else

void writeMapPicture(const GridField&, const std::filesystem::path&, int) {
    throw Error("this isobar-cli was built without the desktop parts (ISOBAR_BUILD_GUI=OFF), which draw "
                "maps: build with them, or use the desktop app's Files tab");
}

#endif

} // namespace isobar::cli
