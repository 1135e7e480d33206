// SPDX-License-Identifier: GPL-3.0-or-later

// The desktop app when things go wrong or get interrupted: cancel, close, a server that goes
// away, a broken file, durability consent and its way back, a start dropped before it ran, a
// killed run's settings, a load refused for rows already in the table.

#include "UiHarness.h"
#include "db/Compression.h"

using namespace isobar;
using namespace isobar::ui;
using namespace isobar::test;

class TestUiTrouble : public UiHarness {
    Q_OBJECT

private slots:
    void initTestCase() { setUp("tst_ui_trouble"); }
    void cleanupTestCase() { tearDown(); }

    // A load refused for rows already in the table with other values asks: keep them or replace
    // them, and the same load runs again with the answer. The History audits the table.
    void overlapIsAskedThenTheTableAudited() {
        const QString dir = cluster_->workDir();
        SyntheticOptions o;
        o.hours = 2;
        o.region = SyntheticRegion{5, 0, 0, 5};
        o.out = (dir + "/overlap-a.nc").toStdString();
        writeSynthetic(o);
        o.seed = 2; // other values at the same places and hours
        o.out = (dir + "/overlap-b.nc").toStdString();
        writeSynthetic(o);
        const std::uint64_t rows = 21 * 21 * 2;
        auto w = window();
        QVERIFY(addFiles(*w, {dir + "/overlap-a.nc"}));
        w->targetPanel()->tableEdit()->setText("gui_overlap");
        auto first = runToEnd(*w);
        QVERIFY(first && first->status == "completed");
        w->filesPage()->model()->clear();
        QVERIFY(addFiles(*w, {dir + "/overlap-b.nc"}));
        const QString a = scalar("SELECT sum(temperature_2m)::text FROM gui_overlap");

        // Keep: asked once, the table's rows stay.
        QStringList asked;
        w->setChoose([&asked](const QString&, const QString& text, const QStringList& choices) {
            asked << text;
            return choices.indexOf("Keep the table's rows");
        });
        QSignalSpy ended(w->controller(), &LoadController::ended);
        w->startLoad();
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 2, kLoadTimeoutMs);
        QCOMPARE(asked.size(), 1);
        QVERIFY2(asked.front().contains("already holds unit") && asked.front().contains("overlap-a.nc"),
                 qPrintable(asked.front()));
        QCOMPARE(w->controller()->lastRequest()->overlap, OverlapPolicy::Skip);
        QVERIFY(w->runPanel()->lastReport()->status == "completed");
        QCOMPARE(scalar("SELECT count(*) FROM gui_overlap"), QString::number(rows));
        QCOMPARE(scalar("SELECT sum(temperature_2m)::text FROM gui_overlap"), a);

        // Replace: the second file's rows in their place, as many as before.
        w->setChoose([](const QString&, const QString&, const QStringList& choices) {
            return choices.indexOf("Replace them");
        });
        ended.clear();
        w->startLoad();
        QTRY_COMPARE_WITH_TIMEOUT(ended.size(), 2, kLoadTimeoutMs);
        QCOMPARE(w->controller()->lastRequest()->overlap, OverlapPolicy::Replace);
        QCOMPARE(scalar("SELECT count(*) FROM gui_overlap"), QString::number(rows));
        QVERIFY(scalar("SELECT sum(temperature_2m)::text FROM gui_overlap") != a);

        // No answer: nothing more happens.
        w->setChoose([](const QString&, const QString&, const QStringList&) { return -1; });
        w->filesPage()->model()->clear();
        QVERIFY(addFiles(*w, {dir + "/overlap-a.nc"}));
        ended.clear();
        w->startLoad();
        QVERIFY(ended.wait(kLoadTimeoutMs));
        QTest::qWait(200);
        QCOMPARE(ended.size(), 1);
        QVERIFY(w->runPanel()->lastReport()->status == "failed");

