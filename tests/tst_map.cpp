// SPDX-License-Identifier: GPL-3.0-or-later

// Maps of what a file holds and of what a table holds: the picture's colours, the Files tab's map,
// the table map after a load (equal to the file's), a point's series (equal to the loaded rows),
// a read the server would answer by a full scan, a long read stopped or left by closing, and
// isobar-cli inspect --map.

#include "FileMapPanel.h"
#include "MapImage.h"
#include "MapView.h"
#include "TableMapDialog.h"
#include "UiHarness.h"
#include "db/TableField.h"
#include "db/TableMetadata.h"
#include "domain/GridField.h"
#include "era5/FieldReader.h"

#include <QChartView>
#include <QElapsedTimer>
#include <QLineSeries>
#include <QPointer>
#include <QProcess>

#include <cmath>

using namespace isobar;
using namespace isobar::ui;
using namespace isobar::test;

namespace {

// The fixture: lat 50..45, lon -5..5 (21 x 41 points at 0.25 deg), 3 hours; t2m rises by 1 K per
// column west to east and 0.5 K per hour; a block of missing values at rows 5..8, columns 10..14.
constexpr std::size_t kRows = 21;
constexpr std::size_t kCols = 41;
bool inHole(std::size_t r, std::size_t c) {
    return r >= 5 && r <= 8 && c >= 10 && c <= 14;
}
double kelvin(std::size_t s, std::size_t r, std::size_t c) {
    return inHole(r, c) ? std::nan("")
                        : 250.0 + static_cast<double>(c) + 0.5 * static_cast<double>(s) +
                              0.01 * static_cast<double>(r);
}

bool sameValue(float a, float b) {
    return (std::isnan(a) && std::isnan(b)) || std::fabs(a - b) < 1e-4F;
}

// Empty when both fields hold the same points with the same values; else the first difference.
QString compareFields(const GridField& a, const GridField& b) {
    if (a.rows() != b.rows() || a.cols() != b.cols()) {
        return QStringLiteral("%1 x %2 points vs %3 x %4")
            .arg(a.rows())
            .arg(a.cols())
            .arg(b.rows())
            .arg(b.cols());
    }
    for (std::size_t i = 0; i < a.rows(); ++i) {
        for (std::size_t j = 0; j < a.cols(); ++j) {
            if (a.locationAt(i, j) != b.locationAt(i, j) || !sameValue(a.at(i, j), b.at(i, j)) ||
                std::fabs(a.latitudes[i] - b.latitudes[i]) > 1e-4 ||
                std::fabs(a.longitudes[j] - b.longitudes[j]) > 1e-4) {
                return QStringLiteral("at (%1, %2): %3 vs %4")
                    .arg(pointText(a, i, j), pointText(b, i, j))
                    .arg(i)
                    .arg(j);
            }
        }
    }
    return {};
}

} // namespace

class TestMap : public UiHarness {
    Q_OBJECT

    QString gradient_;
    std::vector<qint64> hours_;

    std::unique_ptr<FieldReader> fileReader() {
        return std::make_unique<FieldReader>(std::vector<std::filesystem::path>{gradient_.toStdString()},
                                             OpenOptions{});
    }
    static PgTimestamp hour(int h) { return PgTimestamp{pgMicros(2024, 3, 1, h)}; }

    // Waits until `busy` is false (background reads), processing events.
    static bool settle(const std::function<bool()>& busy) {
        return waitFor(
            [&] {
                QCoreApplication::processEvents();
                return !busy();
            },
            std::chrono::milliseconds(kSlowMs));
    }

private slots:
    void initTestCase() {
        setUp("tst_map");
        hours_ = hourly(pgMicros(2024, 3, 1), 3);
        FixtureSpec spec = cds2024Fixture(range(50, 45, 0.25), range(-5, 5, 0.25), hours_);
        spec.variables.push_back(floatVariable(
            0, [](std::size_t s, std::size_t, std::size_t r, std::size_t c) { return kelvin(s, r, c); }));
        gradient_ = cluster_->workDir() + "/gradient.nc";
        writeFixture(gradient_, spec);
    }
    void cleanupTestCase() { tearDown(); }
    void init() { QSettings().clear(); }

