// The CSV and HTML forms of a run report.

#include "report/RunReport.h"
#include "util/Format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace isobar {

namespace {

std::string html(const std::string& text) {
    std::string out;
    for (char c : text) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::string fixed(double v, int decimals = 1) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string withThousands(std::uint64_t v) {
    std::string digits = std::to_string(v);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) {
            out += ',';
        }
        out += digits[i];
    }
    return out;
}

// A readable upper bound for an axis: 1, 2 or 5 times a power of ten.
double niceCeiling(double v) {
    if (v <= 0) {
        return 1;
    }
    const double p = std::pow(10.0, std::floor(std::log10(v)));
    for (double m : {1.0, 2.0, 5.0, 10.0}) {
        if (v <= m * p) {
            return m * p;
        }
    }
    return 10 * p;
}

// rows/s over time, the mean as a dashed line, checkpoints as red ticks. Plain SVG, no script.
std::string rateChart(const RunReport& r) {
    constexpr double W = 860;
    constexpr double H = 300;
    constexpr double L = 70; // left margin for the rate axis
    constexpr double B = 30; // bottom margin for the time axis
    constexpr double T = 10;
    const double duration = std::max(r.seconds, r.samples.empty() ? 1.0 : r.samples.back().elapsed);
    double peak = r.meanRate;
    for (const auto& s : r.samples) {
        peak = std::max(peak, s.intervalRate);
    }
    const double top = niceCeiling(peak * 1.05);
    const auto x = [&](double t) {
        return L + (W - L - 10) * (duration > 0 ? t / duration : 0);
    };
    const auto y = [&](double rate) {
        return T + (H - T - B) * (1.0 - rate / top);
    };
    std::ostringstream svg;
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << W << " " << H << "\" width=\"" << W
        << "\" height=\"" << H << "\" role=\"img\" aria-label=\"rows per second over time\">\n";
    svg << "<rect x=\"" << L << "\" y=\"" << T << "\" width=\"" << W - L - 10 << "\" height=\"" << H - T - B
        << "\" fill=\"#fafbfc\" stroke=\"#ccd\"/>\n";
    for (int i = 0; i <= 4; ++i) {
        const double rate = top * i / 4;
        svg << "<line x1=\"" << L << "\" x2=\"" << W - 10 << "\" y1=\"" << y(rate) << "\" y2=\"" << y(rate)
            << "\" stroke=\"#e3e6ea\"/><text x=\"" << L - 6 << "\" y=\"" << y(rate) + 4
            << "\" font-size=\"11\" text-anchor=\"end\" fill=\"#555\">"
            << withThousands(static_cast<std::uint64_t>(rate)) << "</text>\n";
    }
    for (int i = 0; i <= 5; ++i) {
        const double t = duration * i / 5;
        svg << "<text x=\"" << x(t) << "\" y=\"" << H - 10
            << "\" font-size=\"11\" text-anchor=\"middle\" fill=\"#555\">" << html(formatDuration(t))
            << "</text>\n";
    }
    // Checkpoints: where the counters grow between two monitor samples.
    std::uint64_t seen = 0;
    for (const auto& s : r.server) {
        const std::uint64_t n = s.checkpointsTimed + s.checkpointsRequested;
        if (n > seen) {
            svg << "<line x1=\"" << x(s.elapsed) << "\" x2=\"" << x(s.elapsed) << "\" y1=\"" << T
                << "\" y2=\"" << H - B
                << "\" stroke=\"#d33\" stroke-width=\"1\" stroke-dasharray=\"2,3\"><title>checkpoint at "
                << html(formatDuration(s.elapsed)) << "</title></line>\n";
            seen = n;
        }
    }
    if (!r.samples.empty()) {
        svg << "<polyline fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"1.5\" points=\"";
        for (const auto& s : r.samples) {
            svg << fixed(x(s.elapsed), 1) << "," << fixed(y(s.intervalRate), 1) << " ";
        }
        svg << "\"/>\n";
    }
    svg << "<line x1=\"" << L << "\" x2=\"" << W - 10 << "\" y1=\"" << y(r.meanRate) << "\" y2=\""
        << y(r.meanRate) << "\" stroke=\"#2da44e\" stroke-width=\"1.5\" stroke-dasharray=\"6,4\"><title>mean "
        << withThousands(static_cast<std::uint64_t>(r.meanRate)) << " rows/s</title></line>\n";
    svg << "</svg>\n";
    return svg.str();
}

} // namespace

std::string renderReportCsv(const RunReport& r) {
    std::ostringstream out;
    out << "elapsed_s,rows_sent,rows_committed,rate_rows_per_s,overall_rows_per_s,queue_depth";
    std::size_t workers = 0;
    for (const auto& s : r.samples) {
        workers = std::max(workers, s.workerRows.size());
    }
    for (std::size_t w = 0; w < workers; ++w) {
        out << ",worker" << w + 1 << "_rows";
    }
    out << "\n";
    for (const auto& s : r.samples) {
        out << fixed(s.elapsed, 3) << "," << s.rows << "," << s.committedRows << "," << fixed(s.intervalRate)
            << "," << fixed(s.overallRate) << "," << s.queueDepth;
        for (std::size_t w = 0; w < workers; ++w) {
            out << "," << (w < s.workerRows.size() ? s.workerRows[w] : 0);
        }
        out << "\n";
    }
    return out.str();
}