        // The History's audit of the table: nothing found.
        HistoryPanel* history = w->historyPanel();
        QSignalSpy refreshed(history, &HistoryPanel::refreshed);
        history->refresh();
        QVERIFY(refreshed.wait(kSlowMs));
        history->select({0});
        QVERIFY(history->auditButton()->isEnabled());
        history->auditButton()->click();
        TableAuditDialog* audit = w->auditDialog();
        QVERIFY(audit != nullptr);
        QTRY_VERIFY_WITH_TIMEOUT(!audit->busy(), kSlowMs);
        QVERIFY2(audit->statusLabel()->text().contains("Nothing found"),
                 qPrintable(audit->statusLabel()->text()));
        QVERIFY(audit->text()->toPlainText().contains("ok       duplicate keys"));
        QVERIFY(!audit->copySqlButton()->isEnabled());
        audit->close();
    }
    // Each test starts from a window with nothing remembered.
    void init() { QSettings().clear(); }

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
        QVERIFY(rows.toULongLong() <= 6ULL * 721 * 1440);
        QCOMPARE(report->verification, std::string("not counted: the run was cancelled"));

        // Resume keeps what is there even with Replace chosen: only the rest is loaded.
        w->targetPanel()->findChild<QRadioButton*>("replace")->setChecked(true);
        const auto resumed = runToEnd(*w, true);
        QVERIFY(resumed && resumed->status == "completed");
        QCOMPARE(resumed->resumedRows, rows.toULongLong());
        QCOMPARE(resumed->rows + resumed->resumedRows, std::uint64_t(6ULL * 721 * 1440));
        QCOMPARE(scalar("SELECT count(*) FROM gui_cancelled"), QString::number(6ULL * 721 * 1440));
        QCOMPARE(hoursNotWhole("gui_cancelled"), QString("0"));
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
        QSignalSpy started(w->controller(), &LoadController::started);
        w->startLoad();
        QTRY_VERIFY_WITH_TIMEOUT(w->controller()->isRunning(), 60'000);
        // Past preparing: the table and its ledger exist (a cancel before would leave neither).
        QTRY_VERIFY_WITH_TIMEOUT(!started.isEmpty(), 60'000);
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
        if (report->plannedRows > 0 && report->rows + report->resumedRows == report->plannedRows) {
            // Every row was in before the shutdown took hold (a busy machine delays the stop): only
            // the run's finishing steps met the stopping server, so no unit had to be retried.
            QSKIP("every row was committed before the server stopped; only the end of the run met it");
        }
        QCOMPARE(QString::fromStdString(report->status), QString("failed"));
        QVERIFY2(w->runPanel()->statusLabel()->text().contains("The server went away"),
                 qPrintable(w->runPanel()->statusLabel()->text()));
        QVERIFY(w->runPanel()->resumeButton()->isVisible());
        // While it retried, the log said so (the chart alone would only have gone flat).
        QVERIFY2(w->runPanel()->logView()->toPlainText().contains("retry 1 of"),
                 qPrintable(w->runPanel()->logView()->toPlainText()));
        QTRY_VERIFY_WITH_TIMEOUT(scalar("SELECT 1") == "1", 30'000); // the server is back
        QSignalSpy resumed(w->controller(), &LoadController::ended);
        w->runPanel()->resumeButton()->click();
        QVERIFY(resumed.wait(kLoadTimeoutMs));
        QCOMPARE(QString::fromStdString(w->runPanel()->lastReport()->status), QString("completed"));
        QCOMPARE(scalar("SELECT count(*) FROM gui_away"), QString::number(6ULL * 721 * 1440));
        QCOMPARE(hoursNotWhole("gui_away"), QString("0"));
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
        QVERIFY(!w->settingsPanel()->fsyncBox()->isEnabled()); // what was ticked at Start is what runs
        w->runPanel()->cancelButton()->click();
        QVERIFY(w->settingsPanel()->fsyncBox()->isEnabled());
        QVERIFY(w->runPanel()->statusLabel()->text().contains("cancelled before it started"));
        QVERIFY(w->runPanel()->startButton()->isEnabled());
        QVERIFY(w->targetPanel()->testButton()->isEnabled());

        w->settingsPanel()->synchronousCommitBox()->click(); // confirmed: the window says yes
        QVERIFY(w->settingsPanel()->synchronousCommitBox()->isChecked());
        w->startLoad();
        QTest::keyClicks(w->targetPanel()->tableEdit(), "2"); // the user edits the target
        QVERIFY(w->runPanel()->statusLabel()->text().contains("target changed"));
        QVERIFY(!w->settingsPanel()->synchronousCommitBox()->isChecked());
        w->checkPool()->waitForDone(); // the dropped checks come back and start nothing
        QCoreApplication::processEvents();
        QVERIFY(started.isEmpty());
        QVERIFY(!w->controller()->isRunning());
        QCOMPARE(scalar("SELECT count(*) FROM pg_class WHERE relname IN ('gui_never', 'gui_never2')"),
                 QString("0"));
    }

    // The Target tab says which path a compressed load takes on the tested server: as COPY
    // receives the rows (TimescaleDB 2.21+), after the load, or why there is no compression.
    void compressPathIsSaid() {
        auto w = window();
        QLabel* said = w->targetPanel()->compressPathLabel();
        QVERIFY2(said->text().contains("Test the connection"), qPrintable(said->text()));
        QSignalSpy checked(w.get(), &MainWindow::targetChecked);
        w->checkTarget();
        QVERIFY(checked.wait(60'000));
        const ExtensionStatus& ts = w->lastCheck()->timescaledb;
        const std::string version = ts.installedVersion.empty() ? ts.availableVersion : ts.installedVersion;
        const QString text = said->text();
        if (!ts.usable) {
            VERIFY_MESSAGE(text, "Compression needs TimescaleDB: " + QString::fromStdString(ts.reason));
        } else if (hasDirectCompress(version)) {
            VERIFY_MESSAGE(
                text, "Compressed as COPY receives the rows: TimescaleDB " + QString::fromStdString(version),
                "experimental");
        } else {
            VERIFY_MESSAGE(text, "Compressed after the load: TimescaleDB", "2.21 and later");
        }
        QVERIFY(!said->isEnabled()); // regular is chosen: nothing is compressed
        if (ts.usable) {
            w->targetPanel()->tableTypeBox()->setCurrentIndex(3);
            QVERIFY(said->isEnabled());
            QVERIFY(w->targetPanel()->compressBox()->isEnabled());
        }
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
        const TargetCheck first = *w->lastCheck();
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
};

QTEST_MAIN(TestUiTrouble)
#include "tst_ui_trouble.moc"
