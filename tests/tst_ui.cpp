// The desktop app driven as a user drives it: files, a load from the window, its report in every
// format, the history, the chart's budget, remembered choices.

#include "UiHarness.h"

using namespace isobar;
using namespace isobar::ui;
using namespace isobar::test;

class TestUi : public UiHarness {
    Q_OBJECT

private slots:
    void initTestCase() { setUp("tst_ui"); }
    void cleanupTestCase() { tearDown(); }
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
        QThreadPool::globalInstance()->waitForDone(); // the inspection finishes; its result arrives late
        QCoreApplication::processEvents();
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
        QTRY_VERIFY_WITH_TIMEOUT(w->runPanel()->chart()->pointCount() > 0, kSlowMs);
        // In the database: every row, tp left NULL, an unlogged table.
        QCOMPARE(scalar("SELECT count(*) FROM gui_small"), QString::number(41 * 41 * 3));
        QCOMPARE(scalar("SELECT count(*) FROM gui_small WHERE total_precipitation IS NOT NULL"),
                 QString("0"));
        QCOMPARE(scalar("SELECT count(*) FROM gui_small WHERE temperature_2m IS NULL"), QString("0"));
        QCOMPARE(scalar("SELECT relpersistence FROM pg_class WHERE oid = 'gui_small'::regclass"),
                 QString("u"));
        // Written where every run's report goes, and listed in the history.
        QVERIFY(QFile::exists(w->runPanel()->lastReportPath()));
        QTRY_VERIFY_WITH_TIMEOUT(w->historyPanel()->runCount() >= 1, kSlowMs);

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
        QTRY_VERIFY_WITH_TIMEOUT(history->runCount() >= 3, kSlowMs);
        QVERIFY(history->chart()->pointCount() > 0); // the newest run's curve, before any is opened
        history->select({0, 1});
        history->compareSelected();
        QCOMPARE(history->chart()->seriesCount(), 4); // interval, overall, checkpoints, the other run
        QVERIFY(history->summaryLabel()->text().contains("median sustained"));
        history->select({0});
        history->openSelected();
        QVERIFY(history->summaryLabel()->text().contains("gui_small"));
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
