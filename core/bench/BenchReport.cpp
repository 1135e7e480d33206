// SPDX-License-Identifier: GPL-3.0-or-later

// A bench report: its JSON (written and read back), CSV and Markdown, and where reports are kept.

#include "bench/BenchReport.h"

#include "report/RunReport.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/Format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace isobar {

std::optional<std::size_t> BenchTable::column(std::string_view key) const {
    for (std::size_t i = 0; i < columns.size(); ++i) {
        if (columns[i].key == key) {
            return i;
        }
    }
    return std::nullopt;
}

const BenchTable* BenchReport::table(std::string_view id) const {
    for (const auto& t : tables) {
        if (t.id == id) {
            return &t;
        }
    }
    return nullptr;
}

namespace {

std::string decimals(double v, int n) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", n, v);
    return buf;
}

} // namespace

std::string formatBenchValue(const BenchValue& value, std::string_view format) {
    if (const auto* text = std::get_if<std::string>(&value)) {
        return *text;
    }
    const auto* number = std::get_if<double>(&value);
    if (number == nullptr || !std::isfinite(*number)) {
        return "";
    }
    const double v = *number;
    if (format == "int" || format == "rate") {
        return v < 0 ? "-" + formatThousands(static_cast<std::uint64_t>(std::llround(-v)))
                     : formatThousands(static_cast<std::uint64_t>(std::llround(v)));
    }
    if (format == "seconds") {
        return v >= 100 ? decimals(v, 0) + " s"
               : v >= 1 ? decimals(v, 2) + " s"
                        : decimals(v * 1000, 1) + " ms";
    }
    if (format == "bytes") {
        return v < 0 ? "" : formatBytes(static_cast<std::uint64_t>(std::llround(v)));
    }
    if (format == "ratio") {
        return decimals(v, 2);
    }
    if (v == std::floor(v) && std::fabs(v) < 1e15) {
        return decimals(v, 0);
    }
    return decimals(v, 2);
}

// --- JSON --------------------------------------------------------------------------------------

namespace {

void writePairs(JsonWriter& j, std::string_view key,
                const std::vector<std::pair<std::string, std::string>>& pairs) {
    j.key(key).beginArray();
    for (const auto& [name, value] : pairs) {
        j.beginObject().field("name", name).field("value", value).endObject();
    }
    j.endArray();
}

std::vector<std::pair<std::string, std::string>> readPairs(const JsonValue& v) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& p : v.array()) {
        out.emplace_back(p["name"].string(), p["value"].string());
    }
    return out;
}

void writeValue(JsonWriter& j, const BenchValue& v) {
    if (const auto* d = std::get_if<double>(&v)) {
        j.value(*d); // a non-finite number is written as null
    } else if (const auto* s = std::get_if<std::string>(&v)) {
        j.value(*s);
    } else {
        j.null();
    }
}

BenchValue readValue(const JsonValue& v) {
    if (v.isNull()) {
        return std::monostate{};
    }
    const std::string text = v.string("\x01");
    if (text != "\x01") {
        return text;
    }
    return v.number();
}

} // namespace

std::string renderBenchJson(const BenchReport& r) {
    JsonWriter j;
    j.beginObject();
    j.field("isobarBenchReport", 1);
    j.field("kind", r.kind).field("title", r.title).field("command", r.command);
    j.field("started", r.started).field("seconds", r.seconds);
    j.field("status", r.status).field("problem", r.problem);
    writePairs(j, "machine", r.machine);
    writePairs(j, "server", r.server);
    writePairs(j, "settings", r.settings);
    j.key("tables").beginArray();
    for (const auto& t : r.tables) {
        j.beginObject().field("id", t.id).field("title", t.title);
        j.key("columns").beginArray();
        for (const auto& c : t.columns) {
            j.beginObject().field("key", c.key).field("label", c.label).field("format", c.format).endObject();
        }
        j.endArray();
        j.key("rows").beginArray();
        for (const auto& row : t.rows) {
            j.beginArray();
            for (const auto& v : row) {
                writeValue(j, v);
            }
            j.endArray();
        }
        j.endArray();
        j.key("notes").beginArray();
        for (const auto& n : t.notes) {
            j.value(n);
        }
        j.endArray().endObject();
    }
    j.endArray();
    j.key("plots").beginArray();
    for (const auto& p : r.plots) {
        j.beginObject().field("kind", p.kind == BenchPlot::Kind::Lines ? "lines" : "bars");
        j.field("title", p.title)
            .field("xLabel", p.xLabel)
            .field("yLabel", p.yLabel)
            .field("yFormat", p.yFormat);
        j.key("categories").beginArray();
        for (const auto& c : p.categories) {
            j.value(c);
        }
        j.endArray();
        j.key("series").beginArray();
        for (const auto& s : p.series) {
            j.beginObject().field("name", s.name).key("values").beginArray();
            for (const auto& v : s.values) {
                if (v) {
                    j.value(*v);
                } else {
                    j.null();
                }
            }
            j.endArray().endObject();
        }
        j.endArray().endObject();
    }
    j.endArray();
    j.endObject();
    return j.str();
}

