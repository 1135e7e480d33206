// SPDX-License-Identifier: GPL-3.0-or-later

// The Benchmarks tab driven as a user drives it: the server asked which table types it can make,
// a bench run on the Files tab's files to its end, its report listed and shown (tables, plots,
// machine), exported and opened; a durability trade asked first; a bench cancelled mid-run
// leaving no table behind; a server that cannot be reached said so.

#include "BenchHistoryPanel.h"
#include "BenchOptionsPanel.h"
#include "BenchPlotView.h"
#include "BenchReportView.h"
#include "BenchmarksPage.h"
#include "UiHarness.h"
#include "db/TableType.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QChart>
#include <QLineSeries>
#include <QToolButton>

using namespace isobar;
using namespace isobar::ui;
using namespace isobar::test;

class TestBenchmarksUi : public UiHarness {
    Q_OBJECT

    QString days_; // 41 x 41 points, 48 hours: two UTC days for the queries over days

    // The window on the Benchmarks tab, its server checked.
    std::unique_ptr<MainWindow> benchWindow() {
        auto w = window();
        w->tabs()->setCurrentWidget(w->benchmarksPage());
        return w;
    }

    static bool waitReady(BenchmarksPage& page) {
        return waitFor(
            [&page] {
                QCoreApplication::processEvents();
                return page.state() == BenchmarksPage::State::Ready;
            },
            std::chrono::milliseconds(kSlowMs));
    }

    // Presses Run and waits for the bench's end; returns its status ("" when it did not end).
    static QString runToEnd(BenchmarksPage& page) {
        QSignalSpy ended(&page, &BenchmarksPage::benchEnded);
        QSignalSpy refreshed(page.history(), &BenchHistoryPanel::refreshed);
        page.runButton()->click();
        if (!page.isRunning() || !ended.wait(kLoadTimeoutMs)) {
            return {};
        }
        // The list is read again with the new report in it.
        if (!refreshed.wait(kSlowMs) && refreshed.isEmpty()) {
            return {};
        }
        return ended.front().front().toString();
    }

    // The only copy-binary-etc. quick choices: one worker, one round, `methods` only.
    static void tinyMethods(BenchOptionsPanel& o, const std::vector<LoadMethod>& methods) {
        o.setKind(BenchRequest::Kind::Methods);
        for (const LoadMethod m : allLoadMethods()) {
            o.methodBox(m)->setChecked(std::find(methods.begin(), methods.end(), m) != methods.end());
        }
        o.workersEdit()->setText("1");
        o.roundsBox()->setValue(1);
    }

    // Every number a table shows (cells whose value is a number).
    static int numberCount(const QTableWidget& t) {
        int n = 0;
        for (int row = 0; row < t.rowCount(); ++row) {
            for (int col = 0; col < t.columnCount(); ++col) {
                const QTableWidgetItem* item = t.item(row, col);
                n += item && item->data(Qt::UserRole).isValid() && !item->text().isEmpty() ? 1 : 0;
            }
        }
        return n;
    }

    static int column(const QTableWidget& t, const QString& label) {
        for (int col = 0; col < t.columnCount(); ++col) {
            if (t.horizontalHeaderItem(col)->text() == label) {
                return col;
            }
        }
        return -1;
    }

    std::uint64_t benchTables() {
        Connection c = cluster_->connect();
        return test::count(c, "SELECT count(*) FROM pg_class WHERE relname LIKE 'isobar_bench%'");
    }

private slots:
    void initTestCase() {
        setUp("tst_benchmarks_ui");
        days_ = sampleFile(cluster_->workDir(), "days.nc", 48, SyntheticRegion{10, 0, 0, 10});
    }
    void cleanupTestCase() { tearDown(); }
    void init() { QSettings().clear(); }