    // The file's field holds the values a load stores (degC), missing as NaN, and the picture
    // has the scale's ends at the gradient's ends and grey in the hole.
    void fileFieldColours() {
        auto reader = fileReader();
        QCOMPARE(reader->times().size(), std::size_t(3));
        const GridField f = reader->read("t2m", hour(1));
        QCOMPARE(f.rows(), kRows);
        QCOMPARE(f.cols(), kCols);
        QCOMPARE(f.units, std::string("degC"));
        QCOMPARE(f.latitudes.front(), 50.0);
        QCOMPARE(f.longitudes.front(), -5.0);
        QCOMPARE(f.longitudes.back(), 5.0);
        QCOMPARE(f.missingCount(), std::size_t(4 * 5));
        for (std::size_t r = 0; r < kRows; ++r) {
            for (std::size_t c = 0; c < kCols; ++c) {
                const auto want = static_cast<float>(static_cast<float>(kelvin(1, r, c)) - 273.15);
                QVERIFY2(sameValue(f.at(r, c), want), qPrintable(pointText(f, r, c)));
            }
        }
        const ColourScale scale = ColourScale::of(f);
        QVERIFY(sameValue(scale.low, f.at(0, 0)));
        QVERIFY(sameValue(scale.high, f.at(kRows - 1, kCols - 1)));
        // One pixel per point.
        const QImage full = fieldImage(f, scale, 1000, 1000);
        QCOMPARE(full.size(), QSize(int(kCols), int(kRows)));
        QCOMPARE(full.pixelColor(0, 0), ColourScale::ramp(0.0));
        QCOMPARE(full.pixelColor(int(kCols) - 1, int(kRows) - 1), ColourScale::ramp(1.0));
        QCOMPARE(full.pixelColor(12, 6), ColourScale::missingColour());
        QVERIFY(full.pixelColor(9, 6) != ColourScale::missingColour());
        QVERIFY(full.pixelColor(15, 6) != ColourScale::missingColour());
        // Never more pixels than points (the painter scales them up as flat cells); fewer when the
        // room is smaller, each pixel the colour of the point it stands for.
        QCOMPARE(fieldImage(f, scale, 410, 210).size(), QSize(int(kCols), int(kRows)));
        QCOMPARE(pixelToPoint(f, 410, 210, 125.5, 65.5), (std::pair<std::size_t, std::size_t>{6, 12}));
        const QImage small = fieldImage(f, scale, 20, 10);
        QCOMPARE(small.size(), QSize(20, 10));
        int grey = 0;
        for (int y = 0; y < small.height(); ++y) {
            for (int x = 0; x < small.width(); ++x) {
                const auto [row, col] = pixelToPoint(f, 20, 10, x + 0.5, y + 0.5);
                const bool missing = small.pixelColor(x, y) == ColourScale::missingColour();
                QCOMPARE(missing, inHole(row, col));
                grey += missing ? 1 : 0;
            }
        }
        QVERIFY(grey > 0);
        // The middle column is the middle of the scale (a linear gradient west to east).
        const QColor mid = full.pixelColor(20, 0);
        const double t =
            (static_cast<double>(f.at(0, 20)) - scale.low) / (static_cast<double>(scale.high) - scale.low);
        QCOMPARE(mid, ColourScale::ramp(t));
        QVERIFY(pointText(f, 6, 12).endsWith("missing"));
        QVERIFY2(pointText(f, 0, 0).contains("lat 50.00, lon -5.00"), qPrintable(pointText(f, 0, 0)));
        EXPECT_ERROR_CONTAINING(reader->read("t2m", hour(7)), "no time step at 2024-03-01 07:00");
        EXPECT_ERROR_CONTAINING(reader->read("q", hour(0)), "'q'");
        EXPECT_ERROR_CONTAINING(reader->read("t2m", hour(0), 500.0), "single-level");
    }

