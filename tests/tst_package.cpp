// SPDX-License-Identifier: GPL-3.0-or-later

// The Debian package, as a user's machine gets it: built by CPack from this build, unpacked into
// a scratch root (dpkg -x), checked by the tools desktop environments and Debian check it with,
// and then run from there - from any directory, and as a normal user, who gets the embedded
// cluster and the reports in their own home and writes nothing next to the programs.

#include "TestUtil.h"
#include "Version.h"
#include "util/Process.h"

#include <QImage>
#include <QRegularExpression>
#include <QtTest>

#include <array>
#include <filesystem>
#include <pwd.h>
#include <set>
#include <unistd.h>

using namespace isobar;
namespace fs = std::filesystem;

namespace {

ProcessResult run(const std::string& program, const std::vector<std::string>& args,
                  const ProcessOptions& options = {}) {
    return runProcess(program, args, options);
}

// The keys of a desktop entry's [Desktop Entry] group (QSettings would read ';' as a comment).
QMap<QString, QString> desktopEntryKeys(const fs::path& file) {
    QFile in(QString::fromStdString(file.string()));
    QMap<QString, QString> keys;
    if (!in.open(QIODevice::ReadOnly)) {
        return keys;
    }
    bool inGroup = false;
    for (const QString& line : QString::fromUtf8(in.readAll()).split(QLatin1Char('\n'))) {
        if (line.startsWith(QLatin1Char('['))) {
            inGroup = line == QStringLiteral("[Desktop Entry]");
        } else if (inGroup && line.contains(QLatin1Char('='))) {
            keys.insert(line.section(QLatin1Char('='), 0, 0), line.section(QLatin1Char('='), 1));
        }
    }
    return keys;
}

#define VERIFY_RAN(result, what)                                                                             \
    QVERIFY2((result).ok(),                                                                                  \
             qPrintable(QStringLiteral("%1: %2\n%3")                                                         \
                            .arg(QStringLiteral(what), QString::fromStdString((result).describeOutcome()),   \
                                 QString::fromStdString((result).output))))

// Every file and directory under `root`, relative to it.
std::set<std::string> listTree(const fs::path& root) {
    std::set<std::string> paths;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
        paths.insert(fs::relative(entry.path(), root).string());
    }
    return paths;
}

} // namespace

class TestPackage : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    fs::path deb_;
    fs::path root_; // the package unpacked
    fs::path usr_;

    QString fieldOf(const char* field) {
        const ProcessResult r = run("/usr/bin/dpkg-deb", {"--field", deb_.string(), field});
        return r.ok() ? QString::fromStdString(r.output).trimmed() : QString();
    }