    // Where TimescaleDB cannot be used (CI has none) the hypertable choices are disabled, saying
    // why, and so is distributed without Citus; where it can, they are offered like the plain
    // types, the matrix and query benches' default being all that can be made.
    void unavailableTypesAreDisabledWithTheReason() {
        auto w = benchWindow();
        BenchmarksPage* page = w->benchmarksPage();
        QVERIFY2(waitReady(*page), qPrintable(page->messageLabel()->text()));
        BenchOptionsPanel* o = page->options();
        o->setKind(BenchRequest::Kind::Matrix);
        Connection conn = cluster_->connect();
        const bool timescale = timescaledbStatus(conn).usable;
        const bool citus = citusStatus(conn).usable;
        const auto expectUnavailable = [o](const QString& name, const char* naming) {
            QCheckBox* box = o->typeBox(name);
            QVERIFY(box);
            QVERIFY(!box->isEnabled());
            QVERIFY(!box->isChecked());
            QVERIFY2(box->toolTip().startsWith("Not available: ") && box->toolTip().size() > 20,
                     qPrintable(box->toolTip()));
            QVERIFY2(box->toolTip().contains(naming, Qt::CaseInsensitive), qPrintable(box->toolTip()));
        };
        for (const QString& name :
             {QString("hypertable"), QString("hypertable-compressed"), QString("hypertable-direct")}) {
            if (timescale) {
                QVERIFY(o->typeBox(name)->isEnabled());
                QVERIFY(o->typeBox(name)->isChecked());
            } else {
                expectUnavailable(name, "TimescaleDB");
            }
        }
        if (!citus) {
            expectUnavailable("distributed", "Citus");
        }
        for (const QString& name : {QString("regular"), QString("unlogged"), QString("partitioned")}) {
            QVERIFY(o->typeBox(name)->isEnabled());
            QVERIFY(o->typeBox(name)->isChecked());
        }
        // The methods bench starts from a regular table alone, and loads hypertables uncompressed.
        o->setKind(BenchRequest::Kind::Methods);
        QVERIFY(o->typeBox("regular")->isChecked());
        QVERIFY(!o->typeBox("unlogged")->isChecked());
        QVERIFY(o->typeBox("hypertable-compressed")->isHidden());
        QVERIFY(!o->typeBox("hypertable-direct")->isHidden());
        QVERIFY(page->runButton()->isEnabled());
        // Nothing to run without a type.
        o->typeBox("regular")->setChecked(false);
        QString why;
        QVERIFY(!o->request(why));
        QVERIFY2(why.contains("table type"), qPrintable(why));
    }

