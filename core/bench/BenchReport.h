// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"
#include "util/Json.h"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace isobar {

// What every benchmark leaves behind, whatever it measured: tables of results, plots drawn from
// them, and the machine and server they were measured on. One shape for all of them, so the CLI
// prints it, the report files hold it and the desktop app shows it without knowing which bench it
// was.

// A table cell: empty (not measured, or not applicable), a number, or text.
using BenchValue = std::variant<std::monostate, double, std::string>;

struct BenchColumn {
    std::string key;   // for the JSON and CSV: "rows_per_s"
    std::string label; // for people: "rows/s"
    // How a number is shown: "int" (thousands grouped), "seconds", "bytes", "ratio", "rate" (rows/s)
    // or "" (as it is, two decimals at most).
    std::string format;
};

struct BenchTable {
    std::string id;    // "methods"
    std::string title; // "Loading methods"
    std::vector<BenchColumn> columns;
    std::vector<std::vector<BenchValue>> rows; // each as long as columns
    std::vector<std::string> notes;            // what the numbers mean, said under the table

    // The column's index, or nullopt.
    std::optional<std::size_t> column(std::string_view key) const;
};

// A plot of some of a table's numbers: categories along x (worker counts, table types, queries),
// one series per thing compared. Bars are grouped per category; lines join a series' points.
struct BenchPlot {
    enum class Kind : std::uint8_t { Bars, Lines };
    Kind kind = Kind::Bars;
    std::string title;
    std::string xLabel;
    std::string yLabel;
    std::string yFormat; // as BenchColumn::format
    std::vector<std::string> categories;
    struct Series {
        std::string name;
        std::vector<std::optional<double>> values; // one per category; nullopt: no point
    };
    std::vector<Series> series;
};

struct BenchReport {
    std::string kind;    // methods, matrix, query, ingest, durability, sustained, read
    std::string title;   // "isobar-cli bench methods"
    std::string command; // the command line, for reproducing it
    std::string started; // UTC, ISO 8601
    double seconds = 0;  // how long the whole bench took
    // completed, cancelled, or failed; a cancelled or failed bench keeps what it measured.
    std::string status = "completed";
    std::string problem; // why it failed
    // name -> value, in order: the machine (cores, memory, kernel, CPU), the server (version,
    // address, extensions) and the settings that decide these numbers.
    std::vector<std::pair<std::string, std::string>> machine;
    std::vector<std::pair<std::string, std::string>> server;
    std::vector<std::pair<std::string, std::string>> settings;
    std::vector<BenchTable> tables;
    std::vector<BenchPlot> plots;

    const BenchTable* table(std::string_view id) const;
};

// A number as the column's format shows it: "1,234,567", "2.35 s", "1.2 GB", "0.87".
std::string formatBenchValue(const BenchValue& value, std::string_view format);

// The machine this runs on.
std::vector<std::pair<std::string, std::string>> describeMachine();
// Records the machine, the server `conn` reaches and its settings in the report.
void describeEnvironment(Connection& conn, BenchReport& report);

std::string renderBenchJson(const BenchReport& report);
// Throws isobar::Error when the text is not a bench report.
BenchReport parseBenchReport(std::string_view json);
// Every table, one after another: a header line per table whose first column is "table", a blank
// line between tables.
std::string renderBenchCsv(const BenchReport& report);
// One self-contained page: the tables, the plots as inline SVG, the machine and server.
std::string renderBenchHtml(const BenchReport& report);
// The tables as Markdown, for a terminal or an issue.
std::string renderBenchMarkdown(const BenchReport& report);

// Where bench reports are kept: the run reports' directory's bench/ folder.
std::filesystem::path benchReportDirectory();

// Writes the report as JSON, CSV and HTML into `dir` (bench-<kind>-<started>.{json,csv,html}) and,
// when `extra` is given, in the format its extension names (.json, .csv, .html, .md). Returns the
// JSON file's path. Throws isobar::Error naming a file that cannot be written or an extension it
// does not know.
std::filesystem::path writeBenchReport(const BenchReport& report, const std::filesystem::path& dir,
                                       const std::optional<std::filesystem::path>& extra = std::nullopt);

// Writes the report to `path` alone, in the format its extension names (.json, .csv, .html, .md).
// Throws isobar::Error naming the file or the extension.
void exportBenchReport(const BenchReport& report, const std::filesystem::path& path);

// The bench reports in `dir`, newest first; files that cannot be read are left out.
struct BenchReportEntry {
    std::filesystem::path path;
    BenchReport report;
    std::filesystem::file_time_type written; // the JSON file's time: orders reports of one second
};
std::vector<BenchReportEntry> listBenchReports(const std::filesystem::path& dir);

// How a bench tells what it is doing: its stage in words, and the share of the whole done so far
// (0-1), for a progress bar.
using BenchProgress = std::function<void(const std::string& stage, double done)>;

} // namespace isobar