BenchReport parseBenchReport(std::string_view json) {
    const JsonValue doc = JsonValue::parse(json);
    if (doc["isobarBenchReport"].integer() != 1) {
        throw Error("not an Isobar bench report (no \"isobarBenchReport\": 1 in it)");
    }
    BenchReport r;
    r.kind = doc["kind"].string();
    r.title = doc["title"].string();
    r.command = doc["command"].string();
    r.started = doc["started"].string();
    r.seconds = doc["seconds"].number();
    r.status = doc["status"].string("completed");
    r.problem = doc["problem"].string();
    r.machine = readPairs(doc["machine"]);
    r.server = readPairs(doc["server"]);
    r.settings = readPairs(doc["settings"]);
    for (const auto& t : doc["tables"].array()) {
        BenchTable table;
        table.id = t["id"].string();
        table.title = t["title"].string();
        for (const auto& c : t["columns"].array()) {
            table.columns.push_back({c["key"].string(), c["label"].string(), c["format"].string()});
        }
        for (const auto& row : t["rows"].array()) {
            std::vector<BenchValue> values;
            for (const auto& v : row.array()) {
                values.push_back(readValue(v));
            }
            values.resize(table.columns.size());
            table.rows.push_back(std::move(values));
        }
        for (const auto& n : t["notes"].array()) {
            table.notes.push_back(n.string());
        }
        r.tables.push_back(std::move(table));
    }
    for (const auto& p : doc["plots"].array()) {
        BenchPlot plot;
        plot.kind = p["kind"].string() == "lines" ? BenchPlot::Kind::Lines : BenchPlot::Kind::Bars;
        plot.title = p["title"].string();
        plot.xLabel = p["xLabel"].string();
        plot.yLabel = p["yLabel"].string();
        plot.yFormat = p["yFormat"].string();
        for (const auto& c : p["categories"].array()) {
            plot.categories.push_back(c.string());
        }
        for (const auto& s : p["series"].array()) {
            BenchPlot::Series series{s["name"].string(), {}};
            for (const auto& v : s["values"].array()) {
                series.values.push_back(v.isNull() ? std::nullopt : std::optional<double>(v.number()));
            }
            series.values.resize(plot.categories.size());
            plot.series.push_back(std::move(series));
        }
        r.plots.push_back(std::move(plot));
    }
    return r;
}

// --- CSV and Markdown ----------------------------------------------------------------------------

namespace {

std::string csvField(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) {
        return s;
    }
    std::string out = "\"";
    for (char c : s) {
        out += c;
        if (c == '"') {
            out += '"';
        }
    }
    return out + "\"";
}

// Numbers in full precision for a spreadsheet; text as it is.
std::string rawValue(const BenchValue& v) {
    if (const auto* d = std::get_if<double>(&v)) {
        if (!std::isfinite(*d)) {
            return "";
        }
        char buf[64];
        if (*d == std::floor(*d) && std::fabs(*d) < 1e15) {
            std::snprintf(buf, sizeof buf, "%.0f", *d); // counts and bytes as whole numbers
            return buf;
        }
        // The shortest form that reads back the same.
        for (int digits = 1; digits <= 17; ++digits) {
            std::snprintf(buf, sizeof buf, "%.*g", digits, *d);
            double back = 0;
            std::sscanf(buf, "%lf", &back);
            if (back == *d) {
                break;
            }
        }
        return buf;
    }
    if (const auto* s = std::get_if<std::string>(&v)) {
        return *s;
    }
    return "";
}

std::string markdownCell(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '|') {
            out += "\\|";
        } else if (c == '\n') {
            out += ' ';
        } else {
            out += c;
        }
    }
    return out;
}

} // namespace

