// SPDX-License-Identifier: GPL-3.0-or-later

// The desktop app driven as a user drives it: files, a load from the window, its report in every
// format, the history, remembered choices (the charts: tst_ui_charts).

#include "UiHarness.h"
#include "Version.h"

using namespace isobar;
using namespace isobar::ui;
using namespace isobar::test;

class TestUi : public UiHarness {
    Q_OBJECT

private slots:
    void initTestCase() {
        setUp("tst_ui");
        const QString dir = cluster_->workDir();
        // Beside twoVariables_ (t2m, tp), the same box and hours: sf, d2m (a catalog variable after
        // the seed's six) and two the catalog does not know.
        FixtureSpec mixed = classicFixture(range(20, 15, 0.25), range(0, 5, 0.25), 2, 0);
        std::erase_if(mixed.variables,
                      [](const FixtureVariable& v) { return v.name == "tcc" || v.name == "tp"; });
        const auto rename = [&mixed](const std::string& from, const std::string& to,
                                     const std::string& longName, const std::string& units) {
            for (FixtureVariable& v : mixed.variables) {
                if (v.name == from) {
                    v.name = to;
                    v.longName = longName;
                    v.units = units;
                }
            }
        };
        rename("t2m", "d2m", "2 metre dewpoint temperature", "K");
        rename("u10", "zeta_x", "Zeta index", "furlongs");
        rename("v10", "alpha_y", "Alpha ratio", "1");
        mixedVariables_ = dir + "/mixed-variables.nc";
        writeFixture(mixedVariables_, mixed);
        // The same variables on the 0.1 deg grid (ERA5-Land's): loadable alone, not with the others.
        FixtureSpec land = classicFixture(range(10.0, 9.5, 0.1), range(20.0, 20.5, 0.1), 2, 0);
        land.coordType = NC_DOUBLE;
        landGrid_ = dir + "/land-grid.nc";
        writeFixture(landGrid_, land);
    }
    void cleanupTestCase() { tearDown(); }
    // Each test starts from a window with nothing remembered.
    void init() { QSettings().clear(); }

    // A GRIB download is listed like a NetCDF one: its layout, variables, times and rows.
    // Help > About names every format the readers take and the licence the sources carry.
    void aboutNamesTheFormatsAndTheLicence() {
        const QString about = MainWindow::aboutText();
        for (const char* expected : {"NetCDF", "netCDF-4", "GRIB", "editions 1 and 2", "ZIP",
                                     "GNU GPL version 3 or later", "NO WARRANTY"}) {
            QVERIFY2(about.contains(QLatin1String(expected)), qPrintable(about));
        }
        QVERIFY2(about.contains(QString::fromUtf8(isobar::kVersion)), qPrintable(about));
        QVERIFY2(!about.contains(QLatin1String("\n")), qPrintable(about)); // rich text: <br>, not newlines
    }

