// SPDX-License-Identifier: GPL-3.0-or-later

// The variables and levels asked of the synthetic file writer: what does not fit a layout refused,
// by its message, with nothing written; and the sample command's --variables and --levels, its summary
// line and its usage errors.

#include "SyntheticTestUtil.h"
#include "TestUtil.h"
#include "era5/Era5File.h"
#include "synth/SyntheticFiles.h"

#include <QtTest>

using namespace isobar;
using test::byName;

class TestSyntheticOptions : public QObject {
    Q_OBJECT

private slots:
    void init() { QVERIFY(dir_.isValid()); }

    // The refusals, by their messages, and nothing written for them.
    void refusesWhatDoesNotFit_data() {
        QTest::addColumn<QString>("layout");
        QTest::addColumn<QStringList>("variables");
        QTest::addColumn<QList<double>>("levels");
        QTest::addColumn<QStringList>("message");
        QTest::newRow("pressure-level variable at single levels")
            << "cds-legacy" << QStringList{"t2m", "t"} << QList<double>{}
            << QStringList{"t (Temperature)", "pressure-level variable", "cds-legacy", "cds-legacy-pl"};
        QTest::newRow("single-level variable on pressure levels")
            << "cds-2024-pl" << QStringList{"t", "t2m"} << QList<double>{}
            << QStringList{"t2m", "single-level variable", "cds-2024-pl"};
        QTest::newRow("levels at single levels") << "cds-2024" << QStringList{} << QList<double>{500}
                                                 << QStringList{"--levels", "single levels", "cds-2024"};
        QTest::newRow("level below the ground") << "cds-legacy-pl" << QStringList{} << QList<double>{1100}
                                                << QStringList{"--levels", "1100 hPa", "1 to 1000"};
        QTest::newRow("level 0") << "cds-2024-pl" << QStringList{} << QList<double>{500, 0}
                                 << QStringList{"--levels", "0 hPa", "1 to 1000"};
        QTest::newRow("level twice") << "cds-2024-pl" << QStringList{} << QList<double>{500, 850, 500}
                                     << QStringList{"500 hPa", "twice"};
        QTest::newRow("fractional level in int32")
            << "cds-legacy-pl" << QStringList{} << QList<double>{2.5} << QStringList{"2.5 hPa", "whole"};
        QTest::newRow("variable twice") << "cds-legacy" << QStringList{"t2m", "tp", "t2m"} << QList<double>{}
                                        << QStringList{"t2m", "twice"};
        QTest::newRow("no NCAR file for it")
            << "ncar" << QStringList{"t2m", "tcrw"} << QList<double>{} << QStringList{"tcrw", "NCAR"};
    }
    void refusesWhatDoesNotFit() {
        QFETCH(QString, layout);
        QFETCH(QStringList, variables);
        QFETCH(QList<double>, levels);
        QFETCH(QStringList, message);
        SyntheticOptions options;
        options.layout = *parseSyntheticLayout(layout.toStdString());
        options.out = dir_.filePath("refused.nc").toStdString();
        options.region = SyntheticRegion::parse("1,0,0,1");
        for (const QString& name : variables) {
            options.variables.push_back(byName(name.toStdString().c_str()));
        }
        options.levels.assign(levels.begin(), levels.end());
        const QString m = test::errorOf([&] { writeSynthetic(options); });
        VERIFY_MESSAGE(m, message);
        QCOMPARE(test::errorOf([&] { syntheticContents(options); }), m);
        QVERIFY(!QFileInfo::exists(dir_.filePath("refused.nc")));
        QVERIFY(!QFileInfo::exists(dir_.filePath("refused.nc.part")));
    }

    // The command: --variables and --levels, the summary line, usage errors (exit 2) before
    // anything is written.
    void sampleCommand() {
        const QString file = dir_.filePath("cli.nc");
        test::CliRun run = test::runCli({"synth", "--out", file, "--hours", "2", "--region", "10,9,0,1",
                                         "--variables", "t2m,d2m,2t_is_not,sp"});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("'2t_is_not' is not in the variable catalog"), qPrintable(run.err));
        run = test::runCli({"synth", "--out", file, "--hours", "2", "--region", "10,9,0,1", "--variables",
                            "t2m,d2m,sp,ssrd"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains("4 variable(s) (t2m d2m sp ssrd)"), qPrintable(run.out));
        QCOMPARE(Era5File::open(file.toStdString()).variables().size(), size_t{4});

        const QString pl = dir_.filePath("cli-pl.nc");
        run = test::runCli({"synth", "--out", pl, "--hours", "1", "--region", "10,9,0,1", "--layout",
                            "cds-2024-pl", "--variables", "t,z", "--levels", "500,1000,250"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains("3 level(s) (1000 500 250 hPa)"), qPrintable(run.out));
        QVERIFY2(run.out.contains("2 variable(s) (t z)"), qPrintable(run.out));
        QCOMPARE(Era5File::open(pl.toStdString()).levels(), (std::vector<double>{1000, 500, 250}));

        run = test::runCli({"synth", "--out", pl, "--hours", "1", "--layout", "cds-legacy-pl"});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains("(500 850 1000 hPa)") && run.out.contains("(t u v z q r)"),
                 qPrintable(run.out));

        const QString refused = dir_.filePath("refused-cli.nc");
        const struct {
            QStringList args;
            const char* message = nullptr;
        } usage[] = {
            {{"--variables", "t2m,t"}, "pressure-level variable"},
            {{"--layout", "cds-2024-pl", "--variables", "sp"}, "single-level variable"},
            {{"--levels", "500"}, "single levels"},
            {{"--layout", "cds-legacy-pl", "--levels", "500,high"}, "'high' is not a pressure level"},
            {{"--layout", "cds-legacy-pl", "--levels", "5000"}, "1 to 1000"},
            {{"--variables", ","}, "at least one name"},
        };
        for (const auto& u : usage) {
            run = test::runCli(QStringList{"synth", "--out", refused, "--hours", "1", "--region", "1,0,0,1"} +
                               u.args);
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.err.contains(u.message), qPrintable(run.err));
            QVERIFY(!QFileInfo::exists(refused));
        }
        run = test::runCli({"synth", "--help"});
        QVERIFY(run.out.contains("--variables") && run.out.contains("--levels") &&
                run.out.contains("cds-2024-pl"));
        // Its earlier name still works, for the scripts that use it.
        run = test::runCli({"sample", "--help"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.out.startsWith("usage: isobar-cli synth"));
    }

private:
    QTemporaryDir dir_;
};

QTEST_GUILESS_MAIN(TestSyntheticOptions)
#include "tst_synthetic_options.moc"
