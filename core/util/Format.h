// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace isobar {

// How a duration reads, everywhere (the CLI, the reports, the desktop): short and unambiguous,
// like Go's durations. Fine: "850ms", "5.12s", "1m2.5s", "2h3m4s". WholeSeconds, for what ticks
// (progress lines, elapsed times, estimates): "45s", "1m5s", "2h3m". Not a duration (negative,
// NaN): "-".
enum class DurationPrecision : std::uint8_t { Fine, WholeSeconds };
std::string formatDuration(double seconds, DurationPrecision precision = DurationPrecision::Fine);

// "COPY 4152960, took 5.12s with 1 worker(s) (mean rate 811125.0/sec)", the line every load ends with.
std::string formatCopySummary(std::uint64_t rows, double seconds, int workers);

// The current UTC time in a strftime format ("%Y-%m-%dT%H:%M:%SZ").
std::string formatUtcNow(const char* format);

// Coordinates and spacings as people write them: 55.695, not 55.69499969 (the float32 a file holds).
std::string formatCoordinate(double v);

// "123.4 MiB"
std::string formatBytes(std::uint64_t bytes);
// A size the monitor measured (a double, as ServerReading and the run report keep them): "123.4 MiB",
// or "not seen" when it is below 0 (the server's disk could not be seen).
std::string formatByteFigure(double bytes);

// "1,234,567"
std::string formatThousands(std::uint64_t v);

// ASCII letters in lower case ("GRIB_stepType" -> "grib_steptype"), for names compared without case.
std::string lowerCase(std::string_view text);

// Text for an HTML page: & < > " escaped.
std::string htmlEscaped(const std::string& text);

// Counts and rates as people read them: "850k", "1.2M", "3.45G"; `significant` digits at most,
// trailing zeros dropped ("1M", not "1.00M").
std::string formatCompact(double value, int significant = 3);

// A round step for about `ticks` intervals over [0, span]: 1, 2, 2.5 or 5 times a power of ten, the
// smallest that needs no more than `ticks` of them.
double niceStep(double span, int ticks);

// The ticks of a chart axis from 0 to at least `max`, none sharing its label with another (no
// "0 0 1 1" on a short run). Counts step as niceStep() and read "250k"; bytes step by such
// multiples of the largest binary unit that fits and read "1.5 GiB"; seconds step also by 15 s,
// minutes and hours and read "90s", "2m30s", "1h".
enum class AxisScale { Count, Bytes, Seconds };
struct AxisTicks {
    double step = 1;
    double top = 1;                                     // the axis' end: the first tick at or above `max`
    std::vector<std::pair<double, std::string>> labels; // value and label of each tick, 0 to top
};
AxisTicks axisTicks(double max, AxisScale scale, int ticks = 5);

} // namespace isobar
