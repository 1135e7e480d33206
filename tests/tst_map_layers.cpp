// SPDX-License-Identifier: GPL-3.0-or-later

// What the maps draw over a field: coastlines where the world has them (known capes and straits land
// on the pixels arithmetic puts them at, open sea and inland stay clear), across the date line too;
// the graticule's steps and labels for a global, a continental and a local box; without the
// coastlines' package, or with a damaged file, the map says so and draws the rest, in the desktop
// and in isobar-cli inspect --map. No server.

#include "FileMapPanel.h"
#include "Fixtures.h"
#include "MapImage.h"
#include "MapOverlay.h"
#include "MapView.h"
#include "MapWindow.h"
#include "TestUtil.h"
#include "era5/FieldReader.h"
#include "geo/Shorelines.h"

#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>

#include <netcdf.h>

#include <cmath>

using namespace isobar;
using namespace isobar::ui;
using namespace isobar::test;

namespace {

// A field of one value on a regular box, rows north to south, columns west to east, longitudes
// normalized to (-180, 180] as fields hold them (a box across the date line runs 170 ... 180,
// -179.75 ...).
GridField uniformField(double north, double south, double west, double east, double step) {
    GridField f;
    f.column = "temperature_2m";
    f.key = "t2m";
    f.units = "degC";
    const auto rows = static_cast<std::size_t>(std::lround((north - south) / step)) + 1;
    const auto cols = static_cast<std::size_t>(std::lround((east - west) / step)) + 1;
    for (std::size_t i = 0; i < rows; ++i) {
        f.latitudes.push_back(north - static_cast<double>(i) * step);
    }
    for (std::size_t j = 0; j < cols; ++j) {
        double lon = std::remainder(west + static_cast<double>(j) * step, 360.0);
        f.longitudes.push_back(lon == -180.0 ? 180.0 : lon);
    }
    f.grid = GlobalGrid::withSpacing(step);
    f.box.northRow = f.grid.latitudeIndex(north);
    f.box.westColumn = f.grid.longitudeIndex(f.longitudes.front());
    f.box.rows = rows;
    f.box.cols = cols;
    f.values.assign(rows * cols, 10.0F);
    return f;
}

// The pixel of (lon, lat) on a picture of a regular field drawn `cell` pixels per grid point:
// grid point (i, j) fills the cell whose centre is ((j + 0.5) * cell, (i + 0.5) * cell).
QPointF expectedPixel(double north, double west, double step, double cell, double lon, double lat) {
    return {((lon - west) / step + 0.5) * cell, ((north - lat) / step + 0.5) * cell};
}

// A coastline's dark core: the uniform field is viridis' teal (green ~145), the halo is white.
bool dark(QRgb c) {
    return std::max({qRed(c), qGreen(c), qBlue(c)}) < 100;
}

// The number of dark pixels within `radius` of `at`.
int darkNear(const QImage& image, QPointF at, int radius) {
    int n = 0;
    for (int y = static_cast<int>(at.y()) - radius; y <= static_cast<int>(at.y()) + radius; ++y) {
        for (int x = static_cast<int>(at.x()) - radius; x <= static_cast<int>(at.x()) + radius; ++x) {
            if (x >= 0 && y >= 0 && x < image.width() && y < image.height() && dark(image.pixel(x, y))) {
                ++n;
            }
        }
    }
    return n;
}

QStringList labels(const std::vector<GraticuleLine>& lines, bool meridians) {
    QStringList out;
    for (const GraticuleLine& line : lines) {
        if (line.meridian == meridians) {
            out << line.label;
        }
    }
    return out;
}

bool installed() {
    return std::filesystem::is_regular_file(geo::gshhgDirectory() / "binned_GSHHS_c.nc");
}

} // namespace

