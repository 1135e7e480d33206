// The CSV and HTML forms of a run report.

#include "report/ReportText.h"
#include "report/RunReport.h"
#include "util/Format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace isobar {

namespace {

std::string fixed(double v, int decimals = 1) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

// The frame both charts share: a plot area over the run's time, with the value ticks on the left
// and the time ticks below. Plain SVG, no script.
class SvgPlot {
public:
    SvgPlot(double height, const AxisTicks& time, AxisTicks values, const std::string& label)
        : height_(height)
        , time_(time)
        , values_(std::move(values)) {
        svg_ << "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << kWidth << " " << height_
             << "\" width=\"" << kWidth << "\" height=\"" << height_ << "\" role=\"img\" aria-label=\""
             << htmlEscaped(label) << "\">\n";
        svg_ << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << kWidth - kLeft - kRight
             << "\" height=\"" << height_ - kTop - kBottom << "\" fill=\"#fafbfc\" stroke=\"#ccd\"/>\n";
        for (const auto& [value, text] : values_.labels) {
            svg_ << "<line x1=\"" << kLeft << "\" x2=\"" << kWidth - kRight << "\" y1=\"" << y(value)
                 << "\" y2=\"" << y(value) << "\" stroke=\"#e3e6ea\"/><text x=\"" << kLeft - 6 << "\" y=\""
                 << y(value) + 4 << "\" font-size=\"11\" text-anchor=\"end\" fill=\"#555\">"
                 << htmlEscaped(text) << "</text>\n";
        }
        for (const auto& [t, text] : time_.labels) {
            svg_ << "<text x=\"" << x(t) << "\" y=\"" << height_ - 10
                 << "\" font-size=\"11\" text-anchor=\"middle\" fill=\"#555\">" << htmlEscaped(text)
                 << "</text>\n";
        }
    }

    double x(double t) const { return kLeft + (kWidth - kLeft - kRight) * t / time_.top; }
    double y(double v) const { return kTop + (height_ - kTop - kBottom) * (1.0 - v / values_.top); }