std::string renderBenchCsv(const BenchReport& r) {
    std::ostringstream out;
    bool first = true;
    for (const auto& t : r.tables) {
        if (!first) {
            out << "\r\n";
        }
        first = false;
        out << "table";
        for (const auto& c : t.columns) {
            out << ',' << csvField(c.key);
        }
        out << "\r\n";
        for (const auto& row : t.rows) {
            out << csvField(t.id);
            for (const auto& v : row) {
                out << ',' << csvField(rawValue(v));
            }
            out << "\r\n";
        }
    }
    return out.str();
}

std::string renderBenchMarkdown(const BenchReport& r) {
    std::ostringstream out;
    for (const auto& t : r.tables) {
        out << "### " << markdownCell(t.title) << "\n\n|";
        for (const auto& c : t.columns) {
            out << ' ' << markdownCell(c.label) << " |";
        }
        out << "\n|";
        for (const auto& c : t.columns) {
            const bool text = c.format.empty() || c.format == "text";
            out << (text ? "---|" : "---:|");
        }
        out << '\n';
        for (const auto& row : t.rows) {
            out << '|';
            for (std::size_t i = 0; i < row.size(); ++i) {
                out << ' ' << markdownCell(formatBenchValue(row[i], t.columns[i].format)) << " |";
            }
            out << '\n';
        }
        for (const auto& n : t.notes) {
            out << '\n' << n << '\n';
        }
        out << '\n';
    }
    if (r.status != "completed") {
        out << "**" << r.status << "**" << (r.problem.empty() ? "" : ": " + r.problem) << "\n\n";
    }
    return out.str();
}

// --- Files ---------------------------------------------------------------------------------------

std::filesystem::path benchReportDirectory() {
    return defaultReportDirectory() / "bench";
}

namespace {

void writeText(const std::filesystem::path& path, const std::string& text) {
    try {
        using std::filesystem::perms;
        writeFileAtomically(path, text,
                            perms::owner_read | perms::owner_write | perms::group_read | perms::others_read);
    } catch (const Error& e) {
        throw Error("cannot write the bench report: " + std::string(e.what()));
    }
}

std::string renderFor(const BenchReport& r, const std::filesystem::path& path) {
    const std::string ext = path.extension().string();
    if (ext == ".json") {
        return renderBenchJson(r);
    }
    if (ext == ".csv") {
        return renderBenchCsv(r);
    }
    if (ext == ".html" || ext == ".htm") {
        return renderBenchHtml(r);
    }
    if (ext == ".md") {
        return renderBenchMarkdown(r);
    }
    throw Error(path.string() + ": a bench report is .json, .csv, .html or .md");
}

} // namespace

std::filesystem::path writeBenchReport(const BenchReport& r, const std::filesystem::path& dir,
                                       const std::optional<std::filesystem::path>& extra) {
    if (extra) {
        (void)renderFor(r, *extra); // an unknown extension is refused before anything is written
    }
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        throw Error("cannot write the bench report: cannot create " + dir.string() + ": " + ec.message());
    }
    std::string stamp = r.started;
    std::replace(stamp.begin(), stamp.end(), ':', '-');
    std::string base = "bench-" + r.kind + "-" + stamp;
    for (int n = 2; std::filesystem::exists(dir / (base + ".json")); ++n) {
        base = "bench-" + r.kind + "-" + stamp + "-" + std::to_string(n);
    }
    std::filesystem::path json = dir / (base + ".json");
    writeText(dir / (base + ".csv"), renderBenchCsv(r));
    writeText(dir / (base + ".html"), renderBenchHtml(r));
    writeText(json, renderBenchJson(r)); // last: a listed report has its CSV and HTML beside it
    if (extra) {
        exportBenchReport(r, *extra);
    }
    return json;
}

void exportBenchReport(const BenchReport& report, const std::filesystem::path& path) {
    writeText(path, renderFor(report, path));
}

std::vector<BenchReportEntry> listBenchReports(const std::filesystem::path& dir) {
    std::vector<BenchReportEntry> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
        const auto& p = e.path();
        if (p.extension() != ".json" || p.filename().string().rfind("bench-", 0) != 0) {
            continue;
        }
        try {
            std::error_code timeError;
            out.push_back(
                {p, parseBenchReport(readWholeFile(p)), std::filesystem::last_write_time(p, timeError)});
        } catch (const Error&) {
            // Not readable, not one of ours, or cut short: not listed.
        }
    }
    std::sort(out.begin(), out.end(), [](const BenchReportEntry& a, const BenchReportEntry& b) {
        return a.report.started != b.report.started ? a.report.started > b.report.started
                                                    : a.written > b.written;
    });
    return out;
}

} // namespace isobar