private slots:
    void initTestCase() {
        for (const char* tool : {"dpkg-deb", "lintian", "desktop-file-validate", "appstreamcli", "man",
                                 "update-mime-database", "setpriv"}) {
            QVERIFY2(!QStandardPaths::findExecutable(QString::fromUtf8(tool)).isEmpty(),
                     qPrintable(QStringLiteral("%1 is missing: packaging/test.sh installs it").arg(tool)));
        }
        QVERIFY(dir_.isValid());
        const fs::path out = dir_.path().toStdString();
        // The package of this very build, written into the scratch directory.
        const ProcessResult cpack =
            run(ISOBAR_CPACK_COMMAND, {"-G", "DEB", "-B", (out / "cpack").string(), "--config",
                                       std::string(ISOBAR_BUILD_DIR) + "/CPackConfig.cmake"});
        VERIFY_RAN(cpack, "cpack");
        for (const auto& entry : fs::directory_iterator(out / "cpack")) {
            if (entry.path().extension() == ".deb") {
                deb_ = entry.path();
            }
        }
        QVERIFY2(!deb_.empty(), cpack.output.c_str());
        root_ = out / "root";
        VERIFY_RAN(run("/usr/bin/dpkg-deb", {"-x", deb_.string(), root_.string()}), "dpkg-deb -x");
        usr_ = root_ / "usr";
    }

    void controlFields() {
        QCOMPARE(fieldOf("Package"), QStringLiteral("isobar"));
        QCOMPARE(fieldOf("Version"), QString::fromUtf8(kVersion));
        QCOMPARE(
            QString::fromStdString(deb_.filename().string()),
            QStringLiteral("isobar_%1_%2.deb").arg(QString::fromUtf8(kVersion), fieldOf("Architecture")));
        // What the executables link (found by dpkg-shlibdeps) and what the app loads at run time.
        const QString depends = fieldOf("Depends");
        for (const char* dependency :
             {"libqt6core6", "libqt6widgets6", "libqt6charts6", "libpq5", "libnetcdf19", "libeccodes0",
              "libspdlog1", "libzip4", "qt6-qpa-plugins", "libqt6svg6"}) {
            QVERIFY2(depends.contains(QString::fromUtf8(dependency)),
                     qPrintable(QStringLiteral("%1 not in Depends: %2").arg(dependency, depends)));
        }
        QVERIFY2(fieldOf("Recommends").contains(QStringLiteral("postgresql-15")) &&
                     fieldOf("Recommends").contains(QStringLiteral("gmt-gshhg-low")),
                 qPrintable(fieldOf("Recommends")));
        QVERIFY2(fieldOf("Suggests").contains(QStringLiteral("timescaledb")),
                 qPrintable(fieldOf("Suggests")));
        const QString description = fieldOf("Description");
        QVERIFY2(description.contains(QStringLiteral("ERA5")) && description.count(QLatin1Char('\n')) >= 5,
                 qPrintable(description));
    }

    // Every file where Debian and the desktop environments look for it, and nothing elsewhere.
    void filesWhereDesktopsLook() {
        const std::vector<std::string> expected{
            "bin/isobar",
            "bin/isobar-cli",
            "share/applications/io.github.isobar.Isobar.desktop",
            "share/metainfo/io.github.isobar.Isobar.metainfo.xml",
            "share/icons/hicolor/scalable/apps/isobar.svg",
            "share/mime/packages/isobar.xml",
            "share/man/man1/isobar.1.gz",
            "share/man/man1/isobar-cli.1.gz",
            "share/doc/isobar/copyright",
            "share/doc/isobar/changelog.gz",
        };
        for (const std::string& file : expected) {
            QVERIFY2(fs::is_regular_file(usr_ / file), file.c_str());
        }
        for (const char* program : {"bin/isobar", "bin/isobar-cli"}) {
            QVERIFY(access((usr_ / program).c_str(), X_OK) == 0);
        }
        for (const int size : {16, 22, 24, 32, 48, 64, 128, 256, 512}) {
            const std::string png = "share/icons/hicolor/" + std::to_string(size) + "x" +
                                    std::to_string(size) + "/apps/isobar.png";
            const QImage icon(QString::fromStdString((usr_ / png).string()));
            QVERIFY2(!icon.isNull(), png.c_str());
            QCOMPARE(icon.size(), QSize(size, size));
            // Drawn, not blank: the middle of the icon is the opaque background of the SVG.
            QCOMPARE(qAlpha(icon.pixel(size / 2, size / 2)), 255);
        }
        for (const auto& entry : fs::directory_iterator(root_)) {
            QCOMPARE(QString::fromStdString(entry.path().filename().string()), QStringLiteral("usr"));
        }
    }

    void desktopEntry() {
        const fs::path desktop = usr_ / "share/applications/io.github.isobar.Isobar.desktop";
        const ProcessResult validate = run("/usr/bin/desktop-file-validate", {desktop.string()});
        VERIFY_RAN(validate, "desktop-file-validate");
        QVERIFY2(!QString::fromStdString(validate.output).contains(QStringLiteral("error")),
                 validate.output.c_str());
        const QMap<QString, QString> entry = desktopEntryKeys(desktop);
        // The program and icon it names are the package's own.
        const QString exec = entry.value(QStringLiteral("Exec"));
        QVERIFY2(exec.startsWith(QStringLiteral("isobar ")), qPrintable(exec));
        QVERIFY(fs::exists(usr_ / "bin" / exec.section(QLatin1Char(' '), 0, 0).toStdString()));
        QCOMPARE(entry.value(QStringLiteral("Icon")), QStringLiteral("isobar"));
        // "Open with Isobar" for both formats it reads.
        const QString types = entry.value(QStringLiteral("MimeType"));
        QVERIFY2(types.contains(QStringLiteral("application/x-netcdf")) &&
                     types.contains(QStringLiteral("application/x-grib")),
                 qPrintable(types));
    }

    void appStreamMetainfo() {
        const fs::path metainfo = usr_ / "share/metainfo/io.github.isobar.Isobar.metainfo.xml";
        VERIFY_RAN(run("/usr/bin/appstreamcli", {"validate", "--no-net", metainfo.string()}),
                   "appstreamcli validate");
    }

    // GPL-3.0-or-later everywhere a user or a distribution looks: the Debian copyright (DEP-5: every
    // file under GPL-3+, that licence's text named), the AppStream metadata, and both man pages' COPYRIGHT
    // (manPages).
    void licenceIsGpl3OrLater() {
        QFile copyright(QString::fromStdString((usr_ / "share/doc/isobar/copyright").string()));
        QVERIFY(copyright.open(QIODevice::ReadOnly));
        const QStringList paragraphs = QString::fromUtf8(copyright.readAll()).split(QStringLiteral("\n\n"));
        QVERIFY2(paragraphs.value(0).startsWith(
                     "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"),
                 qPrintable(paragraphs.value(0)));
        bool allFiles = false;
        bool licenceText = false;
        for (const QString& paragraph : paragraphs) {
            allFiles =
                allFiles || (paragraph.startsWith("Files: *\n") && paragraph.contains("\nLicense: GPL-3+"));
            licenceText = licenceText || (paragraph.startsWith("License: GPL-3+\n") &&
                                          paragraph.contains("either version 3 of the License, or") &&
                                          paragraph.contains("/usr/share/common-licenses/GPL-3"));
        }
        QVERIFY2(allFiles && licenceText, qPrintable(paragraphs.join("\n\n")));
        QFile metainfo(
            QString::fromStdString((usr_ / "share/metainfo/io.github.isobar.Isobar.metainfo.xml").string()));
        QVERIFY(metainfo.open(QIODevice::ReadOnly));
        QVERIFY(metainfo.readAll().contains("<project_license>GPL-3.0-or-later</project_license>"));
    }

    // The file types, compiled as the system compiles them: GRIB by name and by its first bytes.
    void fileTypes() {
        const fs::path mime = fs::path(dir_.path().toStdString()) / "mime";
        fs::create_directories(mime / "packages");
        fs::copy_file(usr_ / "share/mime/packages/isobar.xml", mime / "packages/isobar.xml");
        VERIFY_RAN(run("/usr/bin/update-mime-database", {mime.string()}), "update-mime-database");
        QFile globs(QString::fromStdString((mime / "globs2").string()));
        QVERIFY(globs.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(globs.readAll());
        for (const char* glob :
             {"application/x-grib:*.grib", "application/x-grib:*.grb2", "application/x-netcdf:*.nc4"}) {
            QVERIFY2(text.contains(QString::fromUtf8(glob)), qPrintable(text));
        }
        QFile magic(QString::fromStdString((mime / "magic").string()));
        QVERIFY(magic.open(QIODevice::ReadOnly));
        const QByteArray rules = magic.readAll();
        QVERIFY2(rules.contains("[50:application/x-grib]") && rules.contains("GRIB"), rules.constData());
    }

    void lintianFindsNoErrors() {
        const ProcessResult lintian =
            run("/usr/bin/lintian", {"--fail-on", "error", "--tag-display-limit", "0", deb_.string()});
        VERIFY_RAN(lintian, "lintian");
        QVERIFY2(
            !QString::fromStdString(lintian.output)
                 .contains(QRegularExpression(QStringLiteral("^E: "), QRegularExpression::MultilineOption)),
            lintian.output.c_str());
    }

    // Both man pages render, and say what --help says: every command's own help is in isobar-cli's.
    void manPages() {
        ProcessOptions options;
        options.setEnvironment = {{"MANWIDTH", "250"}, {"MAN_KEEP_FORMATTING", ""}};
        for (const char* page : {"isobar", "isobar-cli"}) {
            const fs::path file = usr_ / "share/man/man1" / (std::string(page) + ".1.gz");
            const ProcessResult man = run("/usr/bin/man", {"-l", "-P", "cat", file.string()}, options);
            VERIFY_RAN(man, "man -l");
            const QString text = QString::fromStdString(man.output);
            QVERIFY2(text.contains(QString::fromUtf8(page).toUpper() + QStringLiteral("(1)")),
                     qPrintable(text));
            QVERIFY2(text.contains(QStringLiteral("usage: %1").arg(QString::fromUtf8(page))),
                     qPrintable(text));
            // help2man's COPYRIGHT section, from --version.
            QVERIFY2(text.contains(QStringLiteral("COPYRIGHT")) &&
                         text.contains(QStringLiteral("GNU GPL version 3 or later")),
                     qPrintable(text));
            // No complaint of troff's about the page (they name the input: "troff: <standard input>:...").
            QVERIFY2(!text.contains(QStringLiteral("troff")), qPrintable(text));
        }
        const fs::path cliPage = usr_ / "share/man/man1/isobar-cli.1.gz";
        const QString text = QString::fromStdString(
            run("/usr/bin/man", {"-l", "-P", "cat", cliPage.string()}, options).output);
        for (const char* command : {"load", "inspect", "synth", "settings", "report", "bench", "cluster"}) {
            const ProcessResult help = run(ISOBAR_CLI_PATH, {command, "--help"});
            VERIFY_RAN(help, "isobar-cli COMMAND --help");
            const QString usage = QString::fromStdString(help.output).section(QLatin1Char('\n'), 0, 0);
            QVERIFY2(text.contains(usage), qPrintable(usage));
        }
    }

    // The installed programs run from another directory than the package's.
    void installedProgramsRun() {
        ProcessOptions elsewhere;
        elsewhere.workingDirectory = dir_.path().toStdString();
        const std::string cli = (usr_ / "bin/isobar-cli").string();
        const std::string app = (usr_ / "bin/isobar").string();
        const ProcessResult cliVersion = run(cli, {"--version"}, elsewhere);
        VERIFY_RAN(cliVersion, "isobar-cli --version");
        const QStringList cliLines = QString::fromStdString(cliVersion.output).trimmed().split('\n');
        QCOMPARE(cliLines.value(0), QStringLiteral("isobar-cli %1").arg(kVersion));
        QVERIFY2(cliLines.value(1).startsWith("Copyright (C) "), qPrintable(cliLines.join('\n')));
        QVERIFY2(cliLines.value(2).contains("GNU GPL version 3 or later"), qPrintable(cliLines.join('\n')));
        const ProcessResult cliHelp = run(cli, {"--help"}, elsewhere);
        VERIFY_RAN(cliHelp, "isobar-cli --help");
        QVERIFY(QString::fromStdString(cliHelp.output).contains(QStringLiteral("commands:")));
        // The app answers these without a display.
        ProcessOptions noDisplay = elsewhere;
        noDisplay.unsetEnvironment = {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"};
        const ProcessResult appVersion = run(app, {"--version"}, noDisplay);
        VERIFY_RAN(appVersion, "isobar --version");
        const QStringList appLines = QString::fromStdString(appVersion.output).trimmed().split('\n');
        QCOMPARE(appLines.value(0), QStringLiteral("isobar %1").arg(kVersion));
        QVERIFY2(appLines.value(2).contains("GNU GPL version 3 or later"), qPrintable(appLines.join('\n')));
        VERIFY_RAN(run(app, {"--help"}, noDisplay), "isobar --help");
    }

    // A normal user: the embedded cluster in their data directory, the reports in their state
    // directory, the app starts, and nothing is written next to the programs.
    void asNormalUser() {
        passwd account{};
        passwd* nobody = nullptr;
        std::array<char, 4096> strings{}; // the account's names and paths
        getpwnam_r("nobody", &account, strings.data(), strings.size(), &nobody); // not getpwnam: thread-safe
        QVERIFY2(nobody != nullptr && nobody->pw_uid != 0, "no unprivileged user 'nobody' on this machine");
        // The scratch directory is root's; the user may pass through it to a home of their own.
        fs::permissions(dir_.path().toStdString(),
                        fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
        const fs::path home = fs::path(dir_.path().toStdString()) / "home";
        fs::create_directories(home);
        QCOMPARE(chown(home.c_str(), nobody->pw_uid, nobody->pw_gid), 0);
        const std::set<std::string> before = listTree(root_);

        ProcessOptions user;
        user.runAs = RunAs{"nobody", nobody->pw_uid, nobody->pw_gid, home};
        user.workingDirectory = "/"; // not theirs to write
        user.unsetEnvironment = {"XDG_*", "ISOBAR_*", "PG*"};
        user.setEnvironment = {{"QT_QPA_PLATFORM", "offscreen"}};
        const std::string cli = (usr_ / "bin/isobar-cli").string();
        const std::string sample = (home / "sample.nc").string();
        VERIFY_RAN(run(cli, {"synth", "--out", sample, "--hours", "2", "--region", "50,40,0,10"}, user),
                   "isobar-cli synth");
        VERIFY_RAN(run(cli, {"cluster", "start"}, user), "isobar-cli cluster start");
        const ProcessResult load =
            run(cli, {"load", "--table", "package_check", "--workers", "2", sample}, user);
        const ProcessResult app = run(
            (usr_ / "bin/isobar").string(),
            {"--tab", "files", "--screenshot", (home / "window.png").string(), "--after", "2", sample}, user);
        const ProcessResult stop = run(cli, {"cluster", "stop"}, user);
        VERIFY_RAN(load, "isobar-cli load");
        QVERIFY2(QString::fromStdString(load.output).contains(QStringLiteral("COPY 3362")),
                 load.output.c_str());
        VERIFY_RAN(app, "isobar --screenshot");
        VERIFY_RAN(stop, "isobar-cli cluster stop");

        QVERIFY(fs::is_regular_file(home / ".local/share/isobar/pg15/data/PG_VERSION"));
        bool report = false;
        for (const auto& entry : fs::directory_iterator(home / ".local/state/isobar/reports")) {
            report = report || entry.path().extension() == ".json";
        }
        QVERIFY2(report, "no run report in ~/.local/state/isobar/reports");
        QVERIFY(!QImage(QString::fromStdString((home / "window.png").string())).isNull());
        QVERIFY(listTree(root_) == before);
    }
};

QTEST_GUILESS_MAIN(TestPackage)
#include "tst_package.moc"
