// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "util/Format.h"

#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace isobar {

// The one plot of Isobar's HTML reports (run reports' rate and disk charts, every bench report's
// plots): a plot area with value ticks on the left and x ticks below, drawn as plain SVG (no script)
// with a tooltip on each thing drawn. x is a continuous axis (seconds of a run) or categories
// (a bench's methods, worker counts ...: category c spans [c, c + 1], its label at c + 0.5).
class SvgPlot {
public:
    struct Frame {
        double width = 860;
        double height = 300;
        double left = 80;  // room for "1.25 GiB"
        double right = 10; // wider for a legend (see legend())
        double top = 10;
        double bottom = 30; // the x labels
        // Every member has a default, so that a designated initializer names only the ones it
        // changes (GCC's -Wmissing-field-initializers flags a member without one).
        std::string title{};  // drawn above the plot (top grows to fit); also its accessible name
        std::string xLabel{}; // under the x labels (bottom grows to fit)
        std::string yLabel{}; // beside the value labels, turned
    };

    // Both axes run from 0 to their top.
    SvgPlot(Frame frame, AxisTicks xTicks, AxisTicks valueTicks);
    // Categories along x, their labels centred.
    static AxisTicks categories(const std::vector<std::string>& names);

    double x(double at) const;
    double y(double value) const;

    // A line across the plot at `at`, with a tooltip; `dashes` as SVG's stroke-dasharray ("" solid).
    void mark(double at, const char* colour, const char* dashes, const std::string& title);
    // Text at the top of the plot at `at`.
    void note(double at, const char* colour, const std::string& text);
    // (x, value) points joined; a value below 0 (not seen) is left out. Points with a title in
    // `pointTitles` are drawn as dots too, with their own tooltip.
    void curve(const std::vector<std::pair<double, double>>& points, const char* colour, const char* dashes,
               const std::string& title, double strokeWidth = 1.5,
               const std::vector<std::string>& pointTitles = {});
    // A bar from 0 up to `value`, between x0 and x1.
    void bar(double x0, double x1, double value, const char* colour, const std::string& title);
    // A box and a name in the legend column, the `index`th from the top.
    void legend(std::size_t index, const char* colour, const std::string& name);

    std::string finish();

private:
    Frame f_;
    AxisTicks x_;
    AxisTicks values_;
    std::ostringstream svg_;
};

// A colour-blind-safe colour (Okabe-Ito), then greys, by series index.
const char* plotColour(std::size_t index);

} // namespace isobar
