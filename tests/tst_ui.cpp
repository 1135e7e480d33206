// The desktop app driven as a user drives it: the real MainWindow (offscreen), real NetCDF files,
// a real PostgreSQL cluster. Waits are on what the window shows, never on sleeps.

#include "FileListModel.h"
#include "FilesPage.h"
#include "HistoryPanel.h"
#include "LoadController.h"
#include "MainWindow.h"
#include "RateChart.h"
#include "ReportExport.h"
#include "RunPanel.h"
#include "SettingsPanel.h"
#include "TargetPanel.h"
#include "TestCluster.h"
#include "TestUtil.h"
#include "era5/SampleWriter.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTreeWidget>
#include <QtTest>

#include <csignal>

using namespace isobar;
using namespace isobar::ui;

namespace {

constexpr int kLoadTimeoutMs = 120'000;

QString sampleFile(const QString& dir, const QString& name, int hours, const SampleRegion& region) {
    SampleOptions o;
    o.out = (dir + QLatin1Char('/') + name).toStdString();
    o.hours = hours;
    o.region = region;
    writeSample(o);
    return QString::fromStdString(o.out.string());
}

QString readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

} // namespace

class TestUi : public QObject {
    Q_OBJECT

    std::unique_ptr<test::TestCluster> cluster_;
    QTemporaryDir state_;
    QString small_; // 41 x 41 points, 3 hours, six variables
    QString large_; // global, 6 hours: long enough to cancel mid-run
    QString twoVariables_;

    // A window aimed at the test cluster, every question answered `yes`.
    std::unique_ptr<MainWindow> window(bool yes = true) {
        auto w = std::make_unique<MainWindow>();
        w->setConfirm([yes](const QString&, const QString&) { return yes; });
        w->targetPanel()->useConnectionString(QString::fromStdString(cluster_->conninfo()));
        w->show();
        return w;
    }

    // Adds files and waits until each is inspected.
    static bool addFiles(MainWindow& w, const QStringList& files) {
        w.filesPage()->addPaths(files);
        return test::waitFor(
            [&w] {
                QCoreApplication::processEvents();
                return !w.filesPage()->model()->inspecting();
            },
            std::chrono::seconds(60));
    }

    // Starts (or resumes) and waits for the run's end; returns its report.
    static std::optional<RunReport> runToEnd(MainWindow& w, bool resume = false) {
        QSignalSpy ended(w.controller(), &LoadController::ended);
        w.startLoad(resume);
        if (!ended.wait(kLoadTimeoutMs) && ended.isEmpty()) {
            return std::nullopt;
        }
        return w.runPanel()->lastReport();
    }

    // Starts loading the large file with two workers; true once some rows are committed (or the
    // load has already ended: `ended` says which).
    bool startLargeLoad(MainWindow& w, const QString& table, const QSignalSpy& ended) {
        if (!addFiles(w, {large_})) {
            return false;
        }
        w.targetPanel()->tableEdit()->setText(table);
        w.targetPanel()->workersBox()->setValue(2);
        w.startLoad();
        return test::waitFor(
            [&] {
                QCoreApplication::processEvents();
                return w.runPanel()->progressBar()->value() > 0 || !ended.isEmpty();
            },
            std::chrono::milliseconds(kLoadTimeoutMs));
    }

    static QString journalDirectory() {
        return QString::fromStdString(DurabilityJournal::directory().string());
    }