std::string renderReportHtml(const RunReport& r) {
    std::ostringstream out;
    const auto row = [&out](const std::string& name, const std::string& value) {
        out << "<tr><th>" << html(name) << "</th><td>" << html(value) << "</td></tr>\n";
    };
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>Isobar run: "
        << html(r.table) << " " << html(r.startedAt) << "</title>\n"
        << "<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}h1{font-size:20px}"
           "table{border-collapse:collapse;margin:1em 0}th,td{text-align:left;padding:3px "
           "12px;border-bottom:1px "
           "solid "
           "#eee;vertical-align:top}th{color:#555;font-weight:600}.failed{color:#b00}.cancelled{color:#a60}"
           ".completed{color:#070}code{font-size:12px}</style></head><body>\n";
    out << "<h1>Isobar run into " << html(r.table) << ": <span class=\"" << html(r.status) << "\">"
        << html(r.status) << "</span></h1>\n";
    out << rateChart(r);
    out << "<p>Blue: rows/s per sample; green dashes: the mean; red dots: checkpoints.</p>\n<table>\n";
    row("started", r.startedAt);
    row("finished", r.finishedAt);
    row("rows committed",
        withThousands(r.rows) +
            (r.resumedRows > 0 ? " (" + withThousands(r.resumedRows) + " already loaded by an earlier run)"
                               : ""));
    row("planned rows", withThousands(r.plannedRows));
    if (r.skippedRows > 0) {
        row("skipped (all values missing)", withThousands(r.skippedRows));
    }
    row("duration", formatDuration(r.seconds));
    row("mean rate", withThousands(static_cast<std::uint64_t>(r.meanRate)) + " rows/s");
    row("sustained rate", r.medianSustainedRate > 0
                              ? "median " + withThousands(static_cast<std::uint64_t>(r.medianSustainedRate)) +
                                    " rows/s, minimum " +
                                    withThousands(static_cast<std::uint64_t>(r.minSustainedRate)) +
                                    " rows/s (1-second windows in the middle 90% of the run)"
                              : "n/a (the run was too short for 1-second windows)");
    row("workers", std::to_string(r.workers));
    std::string perWorker;
    for (std::size_t w = 0; w < r.workerRows.size(); ++w) {
        perWorker += (w ? ", " : "") + std::string("#") + std::to_string(w + 1) + ": " +
                     withThousands(r.workerRows[w]);
    }
    if (!perWorker.empty()) {
        row("rows per worker", perWorker);
    }
    row("units", std::to_string(r.unitsCommitted) + " committed of " + std::to_string(r.units) +
                     (r.unitsResumed > 0 ? ", " + std::to_string(r.unitsResumed) + " done before" : "") +
                     (r.retries > 0 ? ", " + std::to_string(r.retries) + " retried" : ""));
    row("data sent", formatBytes(r.bytes));
    row("checkpoints during the run", std::to_string(r.checkpoints));
    row("WAL written", formatBytes(r.walBytes));
    row("verification", r.verification);
    if (!r.phases.run.empty()) {
        row("time by stage", LoadPhases::describe(r.phases.run));
    }
    if (!r.phases.workers.empty()) {
        row("workers' time (summed)", LoadPhases::describe(r.phases.workers) + " in " +
                                          std::to_string(r.phases.transactions) + " transaction(s)");
    }
    if (r.error) {
        row("error", *r.error + (r.errorSqlState.empty() ? "" : " (SQLSTATE " + r.errorSqlState + ")"));
        if (!r.errorUnit.empty()) {
            row("failed unit", r.errorUnit);
        }
    }
    row("table", r.table + " (" + r.tableType + ")");
    row("target", r.target);
    row("server", r.serverVersion);
    row("product", r.product + ", " + r.grid);
    std::string vars;
    for (const auto& v : r.variables) {
        vars += (vars.empty() ? "" : ", ") + v;
    }
    row("variables", vars);
    row("tool", r.tool);
    out << "</table>\n<h2>Files</h2>\n<table>\n";
    for (const auto& f : r.files) {
        row(f.name, f.layout + ", " + f.format);
    }
    out << "</table>\n<h2>Server settings</h2>\n<table>\n";
    for (const auto& s : r.settings) {
        row(s.name, s.value + "  (" + s.source + ")");
    }
    for (const auto& e : r.extensions) {
        row("extension", e);
    }
    out << "</table>\n";
    if (!r.settingWarnings.empty()) {
        out << "<h2>Settings warnings (as the load found the server)</h2>\n<table>\n";
        for (const auto& w : r.settingWarnings) {
            out << "<tr><th>" << html(std::string(severityName(w.severity))) << "</th><td>" << html(w.message)
                << (w.fix.empty() ? "" : "<br><code>" + html(w.fix) + "</code>") << "</td></tr>\n";
        }
        out << "</table>\n";
    }
    if (!r.durabilityRequested.empty()) {
        out << "<h2>Durability for this run</h2>\n<table>\n";
        row("requested", r.durabilityRequested);
        if (!r.durability.sessionSettings.empty()) {
            row("load connections", r.durability.sessionSettings);
        }
        for (const auto& c : r.durability.changes) {
            row(c.name, c.applied + " during the run, was " + c.original + " (" + c.originalSource + ")");
        }
        if (!r.durability.changes.empty()) {
            row("restored", r.durability.restored ? std::string("yes, verified") : std::string("NO"));
            row("made durable", std::string(r.durability.synced ? "sync on the server, " : "") +
                                    (r.durability.checkpointed ? "CHECKPOINT" : "no CHECKPOINT"));
        }
        if (!r.durability.problem.empty()) {
            row("problem", r.durability.problem);
        }
        out << "</table>\n";
    }
    if (!r.warnings.empty() || !r.notes.empty()) {
        out << "<h2>Warnings and notes</h2>\n<ul>\n";
        for (const auto& w : r.warnings) {
            out << "<li><b>warning:</b> " << html(w) << "</li>\n";
        }
        for (const auto& n : r.notes) {
            out << "<li>" << html(n) << "</li>\n";
        }
        out << "</ul>\n";
    }
    out << "</body></html>\n";
    return out.str();
}

} // namespace isobar