    // A 0.1 deg global field (6.5M points) is drawn downsampled; what the pointer is over is the
    // field's own point and value.
    void largeFieldStaysExact() {
        GridField f;
        f.column = "temperature_2m";
        f.key = "t2m";
        f.units = "degC";
        f.grid = GlobalGrid::withSpacing(0.1);
        f.box.northRow = f.grid.latitudes() - 1;
        f.box.rows = static_cast<std::size_t>(f.grid.latitudes());
        f.box.westColumn = 0;
        f.box.cols = static_cast<std::size_t>(f.grid.longitudes());
        for (std::size_t i = 0; i < f.box.rows; ++i) {
            f.latitudes.push_back(f.grid.latitudeOf(f.box.gridRow(i)));
        }
        for (std::size_t j = 0; j < f.box.cols; ++j) {
            f.longitudes.push_back(f.grid.longitudeOf(f.box.gridColumn(j, f.grid)));
        }
        f.values.resize(f.box.rows * f.box.cols);
        for (std::size_t k = 0; k < f.values.size(); ++k) {
            f.values[k] = static_cast<float>(k % 9973) * 0.01F;
        }
        QCOMPARE(f.values.size(), std::size_t(1801 * 3600));
        MapView view;
        view.resize(900, 520);
        view.setField(std::make_shared<const GridField>(f));
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QRect r = view.mapRect();
        QVERIFY(!r.isEmpty());
        QCOMPARE(view.shownImage().size(), r.size());
        // The pointer at the map's last pixel: the last point, its exact value.
        const auto point = view.pointAt(QPointF(r.right() + 0.99, r.bottom() + 0.99));
        QVERIFY(point.has_value());
        QCOMPARE(point->first, f.rows() - 1);
        QCOMPARE(point->second, f.cols() - 1);
        const auto middle = view.pointAt(QPointF(r.left() + r.width() / 2.0, r.top() + r.height() / 2.0));
        QVERIFY(middle.has_value());
        QSignalSpy hovered(&view, &MapView::hovered);
        QTest::mouseMove(&view, r.center());
        QTRY_VERIFY(!hovered.isEmpty());
        const auto under = view.pointAt(QPointF(r.center()));
        QVERIFY(under.has_value());
        QCOMPARE(hovered.last().at(0).toString(), pointText(f, under->first, under->second));
        QVERIFY(!view.pointAt(QPointF(r.left() - 0.01, r.top())).has_value());
        QVERIFY(!view.pointAt(QPointF(r.right() + 1, r.top())).has_value());
    }

    // The Files tab: the selected file's map, drawn in the background, equal to the reader's.
    void filesTabMap() {
        auto w = window();
        QVERIFY(addFiles(*w, {gradient_}));
        FilesPage* page = w->filesPage();
        page->view()->selectRow(0);
        page->detailTabs()->setCurrentWidget(page->mapPanel());
        FileMapPanel* panel = page->mapPanel();
        QVERIFY(settle([panel] { return panel->busy(); }));
        QVERIFY2(panel->view()->field() != nullptr, qPrintable(panel->view()->message()));
        auto reader = fileReader();
        QCOMPARE(compareFields(*panel->view()->field(), reader->read("t2m", hour(0))), QString());
        QCOMPARE(panel->timeBox()->count(), 3);
        QVERIFY(panel->levelBox()->isHidden());
        panel->timeBox()->setCurrentIndex(2);
        QVERIFY(settle([panel] { return panel->busy(); }));
        QCOMPARE(compareFields(*panel->view()->field(), reader->read("t2m", hour(2))), QString());
        QVERIFY2(panel->statusLabel()->text().contains("2024-03-01 02:00"),
                 qPrintable(panel->statusLabel()->text()));
        // A file that cannot be read says so instead of a map.
        const QString broken = cluster_->workDir() + "/not-netcdf.nc";
        {
            QFile f(broken);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("this is no NetCDF file");
        }
        panel->setFile(broken.toStdString(), OpenOptions{});
        QVERIFY(settle([panel] { return panel->busy(); }));
        QVERIFY(panel->view()->field() == nullptr);
        QVERIFY2(panel->view()->message().startsWith("No map:"), qPrintable(panel->view()->message()));
        QVERIFY2(panel->view()->message().contains("not-netcdf.nc"), qPrintable(panel->view()->message()));
    }

