// The published benches (methods, matrix, query) against a real PostgreSQL on a tiny file: what each
// measures, that every method loads the very same rows, that they refuse bad options, leave no
// table behind however they end, and that their reports survive the round trip through their files.
// Speed is never asserted: only that what was measured is there and consistent.

#include "TestCluster.h"
#include "TestUtil.h"
#include "bench/BenchReport.h"
#include "bench/WarehouseBenchmarks.h"
#include "bench/WireRows.h"
#include "copy/BinaryCopyBuffer.h"
#include "db/CopyStream.h"
#include "db/TableType.h"
#include "db/WeatherSchema.h"
#include "era5/Dataset.h"
#include "era5/SampleWriter.h"
#include "ingest/UnitSource.h"
#include "plan/LoadPlan.h"

#include <QtTest>

#include <cfloat>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <span>
#include <stop_token>
#include <thread>

using namespace isobar;
using test::CliRun;
using test::runCli;

namespace {

constexpr std::int64_t kUnix20240101 = 1'704'067'200LL; // 2024-01-01 00:00 UTC, seconds since 1970

PgTimestamp utc(std::int64_t unixSeconds, std::int64_t micros = 0) {
    return pgTimestampFromUnixMicros(unixSeconds * 1'000'000 + micros);
}

std::string readText(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeText(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) {
        ++n;
    }
    return n;
}

std::vector<std::string> splitLines(const std::string& text, const std::string& separator) {
    std::vector<std::string> lines;
    std::size_t from = 0;
    for (auto at = text.find(separator); at != std::string::npos; at = text.find(separator, from)) {
        lines.push_back(text.substr(from, at - from));
        from = at + separator.size();
    }
    if (from < text.size()) {
        lines.push_back(text.substr(from));
    }
    return lines;
}

// A cell of a bench table by its column's key; empty when the table has no such column (which
// the assertions on it then report, with the row).
const BenchValue& cell(const BenchTable& table, const std::vector<BenchValue>& row, std::string_view key) {
    static const BenchValue none;
    const auto c = table.column(key);
    return c && *c < row.size() ? row[*c] : none;
}
std::optional<double> number(const BenchTable& table, const std::vector<BenchValue>& row,
                             std::string_view key) {
    const auto* d = std::get_if<double>(&cell(table, row, key));
    return d != nullptr ? std::optional(*d) : std::nullopt;
}
std::string text(const BenchTable& table, const std::vector<BenchValue>& row, std::string_view key) {
    const auto* s = std::get_if<std::string>(&cell(table, row, key));
    return s != nullptr ? *s : std::string();
}
// The row as "key=value, ...", for failure messages.
QString describeRow(const BenchTable& table, const std::vector<BenchValue>& row) {
    QString out;
    for (std::size_t i = 0; i < row.size() && i < table.columns.size(); ++i) {
        out += QString::fromStdString(table.columns[i].key + "=" + formatBenchValue(row[i], "")) + "; ";
    }
    return out;
}
// A number of the row that must be there and above zero.
#define VERIFY_POSITIVE(table, row, key)                                                                     \
    do {                                                                                                     \
        const auto v_ = number(table, row, key);                                                             \
        QVERIFY2(v_.has_value() && *v_ > 0,                                                                  \
                 qPrintable(QString(key) + " not > 0 in: " + describeRow(table, row)));                      \
    } while (false)

// Fails the test function, with the message, when the statement throws isobar::Error.
#define NO_ERROR(...)                                                                                        \
    do {                                                                                                     \
        const QString e_ = ::isobar::test::errorOf([&] { __VA_ARGS__; });                                    \
        QVERIFY2(e_.isEmpty(), qPrintable(e_));                                                              \
    } while (false)

// What a bench left behind: its tables (anything named isobar_bench*), and ledger, column and grid
// records of tables that are gone. Empty when nothing.
QString leftovers(Connection& conn) {
    QString out;
    const QString failed = test::errorOf([&] {
        const Result r =
            conn.query("SELECT relname FROM pg_class WHERE relname LIKE 'isobar_bench%' ORDER BY 1");
        for (int i = 0; i < r.rows(); ++i) {
            out += "relation " + QString::fromStdString(r.text(i, 0)) + "; ";
        }
        for (const char* table :
             {"isobar.ledger", "isobar.ledger_unlogged", "isobar.table_columns", "isobar.table_grid"}) {
            if (test::scalar(conn, std::string("SELECT to_regclass('") + table + "') IS NOT NULL") != "t") {
                continue;
            }
            const auto n =
                test::count(conn, std::string("SELECT count(*) FROM ") + table +
                                      " l WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = l.relid)");
            if (n > 0) {
                out += QString("%1 record(s) of dropped tables in %2; ").arg(n).arg(table);
            }
        }
    });
    return failed.isEmpty() ? out : "cannot tell: " + failed;
}

// Every progress call of a bench.
struct Steps {
    std::vector<std::pair<std::string, double>> seen;
    BenchProgress progress() {
        return [this](const std::string& step, double done) {
            seen.emplace_back(step, done);
        };
    }
    // Empty when the shares never go back, stay within 0-1 (or -1: no share) and end with "done".
    QString problem() const {
        double last = 0;
        for (const auto& [step, done] : seen) {
            if (done < 0) {
                continue;
            }
            if (done < last || done > 1) {
                return QString::fromStdString("share " + std::to_string(done) + " at '" + step + "'");
            }
            last = done;
        }
        if (seen.empty() || seen.back() != std::pair<std::string, double>{"done", 1.0}) {
            return "the last step is not done, 1";
        }
        return {};
    }
};

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
const PgTimestamp kTimes[] = {utc(kUnix20240101), utc(946'684'799, 500'000) /* 1999-12-31 23:59:59.5 */,
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

class TestBench : public QObject {
    Q_OBJECT

    std::unique_ptr<test::TestCluster> cluster_;
    // 4 hours from 2024-01-01 22:00 UTC on 9 x 20 points: two UTC days, the first with 2 hours.
    std::filesystem::path file_;
    std::uint64_t fileRows_ = 0;
    std::uint64_t firstDayRows_ = 0;
    std::filesystem::path levelsFile_; // pressure levels: 2 hours, 3 levels, 5 x 4 points
    std::optional<BenchReport> methods_;
    QString methodsError_;
    Steps methodsSteps_;

    BenchData data() const { return BenchData{{file_}, {}, 0}; }

    std::filesystem::path work() const { return cluster_->workDir().toStdString(); }

    // bench methods on the tiny file: every method, regular, partitioned and hypertable tables, 1
    // and 2 workers, one round; run once for the tests that read its report.
    const BenchReport* methodsReport() {
        if (!methods_ && methodsError_.isEmpty()) {
            MethodsBenchmarkOptions o;
            o.conninfo = cluster_->conninfo();
            o.data = data();
            o.tableTypes = {TableType::Regular, TableType::Partitioned, TableType::Hypertable};
            o.workers = {1, 2};
            o.rounds = 1;
            o.insertRows = 50;
            methodsError_ = test::errorOf([&] { methods_ = benchmarkMethods(o, methodsSteps_.progress()); });
        }
        return methods_ ? &*methods_ : nullptr;
    }

    // The bench reports in the report directory the test cluster set for this process (and so for
    // the isobar-cli it starts).
    std::filesystem::path benchReports() const {
        return std::filesystem::path(qEnvironmentVariable("ISOBAR_REPORT_DIR").toStdString()) / "bench";
    }
    std::size_t benchReportFiles() const {
        std::error_code ec;
        std::size_t n = 0;
        for (auto it = std::filesystem::directory_iterator(benchReports(), ec);
             !ec && it != std::filesystem::directory_iterator(); ++it) {
            ++n;
        }
        return n;
    }

private slots:
    void initTestCase() {
        cluster_ = std::make_unique<test::TestCluster>();
        SampleOptions sample;
        sample.out = work() / "tiny.nc";
        sample.hours = 4;
        sample.region = SampleRegion{2.0, 0.0, 0.0, 4.75};
        sample.start = utc(kUnix20240101 + 22 * 3600);
        const SampleInfo info = writeSample(sample);
        file_ = info.files.front();
        fileRows_ = info.rows();
        QCOMPARE(fileRows_, std::uint64_t{4 * 9 * 20});
        QCOMPARE(Dataset::open({file_}).rowCount(), fileRows_);
        firstDayRows_ = 2 * 9 * 20; // 22 and 23 UTC

        SampleOptions levels;
        levels.out = work() / "levels.nc";
        levels.hours = 2;
        levels.region = SampleRegion{1.0, 0.0, 0.0, 0.75};
        levels.layout = SampleLayout::CdsLegacyPl;
        const SampleInfo levelsInfo = writeSample(levels);
        levelsFile_ = levelsInfo.files.front();
        QCOMPARE(levelsInfo.levels.size(), std::size_t{3});
    }
    void cleanupTestCase() { cluster_.reset(); }

    // Every method into every table type with 1 and 2 workers: each loads all the rows (the INSERT
    // its sample), with a time, a rate and WAL; server-limit is its own ceiling; hypertables, without
    // TimescaleDB here, are rows that say so. Nothing is left behind.
    void methodsMeasureEveryMethod() {
        const BenchReport* ran = methodsReport();
        QVERIFY2(ran != nullptr, qPrintable(methodsError_));
        const BenchReport& report = *ran;
        QVERIFY2(report.status == "completed", report.problem.c_str());
        QCOMPARE(report.kind, std::string("methods"));
        QVERIFY(!report.started.empty());
        QVERIFY(report.seconds > 0);
        QVERIFY(!report.server.empty());
        const BenchTable* table = report.table("methods");
        QVERIFY(table != nullptr);
        Connection conn = cluster_->connect();
        const bool timescale = timescaledbStatus(conn).usable;

        std::map<std::tuple<std::string, std::string, double>, const std::vector<BenchValue>*> rows;
        for (const auto& row : table->rows) {
            QCOMPARE(row.size(), table->columns.size());
            const auto key = std::tuple(text(*table, row, "method"), text(*table, row, "table_type"),
                                        number(*table, row, "workers").value_or(0));
            QVERIFY2(rows.emplace(key, &row).second, qPrintable("twice: " + describeRow(*table, row)));
        }
        std::size_t expectedRows = 0;
        std::size_t measuredRuns = 0;
        for (const char* type : {"regular", "partitioned", "hypertable"}) {
            const bool measured = std::string(type) != "hypertable" || timescale;
            for (double workers : {1.0, 2.0}) {
                std::map<std::string, double> seconds;
                for (const char* method : {"insert", "multi-insert", "copy-text", "copy-csv-file",
                                           "copy-csv-file+write", "copy-binary", "server-limit"}) {
                    const auto it = rows.find({method, type, workers});
                    const QString what = QString("%1, %2, %3 worker(s)").arg(method, type).arg(workers);
                    if (!measured && std::string(method) == "copy-csv-file+write") {
                        QVERIFY2(it == rows.end(), qPrintable(what + ": a row though not measured"));
                        continue;
                    }
                    QVERIFY2(it != rows.end(), qPrintable(what + ": no row"));
                    const auto& row = *it->second;
                    ++expectedRows;
                    QCOMPARE(text(*table, row, "durability"), std::string("safe"));
                    if (!measured) {
                        const std::string note = text(*table, row, "note");
                        QVERIFY2(note.starts_with("not measured: ") &&
                                     note.find("TimescaleDB") != std::string::npos,
                                 note.c_str());
                        QVERIFY2(!number(*table, row, "rows") && !number(*table, row, "seconds") &&
                                     !number(*table, row, "rows_per_s"),
                                 qPrintable(describeRow(*table, row)));
                        continue;
                    }
                    measuredRuns += std::string(method) == "copy-csv-file+write" ? 0U : 1U;
                    const std::uint64_t want = std::string(method) == "insert" ? 50 : fileRows_;
                    QCOMPARE(number(*table, row, "rows"), std::optional(double(want)));
                    VERIFY_POSITIVE(*table, row, "seconds");
                    VERIFY_POSITIVE(*table, row, "rows_per_s");
                    VERIFY_POSITIVE(*table, row, "wal_bytes");
                    VERIFY_POSITIVE(*table, row, "vs_server_limit");
                    QVERIFY(number(*table, row, "client_cpu_s").has_value());
                    QCOMPARE(number(*table, row, "rounds"), std::optional(1.0));
                    QCOMPARE(*number(*table, row, "rows_per_s"),
                             double(want) / *number(*table, row, "seconds"));
                    seconds[method] = *number(*table, row, "seconds");
                    if (std::string(method) == "server-limit") {
                        QVERIFY2(*number(*table, row, "vs_server_limit") == 1.0,
                                 qPrintable(describeRow(*table, row)));
                    }
                }
                if (measured) {
                    QVERIFY2(seconds["copy-csv-file+write"] >= seconds["copy-csv-file"],
                             qPrintable(QString("%1 worker(s)").arg(workers)));
                }
            }
        }
        QCOMPARE(table->rows.size(), expectedRows);
        // One step per measured run, then done.
        QCOMPARE(methodsSteps_.seen.size(), measuredRuns + 1);
        QVERIFY2(methodsSteps_.problem().isEmpty(), qPrintable(methodsSteps_.problem()));

        // The plot: rows/s against the worker counts, a line per method and table type measured.
        QCOMPARE(report.plots.size(), std::size_t{1});
        const BenchPlot& plot = report.plots.front();
        QCOMPARE(plot.kind, BenchPlot::Kind::Lines);
        QCOMPARE(plot.categories, (std::vector<std::string>{"1", "2"}));
        QCOMPARE(plot.series.size(), std::size_t{timescale ? 21U : 14U});
        for (const auto& s : plot.series) {
            QVERIFY2(s.values.size() == 2 && s.values[0] > 0.0 && s.values[1] > 0.0, s.name.c_str());
        }

        const QString left = leftovers(conn);
        QVERIFY2(left.isEmpty(), qPrintable(left));
        QCOMPARE(test::count(conn, "SELECT count(*) FROM pg_class WHERE relname LIKE 'isobar_bench%'"),
                 std::uint64_t{0});
    }

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

    // What makes a bench impossible is refused before it starts, saying which option.
    void optionsAreValidated() {
        MethodsBenchmarkOptions methods;
        methods.conninfo = cluster_->conninfo();
        methods.data = data();
        const auto noProgress = [](const std::string&, double) {
        };
        {
            auto o = methods;
            o.durability = {"safe", "fast"};
            EXPECT_ERROR_CONTAINING(benchmarkMethods(o, noProgress), "--yes", "fsync");
        }
        {
            auto o = methods;
            o.durability = {"reckless"};
            EXPECT_ERROR_CONTAINING(benchmarkMethods(o, noProgress), "'reckless'", "safe or fast");
        }
        {
            auto o = methods;
            o.rounds = 0;
            EXPECT_ERROR_CONTAINING(benchmarkMethods(o, noProgress), "rounds", "at least 1");
        }
        {
            auto o = methods;
            o.methods.clear();
            EXPECT_ERROR_CONTAINING(benchmarkMethods(o, noProgress), "at least one method");
        }
        MatrixBenchmarkOptions matrix;
        matrix.conninfo = cluster_->conninfo();
        matrix.hours = {0};
        EXPECT_ERROR_CONTAINING(benchmarkMatrix(matrix, noProgress), "0 hours");
        matrix.hours = {1};
        matrix.workers = 0;
        EXPECT_ERROR_CONTAINING(benchmarkMatrix(matrix, noProgress), "at least 1 worker");
        QueryBenchmarkOptions query;
        query.conninfo = cluster_->conninfo();
        query.repeats = 0;
        EXPECT_ERROR_CONTAINING(benchmarkQueries(query, noProgress), "at least 1 warm run");
        Connection conn = cluster_->connect();
        const QString left = leftovers(conn);
        QVERIFY2(left.isEmpty(), qPrintable(left));
    }

    // isobar-cli refuses them too, with status 2 and the option named, and writes no report. (The
    // server named cannot be reached: a refusal that came too late would fail otherwise.)
    void cliRefusesBadOptions_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("said");
        const QString nowhere = "host=/nonexistent port=1";
        QTest::newRow("unknown method")
            << QStringList{"bench", "methods", "--dsn", nowhere, "--methods", "copy-text,bogus"}
            << QStringList{"'bogus'", "--methods"};
        QTest::newRow("fast without --yes")
            << QStringList{"bench", "methods", "--dsn", nowhere, "--durability", "fast"}
            << QStringList{"--yes"};
        QTest::newRow("hours not a number")
            << QStringList{"bench", "matrix", "--dsn", nowhere, "--hours", "1,x"}
            << QStringList{"--hours", "'x'"};
        QTest::newRow("no warm run") << QStringList{"bench", "query", "--dsn", nowhere, "--repeats", "0"}
                                     << QStringList{"--repeats", "'0'"};
        QTest::newRow("report extension")
            << QStringList{"bench", "methods", "--dsn", nowhere, "--report", "out.txt"}
            << QStringList{"out.txt", ".json, .csv, .html or .md"};
        QTest::newRow("unknown bench")
            << QStringList{"bench", "nosuch"} << QStringList{"'nosuch'", "methods"};
        QTest::newRow("option of another bench")
            << QStringList{"bench", "matrix", "--dsn", nowhere, "--repeats", "3"}
            << QStringList{"--repeats", "matrix"};
    }
    void cliRefusesBadOptions() {
        QFETCH(QStringList, args);
        QFETCH(QStringList, said);
        const std::size_t before = benchReportFiles();
        const CliRun run = runCli(args, 60'000);
        QVERIFY2(run.exitCode == 2, qPrintable(QString("exit %1: %2").arg(run.exitCode).arg(run.err)));
        for (const QString& part : said) {
            QVERIFY2(run.err.contains(part), qPrintable("'" + part + "' not in: " + run.err));
        }
        QCOMPARE(benchReportFiles(), before);
    }

    // Every table type on the tiny file (the hours are not used with files): the plain and
    // partitioned tables are measured end to end, and lose the first UTC day by DELETE or by dropping
    // its partition; those that need TimescaleDB or Citus, absent here, are rows that say so.
    void matrixOfEveryTableType() {
        MatrixBenchmarkOptions o;
        o.conninfo = cluster_->conninfo();
        o.data = data();
        o.hours = {1, 10};
        o.workers = 2;
        o.seriesLocations = 4;
        Steps steps;
        BenchReport report;
        NO_ERROR(report = benchmarkMatrix(o, steps.progress()));
        QVERIFY2(report.status == "completed", report.problem.c_str());
        QCOMPARE(report.kind, std::string("matrix"));
        QVERIFY2(steps.problem().isEmpty(), qPrintable(steps.problem()));
        Connection conn = cluster_->connect();
        std::vector<std::pair<std::string, std::string>> skipped;
        availableBenchTableTypes(conn, &skipped);
        std::vector<std::string> names;
        for (const auto& t : allBenchTableTypes()) {
            names.push_back(benchTableTypeName(t));
        }
        QCOMPARE(names, (std::vector<std::string>{"regular", "unlogged", "partitioned", "hypertable",
                                                  "hypertable-compressed", "distributed"}));

        const BenchTable* table = report.table("matrix");
        QVERIFY(table != nullptr);
        QCOMPARE(table->rows.size(), names.size()); // one data size: the file
        std::vector<bool> measured;
        for (std::size_t i = 0; i < names.size(); ++i) {
            const auto& row = table->rows[i];
            QCOMPARE(row.size(), table->columns.size());
            QCOMPARE(text(*table, row, "data"), std::string("1 file(s)"));
            QCOMPARE(text(*table, row, "table_type"), names[i]);
            const auto why = std::find_if(skipped.begin(), skipped.end(),
                                          [&](const auto& s) { return s.first == names[i]; });
            measured.push_back(why == skipped.end());
            if (why != skipped.end()) {
                const std::string note = text(*table, row, "note");
                QCOMPARE(note, "not measured: " + why->second);
                const char* needs = names[i] == "distributed" ? "Citus" : "TimescaleDB";
                QVERIFY2(note.find(needs) != std::string::npos, note.c_str());
                QVERIFY2(!number(*table, row, "rows") && !number(*table, row, "total_bytes"),
                         qPrintable(describeRow(*table, row)));
                continue;
            }
            QCOMPARE(number(*table, row, "rows"), std::optional(double(fileRows_)));
            for (const char* key : {"write_1_s", "write_n_s", "rows_per_s_n", "heap_bytes", "total_bytes",
                                    "scan_1_s", "scan_n_s", "series_1_s", "series_n_s", "delete_s"}) {
                VERIFY_POSITIVE(*table, row, key);
            }
            const double total = *number(*table, row, "total_bytes");
            QVERIFY(total >= *number(*table, row, "heap_bytes"));
            QCOMPARE(number(*table, row, "delete_rows"), std::optional(double(firstDayRows_)));
            const std::string method = text(*table, row, "delete_method");
            const auto after = number(*table, row, "after_delete_bytes");
            QVERIFY(after.has_value());
            if (names[i] == "partitioned") {
                QCOMPARE(method, std::string("DROP partition"));
                QVERIFY2(*after < total, qPrintable(describeRow(*table, row)));
                QCOMPARE(number(*table, row, "vacuum_s"), std::optional(0.0));
            } else if (names[i].starts_with("hypertable")) {
                QCOMPARE(method, std::string("drop_chunks"));
                QVERIFY2(*after < total, qPrintable(describeRow(*table, row)));
            } else {
                QCOMPARE(method, std::string("DELETE"));
                VERIFY_POSITIVE(*table, row, "vacuum_s");
                QVERIFY2(*after <= total, qPrintable(describeRow(*table, row)));
            }
        }
        QVERIFY(measured[0] && measured[1] && measured[2]);

        // Write time, size and full scan, a bar per measured table type.
        QCOMPARE(report.plots.size(), std::size_t{3});
        for (const BenchPlot& plot : report.plots) {
            QCOMPARE(plot.kind, BenchPlot::Kind::Bars);
            QCOMPARE(plot.categories, names);
            QVERIFY(!plot.series.empty());
            for (const auto& s : plot.series) {
                QCOMPARE(s.values.size(), names.size());
                for (std::size_t i = 0; i < names.size(); ++i) {
                    QVERIFY2(
                        measured[i] ? s.values[i] > 0.0 : !s.values[i].has_value(),
                        qPrintable(QString::fromStdString(plot.title + ", " + s.name + ", " + names[i])));
                }
            }
        }
        QCOMPARE(report.plots[0].series.size(), std::size_t{2}); // writing with 1 and with 2 workers
        const QString left = leftovers(conn);
        QVERIFY2(left.isEmpty(), qPrintable(left));
    }

    // The four queries on a regular and a partitioned table of the same rows, the server restarted
    // before each type's cold runs; and the first UTC day removed from each.
    void queriesAndRetention() {
        int restarts = 0;
        QueryBenchmarkOptions o;
        o.conninfo = cluster_->conninfo();
        o.data = data();
        o.tableTypes = {{TableType::Regular, false}, {TableType::Partitioned, false}};
        o.repeats = 3;
        o.restartServer = [&] {
            ++restarts;
            cluster_->cluster().stop();
            cluster_->cluster().start();
        };
        Steps steps;
        BenchReport report;
        NO_ERROR(report = benchmarkQueries(o, steps.progress()));
        QVERIFY2(report.status == "completed", report.problem.c_str());
        QCOMPARE(restarts, 2);
        QVERIFY2(steps.problem().isEmpty(), qPrintable(steps.problem()));

        const BenchTable* queries = report.table("queries");
        QVERIFY(queries != nullptr);
        QCOMPARE(queries->rows.size(), std::size_t{8});
        QVERIFY(!queries->notes.empty() && queries->notes.front().find("restarted") != std::string::npos);
        for (std::size_t q = 0; q < 4; ++q) {
            const auto& regular = queries->rows[q];
            const auto& partitioned = queries->rows[q + 4];
            QCOMPARE(text(*queries, regular, "table_type"), std::string("regular"));
            QCOMPARE(text(*queries, partitioned, "table_type"), std::string("partitioned"));
            QCOMPARE(text(*queries, regular, "query"), text(*queries, partitioned, "query"));
            for (const auto* row : {&regular, &partitioned}) {
                for (const char* key : {"rows", "cold_s", "warm_mean_s", "warm_p95_s"}) {
                    VERIFY_POSITIVE(*queries, *row, key);
                }
                // Of 3 warm runs the 95th percentile (nearest rank) is the slowest: never below the mean.
                QVERIFY(*number(*queries, *row, "warm_p95_s") >= *number(*queries, *row, "warm_mean_s"));
            }
            QCOMPARE(number(*queries, regular, "rows"), number(*queries, partitioned, "rows"));
        }
        // What the tiny file makes of them: a location's 2 days; 8 locations in the first hour; the
        // first day's 2 hours in one 10 degree band; a location's 4 hours (of the last 5) each.
        QCOMPARE(number(*queries, queries->rows[0], "rows"), std::optional(2.0));
        QCOMPARE(number(*queries, queries->rows[1], "rows"), std::optional(8.0));
        QCOMPARE(number(*queries, queries->rows[2], "rows"), std::optional(2.0));
        QCOMPARE(std::fmod(*number(*queries, queries->rows[3], "rows"), 4.0), 0.0);

        const BenchTable* retention = report.table("retention");
        QVERIFY(retention != nullptr);
        QCOMPARE(retention->rows.size(), std::size_t{2});
        const auto& regular = retention->rows[0];
        QCOMPARE(text(*retention, regular, "table_type"), std::string("regular"));
        QCOMPARE(text(*retention, regular, "method"), std::string("DELETE"));
        QCOMPARE(number(*retention, regular, "rows"), std::optional(double(firstDayRows_)));
        VERIFY_POSITIVE(*retention, regular, "seconds");
        VERIFY_POSITIVE(*retention, regular, "vacuum_s");
        VERIFY_POSITIVE(*retention, regular, "before_bytes");
        QVERIFY2(*number(*retention, regular, "after_bytes") <= *number(*retention, regular, "before_bytes"),
                 qPrintable(describeRow(*retention, regular)));
        const auto& partitioned = retention->rows[1];
        QCOMPARE(text(*retention, partitioned, "table_type"), std::string("partitioned"));
        QCOMPARE(text(*retention, partitioned, "method"), std::string("DROP partition"));
        QCOMPARE(number(*retention, partitioned, "rows"), std::optional(double(firstDayRows_)));
        QCOMPARE(number(*retention, partitioned, "vacuum_s"), std::optional(0.0));
        VERIFY_POSITIVE(*retention, partitioned, "before_bytes");
        QVERIFY2(*number(*retention, partitioned, "after_bytes") <
                     *number(*retention, partitioned, "before_bytes"),
                 qPrintable(describeRow(*retention, partitioned)));

        // Warm and cold latency per query, and the removal per table type.
        QCOMPARE(report.plots.size(), std::size_t{3});
        QCOMPARE(report.plots[0].categories, (std::vector<std::string>{"Q1", "Q2", "Q3", "Q4"}));
        QCOMPARE(report.plots[1].categories, report.plots[0].categories);
        QCOMPARE(report.plots[0].series.size(), std::size_t{2});
        QCOMPARE(report.plots[2].categories, (std::vector<std::string>{"regular", "partitioned"}));

        Connection conn = cluster_->connect(); // the server is up again
        const QString left = leftovers(conn);
        QVERIFY2(left.isEmpty(), qPrintable(left));
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

    // Stopped while a method writes into its table: cancelled, what was measured kept, no table left.
    void cancelledMethodsLeaveNoTables() {
        MethodsBenchmarkOptions o;
        o.conninfo = cluster_->conninfo();
        o.data = data();
        o.workers = {2};
        o.rounds = 2;
        o.insertRows = 50;
        std::stop_source stop;
        Steps steps;
        BenchReport report;
        QString error;
        {
            // The bench on a thread of its own, as the desktop app runs it; stopped from its progress
            // (on that thread) as the second method starts, which notices it among its rows: its
            // table made, its transaction open.
            std::jthread bench([&] {
                try {
                    report = benchmarkMethods(
                        o,
                        [&](const std::string& step, double done) {
                            steps.seen.emplace_back(step, done);
                            if (steps.seen.size() == 2) {
                                stop.request_stop();
                            }
                        },
                        stop.get_token());
                } catch (const std::exception& e) {
                    error = e.what();
                }
            });
        }
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(report.status, std::string("cancelled"));
        QVERIFY(report.problem.empty());
        QCOMPARE(steps.seen.size(), std::size_t{2});
        QVERIFY(steps.seen[1].first.starts_with("multi-insert"));
        const BenchTable* table = report.table("methods");
        QVERIFY(table != nullptr);
        std::size_t measured = 0;
        for (const auto& row : table->rows) {
            if (number(*table, row, "rows")) {
                ++measured;
                QCOMPARE(text(*table, row, "method"), std::string("insert"));
                QCOMPARE(number(*table, row, "rows"), std::optional(50.0));
            } else {
                QCOMPARE(text(*table, row, "note"), std::string("not measured"));
            }
        }
        QCOMPARE(measured, std::size_t{1});
        QVERIFY(renderBenchMarkdown(report).find("**cancelled**") != std::string::npos);
        Connection conn = cluster_->connect();
        const QString left = leftovers(conn);
        QVERIFY2(left.isEmpty(), qPrintable(left));
    }

    // Stopped once its table exists (during the second load or the reads after it): cancelled, no
    // table left.
    void cancelledMatrixLeavesNoTables() {
        MatrixBenchmarkOptions o;
        o.conninfo = cluster_->conninfo();
        o.data = data();
        o.workers = 2;
        std::stop_source stop;
        Steps steps;
        BenchReport report;
        QString error;
        std::jthread stopper;
        {
            std::jthread bench([&] {
                try {
                    report = benchmarkMatrix(
                        o,
                        [&](const std::string& step, double done) {
                            steps.seen.emplace_back(step, done);
                            if (steps.seen.size() != 2) {
                                return;
                            }
                            // Watches for the table on a connection of its own, and stops the
                            // bench as soon as it is there (or after 20 s at the latest).
                            stopper = std::jthread([&, conninfo = o.conninfo] {
                                try {
                                    Connection watch = Connection::open(conninfo);
                                    test::waitFor(
                                        [&] {
                                            return test::scalar(watch,
                                                                "SELECT to_regclass('isobar_bench_matrix') "
                                                                "IS NOT NULL") == "t";
                                        },
                                        std::chrono::seconds(20));
                                } catch (const std::exception&) {
                                    // Stopped all the same: the test then finds what is left.
                                }
                                stop.request_stop();
                            });
                        },
                        stop.get_token());
                } catch (const std::exception& e) {
                    error = e.what();
                }
            });
        }
        stopper = {};
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY2(report.status == "cancelled",
                 qPrintable(QString::fromStdString(report.status + " " + report.problem)));
        QVERIFY(steps.seen.size() >= 2);
        QVERIFY(std::none_of(steps.seen.begin(), steps.seen.end(),
                             [](const auto& s) { return s.first == "done"; }));
        QVERIFY(report.table("matrix") != nullptr);
        Connection conn = cluster_->connect();
        const QString left = leftovers(conn);
        QVERIFY2(left.isEmpty(), qPrintable(left));
    }

    // isobar-cli bench methods as a user runs it: the Markdown table on stdout, --report as HTML,
    // and the report in the report directory it inherited from this process.
    void cliBenchMethods() {
        const QString reports = qEnvironmentVariable("ISOBAR_REPORT_DIR");
        QCOMPARE(reports, cluster_->workDir() + "/reports");
        QCOMPARE(benchReportDirectory(), benchReports());
        const QString html = cluster_->workDir() + "/m.html";
        const CliRun run = runCli({"bench", "methods", "--dsn", QString::fromStdString(cluster_->conninfo()),
                                   "--methods", "copy-binary,server-limit", "--rounds", "1", "--report", html,
                                   QString::fromStdString(file_.string())});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains("### Loading methods") && run.out.contains("|---"), qPrintable(run.out));
        QVERIFY2(run.out.contains("| copy-binary |") && run.out.contains("| server-limit |"),
                 qPrintable(run.out));
        QVERIFY2(!run.out.contains("| copy-text |"), qPrintable(run.out));
        QVERIFY(readText(html.toStdString()).find("<svg") != std::string::npos);

        std::vector<BenchReportEntry> methods;
        for (auto& e : listBenchReports(benchReports())) {
            if (e.report.kind == "methods") {
                methods.push_back(std::move(e));
            }
        }
        QCOMPARE(methods.size(), std::size_t{1});
        const BenchReport& report = methods.front().report;
        QVERIFY2(run.err.contains(QString::fromStdString(methods.front().path.string())),
                 qPrintable(run.err));
        QCOMPARE(report.status, std::string("completed"));
        QVERIFY2(report.command.find("--methods copy-binary,server-limit") != std::string::npos,
                 report.command.c_str());
        const BenchTable* table = report.table("methods");
        QVERIFY(table != nullptr);
        QCOMPARE(table->rows.size(), std::size_t{2});
        for (const auto& row : table->rows) {
            QCOMPARE(number(*table, row, "rows"), std::optional(double(fileRows_)));
            VERIFY_POSITIVE(*table, row, "rows_per_s");
        }
        Connection conn = cluster_->connect();
        const QString left = leftovers(conn);
        QVERIFY2(left.isEmpty(), qPrintable(left));
    }

    // bench read writes its report too: --report x.json, and in the report directory.
    void cliBenchReadReport() {
        const std::filesystem::path json = work() / "x.json";
        const CliRun run =
            runCli({"bench", "read", "--passes", "1", "--report", QString::fromStdString(json.string()),
                    QString::fromStdString(file_.string())});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        BenchReport report;
        NO_ERROR(report = parseBenchReport(readText(json)));
        QCOMPARE(report.kind, std::string("read"));
        QCOMPARE(report.status, std::string("completed"));
        QVERIFY(!report.machine.empty());
        const BenchTable* table = report.table("read");
        QVERIFY(table != nullptr);
        QCOMPARE(table->rows.size(), std::size_t{4});
        QCOMPARE(text(*table, table->rows.back(), "stage"), std::string("all"));
        for (const auto& row : table->rows) {
            VERIFY_POSITIVE(*table, row, "seconds");
            VERIFY_POSITIVE(*table, row, "rows_per_s");
        }
        const auto listed = listBenchReports(benchReports());
        QVERIFY(
            std::any_of(listed.begin(), listed.end(), [](const auto& e) { return e.report.kind == "read"; }));
    }
};

QTEST_GUILESS_MAIN(TestBench)
#include "tst_bench.moc"
