// SPDX-License-Identifier: GPL-3.0-or-later

// The CSV and HTML forms of a run report.

#include "report/HtmlPage.h"
#include "report/ReportText.h"
#include "report/RunReport.h"
#include "report/SvgPlot.h"
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
    SvgPlot plot({.height = 300, .yLabel = "rows per second over time"}, timeAxis(r),
                 axisTicks(peak * 1.05, AxisScale::Count, 4));
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
    SvgPlot plot({.height = 240, .yLabel = "disk free and pg_wal size over time"}, timeAxis(r),
                 axisTicks(top * 1.05, AxisScale::Bytes, 4));
    markCheckpoints(plot, r);
    plot.curve(free, "#2da44e", "", "free on the data directory's filesystem");
    plot.curve(walFree, "#2da44e", "6,4", "free on pg_wal's filesystem");
    plot.curve(wal, "#d4760b", "", "pg_wal");
    plot.curve(table, "#1f6feb", "", "the table");
    return plot.finish();
}

// The forecast, the worker changes, the standbys and the archiver: what the load did to the server
// beside writing the table.
void serverSections(HtmlPage& page, const RunReport& r) {
    if (!r.forecast.empty()) {
        std::vector<std::string> lines;
        for (const auto& line : r.forecast) {
            lines.push_back(htmlEscaped(line));
        }
        page.list("Storage forecast (as the load started)", lines);
    }
    if (const auto checkpoints = r.checkpointEffects(); !checkpoints.empty()) {
        // A checkpoint writes the dirty pages out and makes the next change of each page write it
        // whole to WAL (full_page_writes): the rate after one shows what it costs the load.
        std::vector<std::pair<std::string, std::string>> rows;
        constexpr std::size_t kListed = 50;
        for (std::size_t i = 0; i < checkpoints.size() && i < kListed; ++i) {
            rows.emplace_back(formatDuration(checkpoints[i].elapsed), checkpointText(checkpoints[i]));
        }
        if (checkpoints.size() > kListed) {
            rows.emplace_back("", "and " + std::to_string(checkpoints.size() - kListed) + " more");
        }
        page.section("Checkpoints", rows);
    }
    std::vector<std::pair<std::string, std::string>> changes;
    for (const auto& c : r.workerChanges) {
        changes.emplace_back(formatDuration(c.elapsed),
                             std::to_string(c.from) + " → " + std::to_string(c.to) + ": " + c.reason);
    }
    page.section("Worker changes", changes);
    const std::string archiver = archiverText(r);
    if (r.standbys.empty() && archiver.empty()) {
        return;
    }
    page.heading("Standbys and archiving");
    page.openTable();
    for (const auto& s : r.standbys) {
        page.row("standby " + s.name, standbyLagText(s));
    }
    if (!archiver.empty()) {
        page.rowHtml("archiver", archiverFailed(r)
                                     ? "<span class=\"failed\">" + htmlEscaped(archiver) + "</span>"
                                     : htmlEscaped(archiver));
    }
    page.closeTable();
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
    HtmlPage page("Isobar run: " + r.table + " " + r.startedAt, "Isobar run into " + r.table + ": ",
                  "<span class=\"" + htmlEscaped(r.status) + "\">" + htmlEscaped(r.status) + "</span>");
    const auto row = [&page](const std::string& name, const std::string& value) {
        page.row(name, value);
    };
    page.html(rateChart(r));
    page.paragraph(
        std::string("Blue: rows/s per sample; green dashes: the mean; red dots: checkpoints") +
        (r.workerChanges.empty() ? "" : "; purple: the worker count changed (to the number shown)") + ".");
    if (seesTheDisk(r)) {
        page.html(diskChart(r));
        page.paragraph(
            "Green: free disk (dashed: on pg_wal's own filesystem); orange: pg_wal; blue: the table; "
            "red dots: checkpoints.");
    } else if (!r.server.empty()) {
        page.paragraph(
            "No disk figures: the server's disk could not be seen (a server on another machine, or a "
            "role that may not look).");
    }
    page.openTable();
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
        row("peak pg_wal", formatByteFigure(disk.peakWalDirBytes));
        row("lowest free space", formatByteFigure(disk.lowestFreeBytes));
        row("table size", formatByteFigure(disk.finalTableBytes));
        row("bytes per row", disk.finalBytesPerRow < 0 ? std::string("not seen")
                                                       : fixed(disk.finalBytesPerRow) + " (at the end)");
    }
    row("verification", r.verification);
    if (r.compression) {
        row("compression", r.compression->describe() + (r.compression->grew() ? " - the table GREW" : ""));
        if (!r.compression->path.empty()) {
            row("compression path", r.compression->path);
        }
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
    page.closeTable();
    serverSections(page, r);
    page.heading("Files");
    page.openTable();
    for (const auto& f : r.files) {
        row(f.name, f.layout + ", " + f.format);
    }
    page.closeTable();
    page.heading("Server settings");
    page.openTable();
    for (const auto& s : r.settings) {
        row(s.name, s.value + "  (" + s.source + ")");
    }
    for (const auto& e : r.extensions) {
        row("extension", e);
    }
    page.closeTable();
    if (!r.settingWarnings.empty()) {
        page.heading("Settings warnings (as the load found the server)");
        page.openTable();
        for (const auto& w : r.settingWarnings) {
            page.rowHtml(std::string(severityName(w.severity)),
                         htmlEscaped(w.message) +
                             (w.fix.empty() ? "" : "<br><code>" + htmlEscaped(w.fix) + "</code>"));
        }
        page.closeTable();
    }
    if (!r.durabilityRequested.empty()) {
        page.heading("Durability for this run");
        page.openTable();
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
        page.closeTable();
    }
    if (!r.warnings.empty() || !r.notes.empty()) {
        std::vector<std::string> items;
        for (const auto& w : r.warnings) {
            items.push_back("<b>warning:</b> " + htmlEscaped(w));
        }
        for (const auto& n : r.notes) {
            items.push_back(htmlEscaped(n));
        }
        page.list("Warnings and notes", items);
    }
    return page.finish();
}

} // namespace isobar
