// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// The CSV of the Climate Data Store's time-series datasets (reanalysis-era5-single-levels-timeseries,
// reanalysis-era5-land-timeseries): a header "valid_time,<short names...>,latitude,longitude", one row
// per hour with the time in UTC ("2024-01-01 00:00:00") and the values as text, the point's latitude
// and longitude repeated on every row. Parsed here without any knowledge of parameters or grids; not
// a public API.

#include "domain/Timestamp.h"

#include <string>
#include <string_view>
#include <vector>

namespace isobar {

struct SeriesCsv {
    std::vector<std::string> variables;     // the value columns' names, in the header's order
    std::vector<PgTimestamp> times;         // one per row, ascending
    std::vector<std::vector<float>> values; // per variable, per row; NaN for an empty cell
    double latitude = 0.0;
    double longitude = 0.0;
};

// Whether `head` (the first bytes of a file) starts like such a CSV: "valid_time," after an optional
// UTF-8 byte order mark.
bool looksLikeSeriesCsv(std::string_view head);

// Parses the whole text. Throws isobar::Error "<name>: line N: <what>" for anything else: another
// header, a row of another width, a time that is not "YYYY-MM-DD HH:MM:SS" (a 'T' and a trailing
// 'Z' or "+00:00" are accepted), a time not after the row before, a value that is not a number,
// a point that changes between rows, no rows.
SeriesCsv parseSeriesCsv(std::string_view text, const std::string& name);

} // namespace isobar