    // A bench of the Files tab's files, to its end: the report is listed first, shown with its
    // tables (numbers in them), notes and plots, exported and opened as HTML.
    void methodsBenchRunsToItsReport() {
        auto w = benchWindow();
        BenchmarksPage* page = w->benchmarksPage();
        QVERIFY(addFiles(*w, {small_}));
        QVERIFY2(waitReady(*page), qPrintable(page->messageLabel()->text()));
        BenchOptionsPanel* o = page->options();
        QVERIFY(o->filesButton()->isEnabled());
        QVERIFY(o->filesButton()->isChecked()); // the files, once there are some
        QVERIFY2(o->filesButton()->text().contains("1 file"), qPrintable(o->filesButton()->text()));
        tinyMethods(*o, {LoadMethod::CopyBinary, LoadMethod::CopyText, LoadMethod::MultiInsert});
        const int before = page->history()->count();

        QCOMPARE(runToEnd(*page), QString("completed"));
        QVERIFY2(page->messageLabel()->text().contains("completed"),
                 qPrintable(page->messageLabel()->text()));
        QVERIFY(page->runButton()->isEnabled());
        QVERIFY(!page->cancelButton()->isEnabled());
        QCOMPARE(page->progressBar()->value(), page->progressBar()->maximum());
        QCOMPARE(page->history()->count(), before + 1);
        const BenchReport* report = page->history()->selectedReport();
        QVERIFY(report);
        QCOMPARE(report->kind, std::string("methods"));
        QCOMPARE(report->status, std::string("completed"));
        QCOMPARE(page->history()->list()->item(0, 2)->text(), QString("completed"));
        QVERIFY(page->history()->list()->item(0, 1)->text() == "Loading methods");
        QVERIFY(page->history()->list()->selectionModel()->isRowSelected(0, {})); // the newest, selected

        // Its table: a row per method, the rows and rows/s as numbers.
        BenchReportView* view = page->reportView();
        QVERIFY(!view->tables().empty());
        QTableWidget* table = view->tables().front();
        QCOMPARE(table->rowCount(), 3);
        QVERIFY2(numberCount(*table) >= 6, qPrintable(QString::number(numberCount(*table))));
        const int rate = column(*table, "rows/s");
        const int rows = column(*table, "rows");
        QVERIFY(rate >= 0 && rows >= 0);
        for (int row = 0; row < table->rowCount(); ++row) {
            QVERIFY2(table->item(row, rate)->data(Qt::UserRole).toDouble() > 0,
                     qPrintable(table->item(row, rate)->text()));
            QCOMPARE(table->item(row, rows)->text(), QString("5,043")); // 41 x 41 x 3, grouped
            QVERIFY(table->item(row, rate)->textAlignment() & Qt::AlignRight);
        }
        QStringList methods;
        for (int row = 0; row < table->rowCount(); ++row) {
            methods << table->item(row, column(*table, "method"))->text();
        }
        QVERIFY2(methods.contains("copy-binary") && methods.contains("copy-text"),
                 qPrintable(methods.join(",")));
        // Its plots, as Qt Charts: a series per thing compared over the categories.
        QCOMPARE(view->plots().size(), report->plots.size());
        for (BenchPlotView* plot : view->plots()) {
            const BenchPlot& p = plot->plot();
            QVERIFY(!plot->chart()->series().isEmpty());
            if (p.kind == BenchPlot::Kind::Bars) {
                auto* bars = qobject_cast<QBarSeries*>(plot->chart()->series().front());
                QVERIFY(bars);
                QCOMPARE(bars->count(), static_cast<int>(p.series.size()));
            } else {
                QCOMPARE(plot->chart()->series().size(), static_cast<qsizetype>(p.series.size()));
                QVERIFY(qobject_cast<QLineSeries*>(plot->chart()->series().front()));
            }
            auto* x = qobject_cast<QBarCategoryAxis*>(plot->chart()->axes(Qt::Horizontal).front());
            QVERIFY(x);
            QCOMPARE(x->count(), static_cast<int>(p.categories.size()));
        }
        // The machine and server, folded until asked for.
        QVERIFY(!view->environmentLabel()->isVisible());
        view->environmentButton()->click();
        QVERIFY(view->environmentLabel()->isVisible());
        QVERIFY2(view->environmentLabel()->text().contains("Server"),
                 qPrintable(view->environmentLabel()->text()));
        w->resize(1400, 900);
        QCoreApplication::processEvents();
        QVERIFY(page->grab().save("/tmp/bench-tab.png"));

        // Open HTML: the page beside the JSON.
        QUrl opened;
        page->history()->setOpenUrl([&opened](const QUrl& url) {
            opened = url;
            return true;
        });
        page->history()->openHtmlButton()->click();
        QVERIFY2(opened.toLocalFile().endsWith(".html"), qPrintable(opened.toString()));
        QVERIFY(QFileInfo(opened.toLocalFile()).size() > 0);
        QCOMPARE(QFileInfo(opened.toLocalFile()).completeBaseName(),
                 QFileInfo(page->history()->selectedPath()).completeBaseName());
        QVERIFY(readAll(opened.toLocalFile()).contains("<svg"));
        // Export: the format the name says; an unknown one refused, saying so.
        const QString md = state_.path() + "/methods.md";
        QCOMPARE(page->history()->exportSelected(md), QString());
        QVERIFY2(readAll(md).contains("rows/s"), qPrintable(readAll(md)));
        QVERIFY(!page->history()->exportSelected(state_.path() + "/methods.xyz").isEmpty());
        QVERIFY(!QFile::exists(state_.path() + "/methods.xyz"));

        // A window opened later lists it too.
        auto again = benchWindow();
        QTRY_COMPARE_WITH_TIMEOUT(again->benchmarksPage()->history()->count(), before + 1, kSlowMs);
    }

