// A bench report as one self-contained HTML page: its tables, and its plots as inline SVG.

#include "bench/BenchReport.h"
#include "util/Format.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace isobar {

namespace {

// Colour-blind-safe (Okabe-Ito), then greys.
constexpr const char* kColours[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9",
                                    "#D55E00", "#F0E442", "#000000", "#777777", "#BBBBBB"};
constexpr int kWidth = 760;
constexpr int kHeight = 300;
constexpr int kLeft = 80;
constexpr int kRight = 170; // the legend
constexpr int kTop = 28;
constexpr int kBottom = 50;

const char* colour(std::size_t i) {
    return kColours[i % std::size(kColours)];
}

std::string number(double v) {
    std::ostringstream s;
    s.precision(6);
    s << v;
    return s.str();
}

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
    const AxisTicks ticks = valueTicks(max, p.yFormat);
    const double plotW = kWidth - kLeft - kRight;
    const double plotH = kHeight - kTop - kBottom;
    const auto y = [&](double v) {
        return kTop + plotH * (1 - v / ticks.top);
    };
    const std::size_t n = std::max<std::size_t>(p.categories.size(), 1);
    const double slot = plotW / static_cast<double>(n);
    const auto xCentre = [&](std::size_t c) {
        return kLeft + slot * (static_cast<double>(c) + 0.5);
    };
    std::ostringstream svg;
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << kWidth << ' ' << kHeight
        << "\" role=\"img\" aria-label=\"" << htmlEscaped(p.title) << "\">\n";
    svg << "<text x=\"" << kLeft << "\" y=\"16\" font-size=\"13\" font-weight=\"bold\">"
        << htmlEscaped(p.title) << "</text>\n";
    for (const auto& [v, label] : ticks.labels) {
        svg << "<line x1=\"" << kLeft << "\" x2=\"" << kLeft + plotW << "\" y1=\"" << number(y(v))
            << "\" y2=\"" << number(y(v)) << "\" stroke=\"#ddd\"/>\n";
        svg << "<text x=\"" << kLeft - 6 << "\" y=\"" << number(y(v) + 4)
            << "\" font-size=\"11\" text-anchor=\"end\">" << htmlEscaped(label) << "</text>\n";
    }
    svg << "<text transform=\"translate(14," << kTop + plotH / 2 << ") rotate(-90)\" font-size=\"11\" "
        << "text-anchor=\"middle\">" << htmlEscaped(p.yLabel) << "</text>\n";
    for (std::size_t c = 0; c < p.categories.size(); ++c) {
        svg << "<text x=\"" << number(xCentre(c)) << "\" y=\"" << kTop + plotH + 16
            << "\" font-size=\"11\" text-anchor=\"middle\">" << htmlEscaped(p.categories[c]) << "</text>\n";
    }
    svg << "<text x=\"" << kLeft + plotW / 2 << "\" y=\"" << kHeight - 8
        << "\" font-size=\"11\" text-anchor=\"middle\">" << htmlEscaped(p.xLabel) << "</text>\n";
    const std::size_t series = std::max<std::size_t>(p.series.size(), 1);
    const double barW = slot * 0.8 / static_cast<double>(series);
    for (std::size_t s = 0; s < p.series.size(); ++s) {
        const auto& values = p.series[s].values;
        if (p.kind == BenchPlot::Kind::Bars) {
            for (std::size_t c = 0; c < values.size() && c < p.categories.size(); ++c) {
                if (!values[c] || !std::isfinite(*values[c])) {
                    continue;
                }
                const double x =
                    kLeft + slot * static_cast<double>(c) + slot * 0.1 + barW * static_cast<double>(s);
                svg << "<rect x=\"" << number(x) << "\" y=\"" << number(y(*values[c])) << "\" width=\""
                    << number(barW) << "\" height=\"" << number(kTop + plotH - y(*values[c])) << "\" fill=\""
                    << colour(s) << "\"><title>" << htmlEscaped(p.series[s].name) << ", "
                    << htmlEscaped(p.categories[c]) << ": "
                    << htmlEscaped(formatBenchValue(*values[c], p.yFormat)) << "</title></rect>\n";
            }
        } else {
            std::string points;
            for (std::size_t c = 0; c < values.size() && c < p.categories.size(); ++c) {
                if (!values[c] || !std::isfinite(*values[c])) {
                    continue;
                }
                points += number(xCentre(c)) + "," + number(y(*values[c])) + " ";
                svg << "<circle cx=\"" << number(xCentre(c)) << "\" cy=\"" << number(y(*values[c]))
                    << "\" r=\"3\" fill=\"" << colour(s) << "\"><title>" << htmlEscaped(p.series[s].name)
                    << ", " << htmlEscaped(p.categories[c]) << ": "
                    << htmlEscaped(formatBenchValue(*values[c], p.yFormat)) << "</title></circle>\n";
            }
            svg << "<polyline fill=\"none\" stroke=\"" << colour(s) << "\" stroke-width=\"2\" points=\""
                << points << "\"/>\n";
        }
        const double ly = kTop + 14.0 * static_cast<double>(s);
        svg << "<rect x=\"" << kWidth - kRight + 10 << "\" y=\"" << number(ly)
            << "\" width=\"10\" height=\"10\" fill=\"" << colour(s) << "\"/><text x=\""
            << kWidth - kRight + 24 << "\" y=\"" << number(ly + 9) << "\" font-size=\"11\">"
            << htmlEscaped(p.series[s].name) << "</text>\n";
    }
    svg << "<line x1=\"" << kLeft << "\" x2=\"" << kLeft << "\" y1=\"" << kTop << "\" y2=\"" << kTop + plotH
        << "\" stroke=\"#444\"/><line x1=\"" << kLeft << "\" x2=\"" << kLeft + plotW << "\" y1=\""
        << kTop + plotH << "\" y2=\"" << kTop + plotH << "\" stroke=\"#444\"/>\n";
    svg << "</svg>\n";
    return svg.str();
}

