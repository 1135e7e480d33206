// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// Helpers the bench tests share (tst_bench_*, tst_benchreport): the tiny file they bench and the
// methods bench they run on it, reading bench tables and files, what a bench left behind, every
// progress call of a bench, and the cluster and tiny file every tst_bench_* test class runs on.

#include "TestCluster.h"
#include "TestUtil.h"
#include "bench/BenchReport.h"
#include "bench/WarehouseBenchmarks.h"
#include "db/Connection.h"
#include "db/TableType.h"
#include "domain/Timestamp.h"
#include "era5/Dataset.h"
#include "synth/SyntheticFiles.h"
#include "util/Files.h"

#include <QString>
#include <QtTest>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace isobar::test {

inline constexpr std::int64_t kUnix20240101 = 1'704'067'200LL; // 2024-01-01 00:00 UTC, seconds since 1970

constexpr PgTimestamp utc(std::int64_t unixSeconds, std::int64_t micros = 0) {
    return pgTimestampFromUnixMicros(unixSeconds * 1'000'000 + micros);
}

// The file's content; empty when it cannot be read (the comparison that follows then fails).
inline std::string readText(const std::filesystem::path& path) {
    std::error_code unreadable;
    return readWholeFile(path, unreadable);
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
inline SyntheticOptions tinySample(const std::filesystem::path& out) {
    SyntheticOptions sample;
    sample.out = out;
    sample.hours = 4;
    sample.region = SyntheticRegion{2.0, 0.0, 0.0, 4.75};
    sample.start = utc(kUnix20240101 + 22 * 3600);
    return sample;
}

// bench methods on `data`: every method, regular, partitioned and hypertable tables, 1 and 2
// workers, one round.
inline MethodsBenchmarkOptions everyMethodOnce(const std::string& conninfo, const BenchData& data) {
    MethodsBenchmarkOptions o;
    o.conninfo = conninfo;
    o.data = data;
    o.tableTypes = {{TableType::Regular, false, false},
                    {TableType::Partitioned, false, false},
                    {TableType::Hypertable, false, false}};
    o.workers = {1, 2};
    o.rounds = 1;
    o.insertRows = 50;
    return o;
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

// What the bench tests run on, for a test class to derive from: a cluster of its own and the tiny
// file, made by startTinyBench() in initTestCase; and the bench reports the cluster's report
// directory holds.
class BenchFixture {
protected:
    std::unique_ptr<TestCluster> cluster_;
    // 4 hours from 2024-01-01 22:00 UTC on 9 x 20 points: two UTC days, the first with 2 hours.
    std::filesystem::path file_;
    std::uint64_t fileRows_ = 0;
    std::uint64_t firstDayRows_ = 0;

    void startTinyBench() {
        cluster_ = std::make_unique<TestCluster>();
        const SyntheticInfo info = writeSynthetic(tinySample(work() / "tiny.nc"));
        file_ = info.files.front();
        fileRows_ = info.rows();
        QCOMPARE(fileRows_, std::uint64_t{4 * 9 * 20});
        QCOMPARE(Dataset::open({file_}).rowCount(), fileRows_);
        firstDayRows_ = 2 * 9 * 20; // 22 and 23 UTC
    }

    BenchData data() const { return BenchData{{file_}, {}, 0}; }

    std::filesystem::path work() const { return cluster_->workDir().toStdString(); }

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
};

} // namespace isobar::test

// Fails the test function, with the message, when the statement throws isobar::Error.
#define NO_ERROR(...)                                                                                        \
    do {                                                                                                     \
        const QString e_ = ::isobar::test::errorOf([&] { __VA_ARGS__; });                                    \
        QVERIFY2(e_.isEmpty(), qPrintable(e_));                                                              \
    } while (false)

// A number of the row that must be there and above zero.
#define VERIFY_POSITIVE(table, row, key)                                                                     \
    do {                                                                                                     \
        const auto v_ = ::isobar::test::number(table, row, key);                                             \
        QVERIFY2(v_.has_value() && *v_ > 0,                                                                  \
                 qPrintable(QString(key) + " not > 0 in: " + ::isobar::test::describeRow(table, row)));      \
    } while (false)
