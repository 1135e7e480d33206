#pragma once

// Helpers the bench tests share (tst_bench, tst_benchreport): the tiny file they bench and the
// methods bench they run on it, reading bench tables and files, and what a bench left behind.

#include "TestCluster.h"
#include "TestUtil.h"
#include "bench/BenchReport.h"
#include "bench/WarehouseBenchmarks.h"
#include "db/Connection.h"
#include "db/TableType.h"
#include "domain/Timestamp.h"
#include "era5/SampleWriter.h"

#include <QString>
#include <QtTest>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace isobar::test {

inline constexpr std::int64_t kUnix20240101 = 1'704'067'200LL; // 2024-01-01 00:00 UTC, seconds since 1970

inline PgTimestamp utc(std::int64_t unixSeconds, std::int64_t micros = 0) {
    return pgTimestampFromUnixMicros(unixSeconds * 1'000'000 + micros);
}

inline std::string readText(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void writeText(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

inline std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) {
        ++n;
    }
    return n;
}

inline std::vector<std::string> splitLines(const std::string& text, const std::string& separator) {
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
inline const BenchValue& cell(const BenchTable& table, const std::vector<BenchValue>& row,
                              std::string_view key) {
    static const BenchValue none;
    const auto c = table.column(key);
    return c && *c < row.size() ? row[*c] : none;
}
inline std::optional<double> number(const BenchTable& table, const std::vector<BenchValue>& row,
                                    std::string_view key) {
    const auto* d = std::get_if<double>(&cell(table, row, key));
    return d != nullptr ? std::optional(*d) : std::nullopt;
}
inline std::string text(const BenchTable& table, const std::vector<BenchValue>& row, std::string_view key) {
    const auto* s = std::get_if<std::string>(&cell(table, row, key));
    return s != nullptr ? *s : std::string();
}
// The row as "key=value, ...", for failure messages.
inline QString describeRow(const BenchTable& table, const std::vector<BenchValue>& row) {
    QString out;
    for (std::size_t i = 0; i < row.size() && i < table.columns.size(); ++i) {
        out += QString::fromStdString(table.columns[i].key + "=" + formatBenchValue(row[i], "")) + "; ";
    }
    return out;
}

// What a bench left behind: its tables (anything named isobar_bench*), and ledger, column and grid
// records of tables that are gone. Empty when nothing.
inline QString leftovers(Connection& conn) {
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

// The tiny file the benches run on, written to `out`: 4 hours from 2024-01-01 22:00 UTC on 9 x 20
// points, two UTC days, the first with 2 hours.
inline SampleOptions tinySample(const std::filesystem::path& out) {
    SampleOptions sample;
    sample.out = out;
    sample.hours = 4;
    sample.region = SampleRegion{2.0, 0.0, 0.0, 4.75};
    sample.start = utc(kUnix20240101 + 22 * 3600);
    return sample;
}

// bench methods on `data`: every method, regular, partitioned and hypertable tables, 1 and 2
// workers, one round.
inline MethodsBenchmarkOptions everyMethodOnce(const std::string& conninfo, const BenchData& data) {
    MethodsBenchmarkOptions o;
    o.conninfo = conninfo;
    o.data = data;
    o.tableTypes = {TableType::Regular, TableType::Partitioned, TableType::Hypertable};
    o.workers = {1, 2};
    o.rounds = 1;
    o.insertRows = 50;
    return o;
}

} // namespace isobar::test

// Fails the test function, with the message, when the statement throws isobar::Error.
#define NO_ERROR(...)                                                                                        \
    do {                                                                                                     \
        const QString e_ = ::isobar::test::errorOf([&] { __VA_ARGS__; });                                    \
        QVERIFY2(e_.isEmpty(), qPrintable(e_));                                                              \
    } while (false)