    QString scalar(const std::string& sql) {
        Connection c = cluster_->connect();
        return test::scalar(c, sql);
    }

private slots:
    void initTestCase() {
        QVERIFY(state_.isValid());
        // Remembered choices stay in a test location (TestCluster points journals and reports
        // at its own directory).
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("isobar-tests"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_ui"));
        QSettings().clear();
        cluster_ = std::make_unique<test::TestCluster>();
        const QString dir = cluster_->workDir();
        small_ = sampleFile(dir, "small.nc", 3, SampleRegion{10, 0, 0, 10});
        large_ = sampleFile(dir, "large.nc", 6, SampleRegion{});
        test::FixtureSpec spec =
            test::classicFixture(test::range(20, 15, 0.25), test::range(0, 5, 0.25), 2, 0);
        std::erase_if(spec.variables,
                      [](const test::FixtureVariable& v) { return v.name != "t2m" && v.name != "tp"; });
        QCOMPARE(spec.variables.size(), std::size_t(2));
        twoVariables_ = dir + "/two-variables.nc";
        test::writeFixture(twoVariables_, spec);
    }
    void cleanupTestCase() { cluster_.reset(); }
    // Each test starts from a window with nothing remembered.
    void init() { QSettings().clear(); }

    void fileListModelFollowsInspection() {
        FileListModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QString broken = cluster_->workDir() + "/broken.nc";
        {
            QFile f(broken);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("CDF\x02 this is not a NetCDF file at all");
        }
        QDir().mkpath(cluster_->workDir() + "/folder");
        QFile::copy(small_, cluster_->workDir() + "/folder/copy.nc");
        const QStringList problems = model.addPaths(
            {small_, broken, cluster_->workDir() + "/folder", cluster_->workDir() + "/nowhere"});
        QVERIFY(problems.isEmpty());
        QCOMPARE(model.rowCount(), 4);
        QVERIFY(model.addPaths({small_}).isEmpty());
        QCOMPARE(model.rowCount(), 4); // already in the list
        QTRY_VERIFY_WITH_TIMEOUT(!model.inspecting(), 30'000);
        QCOMPARE(model.problemCount(), 2);
        // A file that is not there stays in the list with the reason.
        const QString missing = model.data(model.index(3, FileListModel::Status)).toString();
        QVERIFY2(missing.contains("no such file"), qPrintable(missing));
        QCOMPARE(model.data(model.index(3, FileListModel::File)).toString(), QString("nowhere"));
        QVERIFY(model.data(model.index(3, FileListModel::Status), Qt::ToolTipRole)
                    .toString()
                    .contains("/nowhere"));
        QVERIFY(model.removeRows(3, 1));
        QCOMPARE(model.loadableFiles().size(), std::size_t(2));
        QCOMPARE(model.totalRows(), std::uint64_t(2 * 41 * 41 * 3));
        QCOMPARE(model.presentVariables().size(), std::size_t(6));
        const QModelIndex status = model.index(1, FileListModel::Status);
        QVERIFY2(!model.data(status).toString().isEmpty() && model.data(status).toString() != "ready",
                 qPrintable(model.data(status).toString()));
        QCOMPARE(model.data(model.index(0, FileListModel::Rows)).toString(), QString("5,043"));
        QVERIFY(model.data(model.index(0, FileListModel::Times)).toString().contains("2024-01-01"));
        QVERIFY(model.removeRows(1, 1));
        QCOMPARE(model.problemCount(), 0);
        // An empty folder is said to be one.
        QDir().mkpath(cluster_->workDir() + "/empty");
        const QStringList empty = model.addPaths({cluster_->workDir() + "/empty"});
        QCOMPARE(empty.size(), 1);
        QCOMPARE(model.rowCount(), 2);
        // Removed while inspecting: its late result is dropped, no other row takes it.
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.addPaths({broken});
        QVERIFY(model.removeRows(2, 1));
        QTest::qWait(500); // the pool finishes the inspection meanwhile; its result arrives late
        QVERIFY(!model.inspecting());
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.problemCount(), 0);
        QVERIFY(changed.isEmpty());
    }

    void onlyPresentVariablesCanBeTicked() {
        auto w = window();
        QVERIFY(addFiles(*w, {twoVariables_}));
        FilesPage* page = w->filesPage();
        QVERIFY(page->variableBox(Variable::T2m)->isEnabled());
        QVERIFY(page->variableBox(Variable::Tp)->isEnabled());
        QVERIFY(!page->variableBox(Variable::U10)->isEnabled());
        QVERIFY(page->variableBox(Variable::U10)->toolTip().contains("None of the files"));
        QVERIFY(page->allPresentChosen());
        page->variableBox(Variable::Tp)->setChecked(false);
        QCOMPARE(page->chosenVariables(), std::vector<Variable>{Variable::T2m});
        page->variableBox(Variable::T2m)->setChecked(false);
        QVERIFY(page->chosenVariables().empty());
        QVERIFY(page->summaryLabel()->text().contains("tick at least one variable"));
        w->startLoad();
        QVERIFY(w->runPanel()->statusLabel()->text().contains("no variable is ticked"));
        QVERIFY(!w->controller()->isRunning());
        page->variableBox(Variable::T2m)->setChecked(true);
        page->variableBox(Variable::Tp)->setChecked(true);
    }

    // A real CDS single-point download off the grid: refused, then readable once the user picks
    // the nearest cell on the Files tab (the CLI's --off-grid nearest).
    void readingOptionsInspectAgain() {
        const QString point = test::samplesDir() + "/cds-2024_point-offgrid_hourly_u10v10t2m.nc";
        if (!QFile::exists(point)) {
            QSKIP("the shared ERA5 samples are not here");
        }
        auto w = window();
        QVERIFY(addFiles(*w, {point}));
        FileListModel* model = w->filesPage()->model();
        QCOMPARE(model->problemCount(), 1);
        QVERIFY(model->data(model->index(0, FileListModel::Status)).toString().contains("not on the 0.25"));
        w->filesPage()->offGridBox()->setCurrentIndex(1);
        QVERIFY(model->inspecting());
        QTRY_VERIFY_WITH_TIMEOUT(!model->inspecting(), 30'000);
        QCOMPARE(model->problemCount(), 0);
        QCOMPARE(w->filesPage()->openOptions().offGrid, OffGridPolicy::Nearest);
        w->filesPage()->offGridBox()->setCurrentIndex(0);
        QTRY_VERIFY_WITH_TIMEOUT(!model->inspecting(), 30'000);
        QCOMPARE(model->problemCount(), 1);
    }

    void disabledChoicesCarryReasons() {
        auto w = window();
        QSignalSpy checked(w.get(), &MainWindow::targetChecked);
        w->checkTarget();
        QVERIFY(checked.wait(60'000));
        QVERIFY(w->lastCheck() && !w->lastCheck()->error);
        QVERIFY(w->targetPanel()->statusLabel()->text().contains("PostgreSQL"));
        auto* model = qobject_cast<QStandardItemModel*>(w->targetPanel()->tableTypeBox()->model());
        const ServerCheck& check = *w->lastCheck();
        for (const auto& [row, status] : {std::pair{3, check.timescaledb}, std::pair{4, check.citus}}) {
            QStandardItem* item = model->item(row);
            QCOMPARE(item->isEnabled(), status.usable);
            if (!status.usable) {
                QVERIFY2(!item->toolTip().isEmpty(), qPrintable(item->text()));
                QCOMPARE(item->toolTip(), QString::fromStdString(status.reason));
            }
        }
        QCOMPARE(w->targetPanel()->workersBox()->maximum(), check.maxWorkers);
        QVERIFY(check.maxWorkers >= 1);
        // The settings tab lists what the advisor found (the test cluster runs with fsync=off).
        QVERIFY(w->settingsPanel()->warningsView()->topLevelItemCount() > 0);
        bool fsyncFound = false;
        for (int i = 0; i < w->settingsPanel()->warningsView()->topLevelItemCount(); ++i) {
            QTreeWidgetItem* item = w->settingsPanel()->warningsView()->topLevelItem(i);
            QVERIFY(!item->icon(0).isNull());
            if (item->text(1).startsWith("fsync=off")) {
                fsyncFound = true;
                // Selected, the finding reads in full with the SQL that fixes it.
                w->settingsPanel()->warningsView()->setCurrentItem(item);
                const QString details = w->settingsPanel()->detailsLabel()->text();
                QVERIFY2(details.contains("ALTER SYSTEM") && details.contains("fsync"), qPrintable(details));
            }
        }
        QVERIFY(fsyncFound);
    }

    void loadFromTheWindow() {
        auto w = window();
        QVERIFY(addFiles(*w, {small_}));
        w->filesPage()->variableBox(Variable::Tp)->setChecked(false);
        w->targetPanel()->tableEdit()->setText("gui_small");
        w->targetPanel()->tableTypeBox()->setCurrentIndex(1); // unlogged
        w->targetPanel()->workersBox()->setValue(2);
        QSignalSpy samples(w->controller(), &LoadController::rateSampled);
        const auto report = runToEnd(*w);
        QVERIFY(report);
        QVERIFY2(report->status == "completed", qPrintable(w->runPanel()->statusLabel()->text()));
        QVERIFY(w->runPanel()->statusLabel()->text().contains("Completed"));
        QCOMPARE(w->runPanel()->progressBar()->value(), 1000);
        QCOMPARE(report->rows, std::uint64_t(41 * 41 * 3));
        QCOMPARE(report->workers, 2);
        QTableWidget* workers = w->runPanel()->workersTable();
        QCOMPARE(workers->rowCount(), 2);
        std::uint64_t sent = 0;
        for (int row = 0; row < 2; ++row) {
            QCOMPARE(workers->item(row, 0)->text(), QString::number(row + 1));
            sent += workers->item(row, 2)->text().remove(',').toULongLong();
        }
        QCOMPARE(sent, report->rows); // each worker's row, by its number
        QVERIFY(!samples.isEmpty());
        QTRY_VERIFY(w->runPanel()->chart()->pointCount() > 0);
        // In the database: every row, tp left NULL, an unlogged table.
        QCOMPARE(scalar("SELECT count(*) FROM gui_small"), QString::number(41 * 41 * 3));
        QCOMPARE(scalar("SELECT count(*) FROM gui_small WHERE total_precipitation IS NOT NULL"),
                 QString("0"));
        QCOMPARE(scalar("SELECT count(*) FROM gui_small WHERE temperature_2m IS NULL"), QString("0"));
        QCOMPARE(scalar("SELECT relpersistence FROM pg_class WHERE oid = 'gui_small'::regclass"),
                 QString("u"));
        // Written where every run's report goes, and listed in the history.
        QVERIFY(QFile::exists(w->runPanel()->lastReportPath()));
        QTRY_VERIFY(w->historyPanel()->runCount() >= 1);

        // Every export format, read back.
        const QString out = state_.path() + "/export";
        QDir().mkpath(out);
        for (const char* ext : {"json", "csv", "html", "pdf", "png"}) {
            const QString path = out + "/run." + ext;
            const QString problem = exportReport(*report, path);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
        }
        const RunReport back = readReport((out + "/run.json").toStdString());
        QCOMPARE(back.rows, report->rows);
        QCOMPARE(back.table, report->table);
        QCOMPARE(back.samples.size(), report->samples.size());
        const QStringList csv = readAll(out + "/run.csv").split('\n', Qt::SkipEmptyParts);
        QVERIFY(csv.size() >= 2);
        QVERIFY2(csv.front().contains("elapsed"), qPrintable(csv.front()));
        QCOMPARE(csv.size() - 1, static_cast<int>(report->samples.size()));
        const QString html = readAll(out + "/run.html");
        QVERIFY(html.contains("<svg") && html.contains("gui_small"));
        QFile pdf(out + "/run.pdf");
        QVERIFY(pdf.open(QIODevice::ReadOnly));
        QVERIFY(pdf.read(5) == "%PDF-");
        QVERIFY(pdf.size() > 10'000); // the chart is in it
        const QImage png(out + "/run.png");
        QVERIFY(!png.isNull());
        QCOMPARE(png.size(), QSize(1000, 420));
        QVERIFY(!exportReport(*report, out + "/run.txt").isEmpty());
        QVERIFY(exportReport(*report, "/proc/no/such/dir/run.pdf").contains("/proc/no/such/dir/run.pdf"));

        // A second run of the same files adds nothing: the run view says they were there.
        const auto again = runToEnd(*w);
        QVERIFY(again && again->status == "completed");
        QCOMPARE(again->rows, std::uint64_t(0));
        QCOMPARE(again->resumedRows, std::uint64_t(41 * 41 * 3));
        QVERIFY(w->runPanel()->statusLabel()->text().contains("already there"));
        QCOMPARE(scalar("SELECT count(*) FROM gui_small"), QString::number(41 * 41 * 3));

        // Replace empties an existing table only when the user agrees.
        w->targetPanel()->findChild<QRadioButton*>("replace")->setChecked(true);
        w->setConfirm([](const QString&, const QString&) { return false; });
        QSignalSpy checked(w.get(), &MainWindow::targetChecked);
        w->startLoad();
        QVERIFY(checked.wait(60'000));
        QVERIFY(w->runPanel()->statusLabel()->text().contains("not to be emptied"));
        QCOMPARE(scalar("SELECT count(*) FROM gui_small"), QString::number(41 * 41 * 3));
        w->setConfirm([](const QString&, const QString&) { return true; });
        const auto replaced = runToEnd(*w);
        QVERIFY(replaced && replaced->status == "completed");
        QCOMPARE(replaced->rows, std::uint64_t(41 * 41 * 3));
        QCOMPARE(scalar("SELECT count(*) FROM gui_small"), QString::number(41 * 41 * 3));
        w->targetPanel()->findChild<QRadioButton*>("resume")->setChecked(true);

        // Two runs compared on one chart.
        HistoryPanel* history = w->historyPanel();
        QTRY_VERIFY(history->runCount() >= 3);
        history->select({0, 1});
        history->compareSelected();
        QCOMPARE(history->chart()->seriesCount(), 4); // interval, overall, checkpoints, the other run
        QVERIFY(history->summaryLabel()->text().contains("median sustained"));
        history->select({0});
        history->openSelected();
        QVERIFY(history->summaryLabel()->text().contains("gui_small"));
    }

    void cancelMidRunThenResume() {
        auto w = window();
        QSignalSpy ended(w->controller(), &LoadController::ended);
        // Cancel once some units are committed and more are in flight.
        QVERIFY(startLargeLoad(*w, "gui_cancelled", ended));
        w->runPanel()->cancelButton()->click();
        QVERIFY(!ended.isEmpty() || ended.wait(kLoadTimeoutMs));
        const auto report = w->runPanel()->lastReport();
        QVERIFY(report);
        if (report->status == "completed") {
            QSKIP("the load finished before the cancel reached it (an unusually fast machine)");
        }
        QCOMPARE(QString::fromStdString(report->status), QString("cancelled"));
        QVERIFY(w->runPanel()->statusLabel()->text().contains("Cancelled"));
        QVERIFY(w->runPanel()->resumeButton()->isVisible());
        // Only whole units: the table holds exactly what the ledger says was committed.
        const QString rows = scalar("SELECT count(*) FROM gui_cancelled");
        QCOMPARE(rows, scalar("SELECT coalesce(sum(rows), 0) FROM isobar.ledger WHERE relid = "
                              "'gui_cancelled'::regclass"));
        QVERIFY(rows.toULongLong() < 6ULL * 721 * 1440);
        QCOMPARE(report->verification, std::string("not counted: the run was cancelled"));

        // Resume keeps what is there even with Replace chosen: only the rest is loaded.
        w->targetPanel()->findChild<QRadioButton*>("replace")->setChecked(true);
        const auto resumed = runToEnd(*w, true);
        QVERIFY(resumed && resumed->status == "completed");
        QCOMPARE(resumed->resumedRows, rows.toULongLong());
        QCOMPARE(resumed->rows + resumed->resumedRows, std::uint64_t(6ULL * 721 * 1440));
        QCOMPARE(scalar("SELECT count(*) FROM gui_cancelled"), QString::number(6ULL * 721 * 1440));
        QCOMPARE(scalar("SELECT count(DISTINCT (time, location_id)) FROM gui_cancelled"),
                 QString::number(6ULL * 721 * 1440));
    }

    void durabilityNeedsConfirmationAndComesBack() {
        auto w = window(false);
        SettingsPanel* settings = w->settingsPanel();
        QSignalSpy checked(w.get(), &MainWindow::targetChecked);
        w->checkTarget();
        QVERIFY(checked.wait(60'000));
        QVERIFY(settings->fullPageWritesBox()->isEnabled());
        QString asked;
        settings->setConfirm([&asked](const QString&, const QString& text) {
            asked = text;
            return false;
        });
        settings->fullPageWritesBox()->click();
        QVERIFY(!settings->fullPageWritesBox()->isChecked());
        QVERIFY2(asked.contains("torn"), qPrintable(asked)); // the risk is named
        QVERIFY(!settings->durability().any());
        settings->setConfirm([](const QString&, const QString&) { return true; });
        settings->fullPageWritesBox()->click();
        settings->synchronousCommitBox()->click();
        QVERIFY(settings->fullPageWritesBox()->isChecked());
        QVERIFY(settings->durability().fullPageWrites.has_value());

        QVERIFY(addFiles(*w, {small_}));
        w->targetPanel()->tableEdit()->setText("gui_durability");
        const auto report = runToEnd(*w);
        QVERIFY(report);
        QVERIFY2(report->status == "completed", qPrintable(w->runPanel()->statusLabel()->text()));
        QCOMPARE(report->durability.changes.size(), std::size_t(1));
        QVERIFY(report->durability.restored);
        QCOMPARE(QString::fromStdString(report->durability.sessionSettings),
                 QString("synchronous_commit=off"));
        QCOMPARE(scalar("SHOW full_page_writes"), QString("on"));
        QCOMPARE(scalar("SELECT count(*) FROM gui_durability"), QString::number(41 * 41 * 3));
        QVERIFY(w->runPanel()->logView()->toPlainText().contains("durability settings restored"));
        // For one run only: the boxes are clear again.
        QVERIFY(!settings->fullPageWritesBox()->isChecked());
        QVERIFY(!settings->synchronousCommitBox()->isChecked());
        QVERIFY(QDir(journalDirectory()).exists());
        QVERIFY(QDir(journalDirectory()).entryList(QDir::Files).isEmpty());
    }

    void closingDuringARunCancelsFirst() {
        auto w = window(false); // "no": the window stays, the load goes on
        QVERIFY(addFiles(*w, {large_}));
        w->targetPanel()->tableEdit()->setText("gui_closed");
        w->targetPanel()->tableTypeBox()->setCurrentIndex(0);
        QSignalSpy ended(w->controller(), &LoadController::ended);
        w->startLoad();
        QTRY_VERIFY_WITH_TIMEOUT(w->controller()->isRunning(), 60'000);
        QVERIFY(!w->close());
        QVERIFY(w->isVisible());
        QVERIFY(w->controller()->isRunning());
        w->setConfirm([](const QString&, const QString&) { return true; });
        QVERIFY(!w->close()); // not yet: it cancels, waits for the end, then closes
        QVERIFY(ended.wait(kLoadTimeoutMs));
        QTRY_VERIFY_WITH_TIMEOUT(!w->isVisible(), 10'000);
        const auto report = w->runPanel()->lastReport();
        QVERIFY(report && (report->status == "cancelled" || report->status == "completed"));
        QCOMPARE(
            scalar("SELECT count(*) FROM gui_closed"),
            scalar("SELECT coalesce(sum(rows), 0) FROM isobar.ledger WHERE relid = 'gui_closed'::regclass"));
    }

    void troubleIsNamed() {
        auto w = window();
        // A server that is not there.
        QVERIFY(addFiles(*w, {small_}));
        w->targetPanel()->useConnectionString(
            "host=/nonexistent-socket-dir port=1 dbname=x connect_timeout=2");
        w->startLoad(); // never starts: the check fails
        QTRY_VERIFY_WITH_TIMEOUT(w->runPanel()->statusLabel()->text().contains("Not started"), 30'000);
        QVERIFY2(w->runPanel()->statusLabel()->text().contains("nonexistent-socket-dir"),
                 qPrintable(w->runPanel()->statusLabel()->text()));
        QVERIFY(w->runPanel()->startButton()->isEnabled());
        QVERIFY(!w->controller()->isRunning());

        // A file that breaks after it was inspected: the run stops naming it, nothing half-loaded.
        w->targetPanel()->useConnectionString(QString::fromStdString(cluster_->conninfo()));
        const QString victim = cluster_->workDir() + "/victim.nc";
        QVERIFY(QFile::copy(small_, victim));
        w->filesPage()->model()->clear();
        QVERIFY(addFiles(*w, {victim}));
        QVERIFY(QFile::resize(victim, QFileInfo(victim).size() / 2));
        w->targetPanel()->tableEdit()->setText("gui_victim");
        const auto report = runToEnd(*w);
        QVERIFY(report);
        QCOMPARE(QString::fromStdString(report->status), QString("failed"));
        QVERIFY2(w->runPanel()->statusLabel()->text().contains("victim.nc"),
                 qPrintable(w->runPanel()->statusLabel()->text()));
        QVERIFY(w->runPanel()->resumeButton()->isVisible());
    }

    // The server stops mid-run and stays down past the retries: the run view says so and offers
    // resume, which loads exactly the rest once the server is back.
    void serverGoingAwayOffersResume() {
        auto w = window();
        QSignalSpy ended(w->controller(), &LoadController::ended);
        QVERIFY(startLargeLoad(*w, "gui_away", ended));
        QVERIFY(cluster_->cluster().stop());
        const bool stopped = !ended.isEmpty() || ended.wait(kLoadTimeoutMs);
        cluster_->cluster().start();
        QVERIFY(stopped);
        const auto report = w->runPanel()->lastReport();
        QVERIFY(report);
        if (report->status == "completed") {
            QSKIP("the load finished before the server stopped (an unusually fast machine)");
        }
        QCOMPARE(QString::fromStdString(report->status), QString("failed"));
        QVERIFY2(w->runPanel()->statusLabel()->text().contains("The server went away"),
                 qPrintable(w->runPanel()->statusLabel()->text()));
        QVERIFY(w->runPanel()->resumeButton()->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(scalar("SELECT 1") == "1", 30'000); // the server is back
        QSignalSpy resumed(w->controller(), &LoadController::ended);
        w->runPanel()->resumeButton()->click();
        QVERIFY(resumed.wait(kLoadTimeoutMs));
        QCOMPARE(QString::fromStdString(w->runPanel()->lastReport()->status), QString("completed"));
        QCOMPARE(scalar("SELECT count(*) FROM gui_away"), QString::number(6ULL * 721 * 1440));
        QCOMPARE(scalar("SELECT count(DISTINCT (time, location_id)) FROM gui_away"),
                 QString::number(6ULL * 721 * 1440));
    }

    // Between Start and the server check's answer: Cancel drops the start, and so does a change of
    // target (with the durability consent given for the old one). Nothing is created.
    void aStartWaitingForItsCheckCanBeDropped() {
        auto w = window();
        QVERIFY(addFiles(*w, {small_}));
        w->targetPanel()->tableEdit()->setText("gui_never");
        QSignalSpy started(w->controller(), &LoadController::started);
        w->startLoad();
        QVERIFY(w->runPanel()->cancelButton()->isEnabled());
        w->runPanel()->cancelButton()->click();
        QVERIFY(w->runPanel()->statusLabel()->text().contains("cancelled before it started"));
        QVERIFY(w->runPanel()->startButton()->isEnabled());
        QVERIFY(w->targetPanel()->testButton()->isEnabled());

        w->settingsPanel()->synchronousCommitBox()->click(); // confirmed: the window says yes
        QVERIFY(w->settingsPanel()->synchronousCommitBox()->isChecked());
        w->startLoad();
        QTest::keyClicks(w->targetPanel()->tableEdit(), "2"); // the user edits the target
        QVERIFY(w->runPanel()->statusLabel()->text().contains("target changed"));
        QVERIFY(!w->settingsPanel()->synchronousCommitBox()->isChecked());
        QTest::qWait(3000); // the dropped checks come back meanwhile and start nothing
        QVERIFY(started.isEmpty());
        QVERIFY(!w->controller()->isRunning());
        QCOMPARE(scalar("SELECT count(*) FROM pg_class WHERE relname IN ('gui_never', 'gui_never2')"),
                 QString("0"));
    }

    // A table type the server cannot make stays chosen; the start says why it cannot be done.
    void anUnavailableTypeIsRefusedNotSwapped() {
        auto w = window();
        QVERIFY(addFiles(*w, {small_}));
        w->targetPanel()->tableEdit()->setText("gui_unavailable");
        QSignalSpy checked(w.get(), &MainWindow::targetChecked);
        w->checkTarget();
        QVERIFY(checked.wait(60'000));
        // Hypertable without TimescaleDB (CI), else distributed without Citus preloaded.
        const ServerCheck first = *w->lastCheck();
        const int type = !first.timescaledb.usable ? 3 : !first.citus.usable ? 4 : -1;
        if (type < 0) {
            QSKIP("TimescaleDB and Citus are both usable here: every table type can be made");
        }
        const std::string reason = type == 3 ? first.timescaledb.reason : first.citus.reason;
        w->targetPanel()->tableTypeBox()->setCurrentIndex(type);
        w->startLoad();
        QVERIFY(checked.wait(60'000));
        QCOMPARE(w->targetPanel()->tableTypeBox()->currentIndex(), type); // not swapped for regular
        const QString status = w->runPanel()->statusLabel()->text();
        QVERIFY2(status.contains("cannot be made on this server") &&
                     status.contains(QString::fromStdString(reason).toHtmlEscaped()),
                 qPrintable(status));
        QVERIFY(!w->controller()->isRunning());
        QCOMPARE(scalar("SELECT count(*) FROM pg_class WHERE relname = 'gui_unavailable'"), QString("0"));
    }

    // A load killed while it had full_page_writes off: the next check of that server offers to
    // put it back; "no" keeps a start from running, "yes" restores and the start goes on.
    void aKilledRunsSettingsAreOfferedBack() {
        const QString table = "gui_killed";
        QProcess load;
        load.start(QStringLiteral(ISOBAR_CLI_PATH),
                   {"load", "--dsn", QString::fromStdString(cluster_->conninfo()), "--table", table,
                    "--workers", "1", "--full-page-writes", "off", "--yes", large_});
        QVERIFY(load.waitForStarted());
        QVERIFY2(
            test::waitFor([&] { return scalar("SHOW full_page_writes") == "off"; }, std::chrono::seconds(60)),
            qPrintable(QString::fromUtf8(load.readAllStandardError())));
        kill(static_cast<pid_t>(load.processId()), SIGKILL);
        QVERIFY(load.waitForFinished(30'000));
        QCOMPARE(scalar("SHOW full_page_writes"), QString("off"));
        const QString journals = journalDirectory();
        QVERIFY2(QDir(journals).entryList(QDir::Files).size() == 1,
                 qPrintable(journals + ": " + QDir(journals).entryList().join(' ') + "\n" +
                            QString::fromUtf8(load.readAllStandardError())));

        auto w = window();
        QStringList asked;
        w->setConfirm([&asked](const QString& title, const QString&) {
            asked << title;
            return false;
        });
        QVERIFY(addFiles(*w, {small_}));
        w->targetPanel()->tableEdit()->setText("gui_after_kill");
        QSignalSpy checked(w.get(), &MainWindow::targetChecked);
        w->startLoad();
        QVERIFY(checked.wait(60'000));
        QCOMPARE(asked, QStringList{"Restore server settings?"});
        QVERIFY(w->runPanel()->statusLabel()->text().contains("restore them first"));
        QVERIFY(!w->controller()->isRunning());

        w->setConfirm([](const QString&, const QString&) { return true; });
        const auto report = runToEnd(*w);
        QVERIFY(report && report->status == "completed");
        QCOMPARE(scalar("SHOW full_page_writes"), QString("on"));
        QVERIFY(QDir(journals).entryList(QDir::Files).isEmpty());
        QVERIFY(w->runPanel()->logView()->toPlainText().contains("settings restored and verified"));
    }

    void chartKeepsItsBudgetAndPeaks() {
        RateChart chart;
        RateSample s;
        for (int i = 0; i < 5 * RateChart::kPointBudget; ++i) {
            s.elapsed = i * 0.2;
            s.intervalRate = i == 7777 ? 9e6 : 1e5;
            s.overallRate = 1e5;
            chart.addSample(s);
        }
        QVERIFY(chart.pointCount() <= RateChart::kPointBudget);
        QVERIFY(chart.pointCount() > RateChart::kPointBudget / 4);
        double peak = 0;
        for (const QPointF& p : chart.intervalPoints()) {
            peak = std::max(peak, p.y());
        }
        QCOMPARE(peak, 9e6);
        ServerSample server;
        server.elapsed = 3;
        server.checkpointsRequested = 1;
        chart.addServerSample(server);
        chart.addServerSample(server); // the same checkpoint again: one marker
        QCOMPARE(chart.checkpointCount(), 1);
    }

    void choicesAreRemembered() {
        {
            auto w = window();
            w->targetPanel()->tableEdit()->setText("remembered");
            w->targetPanel()->workersBox()->setValue(3);
            w->filesPage()->variableBox(Variable::Sf)->setChecked(false);
            w->targetPanel()->useConnectionString("host=example.org user=me password=secret dbname=era5");
            QVERIFY(w->close());
        }
        QSettings s;
        for (const QString& key : s.allKeys()) {
            QVERIFY2(!s.value(key).toString().contains("secret"), qPrintable(key)); // never the password
        }
        MainWindow w;
        QCOMPARE(w.targetPanel()->tableEdit()->text(), QString("remembered"));
        QCOMPARE(w.targetPanel()->workersBox()->value(), 3);
        QVERIFY(!w.filesPage()->variableBox(Variable::Sf)->isChecked());
        QVERIFY(w.filesPage()->variableBox(Variable::T2m)->isChecked());
        QVERIFY(!w.targetPanel()->connection().embedded);
        QVERIFY(QString::fromStdString(w.targetPanel()->connection().conninfo).contains("example.org"));
    }
};

QTEST_MAIN(TestUi)
#include "tst_ui.moc"