    // The queries bench on a table type of its own: its tables (queries, retention) and plots.
    void queriesBenchRuns() {
        auto w = benchWindow();
        BenchmarksPage* page = w->benchmarksPage();
        QVERIFY(addFiles(*w, {days_}));
        QVERIFY2(waitReady(*page), qPrintable(page->messageLabel()->text()));
        BenchOptionsPanel* o = page->options();
        o->setKind(BenchRequest::Kind::Queries);
        QVERIFY(!o->restartBox()->isEnabled()); // not the embedded cluster
        for (const QString& name : {QString("unlogged"), QString("partitioned")}) {
            o->typeBox(name)->setChecked(false);
        }
        o->repeatsBox()->setValue(1);
        QVERIFY2(runToEnd(*page) == "completed", qPrintable(page->messageLabel()->text()));
        const BenchReport* report = page->history()->selectedReport();
        QVERIFY(report);
        QCOMPARE(report->kind, std::string("query"));
        QVERIFY(!page->reportView()->tables().empty());
        for (QTableWidget* t : page->reportView()->tables()) {
            QVERIFY2(t->rowCount() > 0 && numberCount(*t) > 0, qPrintable(t->objectName()));
        }
        QVERIFY(!page->reportView()->plots().empty());
        QCOMPARE(benchTables(), std::uint64_t(0));
        w->resize(1400, 900);
        QCoreApplication::processEvents();
        QVERIFY(page->grab().save("/tmp/bench-tab-queries.png"));
    }

    // The matrix on the files as its one data size: 1 and N workers, a row per table type.
    void matrixBenchRuns() {
        auto w = benchWindow();
        BenchmarksPage* page = w->benchmarksPage();
        QVERIFY(addFiles(*w, {small_}));
        QVERIFY2(waitReady(*page), qPrintable(page->messageLabel()->text()));
        BenchOptionsPanel* o = page->options();
        o->setKind(BenchRequest::Kind::Matrix);
        o->typeBox("partitioned")->setChecked(false);
        o->matrixWorkersBox()->setValue(2);
        QVERIFY2(runToEnd(*page) == "completed", qPrintable(page->messageLabel()->text()));
        const BenchReport* report = page->history()->selectedReport();
        QVERIFY(report);
        QCOMPARE(report->kind, std::string("matrix"));
        QVERIFY(!page->reportView()->tables().empty());
        QTableWidget* first = page->reportView()->tables().front();
        QVERIFY2(first->rowCount() >= 2 && numberCount(*first) > 0, qPrintable(first->objectName()));
        QCOMPARE(benchTables(), std::uint64_t(0));
    }

    // The fast runs trade durability on the whole server: asked first; no, and nothing starts.
    void fastDurabilityAsksFirst() {
        auto w = benchWindow();
        BenchmarksPage* page = w->benchmarksPage();
        QVERIFY(addFiles(*w, {small_}));
        QVERIFY2(waitReady(*page), qPrintable(page->messageLabel()->text()));
        tinyMethods(*page->options(), {LoadMethod::CopyBinary});
        page->options()->safeBox()->setChecked(false);
        page->options()->fastBox()->setChecked(true);
        std::vector<std::pair<std::string, QString>> before;
        for (const std::string name : {"fsync", "full_page_writes", "synchronous_commit"}) {
            before.emplace_back(name, scalar("SHOW " + name));
        }
        QCOMPARE(before[1].second, QString("on"));
        QStringList asked;
        bool yes = false;
        page->setConfirm([&](const QString&, const QString& text) {
            asked << text;
            return yes;
        });
        page->runButton()->click();
        QCOMPARE(asked.size(), 1);
        QVERIFY2(asked.front().contains("fsync") && asked.front().contains("full_page_writes"),
                 qPrintable(asked.front()));
        QVERIFY(!page->isRunning());
        QVERIFY2(page->messageLabel()->text().contains("agreement"),
                 qPrintable(page->messageLabel()->text()));
        // Yes: the bench runs the fast cells (the engine refuses them without consent).
        yes = true;
        QVERIFY2(runToEnd(*page) == "completed", qPrintable(page->messageLabel()->text()));
        QCOMPARE(asked.size(), 2);
        QTableWidget* table = page->reportView()->tables().front();
        const int durability = column(*table, "durability");
        QVERIFY(durability >= 0);
        QCOMPARE(table->item(0, durability)->text(), QString("fast"));
        // Put back as they were (the test cluster runs with fsync off; a reload applies a moment later).
        for (const auto& [name, value] : before) {
            QTRY_COMPARE_WITH_TIMEOUT(scalar("SHOW " + name), value, kSlowMs);
        }
    }

