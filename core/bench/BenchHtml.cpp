// SPDX-License-Identifier: GPL-3.0-or-later

// A bench report as one self-contained HTML page: its tables, and its plots as inline SVG.

#include "bench/BenchReport.h"
#include "report/HtmlPage.h"
#include "report/SvgPlot.h"
#include "util/Format.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace isobar {

namespace {

AxisTicks valueTicks(double max, const std::string& format) {
    const AxisScale scale = format == "bytes"     ? AxisScale::Bytes
                            : format == "seconds" ? AxisScale::Seconds
                                                  : AxisScale::Count;
    if (format == "ratio" || max < 1) {
        // Small values: ticks of their own, with decimals.
        AxisTicks t;
        const double step = niceStep(max > 0 ? max : 1, 5);
        t.step = step;
        t.top = std::ceil((max > 0 ? max : 1) / step) * step;
        for (double v = 0; v <= t.top + step / 2; v += step) {
            t.labels.emplace_back(v, formatBenchValue(v, "ratio"));
        }
        return t;
    }
    return axisTicks(max, scale);
}

std::string svgPlot(const BenchPlot& p) {
    double max = 0;
    for (const auto& s : p.series) {
        for (const auto& v : s.values) {
            if (v && std::isfinite(*v)) {
                max = std::max(max, *v);
            }
        }
    }
    SvgPlot plot({.width = 760,
                  .height = 300 - 22 - 16,
                  .right = 170,
                  .top = 6,
                  .bottom = 34,
                  .title = p.title,
                  .xLabel = p.xLabel,
                  .yLabel = p.yLabel},
                 SvgPlot::categories(p.categories), valueTicks(max, p.yFormat));
    const std::size_t categories = p.categories.size();
    const double barWidth = 0.8 / static_cast<double>(std::max<std::size_t>(p.series.size(), 1));
    const auto pointTitle = [&](std::size_t s, std::size_t c, double v) {
        return p.series[s].name + ", " + p.categories[c] + ": " + formatBenchValue(v, p.yFormat);
    };
    for (std::size_t s = 0; s < p.series.size(); ++s) {
        const auto& values = p.series[s].values;
        std::vector<std::pair<double, double>> points;
        std::vector<std::string> titles;
        for (std::size_t c = 0; c < values.size() && c < categories; ++c) {
            if (!values[c] || !std::isfinite(*values[c])) {
                continue;
            }
            const double at = static_cast<double>(c);
            if (p.kind == BenchPlot::Kind::Bars) {
                const double x0 = at + 0.1 + barWidth * static_cast<double>(s);
                plot.bar(x0, x0 + barWidth, *values[c], plotColour(s), pointTitle(s, c, *values[c]));
            } else {
                points.emplace_back(at + 0.5, *values[c]);
                titles.push_back(pointTitle(s, c, *values[c]));
            }
        }
        if (p.kind == BenchPlot::Kind::Lines) {
            plot.curve(points, plotColour(s), "", p.series[s].name, 2, titles);
        }
        plot.legend(s, plotColour(s), p.series[s].name);
    }
    return plot.finish();
}

} // namespace

std::string renderBenchHtml(const BenchReport& r) {
    HtmlPage page(r.title, r.title);
    page.paragraphHtml("Started " + htmlEscaped(r.started) + ", took " +
                       htmlEscaped(formatDuration(r.seconds)) + ". <code>" + htmlEscaped(r.command) +
                       "</code>");
    if (r.status != "completed") {
        page.paragraph(r.status + (r.problem.empty() ? "" : ": " + r.problem), "status");
    }
    for (const auto& t : r.tables) {
        std::ostringstream out;
        out << "<table class=\"grid\"><tr>";
        for (const auto& c : t.columns) {
            out << "<th>" << htmlEscaped(c.label) << "</th>";
        }
        out << "</tr>\n";
        for (const auto& row : t.rows) {
            out << "<tr>";
            for (std::size_t i = 0; i < row.size() && i < t.columns.size(); ++i) {
                const bool numeric = std::holds_alternative<double>(row[i]);
                out << (numeric ? "<td class=\"n\">" : "<td>")
                    << htmlEscaped(formatBenchValue(row[i], t.columns[i].format)) << "</td>";
            }
            out << "</tr>\n";
        }
        out << "</table>\n";
        page.heading(t.title);
        page.html(out.str());
        for (const auto& n : t.notes) {
            page.paragraph(n, "note");
        }
    }
    for (const auto& p : r.plots) {
        page.html(svgPlot(p));
    }
    page.section("Machine", r.machine);
    page.section("Server", r.server);
    page.section("Settings", r.settings);
    return page.finish();
}

} // namespace isobar
