// SPDX-License-Identifier: GPL-3.0-or-later

// The rows and the reports of the benches, against a real PostgreSQL: the rows the INSERT, COPY text
// and CSV methods send are the rows the binary COPY sends (loaded each way into the server, read back
// the same), and a bench report survives the round trip through its JSON, renders as CSV, HTML and
// Markdown, and is written to and listed from its files. The benches themselves are tst_bench_*'s.

#include "BenchTestUtil.h"
#include "TestCluster.h"
#include "TestUtil.h"
#include "bench/BenchReport.h"
#include "bench/WarehouseBenchmarks.h"
#include "bench/WireRows.h"
#include "copy/BinaryCopyBuffer.h"
#include "db/CopyStream.h"
#include "db/WeatherSchema.h"
#include "era5/Dataset.h"
#include "plan/LoadPlan.h"
#include "rows/UnitSource.h"
#include "synth/SyntheticFiles.h"

#include <QtTest>

#include <cfloat>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <span>

using namespace isobar;
using test::describeRow;
using test::kUnix20240101;
using test::occurrences;
using test::readText;
using test::splitLines;
using test::utc;
using test::writeText;

namespace {

// Rows on the binary COPY wire (no header or trailer), the table they fit, where their location_id is.
struct WireCase {
    std::string wire;
    std::size_t locationField = 1;
    std::uint64_t rows = 0;
    std::function<std::string(Connection&, const std::string&)> createSql;
    std::vector<std::string> times; // the first rows' times as text
    bool nulls = false;             // some fields are NULL
};

// Values that are hard to print exactly: fractions, a subnormal, the extremes, negative zero.
const float kHardFloats[] = {0.1f,        -273.15f, 1e-40f,   FLT_MAX, -0.0f,
                             123456.789f, 1.0f / 3, -FLT_MIN, 1000.0f, 0.0f};
const std::int32_t kLocationIds[] = {1, 1'038'240, -5, INT32_MAX, 0};
constexpr PgTimestamp kTimes[] = {utc(kUnix20240101), utc(946'684'799, 500'000) /* 1999-12-31 23:59:59.5 */,
                                  utc(1'709'210'096, 1) /* 2024-02-29 12:34:56.000001 */, utc(0)};

// Rows written here field by field, NULLs among them: the surface layout (time, location_id,
// latitude, longitude, three values) or the pressure-level one (time, pressure_level, location_id, ...).
WireCase handMadeRows(bool levels) {
    WireCase c;
    c.locationField = levels ? 2 : 1;
    c.nulls = true;
    c.createSql = [levels](Connection&, const std::string& name) {
        return "CREATE TABLE " + name + " (time timestamptz, " + (levels ? "pressure_level float4, " : "") +
               "location_id int4, latitude float4, longitude float4, a float4, b float4, c float4)";
    };
    BinaryCopyBuffer buffer(64);
    const auto f = [](std::size_t i) {
        return kHardFloats[i % std::size(kHardFloats)];
    };
    for (std::size_t i = 0; i < 20; ++i) {
        buffer.reserve(256);
        buffer.beginTuple(static_cast<std::int16_t>(levels ? 8 : 7));
        buffer.addTimestamptz(kTimes[i % std::size(kTimes)]);
        if (levels) {
            buffer.addFloat4(i % 3 == 0 ? 1000.0f : i % 3 == 1 ? 850.0f : 0.5f);
        }
        buffer.addInt32(kLocationIds[i % std::size(kLocationIds)]);
        buffer.addFloat4(f(i));
        buffer.addFloat4(f(i + 3));
        for (std::size_t k = 0; k < 3; ++k) {
            if ((i + k) % 4 == 0) {
                buffer.addNull();
            } else {
                buffer.addFloat4(f(i + 5 + k));
            }
        }
        ++c.rows;
    }
    c.wire.assign(buffer.data(), buffer.size());
    c.times = {"2024-01-01 00:00:00+00", "1999-12-31 23:59:59.500000+00", "2024-02-29 12:34:56.000001+00",
               "1970-01-01 00:00:00+00"};
    return c;
}

// Every row of the files as Isobar's engine encodes them, and the table a load would make for them.
WireCase engineRows(const std::filesystem::path& file, const std::string& firstTime) {
    const Dataset dataset = Dataset::open({file});
    const LoadPlan plan = LoadPlan::build(dataset, 0, 2);
    const UnitSource source(dataset);
    RawUnit raw;
    DecodedBand decoded;
    BinaryCopyBuffer wire;
    for (const WorkUnit& unit : plan.units()) {
        source.fetch(unit, raw);
        source.decode(raw, decoded);
        source.encode(unit, decoded, wire);
    }
    WireCase c;
    c.wire.assign(wire.data(), wire.size());
    c.rows = plan.totalRows();
    c.locationField = dataset.vertical() == Vertical::PressureLevels ? 2 : 1;
    const TableLayout layout{dataset.vertical(), dataset.columns()};
    c.createSql = [layout](Connection& conn, const std::string& name) {
        return createWeatherTableSql(conn, TableName{"", name}, layout);
    };
    c.times = {firstTime};
    return c;
}

// The rows of `a` that `b` lacks and those of `b` that `a` lacks (duplicates counted).
std::uint64_t differingRows(Connection& conn, const std::string& a, const std::string& b) {
    return test::count(conn, "SELECT count(*) FROM (SELECT * FROM " + a + " EXCEPT ALL SELECT * FROM " + b +
                                 ") d") +
           test::count(conn,
                       "SELECT count(*) FROM (SELECT * FROM " + b + " EXCEPT ALL SELECT * FROM " + a + ") d");
}

void copyIn(Connection& conn, const std::string& sql, std::span<const char> bytes, std::uint64_t& rows) {
    CopyStream copy(conn, sql);
    copy.send(bytes);
    rows = copy.finish();
}

// Two reports hold the same (empty when they do).
QString reportDifference(const BenchReport& a, const BenchReport& b) {
    if (std::tie(a.kind, a.title, a.command, a.started, a.seconds, a.status, a.problem) !=
        std::tie(b.kind, b.title, b.command, b.started, b.seconds, b.status, b.problem)) {
        return "the report's fields differ";
    }
    if (a.machine != b.machine || a.server != b.server || a.settings != b.settings) {
        return "machine, server or settings differ";
    }
    if (a.tables.size() != b.tables.size() || a.plots.size() != b.plots.size()) {
        return "the number of tables or plots differs";
    }
    for (std::size_t t = 0; t < a.tables.size(); ++t) {
        const BenchTable& x = a.tables[t];
        const BenchTable& y = b.tables[t];
        if (x.id != y.id || x.title != y.title || x.notes != y.notes ||
            x.columns.size() != y.columns.size()) {
            return QString::fromStdString("table " + x.id + ": id, title, notes or columns differ");
        }
        for (std::size_t c = 0; c < x.columns.size(); ++c) {
            if (std::tie(x.columns[c].key, x.columns[c].label, x.columns[c].format) !=
                std::tie(y.columns[c].key, y.columns[c].label, y.columns[c].format)) {
                return QString::fromStdString("table " + x.id + ": column " + x.columns[c].key + " differs");
            }
        }
        if (x.rows != y.rows) {
            for (std::size_t r = 0; r < std::min(x.rows.size(), y.rows.size()); ++r) {
                if (x.rows[r] != y.rows[r]) {
                    return QString::fromStdString("table " + x.id + ", row " + std::to_string(r) + ": ") +
                           describeRow(x, x.rows[r]) + " became " + describeRow(y, y.rows[r]);
                }
            }
            return QString::fromStdString("table " + x.id + ": the number of rows differs");
        }
    }
    for (std::size_t p = 0; p < a.plots.size(); ++p) {
        const BenchPlot& x = a.plots[p];
        const BenchPlot& y = b.plots[p];
        if (std::tie(x.kind, x.title, x.xLabel, x.yLabel, x.yFormat, x.categories) !=
                std::tie(y.kind, y.title, y.xLabel, y.yLabel, y.yFormat, y.categories) ||
            x.series.size() != y.series.size()) {
            return QString::fromStdString("plot " + x.title + " differs");
        }
        for (std::size_t s = 0; s < x.series.size(); ++s) {
            if (x.series[s].name != y.series[s].name || x.series[s].values != y.series[s].values) {
                return QString::fromStdString("plot " + x.title + ", series " + x.series[s].name +
                                              " differs");
            }
        }
    }
    return {};
}

} // namespace

class TestBenchReport : public QObject {
    Q_OBJECT

    std::unique_ptr<test::TestCluster> cluster_;
    // 4 hours from 2024-01-01 22:00 UTC on 9 x 20 points: two UTC days, the first with 2 hours.
    std::filesystem::path file_;
    std::filesystem::path levelsFile_; // pressure levels: 2 hours, 3 levels, 5 x 4 points
    std::optional<BenchReport> methods_;
    QString methodsError_;

    BenchData data() const { return BenchData{{file_}, {}, 0}; }

    std::filesystem::path work() const { return cluster_->workDir().toStdString(); }

    // bench methods on the tiny file (test::everyMethodOnce); run once for the tests that read its
    // report.
    const BenchReport* methodsReport() {
        if (!methods_ && methodsError_.isEmpty()) {
            const MethodsBenchmarkOptions o = test::everyMethodOnce(cluster_->conninfo(), data());
            methodsError_ =
                test::errorOf([&] { methods_ = benchmarkMethods(o, [](const std::string&, double) {}); });
        }
        return methods_ ? &*methods_ : nullptr;
    }

private slots:
    void initTestCase() {
        cluster_ = std::make_unique<test::TestCluster>();
        file_ = writeSynthetic(test::tinySample(work() / "tiny.nc")).files.front();

        SyntheticOptions levels;
        levels.out = work() / "levels.nc";
        levels.hours = 2;
        levels.region = SyntheticRegion{1.0, 0.0, 0.0, 0.75};
        levels.layout = SyntheticLayout::CdsLegacyPl;
        const SyntheticInfo levelsInfo = writeSynthetic(levels);
        levelsFile_ = levelsInfo.files.front();
        QCOMPARE(levelsInfo.levels.size(), std::size_t{3});
    }
    void cleanupTestCase() { cluster_.reset(); }

    // The rows the INSERT, COPY text and CSV methods send are the rows the binary COPY sends: loaded
    // each way into tables of their own, no row differs either way. Rows written here hold NULLs and
    // values that are hard to print; the engine's rows come from a surface and a pressure-level file.
    void wireRowsAreTheSameRows_data() {
        QTest::addColumn<QString>("source");
        QTest::newRow("surface, written here") << "surface";
        QTest::newRow("pressure levels, written here") << "levels";
        QTest::newRow("surface, the engine's") << "surface-file";
        QTest::newRow("pressure levels, the engine's") << "levels-file";
    }
    void wireRowsAreTheSameRows() {
        QFETCH(QString, source);
        WireCase c;
        NO_ERROR(c = source == "surface"        ? handMadeRows(false)
                     : source == "levels"       ? handMadeRows(true)
                     : source == "surface-file" ? engineRows(file_, "2024-01-01 22:00:00+00")
                                                : engineRows(levelsFile_, "2024-01-01 00:00:00+00"));
        QVERIFY(c.rows > 0);
        Connection conn = cluster_->connect();
        // Not UTC: the times' text must carry its zone.
        conn.exec("SET TimeZone = 'Pacific/Chatham'");
        std::string name = "wire_" + source.toStdString();
        std::replace(name.begin(), name.end(), '-', '_');
        const std::string binary = name + "_binary";
        for (const char* suffix : {"_binary", "_text", "_csv", "_insert"}) {
            conn.exec("DROP TABLE IF EXISTS " + name + suffix);
            conn.exec(c.createSql(conn, name + suffix));
        }

        // The binary COPY of a whole file: header, the rows, trailer.
        BinaryCopyBuffer file(64);
        file.writeHeader();
        file.reserve(c.wire.size() + 2);
        std::memcpy(file.append(c.wire.size()), c.wire.data(), c.wire.size());
        file.writeTrailer();
        std::uint64_t copied = 0;
        NO_ERROR(copyIn(conn, "COPY " + binary + " FROM STDIN (FORMAT binary)", file.bytes(), copied));
        QCOMPARE(copied, c.rows);

        std::string copyText;
        std::string csv;
        std::string values;
        std::vector<std::string> times;
        std::size_t visited = 0;
        NO_ERROR(visited = bench::forEachWireRow(std::span<const char>(c.wire), c.locationField,
                                                 [&](const bench::TextRow& row) {
                                                     bench::appendCopyText(row, copyText);
                                                     bench::appendCsv(row, csv);
                                                     values += values.empty() ? "" : ", ";
                                                     bench::appendSqlTuple(row, values);
                                                     times.push_back(row.fields.front());
                                                     return true;
                                                 }));
        QCOMPARE(visited, c.rows);
        times.resize(c.times.size());
        QCOMPARE(times, c.times);
        // A whole COPY file is read the same: its header and trailer skipped.
        QCOMPARE(
            bench::forEachWireRow(file.bytes(), c.locationField, [](const bench::TextRow&) { return true; }),
            std::size_t(c.rows));

        NO_ERROR(copyIn(conn, "COPY " + name + "_text FROM STDIN", std::span<const char>(copyText), copied));
        QCOMPARE(copied, c.rows);
        NO_ERROR(copyIn(conn, "COPY " + name + "_csv FROM STDIN (FORMAT csv)", std::span<const char>(csv),
                        copied));
        QCOMPARE(copied, c.rows);
        NO_ERROR(conn.exec("INSERT INTO " + name + "_insert VALUES " + values));

        for (const char* suffix : {"_text", "_csv", "_insert"}) {
            const std::string other = name + suffix;
            QCOMPARE(test::count(conn, "SELECT count(*) FROM " + other), c.rows);
            QVERIFY2(differingRows(conn, binary, other) == 0, qPrintable(QString::fromStdString(other)));
        }
        if (c.nulls) {
            QVERIFY(test::count(conn, "SELECT count(*) FROM " + binary + " t WHERE NOT (t IS NOT NULL)") > 0);
        }
        // The comparison can tell: one value changed is two differing rows.
        conn.exec("UPDATE " + name +
                  "_text SET latitude = latitude + 1 WHERE ctid = (SELECT min(ctid) FROM " + name + "_text)");
        QCOMPARE(differingRows(conn, binary, name + "_text"), std::uint64_t{2});
    }

    // An infinite value (a float32 file may hold one; only NaN becomes NULL on the wire) goes through
    // COPY text and CSV as it is; as an SQL tuple it must too.
    void wireRowsOfInfinity() {
        BinaryCopyBuffer wire(64);
        wire.reserve(64);
        wire.beginTuple(4);
        wire.addTimestamptz(kTimes[0]);
        wire.addInt32(1);
        wire.addFloat4(std::numeric_limits<float>::infinity());
        wire.addFloat4(-std::numeric_limits<float>::infinity());
        std::string copyText;
        std::string csv;
        std::string values;
        NO_ERROR(bench::forEachWireRow(wire.bytes(), 1, [&](const bench::TextRow& row) {
            bench::appendCopyText(row, copyText);
            bench::appendCsv(row, csv);
            bench::appendSqlTuple(row, values);
            return true;
        }));
        Connection conn = cluster_->connect();
        conn.exec("CREATE TABLE wire_infinity (time timestamptz, location_id int4, a float4, b float4)");
        std::uint64_t copied = 0;
        NO_ERROR(copyIn(conn, "COPY wire_infinity FROM STDIN", std::span<const char>(copyText), copied));
        NO_ERROR(
            copyIn(conn, "COPY wire_infinity FROM STDIN (FORMAT csv)", std::span<const char>(csv), copied));
        QCOMPARE(
            test::count(conn, "SELECT count(*) FROM wire_infinity WHERE a = 'Infinity' AND b = '-Infinity'"),
            std::uint64_t{2});
        const QString inserted =
            test::errorOf([&] { conn.exec("INSERT INTO wire_infinity VALUES " + values); });
        QVERIFY2(inserted.isEmpty(), qPrintable(inserted));
    }

    // Bytes that are not such rows are refused, and fn returning false stops the walk.
    void wireRowsRefuseBrokenBytes() {
        const WireCase c = handMadeRows(false);
        const auto all = [](const bench::TextRow&) {
            return true;
        };
        EXPECT_ERROR_CONTAINING(
            bench::forEachWireRow(std::span<const char>(c.wire.data(), c.wire.size() - 3), 1, all),
            "cut short or malformed");
        int seen = 0;
        QCOMPARE(bench::forEachWireRow(std::span<const char>(c.wire), 1,
                                       [&](const bench::TextRow&) { return ++seen < 2; }),
                 std::size_t{2});
    }

    // A report read back from its JSON is the report: tables with empty, text and number cells,
    // notes, plots with missing points, the machine and the server.
    void reportRoundTrip() {
        QVERIFY2(methodsReport() != nullptr, qPrintable(methodsError_));
        BenchReport report = *methodsReport();
        BenchTable edge{"edge", "Cells that are \"hard\" <to> write", {}, {}, {"a note, with a comma"}};
        edge.columns = {{"what", "what, really", ""}, {"n", "n", "int"}, {"s", "s", "seconds"}};
        edge.rows = {{std::monostate{}, 0.1, 1e300},
                     {std::string("text, with \"quotes\""), -2.5, 5e-324},
                     {std::string(), 123456789012345.0, std::monostate{}}};
        report.tables.push_back(edge);
        report.plots.push_back(
            {BenchPlot::Kind::Bars, "Gaps", "x", "y", "bytes", {"a", "b"}, {{"s", {std::nullopt, 2.5}}}});
        const std::string json = renderBenchJson(report);
        BenchReport back;
        NO_ERROR(back = parseBenchReport(json));
        const QString difference = reportDifference(report, back);
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        QVERIFY(std::holds_alternative<std::monostate>(back.table("edge")->rows[0][0]));
        QVERIFY(std::holds_alternative<std::string>(back.table("edge")->rows[2][0]));

        EXPECT_ERROR_CONTAINING(parseBenchReport(R"({"kind": "methods"})"), "not an Isobar bench report");
        EXPECT_ERROR_CONTAINING(parseBenchReport(json.substr(0, json.size() / 2)), "not valid JSON");
    }

    // The report as CSV (a header per table, a line per row), HTML (self-contained, an SVG per plot)
    // and Markdown (a table per table).
    void reportRenderings() {
        QVERIFY2(methodsReport() != nullptr, qPrintable(methodsError_));
        BenchReport report = *methodsReport();
        BenchTable edge{"edge", "Cells & <marks>", {}, {}, {}};
        edge.columns = {{"what", "what", ""}, {"n", "n", ""}};
        edge.rows = {{std::string("a, \"b\""), 0.1}, {std::monostate{}, 1e300}};
        report.tables.push_back(edge);

        const std::string csv = renderBenchCsv(report);
        const auto lines = splitLines(csv, "\r\n");
        std::size_t at = 0;
        for (const BenchTable& t : report.tables) {
            if (at > 0) {
                QVERIFY2(at < lines.size() && lines[at].empty(), "no blank line between tables");
                ++at;
            }
            std::string header = "table";
            for (const auto& c : t.columns) {
                header += "," + c.key;
            }
            QVERIFY(at < lines.size());
            QCOMPARE(lines[at++], header);
            for (std::size_t r = 0; r < t.rows.size(); ++r, ++at) {
                QVERIFY(at < lines.size());
                QVERIFY2(lines[at].starts_with(t.id + ","), lines[at].c_str());
            }
        }
        QCOMPARE(at, lines.size());
        QCOMPARE(lines[lines.size() - 2], std::string("edge,\"a, \"\"b\"\"\",0.1"));
        QCOMPARE(lines.back(), std::string("edge,,1e+300"));

        const std::string html = renderBenchHtml(report);
        QVERIFY(html.starts_with("<!DOCTYPE html>"));
        QCOMPARE(occurrences(html, "<svg"), report.plots.size());
        QVERIFY(!report.plots.empty());
        for (const BenchTable& t : report.tables) {
            QVERIFY2(html.find(t.id == "edge" ? "Cells &amp; &lt;marks&gt;" : t.title) != std::string::npos,
                     t.title.c_str());
        }
        // Self-contained: nothing fetched from anywhere; the only address is the SVG namespace.
        for (const char* fetches : {"src=", "href=", "<link", "<script", "url(", "@import"}) {
            QVERIFY2(html.find(fetches) == std::string::npos, fetches);
        }
        QCOMPARE(occurrences(html, "=\"http"), occurrences(html, "xmlns=\"http://www.w3.org/2000/svg\""));

        const std::string markdown = renderBenchMarkdown(report);
        std::size_t separators = 0;
        for (const auto& line : splitLines(markdown, "\n")) {
            separators += line.starts_with("|---") ? 1U : 0U;
        }
        QCOMPARE(separators, report.tables.size());
        for (const BenchTable& t : report.tables) {
            QVERIFY2(markdown.find("### " + t.title) != std::string::npos, t.title.c_str());
        }
        QVERIFY(markdown.find("| copy-binary |") != std::string::npos);
    }

    // writeBenchReport writes the three files and the extra one; listBenchReports finds the reports
    // newest first and nothing else; an extension it does not know is refused before anything is written.
    void reportFiles() {
        QVERIFY2(methodsReport() != nullptr, qPrintable(methodsError_));
        const BenchReport& report = *methodsReport();
        const std::filesystem::path dir = work() / "report-files";
        std::filesystem::path json;
        NO_ERROR(json = writeBenchReport(report, dir, dir / "x.md"));
        std::string stamp = report.started;
        std::replace(stamp.begin(), stamp.end(), ':', '-');
        const std::string base = "bench-methods-" + stamp;
        QCOMPARE(json, dir / (base + ".json"));
        QCOMPARE(readText(json), renderBenchJson(report));
        QCOMPARE(readText(dir / (base + ".csv")), renderBenchCsv(report));
        QCOMPARE(readText(dir / (base + ".html")), renderBenchHtml(report));
        QCOMPARE(readText(dir / "x.md"), renderBenchMarkdown(report));
        QCOMPARE(
            std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()),
            4L);

        // An older report, a report of the same second (its own name), and JSON files that are not
        // bench reports.
        BenchReport older = report;
        older.started = "2001-02-03T04:05:06Z";
        std::filesystem::path olderJson;
        NO_ERROR(olderJson = writeBenchReport(older, dir));
        QCOMPARE(olderJson.filename().string(), std::string("bench-methods-2001-02-03T04-05-06Z.json"));
        std::filesystem::path again;
        NO_ERROR(again = writeBenchReport(report, dir));
        QCOMPARE(again, dir / (base + "-2.json"));
        QCOMPARE(readText(json), renderBenchJson(report));
        writeText(dir / "bench-other.json", R"({"isobarRunReport": 1, "table": "weather"})");
        writeText(dir / "bench-cut.json", renderBenchJson(report).substr(0, 100));
        writeText(dir / "notes.json", renderBenchJson(report)); // a report, but not named as one
        const auto listed = listBenchReports(dir);
        QCOMPARE(listed.size(), std::size_t{3});
        QVERIFY(listed[0].path == json || listed[0].path == again);
        QVERIFY(listed[1].path == json || listed[1].path == again);
        QCOMPARE(listed[2].path, olderJson);
        QCOMPARE(listed[0].report.started, report.started);
        QCOMPARE(listed[2].report.started, older.started);
        QVERIFY(listed[0].report.table("methods") != nullptr);

        const auto files =
            std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator());
        EXPECT_ERROR_CONTAINING(writeBenchReport(older, dir, dir / "y.txt"), "y.txt",
                                ".json, .csv, .html or .md");
        QCOMPARE(
            std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()),
            files);
        EXPECT_ERROR_CONTAINING(writeBenchReport(older, dir / "new", dir / "new" / "y.txt"), "y.txt");
        QVERIFY(!std::filesystem::exists(dir / "new"));
        QVERIFY(listBenchReports(dir / "absent").empty());
    }
};

QTEST_GUILESS_MAIN(TestBenchReport)
#include "tst_benchreport.moc"
