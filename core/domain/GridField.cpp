// SPDX-License-Identifier: GPL-3.0-or-later

#include "domain/GridField.h"

#include <algorithm>

namespace isobar {

std::optional<std::pair<std::size_t, std::size_t>> GridField::positionOf(LocationId id) const {
    if (id.value < 1 || box.rows == 0 || box.cols == 0) {
        return std::nullopt;
    }
    const std::int32_t latIndex = (id.value - 1) / grid.longitudes();
    const std::int32_t lonIndex = (id.value - 1) % grid.longitudes();
    std::optional<std::size_t> row;
    for (std::size_t i = 0; i < box.rows && !row; ++i) {
        if (box.gridRow(i) == latIndex) {
            row = i;
        }
    }
    std::optional<std::size_t> col;
    for (std::size_t j = 0; j < box.cols && !col; ++j) {
        if (box.gridColumn(j, grid) == lonIndex) {
            col = j;
        }
    }
    if (!row || !col) {
        return std::nullopt;
    }
    return std::pair{*row, *col};
}

std::optional<std::pair<float, float>> GridField::range() const {
    std::optional<std::pair<float, float>> r;
    for (const float v : values) {
        if (std::isnan(v)) {
            continue;
        }
        if (!r) {
            r = std::pair{v, v};
        } else {
            r->first = std::min(r->first, v);
            r->second = std::max(r->second, v);
        }
    }
    return r;
}

GridField GridField::cropped(std::size_t row, std::size_t rows, std::size_t col, std::size_t cols) const {
    GridField part;
    part.column = column;
    part.key = key;
    part.units = units;
    part.time = time;
    part.level = level;
    part.grid = grid;
    row = std::min(row, this->rows());
    col = std::min(col, this->cols());
    rows = std::min(rows, this->rows() - row);
    cols = std::min(cols, this->cols() - col);
    // The part's rows and columns by their global indices: a box that skips none keeps its form.
    part.box.rows = rows;
    part.box.cols = cols;
    part.box.northRow = rows > 0 ? box.gridRow(row) : box.northRow;
    part.box.westColumn = cols > 0 ? box.gridColumn(col, grid) : box.westColumn;
    if (!box.rowIndex.empty()) {
        part.box.rowIndex.assign(box.rowIndex.begin() + static_cast<std::ptrdiff_t>(row),
                                 box.rowIndex.begin() + static_cast<std::ptrdiff_t>(row + rows));
    }
    if (!box.columnIndex.empty()) {
        part.box.columnIndex.assign(box.columnIndex.begin() + static_cast<std::ptrdiff_t>(col),
                                    box.columnIndex.begin() + static_cast<std::ptrdiff_t>(col + cols));
    }
    const auto slice = [](const std::vector<double>& v, std::size_t from, std::size_t n) {
        return from + n <= v.size() ? std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(from),
                                                          v.begin() + static_cast<std::ptrdiff_t>(from + n))
                                    : std::vector<double>{};
    };
    part.latitudes = slice(latitudes, row, rows);
    part.longitudes = slice(longitudes, col, cols);
    part.values.reserve(rows * cols);
    for (std::size_t i = row; i < row + rows; ++i) {
        const auto first = values.begin() + static_cast<std::ptrdiff_t>(i * box.cols + col);
        part.values.insert(part.values.end(), first, first + static_cast<std::ptrdiff_t>(cols));
    }
    return part;
}

std::size_t GridField::missingCount() const {
    return static_cast<std::size_t>(
        std::count_if(values.begin(), values.end(), [](float v) { return std::isnan(v); }));
}

namespace {

std::vector<std::int32_t> distinctSorted(std::vector<std::int32_t> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

// True when the indices are first, first + 1, ... in order.
bool contiguous(const std::vector<std::int32_t>& v) {
    for (std::size_t i = 1; i < v.size(); ++i) {
        if (v[i] != v[i - 1] + 1) {
            return false;
        }
    }
    return true;
}

} // namespace

GridBox boxOfPoints(const GlobalGrid& grid, std::vector<std::int32_t> rows,
                    std::vector<std::int32_t> columns) {
    GridBox box;
    rows = distinctSorted(std::move(rows));
    columns = distinctSorted(std::move(columns));
    if (rows.empty() || columns.empty()) {
        return box;
    }
    // Rows north to south.
    std::reverse(rows.begin(), rows.end());
    box.northRow = rows.front();
    box.rows = rows.size();
    bool rowsContiguous = true;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        rowsContiguous = rowsContiguous && rows[i] == rows[i - 1] - 1;
    }
    if (!rowsContiguous) {
        box.rowIndex = rows;
    }
    // Columns from the end of the widest gap between neighbours on the circle: the box's west edge.
    std::size_t start = 0;
    std::int32_t widest = columns.front() + grid.longitudes() - columns.back();
    for (std::size_t j = 1; j < columns.size(); ++j) {
        if (columns[j] - columns[j - 1] > widest) {
            widest = columns[j] - columns[j - 1];
            start = j;
        }
    }
    std::rotate(columns.begin(), columns.begin() + static_cast<std::ptrdiff_t>(start), columns.end());
    box.westColumn = columns.front();
    box.cols = columns.size();
    std::vector<std::int32_t> unwrapped = columns;
    for (std::size_t j = 1; j < unwrapped.size(); ++j) {
        while (unwrapped[j] < unwrapped[j - 1]) {
            unwrapped[j] += grid.longitudes();
        }
    }
    if (!contiguous(unwrapped)) {
        box.columnIndex = columns;
    }
    return box;
}

std::vector<TimeRun> timeRuns(const std::vector<PgTimestamp>& times) {
    std::vector<TimeRun> runs;
    for (const PgTimestamp t : times) {
        if (!runs.empty()) {
            TimeRun& last = runs.back();
            const std::int64_t gap = t.micros - last.first.micros;
            if (last.count == 1 && gap > 0) {
                last.stepMicros = gap;
                last.count = 2;
                continue;
            }
            if (last.count > 1 &&
                t.micros == last.first.micros + last.stepMicros * static_cast<std::int64_t>(last.count)) {
                ++last.count;
                continue;
            }
        }
        runs.push_back(TimeRun{t, 0, 1});
    }
    return runs;
}

std::vector<PgTimestamp> expandTimeRuns(const std::vector<TimeRun>& runs) {
    std::vector<PgTimestamp> times;
    for (const TimeRun& run : runs) {
        for (std::size_t k = 0; k < run.count; ++k) {
            times.push_back(PgTimestamp{run.first.micros + run.stepMicros * static_cast<std::int64_t>(k)});
        }
    }
    return times;
}

} // namespace isobar