class TestMapLayers : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString nc_; // lat 45..30, lon -15..5 at 0.25 deg, one hour

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        qunsetenv("ISOBAR_GSHHG_DIR");
        nc_ = dir_.path() + "/box.nc";
        FixtureSpec spec =
            cds2024Fixture(range(45, 30, 0.25), range(-15, 5, 0.25), hourly(pgMicros(2024, 3, 1), 1));
        spec.variables.push_back(floatVariable(0, [](std::size_t, std::size_t, std::size_t r, std::size_t c) {
            return 280.0 + static_cast<double>(r + c);
        }));
        writeFixture(nc_, spec);
    }

    // Dragging a box zooms to its points (their own coordinates, values and locations); a click then
    // names a point of the zoomed map; another time step of the grid keeps the zoom; a right click
    // and Esc go back.
    void dragZoomsAndRightClickGoesBack() {
        GridField whole = uniformField(45, 30, -15, 5, 0.25);
        for (std::size_t k = 0; k < whole.values.size(); ++k) {
            whole.values[k] = static_cast<float>(k);
        }
        MapView view;
        view.resize(900, 700);
        view.setField(std::make_shared<const GridField>(whole));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        // The centre of grid point (i, j) of `f` shown, by arithmetic on the cells.
        const auto centre = [&view](const GridField& f, double i, double j) {
            const QRect r = view.mapRect();
            return QPoint(static_cast<int>(r.left() + (j + 0.5) * r.width() / static_cast<double>(f.cols())),
                          static_cast<int>(r.top() + (i + 0.5) * r.height() / static_cast<double>(f.rows())));
        };
        QSignalSpy zooms(&view, &MapView::zoomChanged);
        QTest::mousePress(&view, Qt::LeftButton, {}, centre(whole, 10, 20));
        QTest::mouseMove(&view, centre(whole, 29, 59));
        QTest::mouseRelease(&view, Qt::LeftButton, {}, centre(whole, 29, 59));
        QCOMPARE(zooms.count(), 1);
        QVERIFY(view.zoomed());
        const GridField* part = view.field();
        QCOMPARE(part->rows(), std::size_t(20));
        QCOMPARE(part->cols(), std::size_t(40));
        QCOMPARE(part->latitudes.front(), whole.latitudes[10]);
        QCOMPARE(part->longitudes.back(), whole.longitudes[59]);
        QCOMPARE(part->at(0, 0), whole.at(10, 20));
        QCOMPARE(part->at(19, 39), whole.at(29, 59));
        QCOMPARE(part->locationAt(0, 0), whole.grid.locationId(whole.latitudes[10], whole.longitudes[20]));
        QCOMPARE(part->locationAt(19, 39), whole.grid.locationId(whole.latitudes[29], whole.longitudes[59]));

        QSignalSpy clicked(&view, &MapView::pointClicked);
        QTest::mouseClick(&view, Qt::LeftButton, {}, centre(*part, 3, 7));
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.first().at(0).value<std::size_t>(), std::size_t(3));
        QCOMPARE(clicked.first().at(1).value<std::size_t>(), std::size_t(7));

        GridField later = whole;
        for (float& v : later.values) {
            v += 0.5F;
        }
        view.setField(std::make_shared<const GridField>(later));
        QVERIFY(view.zoomed());
        QCOMPARE(view.field()->at(0, 0), later.at(10, 20));

        QTest::mouseClick(&view, Qt::RightButton, {}, view.mapRect().center());
        QVERIFY(!view.zoomed());
        QCOMPARE(view.field()->rows(), whole.rows());
        view.zoomTo(0, 4, 0, 4);
        QVERIFY(view.zoomed());
        QTest::keyClick(&view, Qt::Key_Escape);
        QVERIFY(!view.zoomed());
        QVERIFY(!view.zoomOut());
        // Another grid starts whole.
        view.zoomTo(0, 4, 0, 4);
        view.setField(std::make_shared<const GridField>(uniformField(60, 50, 0, 20, 0.5)));
        QVERIFY(!view.zoomed());
    }

    // The Files tab's map opens in a window of its own, larger, on the same field.
    void filesTabMapOpensInAWindow() {
        FileMapPanel panel;
        panel.resize(500, 400);
        panel.show();
        QVERIFY(!panel.enlargeButton()->isEnabled());
        QSignalSpy drawn(&panel, &FileMapPanel::drawn);
        panel.setFile(nc_.toStdString(), OpenOptions{});
        QTRY_VERIFY_WITH_TIMEOUT(panel.view()->field() != nullptr, 60'000);
        QVERIFY(panel.enlargeButton()->isEnabled());
        MapWindow* window = panel.openWindow();
        QVERIFY(window != nullptr);
        QVERIFY(QTest::qWaitForWindowExposed(window));
        QCOMPARE(window->view()->field()->rows(), panel.view()->field()->rows());
        QCOMPARE(window->view()->field()->values, panel.view()->field()->values);
        QVERIFY(window->view()->mapRect().width() > panel.view()->mapRect().width());
        window->close();
    }
    // A point series (the CDS time-series datasets) is one point over many hours: the Files tab's map
    // says so, with the point and the hours, instead of drawing one cell.
    void filesTabSaysWhatAPointSeriesIs() {
        const QString csv = dir_.path() + "/site.csv";
        {
            QFile out(csv);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write("valid_time,t2m,latitude,longitude\n2024-01-01 00:00:00,271.5,52.5,13.25\n"
                      "2024-01-01 01:00:00,271.25,52.5,13.25\n2024-01-01 02:00:00,271,52.5,13.25\n");
        }
        FileMapPanel panel;
        panel.resize(500, 400);
        panel.show();
        QSignalSpy drawn(&panel, &FileMapPanel::drawn);
        panel.setFile(csv.toStdString(), OpenOptions{});
        QTRY_VERIFY_WITH_TIMEOUT(drawn.count() > 0, 60'000);
        QVERIFY(panel.view()->field() == nullptr);
        const QString message = panel.view()->message();
        QVERIFY2(message.contains("time series of the CDS time-series datasets, one point"),
                 qPrintable(message));
        QVERIFY2(message.contains("(latitude 52.5, longitude 13.25)"), qPrintable(message));
        QVERIFY2(message.contains("over 3 hours from 2024-01-01 00:00 to 2024-01-01 02:00"),
                 qPrintable(message));
        QVERIFY(!panel.enlargeButton()->isEnabled());
    }

    void cleanup() { qunsetenv("ISOBAR_GSHHG_DIR"); }

    // The Strait of Gibraltar on a 0.25 degree box at 8 pixels a point: the capes on both sides of
    // the strait and Europe's westernmost point are on a coastline; the Atlantic off Portugal, the
    // Mediterranean south of the Balearics and the Meseta around Madrid have none.
    void coastlinesAroundGibraltar() {
        if (!installed()) {
            QSKIP("the coastlines' Debian package gmt-gshhg-low is not installed (the set-up installs it)");
        }
        const double north = 45;
        const double west = -15;
        const double step = 0.25;
        const int cell = 8;
        const GridField f = uniformField(north, 30, west, 5, step);
        const QSize size(static_cast<int>(f.cols()) * cell, static_cast<int>(f.rows()) * cell);
        QString missing = "not cleared";
        const QImage image = mapImage(f, ColourScale::of(f), size, {true, false}, &missing);
        QCOMPARE(image.size(), size);
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
        const auto at = [&](double lon, double lat) {
            return expectedPixel(north, west, step, cell, lon, lat);
        };
        struct Place {
            const char* name;
            double lon;
            double lat;
        };
        for (const Place& cape :
             {Place{"Tarifa", -5.606, 36.013}, Place{"Cap Spartel", -5.924, 35.790},
              Place{"Cabo da Roca", -9.500, 38.781}, Place{"Cabo de Sao Vicente", -8.997, 37.023}}) {
            QVERIFY2(darkNear(image, at(cape.lon, cape.lat), 4) > 0, cape.name);
        }
        for (const Place& clear : {Place{"the Atlantic off Portugal", -12.0, 40.0},
                                   Place{"the Mediterranean south of the Balearics", 2.5, 37.6},
                                   Place{"the Meseta", -3.0, 39.6}}) {
            QVERIFY2(darkNear(image, at(clear.lon, clear.lat), 12) == 0, clear.name);
        }
    }

    // A real ERA5-Land file whose sea points are missing (the Pacific off El Salvador, 0.1 degree):
    // the coastline runs along the edge between the file's land and sea cells, an oracle Isobar
    // does not compute. Nearly every point of the coastline a map of the box draws lies within a
    // cell and a half of such an edge.
    void coastlineFollowsTheFilesLandSeaMask() {
        if (!installed()) {
            QSKIP("the coastlines' Debian package gmt-gshhg-low is not installed (the set-up installs it)");
        }
        const QString file = QStringLiteral(ISOBAR_SAMPLES_DIR) + "/cds-2024_era5land_nan-sea.nc";
        if (!QFileInfo::exists(file)) {
            QSKIP("the real samples (../shared/era5-samples) are not here");
        }
        FieldReader reader({file.toStdString()}, OpenOptions{});
        const GridField f = reader.read("t2m", reader.times().front(), std::nullopt);
        QCOMPARE(f.rows(), std::size_t(11));
        QCOMPARE(f.cols(), std::size_t(11));
        // The edges between a land cell and a sea cell, in degrees: a cell's edges lie halfway
        // between its point and its neighbours'.
        const double step = std::fabs(f.longitudes[1] - f.longitudes[0]);
        std::vector<QLineF> shore; // x: longitude, y: latitude
        for (std::size_t i = 0; i < f.rows(); ++i) {
            for (std::size_t j = 0; j < f.cols(); ++j) {
                const double lon = f.longitudes[j];
                const double lat = f.latitudes[i];
                if (j + 1 < f.cols() && std::isnan(f.at(i, j)) != std::isnan(f.at(i, j + 1))) {
                    shore.emplace_back(lon + step / 2, lat - step / 2, lon + step / 2, lat + step / 2);
                }
                if (i + 1 < f.rows() && std::isnan(f.at(i, j)) != std::isnan(f.at(i + 1, j))) {
                    shore.emplace_back(lon - step / 2, lat - step / 2, lon + step / 2, lat - step / 2);
                }
            }
        }
        QVERIFY(shore.size() >= 10);
        const auto distance = [](const QLineF& edge, QPointF p) {
            // Edges are axis-parallel: the distance to the nearest point of the segment.
            const double x =
                std::clamp(p.x(), std::min(edge.x1(), edge.x2()), std::max(edge.x1(), edge.x2()));
            const double y =
                std::clamp(p.y(), std::min(edge.y1(), edge.y2()), std::max(edge.y1(), edge.y2()));
            return std::hypot(p.x() - x, p.y() - y);
        };
        // The coastline a 440-pixel map of the box draws (40 pixels a point).
        const MapFrame frame(f, QSize(440, 440));
        const geo::Shorelines shores =
            geo::shorelines(frame.box(), geo::resolutionFor(frame.degreesPerPixel()));
        QVERIFY2(shores.missing.empty(), shores.missing.c_str());
        const geo::Box box = frame.box();
        int inside = 0;
        int near = 0;
        for (const geo::Shoreline& line : shores.lines) {
            if (line.kind != geo::ShoreKind::Coast) {
                continue; // the lakes and the border with Guatemala are inland
            }
            // Along each piece of the line, not only at its vertices (a few kilometres apart).
            for (std::size_t k = 1; k < line.points.size(); ++k) {
                for (int t = 0; t < 10; ++t) {
                    const geo::LonLat& a = line.points[k - 1];
                    const geo::LonLat& b = line.points[k];
                    const QPointF p(a.lon + (b.lon - a.lon) * t / 10.0, a.lat + (b.lat - a.lat) * t / 10.0);
                    if (p.x() < box.west || p.x() > box.east || p.y() < box.south || p.y() > box.north) {
                        continue;
                    }
                    ++inside;
                    double best = 1e9;
                    for (const QLineF& edge : shore) {
                        best = std::min(best, distance(edge, p));
                    }
                    near += best <= 1.5 * step ? 1 : 0;
                }
            }
        }
        QVERIFY2(inside >= 50, qPrintable(QString::number(inside)));
        QVERIFY2(near >= inside * 9 / 10, qPrintable(QStringLiteral("%1 of %2").arg(near).arg(inside)));
    }

    // A box across the date line (160 E to 150 W, longitudes 160 ... 180, -179.75 ... -150): the
    // Bering Strait's capes on both continents and Cape Navarin west of the line are drawn where
    // they are, the open Bering Sea on the line has nothing.
    void coastlinesAcrossTheDateLine() {
        if (!installed()) {
            QSKIP("the coastlines' Debian package gmt-gshhg-low is not installed (the set-up installs it)");
        }
        const double north = 70;
        const double west = 160;
        const double step = 0.25;
        const int cell = 4;
        const GridField f = uniformField(north, 50, west, 210, step);
        QCOMPARE(f.longitudes.front(), 160.0);
        QCOMPARE(f.longitudes.back(), -150.0);
        const QSize size(static_cast<int>(f.cols()) * cell, static_cast<int>(f.rows()) * cell);
        const QImage image = mapImage(f, ColourScale::of(f), size, {true, false});
        // East longitudes past 180 as the picture runs: -169.65 is 190.35.
        const auto at = [&](double lon, double lat) {
            return expectedPixel(north, west, step, cell, lon < 0 ? lon + 360 : lon, lat);
        };
        QVERIFY2(darkNear(image, at(-169.65, 66.08), 4) > 0, "Cape Dezhnev");
        QVERIFY2(darkNear(image, at(-168.09, 65.64), 4) > 0, "Cape Prince of Wales");
        QVERIFY2(darkNear(image, at(179.10, 62.27), 4) > 0, "Cape Navarin");
        QVERIFY2(darkNear(image, at(180.0, 57.5), 12) == 0, "the Bering Sea");
    }

    // The steps and labels for three extents, each by arithmetic on the box: a global 0.25 degree
    // field (30 degrees), Europe (10 degrees), a box of the Strait of Gibraltar (half a degree).
    void graticuleForThreeExtents() {
        {
            GridField global = uniformField(90, -90, 0, 359.75, 0.25);
            const MapFrame frame(global, QSize(1440, 721));
            QCOMPARE(graticuleStep(frame), 30.0);
            const auto lines = graticule(frame);
            QCOMPARE(labels(lines, true), QStringList({"0°", "30°E", "60°E", "90°E", "120°E", "150°E", "180°",
                                                       "150°W", "120°W", "90°W", "60°W", "30°W"}));
            QCOMPARE(labels(lines, false), QStringList({"60°S", "30°S", "0°", "30°N", "60°N"}));
            // 180 degrees is column 720's centre: (720 + 0.5) pixels.
            for (const GraticuleLine& line : lines) {
                if (line.meridian && line.degrees == 180.0) {
                    QCOMPARE(line.pixel, 720.5);
                }
            }
        }
        {
            const GridField europe = uniformField(72, 35, -25, 45, 0.25);
            const MapFrame frame(europe, QSize(562, 298));
            QCOMPARE(graticuleStep(frame), 10.0);
            const auto lines = graticule(frame);
            QCOMPARE(labels(lines, true),
                     QStringList({"20°W", "10°W", "0°", "10°E", "20°E", "30°E", "40°E"}));
            QCOMPARE(labels(lines, false), QStringList({"40°N", "50°N", "60°N", "70°N"}));
            for (const GraticuleLine& line : lines) {
                if (line.meridian && line.degrees == 0.0) {
                    QCOMPARE(line.pixel, (25 / 0.25 + 0.5) * 2); // column 100 at 2 pixels a point
                }
            }
        }
        {
            const GridField strait = uniformField(36.5, 35.5, -6.5, -4.5, 0.25);
            const MapFrame frame(strait, QSize(450, 250));
            QCOMPARE(graticuleStep(frame), 0.5);
            const auto lines = graticule(frame);
            QCOMPARE(labels(lines, true), QStringList({"6.5°W", "6°W", "5.5°W", "5°W", "4.5°W"}));
            QCOMPARE(labels(lines, false), QStringList({"35.5°N", "36°N", "36.5°N"}));
        }
        QCOMPARE(latitudeLabel(35.25, 0.25), QString("35.25°N"));
        QCOMPARE(longitudeLabel(-180.0, 30), QString("180°"));
        QCOMPARE(longitudeLabel(190.0, 10), QString("170°W"));
    }

    // Without the package the map says which package it needs, draws the field and the graticule,
    // and the desktop's map shows the same words.
    void withoutThePackage() {
        qputenv("ISOBAR_GSHHG_DIR", (dir_.path() + "/none").toUtf8());
        const GridField f = uniformField(45, 30, -15, 5, 0.25);
        QString missing;
        const QImage image = mapImage(f, ColourScale::of(f), QSize(648, 488), {}, &missing);
        QVERIFY2(missing.contains("gmt-gshhg-low"), qPrintable(missing));
        QVERIFY(!image.isNull());
        QCOMPARE(darkNear(image, expectedPixel(45, -15, 0.25, 8, -5.606, 36.013), 4), 0); // no coast
        // The graticule's labels (dark text on pale plates) are there.
        QVERIFY(darkNear(image, QPointF(20, 488 / 2.0), 20) > 0);
        MapView view;
        view.resize(700, 560);
        view.setField(std::make_shared<const GridField>(f));
        QVERIFY2(view.missingLayers().contains("gmt-gshhg-low"), qPrintable(view.missingLayers()));
    }

    // A damaged coastline file is named, and the map is drawn without it.
    void damagedFileIsNamed() {
        const QString broken = dir_.path() + "/broken";
        QVERIFY(QDir().mkpath(broken));
        const std::string path = (broken + "/binned_GSHHS_c.nc").toStdString();
        int ncid = 0;
        int dim = 0;
        int var = 0;
        QCOMPARE(nc_create(path.c_str(), NC_CLOBBER, &ncid), NC_NOERR);
        QCOMPARE(nc_def_dim(ncid, "Dimension_of_scalar", 1, &dim), NC_NOERR);
        QCOMPARE(nc_def_var(ncid, "Bin_size_in_minutes", NC_INT, 1, &dim, &var), NC_NOERR);
        QCOMPARE(nc_enddef(ncid), NC_NOERR);
        const int minutes = 1200;
        QCOMPARE(nc_put_var_int(ncid, var, &minutes), NC_NOERR);
        QCOMPARE(nc_close(ncid), NC_NOERR);
        qputenv("ISOBAR_GSHHG_DIR", broken.toUtf8());
        const GridField f = uniformField(45, 30, -15, 5, 0.25);
        QString missing;
        const QImage image = mapImage(f, ColourScale::of(f), QSize(648, 488), {}, &missing);
        QVERIFY(!image.isNull());
        QVERIFY2(missing.contains(QString::fromStdString(path)) &&
                     missing.contains("N_bins_in_360_longitude_range"),
                 qPrintable(missing));
    }

    // isobar-cli inspect --map without the package: the PNG is written, with the note under it, and
    // the warning names the package once.
    void cliPictureWithoutThePackage() {
        const QString nc = nc_;
        const QString png = dir_.path() + "/box.png";
        QProcess cli;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("ISOBAR_GSHHG_DIR", dir_.path() + "/none");
        cli.setProcessEnvironment(env);
        cli.start(ISOBAR_CLI_PATH, {"inspect", "--map", png, "--width", "500", nc});
        QVERIFY(cli.waitForFinished(60'000));
        const QString err = QString::fromUtf8(cli.readAllStandardError());
        QCOMPARE(cli.exitCode(), 0);
        QCOMPARE(err.count("gmt-gshhg-low"), 1);
        const QImage picture(png);
        QCOMPARE(picture.width(), 500);
    }
};

QTEST_MAIN(TestMapLayers)
#include "tst_map_layers.moc"
