// SPDX-License-Identifier: GPL-3.0-or-later

#include "report/SvgPlot.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

namespace isobar {

namespace {

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    std::string s = buf;
    if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) {
        s.resize(s.size() - 2);
    }
    return s;
}

std::string dashAttribute(const char* dashes) {
    return *dashes != '\0' ? std::string(" stroke-dasharray=\"") + dashes + "\"" : std::string();
}

} // namespace

const char* plotColour(std::size_t index) {
    static constexpr const char* kColours[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9",
                                               "#D55E00", "#F0E442", "#000000", "#777777", "#BBBBBB"};
    return kColours[index % std::size(kColours)];
}

AxisTicks SvgPlot::categories(const std::vector<std::string>& names) {
    AxisTicks t;
    t.top = static_cast<double>(std::max<std::size_t>(names.size(), 1));
    for (std::size_t c = 0; c < names.size(); ++c) {
        t.labels.emplace_back(static_cast<double>(c) + 0.5, names[c]);
    }
    return t;
}

SvgPlot::SvgPlot(Frame frame, AxisTicks xTicks, AxisTicks valueTicks)
    : f_(std::move(frame))
    , x_(std::move(xTicks))
    , values_(std::move(valueTicks)) {
    if (!f_.title.empty()) {
        f_.top += 22;
    }
    if (!f_.xLabel.empty()) {
        f_.bottom += 16;
    }
    f_.height += (f_.title.empty() ? 0 : 22) + (f_.xLabel.empty() ? 0 : 16);
    const std::string name = f_.title.empty() ? f_.yLabel : f_.title;
    svg_ << "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " << number(f_.width) << " "
         << number(f_.height) << "\" width=\"" << number(f_.width) << "\" height=\"" << number(f_.height)
         << "\" role=\"img\" aria-label=\"" << htmlEscaped(name) << "\">\n";
    if (!f_.title.empty()) {
        svg_ << "<text x=\"" << number(f_.left) << "\" y=\"16\" font-size=\"13\" font-weight=\"bold\">"
             << htmlEscaped(f_.title) << "</text>\n";
    }
    svg_ << "<rect x=\"" << number(f_.left) << "\" y=\"" << number(f_.top) << "\" width=\""
         << number(f_.width - f_.left - f_.right) << "\" height=\"" << number(f_.height - f_.top - f_.bottom)
         << "\" fill=\"#fafbfc\" stroke=\"#ccd\"/>\n";
    for (const auto& [value, text] : values_.labels) {
        svg_ << "<line x1=\"" << number(f_.left) << "\" x2=\"" << number(f_.width - f_.right) << "\" y1=\""
             << number(y(value)) << "\" y2=\"" << number(y(value)) << "\" stroke=\"#e3e6ea\"/><text x=\""
             << number(f_.left - 6) << "\" y=\"" << number(y(value) + 4)
             << "\" font-size=\"11\" text-anchor=\"end\" fill=\"#555\">" << htmlEscaped(text) << "</text>\n";
    }
    const double labelsY = f_.height - f_.bottom + 18;
    for (const auto& [at, text] : x_.labels) {
        svg_ << "<text x=\"" << number(x(at)) << "\" y=\"" << number(labelsY)
             << "\" font-size=\"11\" text-anchor=\"middle\" fill=\"#555\">" << htmlEscaped(text)
             << "</text>\n";
    }
    if (!f_.xLabel.empty()) {
        svg_ << "<text x=\"" << number((f_.left + f_.width - f_.right) / 2) << "\" y=\""
             << number(f_.height - 6) << "\" font-size=\"11\" text-anchor=\"middle\">"
             << htmlEscaped(f_.xLabel) << "</text>\n";
    }
    if (!f_.yLabel.empty() && !f_.title.empty()) {
        svg_ << "<text transform=\"translate(14," << number((f_.top + f_.height - f_.bottom) / 2)
             << ") rotate(-90)\" font-size=\"11\" text-anchor=\"middle\">" << htmlEscaped(f_.yLabel)
             << "</text>\n";
    }
}

double SvgPlot::x(double at) const {
    return f_.left + (f_.width - f_.left - f_.right) * at / x_.top;
}

double SvgPlot::y(double value) const {
    return f_.top + (f_.height - f_.top - f_.bottom) * (1.0 - value / values_.top);
}

void SvgPlot::mark(double at, const char* colour, const char* dashes, const std::string& title) {
    svg_ << "<line x1=\"" << number(x(at)) << "\" x2=\"" << number(x(at)) << "\" y1=\"" << number(f_.top)
         << "\" y2=\"" << number(f_.height - f_.bottom) << "\" stroke=\"" << colour << "\" stroke-width=\"1\""
         << dashAttribute(dashes) << "><title>" << htmlEscaped(title) << "</title></line>\n";
}

void SvgPlot::note(double at, const char* colour, const std::string& text) {
    svg_ << "<text x=\"" << number(x(at) + 3) << "\" y=\"" << number(f_.top + 12)
         << "\" font-size=\"11\" fill=\"" << colour << "\">" << htmlEscaped(text) << "</text>\n";
}

void SvgPlot::curve(const std::vector<std::pair<double, double>>& points, const char* colour,
                    const char* dashes, const std::string& title, double strokeWidth,
                    const std::vector<std::string>& pointTitles) {
    std::string drawn;
    for (std::size_t i = 0; i < points.size(); ++i) {
        const auto [at, value] = points[i];
        if (value < 0) {
            continue;
        }
        drawn += number(x(at)) + "," + number(y(value)) + " ";
        if (i < pointTitles.size()) {
            svg_ << "<circle cx=\"" << number(x(at)) << "\" cy=\"" << number(y(value)) << "\" r=\"3\" fill=\""
                 << colour << "\"><title>" << htmlEscaped(pointTitles[i]) << "</title></circle>\n";
        }
    }
    if (drawn.empty()) {
        return;
    }
    svg_ << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"" << number(strokeWidth)
         << "\"" << dashAttribute(dashes) << " points=\"" << drawn << "\"><title>" << htmlEscaped(title)
         << "</title></polyline>\n";
}

void SvgPlot::bar(double x0, double x1, double value, const char* colour, const std::string& title) {
    svg_ << "<rect x=\"" << number(x(x0)) << "\" y=\"" << number(y(value)) << "\" width=\""
         << number(x(x1) - x(x0)) << "\" height=\"" << number(y(0) - y(value)) << "\" fill=\"" << colour
         << "\"><title>" << htmlEscaped(title) << "</title></rect>\n";
}

void SvgPlot::legend(std::size_t index, const char* colour, const std::string& name) {
    const double top = f_.top + 14.0 * static_cast<double>(index);
    const double left = f_.width - f_.right + 10;
    svg_ << "<rect x=\"" << number(left) << "\" y=\"" << number(top)
         << "\" width=\"10\" height=\"10\" fill=\"" << colour << "\"/><text x=\"" << number(left + 14)
         << "\" y=\"" << number(top + 9) << "\" font-size=\"11\">" << htmlEscaped(name) << "</text>\n";
}

std::string SvgPlot::finish() {
    svg_ << "</svg>\n";
    return svg_.str();
}

} // namespace isobar