    // A line across the plot at time t, with a tooltip.
    void mark(double t, const char* colour, const char* dashes, const std::string& title) {
        svg_ << "<line x1=\"" << x(t) << "\" x2=\"" << x(t) << "\" y1=\"" << kTop << "\" y2=\""
             << height_ - kBottom << "\" stroke=\"" << colour << "\" stroke-width=\"1\""
             << (*dashes ? std::string(" stroke-dasharray=\"") + dashes + "\"" : std::string()) << "><title>"
             << htmlEscaped(title) << "</title></line>\n";
    }
    // Text at the top of the plot at time t.
    void note(double t, const char* colour, const std::string& text) {
        svg_ << "<text x=\"" << x(t) + 3 << "\" y=\"" << kTop + 12 << "\" font-size=\"11\" fill=\"" << colour
             << "\">" << htmlEscaped(text) << "</text>\n";
    }
    // (time, value) points; those with a value below 0 (not seen) are left out.
    void curve(const std::vector<std::pair<double, double>>& points, const char* colour, const char* dashes,
               const std::string& title) {
        std::string drawn;
        for (const auto& [t, v] : points) {
            if (v >= 0) {
                drawn += fixed(x(t), 1) + "," + fixed(y(v), 1) + " ";
            }
        }
        if (drawn.empty()) {
            return;
        }
        svg_ << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.5\""
             << (*dashes ? std::string(" stroke-dasharray=\"") + dashes + "\"" : std::string())
             << " points=\"" << drawn << "\"><title>" << htmlEscaped(title) << "</title></polyline>\n";
    }
    std::string finish() {
        svg_ << "</svg>\n";
        return svg_.str();
    }

private:
    static constexpr double kWidth = 860;
    static constexpr double kLeft = 80; // room for "1.25 GiB"
    static constexpr double kRight = 10;
    static constexpr double kTop = 10;
    static constexpr double kBottom = 30; // the time labels
    double height_;
    AxisTicks time_;
    AxisTicks values_;
    std::ostringstream svg_;
};

// Where the run's time axis ends: the last of its samples or its duration.
AxisTicks timeAxis(const RunReport& r) {
    double duration = r.seconds;
    if (!r.samples.empty()) {
        duration = std::max(duration, r.samples.back().elapsed);
    }
    if (!r.server.empty()) {
        duration = std::max(duration, r.server.back().elapsed);
    }
    return axisTicks(duration, AxisScale::Seconds, 6);
}

// Checkpoints: where the counters grow between two monitor samples.
void markCheckpoints(SvgPlot& plot, const RunReport& r) {
    for (const auto& c : r.checkpointEffects()) {
        plot.mark(c.elapsed, "#d33", "2,3",
                  std::string(c.requested ? "requested" : "timed") + " checkpoint at " +
                      formatDuration(c.elapsed));
    }
}

// rows/s over time, the mean as a dashed line, checkpoints as red dots, worker changes in purple.
std::string rateChart(const RunReport& r) {
    double peak = r.meanRate;
    for (const auto& s : r.samples) {
        peak = std::max(peak, s.intervalRate);
    }
    SvgPlot plot(300, timeAxis(r), axisTicks(peak * 1.05, AxisScale::Count, 4), "rows per second over time");
    markCheckpoints(plot, r);
    for (const auto& c : r.workerChanges) {
        plot.mark(c.elapsed, "#8250df", "", workerChangeText(c));
        plot.note(c.elapsed, "#8250df", std::to_string(c.to));
    }
    std::vector<std::pair<double, double>> rates;
    for (const auto& s : r.samples) {
        rates.emplace_back(s.elapsed, s.intervalRate);
    }
    plot.curve(rates, "#1f6feb", "", "rows/s");
    const double end = r.samples.empty() ? r.seconds : std::max(r.seconds, r.samples.back().elapsed);
    plot.curve({{0, r.meanRate}, {end, r.meanRate}}, "#2da44e", "6,4",
               "mean " + formatThousands(static_cast<std::uint64_t>(r.meanRate)) + " rows/s");
    return plot.finish();
}

// Free space, pg_wal and the table over time, in bytes: what fills the disk, and how close it is.
std::string diskChart(const RunReport& r) {
    double top = 0;
    std::vector<std::pair<double, double>> free, walFree, wal, table;
    for (const auto& s : r.server) {
        top = std::max({top, s.freeBytes, s.walFreeBytes, s.walDirBytes, s.tableBytes});
        free.emplace_back(s.elapsed, s.freeBytes);
        walFree.emplace_back(s.elapsed, s.walFreeBytes);
        wal.emplace_back(s.elapsed, s.walDirBytes);
        table.emplace_back(s.elapsed, s.tableBytes);
    }
    SvgPlot plot(240, timeAxis(r), axisTicks(top * 1.05, AxisScale::Bytes, 4),
                 "disk free and pg_wal size over time");
    markCheckpoints(plot, r);
    plot.curve(free, "#2da44e", "", "free on the data directory's filesystem");
    plot.curve(walFree, "#2da44e", "6,4", "free on pg_wal's filesystem");
    plot.curve(wal, "#d4760b", "", "pg_wal");
    plot.curve(table, "#1f6feb", "", "the table");
    return plot.finish();
}

std::string bytesOrUnknown(double bytes) {
    return bytes < 0 ? std::string("not seen") : formatBytes(static_cast<std::uint64_t>(bytes));
}

// The forecast, the worker changes, the standbys and the archiver: what the load did to the server
// beside writing the table.
void serverSections(std::ostringstream& out, const RunReport& r) {
    if (!r.forecast.empty()) {
        out << "<h2>Storage forecast (as the load started)</h2>\n<ul>\n";
        for (const auto& line : r.forecast) {
            out << "<li>" << htmlEscaped(line) << "</li>\n";
        }
        out << "</ul>\n";
    }
    if (const auto checkpoints = r.checkpointEffects(); !checkpoints.empty()) {
        // A checkpoint writes the dirty pages out and makes the next change of each page write it
        // whole to WAL (full_page_writes): the rate after one shows what it costs the load.
        out << "<h2>Checkpoints</h2>\n<table>\n";
        constexpr std::size_t kListed = 50;
        for (std::size_t i = 0; i < checkpoints.size() && i < kListed; ++i) {
            out << "<tr><th>" << htmlEscaped(formatDuration(checkpoints[i].elapsed)) << "</th><td>"
                << htmlEscaped(checkpointText(checkpoints[i])) << "</td></tr>\n";
        }
        if (checkpoints.size() > kListed) {
            out << "<tr><th></th><td>and " << checkpoints.size() - kListed << " more</td></tr>\n";
        }
        out << "</table>\n";
    }
    if (!r.workerChanges.empty()) {
        out << "<h2>Worker changes</h2>\n<table>\n";
        for (const auto& c : r.workerChanges) {
            out << "<tr><th>" << htmlEscaped(formatDuration(c.elapsed)) << "</th><td>" << c.from << " → "
                << c.to << "</td><td>" << htmlEscaped(c.reason) << "</td></tr>\n";
        }
        out << "</table>\n";
    }
    const std::string archiver = archiverText(r);
    if (r.standbys.empty() && archiver.empty()) {
        return;
    }
    out << "<h2>Standbys and archiving</h2>\n<table>\n";
    for (const auto& s : r.standbys) {
        out << "<tr><th>standby " << htmlEscaped(s.name) << "</th><td>" << htmlEscaped(standbyLagText(s))
            << "</td></tr>\n";
    }
    if (!archiver.empty()) {
        out << "<tr><th>archiver</th><td" << (archiverFailed(r) ? " class=\"failed\"" : "") << ">"
            << htmlEscaped(archiver) << "</td></tr>\n";
    }
    out << "</table>\n";
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
        out << "<tr><th>" << htmlEscaped(name) << "</th><td>" << htmlEscaped(value) << "</td></tr>\n";
    };
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>Isobar run: "
        << htmlEscaped(r.table) << " " << htmlEscaped(r.startedAt) << "</title>\n"
        << "<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}h1{font-size:20px}"
           "table{border-collapse:collapse;margin:1em 0}th,td{text-align:left;padding:3px "
           "12px;border-bottom:1px "
           "solid "
           "#eee;vertical-align:top}th{color:#555;font-weight:600}.failed{color:#b00}.cancelled{color:#a60}"
           ".completed{color:#070}code{font-size:12px}</style></head><body>\n";
    out << "<h1>Isobar run into " << htmlEscaped(r.table) << ": <span class=\"" << htmlEscaped(r.status)
        << "\">" << htmlEscaped(r.status) << "</span></h1>\n";
    out << rateChart(r);
    out << "<p>Blue: rows/s per sample; green dashes: the mean; red dots: checkpoints"
        << (r.workerChanges.empty() ? "" : "; purple: the worker count changed (to the number shown)")
        << ".</p>\n";
    if (seesTheDisk(r)) {
        out << diskChart(r);
        out << "<p>Green: free disk (dashed: on pg_wal's own filesystem); orange: pg_wal; blue: the table; "
               "red dots: checkpoints.</p>\n";
    } else if (!r.server.empty()) {
        out << "<p>No disk figures: the server's disk could not be seen (a server on another machine, or a "
               "role that may not look).</p>\n";
    }
    out << "<table>\n";
    row("started", r.startedAt);
    row("finished", r.finishedAt);
    row("rows committed",
        formatThousands(r.rows) +
            (r.resumedRows > 0 ? " (" + formatThousands(r.resumedRows) + " already loaded by an earlier run)"
                               : ""));
    row("planned rows", formatThousands(r.plannedRows));
    for (const std::string& line : r.overlap.describe()) {
        row("already in the table", line);
    }
    for (const std::string& line : r.overlap.decisions) {
        row("decided", line);
    }
    if (r.skippedRows > 0) {
        row("skipped (all values missing)", formatThousands(r.skippedRows));
    }
    row("duration", formatDuration(r.seconds));
    row("mean rate", formatThousands(static_cast<std::uint64_t>(r.meanRate)) + " rows/s");
    row("sustained rate",
        r.medianSustainedRate > 0
            ? "median " + formatThousands(static_cast<std::uint64_t>(r.medianSustainedRate)) +
                  " rows/s, minimum " + formatThousands(static_cast<std::uint64_t>(r.minSustainedRate)) +
                  " rows/s (1-second windows in the middle 90% of the run)"
            : "n/a (the run was too short for 1-second windows)");
    row("workers", workersText(r));
    std::string perWorker;
    for (std::size_t w = 0; w < r.workerRows.size(); ++w) {
        perWorker += (w ? ", " : "") + std::string("#") + std::to_string(w + 1) + ": " +
                     formatThousands(r.workerRows[w]);
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
    if (seesTheDisk(r)) {
        const RunReport::StorageFigures disk = r.storageFigures();
        row("peak pg_wal", bytesOrUnknown(disk.peakWalDirBytes));
        row("lowest free space", bytesOrUnknown(disk.lowestFreeBytes));
        row("table size", bytesOrUnknown(disk.finalTableBytes));
        row("bytes per row", disk.finalBytesPerRow < 0 ? std::string("not seen")
                                                       : fixed(disk.finalBytesPerRow) + " (at the end)");
    }
    row("verification", r.verification);
    if (r.compression) {
        row("compression", r.compression->describe() + (r.compression->grew() ? " - the table GREW" : ""));
    }
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
    if (!r.timeRule.empty()) {
        row("decided by", r.timeRule);
    }
    std::string vars;
    for (const auto& v : r.variables) {
        vars += (vars.empty() ? "" : ", ") + v;
    }
    row("variables", vars);
    row("tool", r.tool);
    out << "</table>\n";
    serverSections(out, r);
    out << "<h2>Files</h2>\n<table>\n";
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
            out << "<tr><th>" << htmlEscaped(std::string(severityName(w.severity))) << "</th><td>"
                << htmlEscaped(w.message)
                << (w.fix.empty() ? "" : "<br><code>" + htmlEscaped(w.fix) + "</code>") << "</td></tr>\n";
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
            out << "<li><b>warning:</b> " << htmlEscaped(w) << "</li>\n";
        }
        for (const auto& n : r.notes) {
            out << "<li>" << htmlEscaped(n) << "</li>\n";
        }
        out << "</ul>\n";
    }
    out << "</body></html>\n";
    return out.str();
}

} // namespace isobar