    // After a load from the window: its report says where the rows lie, the Run tab's map reads
    // them back equal to the file's map, and a clicked point's series is the loaded rows.
    void tableMapEqualsFileMap() {
        auto w = window();
        QVERIFY(addFiles(*w, {gradient_}));
        w->targetPanel()->tableEdit()->setText("mapped");
        const auto report = runToEnd(*w);
        QVERIFY(report.has_value());
        QCOMPARE(QString::fromStdString(report->status), QString("completed"));
        QCOMPARE(report->extent.gridSpacing, 0.25);
        QVERIFY((report->extent.bounds == GeoBounds{45, 50, -5, 5}));
        QCOMPARE(report->extent.times.size(), std::size_t(1));
        QCOMPARE(report->extent.times.front().count, std::size_t(3));
        QVERIFY(report->extent.levels.empty());
        // The extent survives the report file (History opens it from there).
        QVERIFY(readReport(w->runPanel()->lastReportPath().toStdString()).extent == report->extent);

        QVERIFY(w->runPanel()->mapButton()->isEnabled());
        w->runPanel()->mapButton()->click();
        TableMapDialog* dialog = w->mapDialog();
        QVERIFY(dialog != nullptr);
        QVERIFY(settle([dialog] { return dialog->busy(); }));
        QVERIFY2(dialog->view()->field() != nullptr, qPrintable(dialog->view()->message()));
        auto reader = fileReader();
        QCOMPARE(compareFields(*dialog->view()->field(), reader->read("t2m", hour(0))), QString());
        QCOMPARE(dialog->timeBox()->count(), 3);
        dialog->timeBox()->setCurrentIndex(1);
        QVERIFY(settle([dialog] { return dialog->busy(); }));
        QCOMPARE(compareFields(*dialog->view()->field(), reader->read("t2m", hour(1))), QString());
        QVERIFY(dialog->anywayButton()->isHidden()); // a small table: scanned without asking

        // A click on (row 3, column 30): the series over the run's hours equals the file's values.
        const GridField* shown = dialog->view()->field();
        QSignalSpy updated(dialog, &TableMapDialog::updated);
        const QRect r = dialog->view()->mapRect();
        const QPoint at(r.left() + int((30 + 0.5) * r.width() / double(kCols)),
                        r.top() + int((3 + 0.5) * r.height() / double(kRows)));
        QTest::mouseClick(dialog->view(), Qt::LeftButton, {}, at);
        QVERIFY(settle([dialog] { return dialog->busy(); }));
        QVERIFY(!updated.isEmpty());
        QCOMPARE(dialog->series().size(), std::size_t(3));
        for (int h = 0; h < 3; ++h) {
            const SeriesPoint& p = dialog->series()[std::size_t(h)];
            QCOMPARE(p.time, hour(h));
            QVERIFY2(sameValue(p.value, reader->read("t2m", hour(h)).at(3, 30)),
                     qPrintable(QString::number(double(p.value))));
        }
        const auto lines = dialog->seriesChart()->chart()->series();
        QCOMPARE(lines.size(), 1);
        QCOMPARE(static_cast<QLineSeries*>(lines.front())->count(), 3);
        QVERIFY2(dialog->seriesLabel()->text().contains("3 value"),
                 qPrintable(dialog->seriesLabel()->text()));
        // The same series from the rows themselves.
        Connection conn = cluster_->connect();
        const LocationId id = shown->locationAt(3, 30);
        QCOMPARE(id.value, gridLocationId(49.25, 2.5));
        const Result rows = conn.query("SELECT temperature_2m::text FROM mapped WHERE location_id = " +
                                       std::to_string(id.value) + " ORDER BY time");
        QCOMPARE(rows.rows(), 3);
        for (int h = 0; h < 3; ++h) {
            QVERIFY(sameValue(std::stof(rows.text(h, 0)), dialog->series()[std::size_t(h)].value));
        }
        // A point in the hole: its values are missing, the series says so.
        dialog->showSeries(6, 12);
        QVERIFY(settle([dialog] { return dialog->busy(); }));
        for (const SeriesPoint& p : dialog->series()) {
            QVERIFY(std::isnan(p.value));
        }
        QVERIFY(dialog->seriesLabel()->text().contains("missing") ||
                dialog->seriesLabel()->text().contains("no rows"));
        dialog->close();

        // History offers the same map for the run, and none for a report without an extent.
        HistoryPanel* history = w->historyPanel();
        QSignalSpy refreshed(history, &HistoryPanel::refreshed);
        history->refresh();
        QVERIFY(refreshed.wait(kSlowMs));
        QVERIFY(history->runCount() >= 1);
        history->select({0});
        QVERIFY(history->mapButton()->isEnabled());
        RunReport old = *report;
        old.extent = {};
        QVERIFY(TableMapDialog::unavailableReason(old).contains("does not say where the rows lie"));
        TableMapDialog none(old, ConnectionChoice{false, cluster_->conninfo()});
        QVERIFY(none.view()->message().contains("No map of this run"));
    }

