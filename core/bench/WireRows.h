// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// Rows on the binary COPY wire, as the engine encodes them, read back into text: what the bench
// methods that send rows another way (INSERT, COPY text, CSV) start from, so every method loads the
// very same rows from the same files.

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace isobar::bench {

// One row's fields as text ("2024-01-01 00:00:00+00", "812345", "271.25"); a NULL is flagged.
struct TextRow {
    std::vector<std::string> fields;
    std::vector<bool> nulls;
};

// Calls fn(row) for each row of `wire` (rows only, or a whole COPY file: its header and trailer are
// skipped). Field 0 is the time (timestamptz), field `locationField` the location_id (int4), every
// other field a float4. Stops early when fn returns false. Returns the rows visited. Throws
// isobar::Error for bytes that are not such rows.
template <typename F>
std::size_t forEachWireRow(std::span<const char> wire, std::size_t locationField, F&& fn);

// The row as COPY ... (FORMAT text) reads it: tab-separated, \N for NULL, a newline at the end.
void appendCopyText(const TextRow& row, std::string& out);
// The row as COPY ... (FORMAT csv) reads it: comma-separated, NULL as an empty field.
void appendCsv(const TextRow& row, std::string& out);
// The row as an SQL VALUES tuple: ('2024-01-01 00:00:00+00', 812345, 271.25, NULL).
void appendSqlTuple(const TextRow& row, std::string& out);

// --- implementation ------------------------------------------------------------------------------

class WireReader {
public:
    WireReader(std::span<const char> wire, std::size_t locationField);
    // Reads the next row into `row`; false at the end.
    bool next(TextRow& row);

private:
    std::span<const char> wire_;
    std::size_t pos_ = 0;
    std::size_t locationField_;
    long long lastTime_ = 0;
    std::string lastTimeText_;
};

template <typename F>
std::size_t forEachWireRow(std::span<const char> wire, std::size_t locationField, F&& fn) {
    WireReader reader(wire, locationField);
    TextRow row;
    std::size_t n = 0;
    while (reader.next(row)) {
        ++n;
        if (!fn(static_cast<const TextRow&>(row))) {
            break;
        }
    }
    return n;
}

} // namespace isobar::bench
