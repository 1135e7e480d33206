// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// What the desktop tests share: a real cluster, real NetCDF files, the real MainWindow (offscreen)
// and ways to drive it as a user does. Waits are on what the window shows, never on sleeps.

#include "DiskChart.h"
#include "FileListModel.h"
#include "FilesPage.h"
#include "HistoryPanel.h"
#include "LoadController.h"
#include "MainWindow.h"
#include "RateChart.h"
#include "ReportExport.h"
#include "RunPanel.h"
#include "SettingsPanel.h"
#include "TableAuditDialog.h"
#include "TargetPanel.h"
#include "TestCluster.h"
#include "TestUtil.h"
#include "VariableListModel.h"
#include "synth/SyntheticFiles.h"

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
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QTreeWidget>
#include <QtTest>

#include <csignal>

namespace isobar::test {

using namespace isobar::ui;

// Limits that only catch a hang: a load here takes seconds, on a busy shared machine a minute.
inline constexpr int kLoadTimeoutMs = 300'000;
// For background work (inspection, history parsing on the thread pool, the first chart point).
inline constexpr int kSlowMs = 30'000;

inline QString sampleFile(const QString& dir, const QString& name, int hours, const SyntheticRegion& region) {
    SyntheticOptions o;
    o.out = (dir + QLatin1Char('/') + name).toStdString();
    o.hours = hours;
    o.region = region;
    writeSynthetic(o);
    return QString::fromStdString(o.out.string());
}

inline QString readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// The base of each desktop test class: setUp() in initTestCase, tearDown() in cleanupTestCase.
class UiHarness : public QObject {
protected:
    std::unique_ptr<TestCluster> cluster_;
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

    // Adds files and waits until each is inspected, and the loadable ones checked together.
    static bool addFiles(MainWindow& w, const QStringList& files) {
        w.filesPage()->addPaths(files);
        return waitFor(
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
        return waitFor(
            [&] {
                QCoreApplication::processEvents();
                return w.runPanel()->progressBar()->value() > 0 || !ended.isEmpty();
            },
            std::chrono::milliseconds(kLoadTimeoutMs));
    }

    // Hours of the large file whose row count is not one per grid point (a unit loaded twice, or
    // not at all, shows there; counting distinct keys of millions of rows takes half a minute).
    QString hoursNotWhole(const std::string& table) {
        return scalar("SELECT count(*) FROM (SELECT time FROM " + table +
                      " GROUP BY time HAVING count(*) <> 721 * 1440) AS uneven");
    }

    static QString journalDirectory() {
        return QString::fromStdString(DurabilityJournal::directory().string());
    }

    QString scalar(const std::string& sql) {
        Connection c = cluster_->connect();
        return test::scalar(c, sql);
    }

    void setUp(const char* name) {
        QVERIFY(state_.isValid());
        // Remembered choices stay in a test location (TestCluster points journals and reports
        // at its own directory).
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("isobar-tests"));
        QCoreApplication::setApplicationName(QString::fromLatin1(name));
        QSettings().clear();
        cluster_ = std::make_unique<TestCluster>();
        const QString dir = cluster_->workDir();
        small_ = sampleFile(dir, "small.nc", 3, SyntheticRegion{10, 0, 0, 10});
        large_ = sampleFile(dir, "large.nc", 6, SyntheticRegion{});
        FixtureSpec spec = classicFixture(range(20, 15, 0.25), range(0, 5, 0.25), 2, 0);
        std::erase_if(spec.variables,
                      [](const FixtureVariable& v) { return v.name != "t2m" && v.name != "tp"; });
        QCOMPARE(spec.variables.size(), std::size_t(2));
        twoVariables_ = dir + "/two-variables.nc";
        writeFixture(twoVariables_, spec);
    }
    void tearDown() { cluster_.reset(); }
};

} // namespace isobar::test