    // A read the server would answer by scanning the whole table (no index serves its filter) is
    // not made without asking: the dialog names the table, the size and the index that would
    // serve it; Read anyway reads it.
    void fullScansAreAsked() {
        Connection conn = cluster_->connect();
        loadFiles(*cluster_, {gradient_}, "indexed");
        conn.exec("DROP TABLE IF EXISTS unindexed");
        conn.exec("CREATE TABLE unindexed AS SELECT * FROM indexed");
        const auto layout = tableLayout(conn, TableName::parse("indexed"));
        QVERIFY(layout.has_value());
        TableFieldRequest request;
        request.table = TableName::parse("unindexed");
        request.column = layout->columns.front();
        request.time = hour(2);
        const ReadCost scan = tableFieldCost(conn, request, 0);
        QVERIFY(!scan.cheap);
        QVERIFY(scan.scannedBytes > 0);
        QVERIFY2(QString::fromStdString(scan.reason).contains("CREATE INDEX ON unindexed (time)"),
                 scan.reason.c_str());
        QVERIFY(tableFieldCost(conn, request).cheap); // a small table: scanned without asking
        // A point series: with an index on (location_id, time) the server reads a few rows; without,
        // it reads the whole table, and the reason names the index that would serve it.
        const LocationId point{gridLocationId(49.25, 2.5)};
        const ReadCost unserved =
            pointSeriesCost(conn, request.table, request.column, point, std::nullopt, hour(0), hour(2), 0);
        QVERIFY(!unserved.cheap);
        QVERIFY2(
            QString::fromStdString(unserved.reason).contains("CREATE INDEX ON unindexed (location_id, time)"),
            unserved.reason.c_str());
        conn.exec("CREATE INDEX ON unindexed (location_id, time)");
        conn.exec("ANALYZE unindexed");
        const ReadCost keyed =
            pointSeriesCost(conn, request.table, request.column, point, std::nullopt, hour(0), hour(2), 0);
        QVERIFY2(keyed.cheap, keyed.reason.c_str());
        QCOMPARE(keyed.scannedBytes, std::uint64_t(0));
        const auto series =
            readPointSeries(conn, request.table, request.column, point, std::nullopt, hour(0), hour(2));
        QCOMPARE(series.size(), std::size_t(3));
        QVERIFY(sameValue(series[2].value, fileReader()->read("t2m", hour(2)).at(3, 30)));
        request.table = TableName::parse("indexed");
        // The table field without bounds equals the file's.
        QCOMPARE(compareFields(readTableField(conn, request), fileReader()->read("t2m", hour(2))), QString());
        request.time = hour(9);
        EXPECT_ERROR_CONTAINING(readTableField(conn, request), "no rows at 2024-03-01 09:00");

        auto w = window();
        QVERIFY(addFiles(*w, {gradient_}));
        w->targetPanel()->tableEdit()->setText("asked");
        auto report = runToEnd(*w);
        QVERIFY(report.has_value());
        conn.exec("DROP TABLE IF EXISTS asked_copy");
        conn.exec("CREATE TABLE asked_copy AS SELECT * FROM asked");
        report->table = "public.asked_copy";
        TableMapDialog dialog(*report, ConnectionChoice{false, cluster_->conninfo()});
        dialog.setScanLimit(0);
        QVERIFY(settle([&dialog] { return dialog.busy(); }));
        QVERIFY(dialog.view()->field() == nullptr);
        QVERIFY2(dialog.view()->message().contains("reads") && dialog.view()->message().contains("no index"),
                 qPrintable(dialog.view()->message()));
        QVERIFY(!dialog.anywayButton()->isHidden());
        dialog.anywayButton()->click();
        QVERIFY(settle([&dialog] { return dialog.busy(); }));
        QVERIFY2(dialog.view()->field() != nullptr, qPrintable(dialog.view()->message()));
        QCOMPARE(compareFields(*dialog.view()->field(), fileReader()->read("t2m", hour(0))), QString());
        // The same for a point's series: asked, then read.
        dialog.showSeries(3, 30);
        QVERIFY(settle([&dialog] { return dialog.busy(); }));
        QVERIFY(dialog.series().empty());
        QVERIFY2(
            dialog.seriesLabel()->text().contains("CREATE INDEX ON public.asked_copy (location_id, time)"),
            qPrintable(dialog.seriesLabel()->text()));
        QVERIFY(!dialog.anywayButton()->isHidden());
        dialog.anywayButton()->click();
        QVERIFY(settle([&dialog] { return dialog.busy(); }));
        QCOMPARE(dialog.series().size(), std::size_t(3));
        QVERIFY(sameValue(dialog.series()[1].value, fileReader()->read("t2m", hour(1)).at(3, 30)));
        // A table that is gone: said so, no map.
        report->table = "public.never_loaded";
        TableMapDialog gone(*report, ConnectionChoice{false, cluster_->conninfo()});
        QVERIFY(settle([&gone] { return gone.busy(); }));
        QVERIFY2(gone.view()->message().contains("never_loaded does not exist"),
                 qPrintable(gone.view()->message()));
    }