    void fileListModelShowsGrib() {
        SyntheticOptions options;
        options.hours = 2;
        options.region = SyntheticRegion::parse("10,9,20,21");
        options.layout = SyntheticLayout::CdsGrib;
        options.out = (cluster_->workDir() + "/download.grib").toStdString();
        (void)writeSynthetic(options);
        FileListModel model;
        QVERIFY(model.addPaths({QString::fromStdString(options.out.string())}).isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(!model.inspecting(), 30'000);
        QCOMPARE(model.problemCount(), 0);
        const QString layout = model.data(model.index(0, FileListModel::Layout)).toString();
        QVERIFY2(layout.contains("GRIB"), qPrintable(layout));
        QCOMPARE(model.data(model.index(0, FileListModel::Rows)).toString(), QString("50"));
        QCOMPARE(model.presentVariables().size(), std::size_t(6));
        QVERIFY(model.data(model.index(0, FileListModel::Times)).toString().contains("2024-01-01"));
    }

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
        QCOMPARE(model.presentVariables().front().column.key, std::string("t2m"));
        QCOMPARE(model.data(model.index(0, FileListModel::Levels)).toString(),
                 QString("surface (single level)"));
        // The two loadable files (the same hours twice) are checked together again: the list changed.
        QVERIFY(model.inspecting() && model.checkingTogether());
        QTRY_VERIFY_WITH_TIMEOUT(!model.inspecting(), 30'000);
        const DatasetInspection* together = model.dataset();
        if (together == nullptr) { // not QVERIFY: GCC cannot see that it returns (-Wnull-dereference)
            QFAIL("the files were not checked together");
        }
        // The message only when there is one: QVERIFY2 evaluates it either way.
        QVERIFY2(!together->error, qPrintable(QString::fromStdString(together->error.value_or(""))));
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

    // The Files tab lists the files' variables, not the catalog: the catalog's in its order (the
    // seed's six first), then the ones it does not know, by key, each with its units, column and
    // conversion. The filter finds them by key, long name or column; unticked ones are not asked for.
    void variableTableListsTheFilesVariables() {
        auto w = window();
        QVERIFY(addFiles(*w, {twoVariables_, mixedVariables_}));
        FilesPage* page = w->filesPage();
        VariableListModel* variables = page->variableModel();
        QAbstractItemModelTester tester(variables, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const QStringList all{"t2m", "tp", "sf", "d2m", "alpha_y", "zeta_x"};
        QCOMPARE(shownKeys(*page), all);
        const auto cell = [variables](const QString& key, int column) {
            for (int row = 0; row < variables->rowCount(); ++row) {
                if (variables->keyAt(row) == key) {
                    return variables->data(variables->index(row, column)).toString();
                }
            }
            return QString("(no row %1)").arg(key);
        };
        QCOMPARE(cell("t2m", VariableListModel::LongName), QString("2 metre temperature"));
        QCOMPARE(cell("t2m", VariableListModel::FileUnits), QString("K"));
        QCOMPARE(cell("t2m", VariableListModel::TableColumn), QString("temperature_2m"));
        QCOMPARE(cell("t2m", VariableListModel::TableUnits), QString("degC, from K (x - 273.15)"));
        QCOMPARE(cell("tp", VariableListModel::TableUnits), QString("mm, from m (x * 1000)"));
        QVERIFY2(cell("d2m", VariableListModel::Catalog).contains("paramId 168"),
                 qPrintable(cell("d2m", VariableListModel::Catalog)));
        QCOMPARE(cell("zeta_x", VariableListModel::LongName), QString("Zeta index"));
        QCOMPARE(cell("zeta_x", VariableListModel::FileUnits), QString("furlongs"));
        QCOMPARE(cell("zeta_x", VariableListModel::TableColumn), QString("zeta_x"));
        QCOMPARE(cell("zeta_x", VariableListModel::TableUnits), QString("furlongs, as stored"));
        QCOMPARE(cell("zeta_x", VariableListModel::Catalog),
                 QString("not in ECMWF's database: loaded as stored"));
        QVERIFY(page->variableCountLabel()->text().contains("6 variable(s) in the files, 6 ticked"));
        // The files agree: one dataset, said before Start.
        QVERIFY(page->model()->dataset() && !page->model()->dataset()->error);
        QVERIFY2(page->summaryLabel()->text().contains("Together: ERA5 hourly"),
                 qPrintable(page->summaryLabel()->text()));
        QVERIFY(w->runPanel()->startButton()->isEnabled());
        QVERIFY(page->allPresentChosen());
        QVERIFY(page->chosenVariables().empty()); // every variable: the default

        // The filter: key, long name or column, in any case; nothing else (units, catalog text).
        page->variableFilter()->setText("TEMPERATURE");
        QCOMPARE(shownKeys(*page), (QStringList{"t2m", "d2m"}));
        page->variableFilter()->setText("Temperature_2m"); // t2m's column only
        QCOMPARE(shownKeys(*page), QStringList{"t2m"});
        page->variableFilter()->setText("zeta");
        QCOMPARE(shownKeys(*page), QStringList{"zeta_x"});
        page->variableFilter()->setText("alpha ratio");
        QCOMPARE(shownKeys(*page), QStringList{"alpha_y"});
        page->variableFilter()->setText("furlongs");
        QVERIFY(shownKeys(*page).isEmpty());
        QVERIFY(!page->tickNoneButton()->isEnabled());
        QVERIFY(page->variableCountLabel()->text().contains("0 shown"));
        // Untick all acts on what the filter shows.
        page->variableFilter()->setText("zeta");
        page->tickNoneButton()->click();
        page->variableFilter()->clear();
        QCOMPARE(shownKeys(*page), all);
        QVERIFY(!page->allPresentChosen());
        QCOMPARE(page->chosenVariables(), (std::vector<std::string>{"t2m", "tp", "sf", "d2m", "alpha_y"}));
        // A tick in the table, as a click sets it.
        const QModelIndex tp = page->variableProxy()->index(1, VariableListModel::Load);
        QVERIFY(page->variableProxy()->setData(tp, Qt::Unchecked, Qt::CheckStateRole));
        QCOMPARE(page->chosenVariables(), (std::vector<std::string>{"t2m", "sf", "d2m", "alpha_y"}));
        QVERIFY(page->variableCountLabel()->text().contains("4 ticked"));

        // The keys go to the engine; the new table has those columns and no others.
        w->targetPanel()->tableEdit()->setText("gui_chosen");
        const auto report = runToEnd(*w);
        QVERIFY(report);
        QVERIFY2(report->status == "completed", qPrintable(w->runPanel()->statusLabel()->text()));
        QVERIFY(w->controller()->lastRequest());
        QCOMPARE(w->controller()->lastRequest()->variables,
                 (std::vector<std::string>{"t2m", "sf", "d2m", "alpha_y"}));
        QCOMPARE(report->rows, std::uint64_t(21 * 21 * 2));
        QCOMPARE(scalar("SELECT string_agg(column_name::text, ',' ORDER BY column_name) FROM "
                        "information_schema.columns WHERE table_name = 'gui_chosen' AND column_name IN "
                        "('temperature_2m', 'total_precipitation', 'snowfall', 'd2m', 'alpha_y', 'zeta_x')"),
                 QString("alpha_y,d2m,snowfall,temperature_2m"));
        QCOMPARE(scalar("SELECT count(*) FROM gui_chosen WHERE alpha_y IS NOT NULL AND d2m IS NOT NULL"),
                 QString::number(21 * 21 * 2));

        // None ticked: Start is disabled and says why; pressed anyway (F5), nothing starts.
        page->tickAllButton()->click();
        QVERIFY(page->allPresentChosen());
        QVERIFY(page->chosenVariables().empty());
        page->tickNoneButton()->click();
        QVERIFY(page->tickedVariables().empty());
        QVERIFY(page->chosenVariables().empty());
        QVERIFY(page->summaryLabel()->text().contains("tick at least one variable"));
        QVERIFY(!w->runPanel()->startButton()->isEnabled());
        QVERIFY2(w->runPanel()->startButton()->toolTip().contains("no variable is ticked"),
                 qPrintable(w->runPanel()->startButton()->toolTip()));
        w->startLoad();
        QVERIFY(w->runPanel()->statusLabel()->text().contains("no variable is ticked"));
        QVERIFY(!w->controller()->isRunning());
        page->tickAllButton()->click();
        QVERIFY(w->runPanel()->startButton()->isEnabled());
    }

    // Files that each load but not together (0.25 and 0.1 deg grids): the Files tab says why, as
    // `isobar-cli inspect` does, and Start is disabled with that reason until one is removed.
    void filesThatCannotBeLoadedTogetherDisableStart() {
        auto w = window();
        FilesPage* page = w->filesPage();
        FileListModel* model = page->model();
        QVERIFY(!w->runPanel()->startButton()->isEnabled()); // no files yet
        QVERIFY(w->runPanel()->startButton()->toolTip().contains("no files"));
        QVERIFY(addFiles(*w, {twoVariables_, landGrid_}));
        QCOMPARE(model->problemCount(), 0); // each file on its own is fine
        const DatasetInspection* together = model->dataset();
        if (together == nullptr || !together->error) { // not QVERIFY (-Wnull-dereference)
            QFAIL("the files were not refused together");
        }
        const QString error = QString::fromStdString(*together->error);
        QVERIFY2(error.contains("0.25 deg global grid") && error.contains("0.1 deg global grid"),
                 qPrintable(error));
        QVERIFY2(page->summaryLabel()->text().contains("cannot be loaded together"),
                 qPrintable(page->summaryLabel()->text()));
        QVERIFY(!w->runPanel()->startButton()->isEnabled());
        const QString tip = w->runPanel()->startButton()->toolTip();
        QVERIFY2(tip.contains("cannot be loaded together") && tip.contains("0.1 deg global grid"),
                 qPrintable(tip));
        w->startLoad(); // F5 anyway
        QVERIFY(w->runPanel()->statusLabel()->text().contains("Not started"));
        QVERIFY(w->runPanel()->statusLabel()->text().contains("0.1 deg global grid"));
        QVERIFY(!w->controller()->isRunning());
        // Each file's levels, in its own column.
        QVERIFY(model->data(model->index(0, FileListModel::Levels)).toString().contains("surface"));
        // One file left: nothing to check together, Start is back.
        QVERIFY(model->removeRows(1, 1));
        QVERIFY(!model->inspecting());
        QVERIFY(model->dataset() == nullptr);
        QVERIFY(!page->summaryLabel()->text().contains("cannot be loaded together"));
        QVERIFY(w->runPanel()->startButton()->isEnabled());
    }

    // A check of the files together that the list has outgrown is dropped when it comes back.
    void aStaleCheckTogetherIsDropped() {
        FileListModel model;
        bool removed = false;
        // The moment the check starts (the last file's inspection is in), the user removes a file.
        connect(&model, &FileListModel::filesChanged, &model, [&] {
            if (!removed && model.checkingTogether()) {
                removed = true;
                QVERIFY(model.inspecting());
                QVERIFY(model.removeRows(1, 1));
            }
        });
        model.addPaths({twoVariables_, landGrid_});
        QTRY_VERIFY_WITH_TIMEOUT(removed, 30'000);
        QVERIFY(!model.checkingTogether());
        QThreadPool::globalInstance()->waitForDone(); // the check ends; its result arrives late
        QCoreApplication::processEvents();
        QVERIFY(!model.inspecting());
        QVERIFY(model.dataset() == nullptr); // one file: nothing together, and the late error is not shown
        // Both again: checked anew, the error found again.
        model.addPaths({landGrid_});
        QTRY_VERIFY_WITH_TIMEOUT(!model.inspecting(), 30'000);
        QVERIFY(model.dataset() && model.dataset()->error);
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
        w->filesPage()->variableModel()->setTicked({"tp"}, false);
        w->targetPanel()->tableEdit()->setText("gui_small");
        w->targetPanel()->tableTypeBox()->setCurrentIndex(1); // unlogged
        w->targetPanel()->autoWorkersBox()->setChecked(false);
        w->targetPanel()->workersBox()->setValue(2);
        QSignalSpy samples(w->controller(), &LoadController::rateMeasured);
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
        QCOMPARE(w->controller()->lastRequest()->variables,
                 (std::vector<std::string>{"t2m", "u10", "v10", "tcc", "sf"}));
        // In the database: every row, no tp column, an unlogged table.
        QCOMPARE(scalar("SELECT count(*) FROM gui_small"), QString::number(41 * 41 * 3));
        QCOMPARE(scalar("SELECT count(*) FROM information_schema.columns WHERE table_name = 'gui_small' AND "
                        "column_name = 'total_precipitation'"),
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
        QCOMPARE(png.size(),
                 QSize(1000, 700)); // the rate chart, and the disk chart under it (a local server)
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
        // A listing of its own, after every run's: no refresh still in flight (a run's end starts
        // one) replaces what is opened below.
        QSignalSpy refreshed(history, &HistoryPanel::refreshed);
        history->refresh();
        QVERIFY(refreshed.wait(kSlowMs));
        QVERIFY(history->runCount() >= 3);
        QVERIFY(history->chart()->pointCount() > 0); // the newest run's curve, before any is opened
        history->select({0, 1});
        history->compareSelected();
        // interval, overall, checkpoints, worker changes, the other run
        QCOMPARE(history->chart()->seriesCount(), 5);
        QVERIFY(history->summaryLabel()->text().contains("median sustained"));
        history->select({0});
        history->openSelected();
        QVERIFY(history->summaryLabel()->text().contains("gui_small"));
    }

    // Auto is the default: the box shows its bound; a fixed count is a click away, and each keeps
    // its own value.
    void workersAreAutoByDefault() {
        auto w = window();
        TargetPanel* target = w->targetPanel();
        QVERIFY(target->autoWorkers());
        QCOMPARE(target->workersBox()->prefix(), QString("up to "));
        QCOMPARE(target->workers(), std::min(autoWorkerLimit(), target->workersBox()->maximum()));
        target->autoWorkersBox()->setChecked(false);
        QVERIFY(!target->autoWorkers());
        QVERIFY(target->workersBox()->prefix().isEmpty());
        QCOMPARE(target->workers(), defaultWorkerCount());
        target->workersBox()->setValue(1);
        target->autoWorkersBox()->setChecked(true);
        QCOMPARE(target->workers(), std::min(autoWorkerLimit(), target->workersBox()->maximum()));
        target->workersBox()->setValue(3);
        target->autoWorkersBox()->setChecked(false);
        QCOMPARE(target->workers(), 1);

        // A load with auto says so in its report, with its bound.
        target->autoWorkersBox()->setChecked(true);
        QVERIFY(addFiles(*w, {small_}));
        target->tableEdit()->setText("gui_auto");
        const auto report = runToEnd(*w);
        QVERIFY(report);
        QVERIFY2(report->status == "completed", qPrintable(w->runPanel()->statusLabel()->text()));
        QVERIFY(report->autoWorkers);
        QCOMPARE(report->maxWorkers, 3);
        QCOMPARE(report->rows, std::uint64_t(41 * 41 * 3));
    }

    void choicesAreRemembered() {
        {
            auto w = window();
            w->targetPanel()->tableEdit()->setText("remembered");
            w->targetPanel()->workersBox()->setValue(3);
            QVERIFY(addFiles(*w, {small_}));
            FilesPage* page = w->filesPage();
            QCOMPARE(page->variableModel()->keyAt(5), QString("sf"));
            QVERIFY(page->variableProxy()->setData(page->variableProxy()->index(5, VariableListModel::Load),
                                                   Qt::Unchecked, Qt::CheckStateRole));
            w->targetPanel()->useConnectionString("host=example.org user=me password=secret dbname=era5");
            QVERIFY(w->close());
        }
        QSettings s;
        for (const QString& key : s.allKeys()) {
            QVERIFY2(!s.value(key).toString().contains("secret"), qPrintable(key)); // never the password
        }
        MainWindow w;
        QCOMPARE(w.targetPanel()->tableEdit()->text(), QString("remembered"));
        QCOMPARE(w.targetPanel()->workersBox()->value(), 3); // auto's bound
        QVERIFY(w.targetPanel()->autoWorkers());
        w.targetPanel()->autoWorkersBox()->setChecked(false);
        QCOMPARE(w.targetPanel()->workers(), defaultWorkerCount());
        QVERIFY(!w.filesPage()->variableModel()->isTicked("sf"));
        QVERIFY(w.filesPage()->variableModel()->isTicked("t2m"));
        QVERIFY(addFiles(w, {small_}));
        QCOMPARE(w.filesPage()->variableModel()->data(w.filesPage()->variableModel()->index(5, 0),
                                                      Qt::CheckStateRole),
                 QVariant(Qt::Unchecked));
        QCOMPARE(w.filesPage()->chosenVariables(),
                 (std::vector<std::string>{"t2m", "u10", "v10", "tcc", "tp"}));
        QVERIFY(!w.targetPanel()->connection().embedded);
        QVERIFY(QString::fromStdString(w.targetPanel()->connection().conninfo).contains("example.org"));
    }

private:
    // The keys of the variable table's rows as the view shows them (filtered).
    static QStringList shownKeys(const FilesPage& page) {
        QStringList keys;
        const QAbstractItemModel* shown = page.variableProxy();
        for (int row = 0; row < shown->rowCount(); ++row) {
            keys << shown->data(shown->index(row, VariableListModel::Key)).toString();
        }
        return keys;
    }

    QString mixedVariables_;
    QString landGrid_;
};

QTEST_MAIN(TestUi)
#include "tst_ui.moc"
