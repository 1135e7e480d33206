// SPDX-License-Identifier: GPL-3.0-or-later

#include "era5/SeriesCsv.h"

#include "util/Error.h"
#include "util/Format.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>

namespace isobar {

namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

std::string_view withoutBom(std::string_view text) {
    return text.substr(0, kBom.size()) == kBom ? text.substr(kBom.size()) : text;
}

// The fields of one line, split at commas (the CDS quotes nothing: names and numbers only).
void splitFields(std::string_view line, std::vector<std::string_view>& out) {
    out.clear();
    std::size_t from = 0;
    while (true) {
        const std::size_t comma = line.find(',', from);
        out.push_back(
            line.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from));
        if (comma == std::string_view::npos) {
            return;
        }
        from = comma + 1;
    }
}

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
        s.remove_prefix(1);
    }
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
        s.remove_suffix(1);
    }
    return s;
}

// "YYYY-MM-DD HH:MM:SS" (or with 'T', and "Z" or "+00:00" after it); not the shorter forms a user
// may type elsewhere.
std::optional<PgTimestamp> parseTime(std::string_view s) {
    return s.size() >= 19 ? parseTimestamp(s) : std::nullopt;
}

template <typename T>
std::optional<T> parseNumber(std::string_view s) {
    T value{};
    if (!s.empty() && s.front() == '+') {
        s.remove_prefix(1);
    }
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (s.empty() || ec == std::errc::invalid_argument || end != s.data() + s.size()) {
        return std::nullopt;
    }
    if (ec == std::errc::result_out_of_range) {
        return std::nullopt; // beyond float: not a value ERA5 writes
    }
    return value;
}

[[noreturn]] void failAt(const std::string& name, std::size_t line, const std::string& why) {
    throw Error(name + ": line " + std::to_string(line) + ": " + why);
}

std::string quoted(std::string_view s) {
    constexpr std::size_t kShown = 40;
    return "'" + std::string(s.substr(0, kShown)) + (s.size() > kShown ? "...'" : "'");
}

} // namespace

bool looksLikeSeriesCsv(std::string_view head) {
    const std::string_view text = withoutBom(head);
    return text.substr(0, 11) == "valid_time,";
}

SeriesCsv parseSeriesCsv(std::string_view text, const std::string& name) {
    text = withoutBom(text);
    std::size_t lineNumber = 0;
    const auto expected = [] {
        return std::string(
            "the CDS time-series CSV has the header valid_time,<variables...>,latitude,longitude");
    };
    SeriesCsv out;
    std::vector<std::string_view> fields;
    std::size_t latColumn = 0;
    std::size_t lonColumn = 0;
    std::vector<std::size_t> valueColumns;
    std::size_t width = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) {
            end = text.size();
        }
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++lineNumber;
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        if (trimmed(line).empty()) {
            continue; // a blank line (the last line's newline, an editor's trailing line)
        }
        splitFields(line, fields);
        if (width == 0) {
            // The header.
            bool hasLat = false;
            bool hasLon = false;
            for (std::size_t c = 0; c < fields.size(); ++c) {
                const std::string_view f = trimmed(fields[c]);
                if (f.empty()) {
                    failAt(name, lineNumber,
                           "column " + std::to_string(c + 1) + " of the header has no name; " + expected());
                }
                if (c == 0) {
                    if (f != "valid_time") {
                        failAt(name, lineNumber,
                               "the header starts with " + quoted(f) + ", not valid_time; " + expected());
                    }
                } else if (f == "latitude") {
                    hasLat = true;
                    latColumn = c;
                } else if (f == "longitude") {
                    hasLon = true;
                    lonColumn = c;
                } else {
                    const std::string n(f);
                    if (std::find(out.variables.begin(), out.variables.end(), n) != out.variables.end()) {
                        failAt(name, lineNumber, "the header names " + quoted(f) + " twice");
                    }
                    out.variables.push_back(n);
                    valueColumns.push_back(c);
                }
            }
            if (!hasLat || !hasLon) {
                failAt(name, lineNumber,
                       std::string("the header has no ") + (!hasLat ? "latitude" : "longitude") +
                           " column; " + expected());
            }
            if (out.variables.empty()) {
                failAt(name, lineNumber,
                       "the header names no variable, only valid_time, latitude and longitude");
            }
            width = fields.size();
            out.values.resize(out.variables.size());
            continue;
        }
        if (fields.size() != width) {
            failAt(name, lineNumber,
                   "the row has " + std::to_string(fields.size()) + " fields, the header " +
                       std::to_string(width));
        }
        const std::string_view timeText = trimmed(fields[0]);
        const std::optional<PgTimestamp> time = parseTime(timeText);
        if (!time) {
            failAt(name, lineNumber,
                   "valid_time " + quoted(timeText) + " is not a time YYYY-MM-DD HH:MM:SS (UTC)");
        }
        if (!out.times.empty() && *time <= out.times.back()) {
            failAt(name, lineNumber,
                   "valid_time " + std::string(timeText) + " is not after the row before (" +
                       formatTimestamp(out.times.back()) + "): the rows must be one per time, ascending");
        }
        const auto coordinate = [&](std::size_t column, const char* what) {
            const std::string_view f = trimmed(fields[column]);
            const std::optional<double> v = parseNumber<double>(f);
            if (!v || !std::isfinite(*v)) {
                failAt(name, lineNumber, std::string(what) + " " + quoted(f) + " is not a number");
            }
            return *v;
        };
        const double lat = coordinate(latColumn, "latitude");
        const double lon = coordinate(lonColumn, "longitude");
        if (out.times.empty()) {
            out.latitude = lat;
            out.longitude = lon;
        } else if (std::fabs(lat - out.latitude) > 1e-6 || std::fabs(lon - out.longitude) > 1e-6) {
            failAt(name, lineNumber,
                   "the point (" + formatCoordinate(lat) + ", " + formatCoordinate(lon) +
                       ") differs from the first row's (" + formatCoordinate(out.latitude) + ", " +
                       formatCoordinate(out.longitude) +
                       "): a time-series CSV holds one point; give each point its own file");
        }
        for (std::size_t v = 0; v < valueColumns.size(); ++v) {
            const std::string_view f = trimmed(fields[valueColumns[v]]);
            float value = std::numeric_limits<float>::quiet_NaN();
            if (!f.empty() && f != "nan" && f != "NaN") {
                const std::optional<float> parsed = parseNumber<float>(f);
                if (!parsed || std::isinf(*parsed)) {
                    failAt(name, lineNumber, out.variables[v] + " " + quoted(f) + " is not a number");
                }
                value = *parsed;
            }
            out.values[v].push_back(value);
        }
        out.times.push_back(*time);
    }
    if (width == 0) {
        lineNumber = 1;
        failAt(name, lineNumber, "the file is empty; " + expected());
    }
    if (out.times.empty()) {
        lineNumber = 1;
        failAt(name, lineNumber, "the header is followed by no rows");
    }
    return out;
}

} // namespace isobar