    // A read the user accepted may take long (a big table without the index its filter needs, a
    // server that is busy). Stop ends it on the server and says so, without an error; closing the
    // dialog meanwhile returns at once, and the server's query is cancelled, not left to run its
    // course. The read is made slow by a view whose rows wait 60 s (pg_sleep) before the first.
    void closingDuringALongReadReturnsAtOnce() {
        auto w = window();
        QVERIFY(addFiles(*w, {gradient_}));
        w->targetPanel()->tableEdit()->setText("sleepy_source");
        auto report = runToEnd(*w);
        QVERIFY(report.has_value());
        QCOMPARE(QString::fromStdString(report->status), QString("completed"));
        Connection conn = cluster_->connect();
        conn.exec("DROP VIEW IF EXISTS sleepy");
        conn.exec("DROP TABLE IF EXISTS sleepy_rows");
        conn.exec("CREATE TABLE sleepy_rows AS SELECT * FROM sleepy_source"); // no index: a full scan
        conn.exec(
            "CREATE VIEW sleepy AS SELECT * FROM sleepy_rows WHERE (SELECT count(*) FROM pg_sleep(60)) = 1");
        report->table = "public.sleepy";
        // The dialog's sessions, and its map reads running on the server.
        const auto backends = [&conn] {
            return count(conn, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'isobar map'");
        };
        const auto reading = [&conn] {
            return count(conn, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'isobar map' "
                               "AND state = 'active' AND query LIKE 'SELECT location_id, %'");
        };

        w->openTableMap(*report);
        TableMapDialog* dialog = w->mapDialog();
        if (dialog == nullptr) { // not QVERIFY: GCC cannot see that it returns (-Wnull-dereference)
            QFAIL("no map dialog");
        }
        const QPointer<TableMapDialog> alive = dialog; // null once closing has deleted it
        dialog->setScanLimit(0);
        QVERIFY(settle([dialog] { return dialog->busy(); }));
        QVERIFY2(!dialog->anywayButton()->isHidden(), qPrintable(dialog->view()->message()));
        QVERIFY(!dialog->stopButton()->isEnabled());
        dialog->anywayButton()->click(); // the user accepts the read
        QTRY_COMPARE_WITH_TIMEOUT(reading(), std::uint64_t(1), kSlowMs);
        QVERIFY(dialog->busy());
        QVERIFY(dialog->stopButton()->isEnabled());

        // Stop: the query ends on the server long before its 60 s; no error, Read again offered.
        QElapsedTimer clock;
        clock.start();
        dialog->stopButton()->click();
        QVERIFY(!dialog->busy());
        QVERIFY(!dialog->stopButton()->isEnabled());
        QTRY_COMPARE_WITH_TIMEOUT(reading(), std::uint64_t(0), 20'000);
        QVERIFY2(clock.elapsed() < 20'000, qPrintable(QString::number(clock.elapsed())));
        QTest::qWait(300); // what the cancelled read threw would have arrived by now
        QVERIFY2(dialog->statusLabel()->text().startsWith("Stopped"),
                 qPrintable(dialog->statusLabel()->text()));
        QVERIFY2(!dialog->view()->message().contains("cancel", Qt::CaseInsensitive) &&
                     !dialog->view()->message().startsWith("No map"),
                 qPrintable(dialog->view()->message()));
        QVERIFY(dialog->view()->field() == nullptr);
        QVERIFY(!dialog->anywayButton()->isHidden());
        QCOMPARE(dialog->anywayButton()->text(), QString("Read &again"));

        // Read again, and close the dialog while it reads: closing does not wait for the query.
        dialog->anywayButton()->click();
        QTRY_COMPARE_WITH_TIMEOUT(reading(), std::uint64_t(1), kSlowMs);
        QVERIFY(dialog->busy());
        clock.restart();
        dialog->close(); // the window's map is deleted on close
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        const qint64 closing = clock.elapsed();
        QVERIFY(alive.isNull());
        qInfo("closing the map during its read took %lld ms", static_cast<long long>(closing));
        QVERIFY2(closing < 2'000, qPrintable(QString::number(closing)));
        // The server's query was cancelled: the read's connection is closed once its job has ended,
        // which the query's 60 s would otherwise have held up.
        QTRY_COMPARE_WITH_TIMEOUT(backends(), std::uint64_t(0), 20'000);
        const qint64 gone = clock.elapsed();
        qInfo("the read's session left the server %lld ms after the close", static_cast<long long>(gone));
        QVERIFY2(gone < 20'000, qPrintable(QString::number(gone)));
    }

    // isobar-cli inspect --map writes the picture headless; bad options are named.
    void cliWritesTheMap() {
        const QString png = cluster_->workDir() + "/t2m.png";
        QProcess cli;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("QT_QPA_PLATFORM"); // as a script on a machine without a display runs it
        env.remove("DISPLAY");
        cli.setProcessEnvironment(env);
        cli.start(ISOBAR_CLI_PATH,
                  {"inspect", "--map", png, "--time", "2024-03-01 02:00", "--width", "600", gradient_});
        QVERIFY(cli.waitForFinished(60'000));
        const QString out = QString::fromUtf8(cli.readAllStandardOutput());
        QCOMPARE(cli.exitCode(), 0);
        QVERIFY2(out.contains("21 x 41 points") && out.contains("20 missing"), qPrintable(out));
        QVERIFY2(cli.readAllStandardError().isEmpty(), "no chatter on stderr");
        QImage picture(png);
        QCOMPARE(picture.width(), 600);
        QSet<QRgb> colours;
        for (int y = 0; y < picture.height(); ++y) {
            for (int x = 0; x < picture.width(); ++x) {
                colours.insert(picture.pixel(x, y));
            }
        }
        QVERIFY(colours.contains(ColourScale::missingColour().rgb()));
        QVERIFY(colours.contains(ColourScale::ramp(0.0).rgb()));
        QVERIFY(colours.contains(ColourScale::ramp(1.0).rgb()));

        const auto fails = [&](const QStringList& args, int status, const QString& text) {
            QProcess p;
            p.setProcessEnvironment(env);
            p.start(ISOBAR_CLI_PATH, args);
            if (!p.waitForFinished(60'000)) {
                return QStringLiteral("did not finish");
            }
            const QString err = QString::fromUtf8(p.readAllStandardError());
            return p.exitCode() == status && err.contains(text)
                       ? QString()
                       : QStringLiteral("exit %1: %2").arg(p.exitCode()).arg(err);
        };
        QCOMPARE(fails({"inspect", "--map", png, "--time", "noon", gradient_}, 2, "--time takes a UTC time"),
                 QString());
        QCOMPARE(fails({"inspect", "--map", png, "--time", "2024-03-02", gradient_}, 1,
                       "no time step at 2024-03-02"),
                 QString());
        QCOMPARE(fails({"inspect", "--map", png, "--variable", "tp", gradient_}, 1, "'tp'"), QString());
        QCOMPARE(fails({"inspect", "--map", png, "--width", "5", gradient_}, 2, "--width"), QString());
        QCOMPARE(fails({"inspect", "--time", "2024-03-01", gradient_}, 2, "--time goes with --map"),
                 QString());
        QCOMPARE(fails({"inspect", "--map", "/nonexistent-dir/x.png", gradient_}, 1, "cannot write the map"),
                 QString());
    }
};

QTEST_MAIN(TestMap)
#include "tst_map.moc"