void pairsTable(std::ostringstream& out, const char* title,
                const std::vector<std::pair<std::string, std::string>>& pairs) {
    if (pairs.empty()) {
        return;
    }
    out << "<h2>" << title << "</h2>\n<table class=\"kv\">\n";
    for (const auto& [name, value] : pairs) {
        out << "<tr><th>" << htmlEscaped(name) << "</th><td>" << htmlEscaped(value) << "</td></tr>\n";
    }
    out << "</table>\n";
}

} // namespace

std::string renderBenchHtml(const BenchReport& r) {
    std::ostringstream out;
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>"
        << htmlEscaped(r.title) << "</title>\n"
        << "<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:1100px}"
           "h1{font-size:20px}h2{font-size:16px;margin-top:1.6em}table{border-collapse:collapse;margin:.5em "
           "0}"
           "th,td{border:1px solid #ccc;padding:3px "
           "8px}td.n{text-align:right;font-variant-numeric:tabular-nums}"
           "th{background:#f4f4f4}table.kv th{text-align:left}p.note{color:#555;margin:.2em 0}"
           "svg{max-width:100%;height:auto;margin:1em 0}.status{font-weight:bold;color:#b00}</style>\n"
        << "</head><body>\n<h1>" << htmlEscaped(r.title) << "</h1>\n";
    out << "<p>Started " << htmlEscaped(r.started) << ", took " << htmlEscaped(formatDuration(r.seconds))
        << ". <code>" << htmlEscaped(r.command) << "</code></p>\n";
    if (r.status != "completed") {
        out << "<p class=\"status\">" << htmlEscaped(r.status)
            << (r.problem.empty() ? "" : ": " + htmlEscaped(r.problem)) << "</p>\n";
    }
    for (const auto& t : r.tables) {
        out << "<h2>" << htmlEscaped(t.title) << "</h2>\n<table><tr>";
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
        for (const auto& n : t.notes) {
            out << "<p class=\"note\">" << htmlEscaped(n) << "</p>\n";
        }
    }
    for (const auto& p : r.plots) {
        out << svgPlot(p);
    }
    pairsTable(out, "Machine", r.machine);
    pairsTable(out, "Server", r.server);
    pairsTable(out, "Settings", r.settings);
    out << "</body></html>\n";
    return out.str();
}

} // namespace isobar