    // Cancel mid-run: the bench ends "cancelled", its report says so, no bench table is left.
    void cancelMidRunLeavesNoTable() {
        auto w = benchWindow();
        BenchmarksPage* page = w->benchmarksPage();
        QVERIFY(addFiles(*w, {large_}));
        QVERIFY2(waitReady(*page), qPrintable(page->messageLabel()->text()));
        tinyMethods(*page->options(), {LoadMethod::CopyText, LoadMethod::MultiInsert});
        QSignalSpy ended(page, &BenchmarksPage::benchEnded);
        page->runButton()->click();
        QVERIFY(page->isRunning());
        QVERIFY(!page->runButton()->isEnabled());
        QVERIFY(page->cancelButton()->isEnabled());
        QVERIFY(!page->options()->isEnabled());
        // Cancelled once it writes a table of its own (the catalog asked every 200 ms).
        int polls = 0;
        QVERIFY(waitFor(
            [&] {
                QCoreApplication::processEvents();
                return !ended.isEmpty() || (++polls % 20 == 0 && benchTables() > 0);
            },
            std::chrono::milliseconds(kLoadTimeoutMs)));
        QVERIFY2(ended.isEmpty(), "the bench ended before it could be cancelled");
        QVERIFY(!page->stepLabel()->text().isEmpty());
        page->cancelButton()->click();
        QCOMPARE(page->state(), BenchmarksPage::State::Cancelling);
        QVERIFY(!page->cancelButton()->isEnabled());
        QVERIFY(ended.wait(kLoadTimeoutMs));
        QCOMPARE(ended.front().front().toString(), QString("cancelled"));
        QVERIFY2(page->messageLabel()->text().contains("cancelled"),
                 qPrintable(page->messageLabel()->text()));
        QVERIFY2(page->reportView()->headerLabel()->text().contains("cancelled"),
                 qPrintable(page->reportView()->headerLabel()->text()));
        QCOMPARE(benchTables(), std::uint64_t(0));
        QCOMPARE(page->state(), BenchmarksPage::State::Ready);
        QTRY_VERIFY_WITH_TIMEOUT(page->history()->selectedReport() &&
                                     page->history()->selectedReport()->status == "cancelled",
                                 kSlowMs);
    }

    // Quitting during a bench: asked, the bench cancelled, the window closed once it cleaned up.
    void closingCancelsTheBenchFirst() {
        auto w = benchWindow();
        BenchmarksPage* page = w->benchmarksPage();
        QVERIFY(addFiles(*w, {large_}));
        QVERIFY(waitReady(*page));
        tinyMethods(*page->options(), {LoadMethod::CopyText});
        QSignalSpy ended(page, &BenchmarksPage::benchEnded);
        page->runButton()->click();
        QVERIFY(page->isRunning());
        QStringList asked;
        w->setConfirm([&asked](const QString&, const QString& text) {
            asked << text;
            return true;
        });
        QVERIFY(!w->close()); // not yet: it cancels, waits for the end, then closes
        QCOMPARE(asked.size(), 1);
        QVERIFY2(asked.front().contains("bench"), qPrintable(asked.front()));
        QVERIFY(ended.wait(kLoadTimeoutMs));
        QTRY_VERIFY_WITH_TIMEOUT(!w->isVisible(), kSlowMs);
        QCOMPARE(ended.front().front().toString(), QString("cancelled"));
        QCOMPARE(benchTables(), std::uint64_t(0));
    }

    // A server that cannot be reached: said, Run waits, Check again works once it can.
    void unreachableServerIsSaid() {
        auto w = benchWindow();
        BenchmarksPage* page = w->benchmarksPage();
        QVERIFY(waitReady(*page));
        w->targetPanel()->useConnectionString(
            "host=/nonexistent-socket-dir port=1 dbname=x connect_timeout=2");
        QTRY_COMPARE_WITH_TIMEOUT(page->state(), BenchmarksPage::State::NoServer, kSlowMs);
        QVERIFY(!page->runButton()->isEnabled());
        QVERIFY(page->checkButton()->isVisible());
        QVERIFY2(page->messageLabel()->text().contains("could not be reached"),
                 qPrintable(page->messageLabel()->text()));
        w->targetPanel()->useConnectionString(QString::fromStdString(cluster_->conninfo()));
        QVERIFY(waitReady(*page));
        QVERIFY(page->runButton()->isEnabled());
        QVERIFY(!page->checkButton()->isVisible());
    }
};

QTEST_MAIN(TestBenchmarksUi)
#include "tst_benchmarks_ui.moc"
