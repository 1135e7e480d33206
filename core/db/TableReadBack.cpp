// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/TableReadBack.h"

#include "db/CopyStream.h"
#include "db/Ledger.h"
#include "util/Error.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string_view>
#include <unordered_map>

namespace isobar {

namespace {

std::uint16_t bigEndian16(const char* p) {
    std::uint16_t v = 0;
    std::memcpy(&v, p, sizeof v);
    return std::endian::native == std::endian::big ? v : __builtin_bswap16(v);
}

std::uint32_t bigEndian32(const char* p) {
    std::uint32_t v = 0;
    std::memcpy(&v, p, sizeof v);
    return std::endian::native == std::endian::big ? v : __builtin_bswap32(v);
}

std::uint64_t bigEndian64(const char* p) {
    std::uint64_t v = 0;
    std::memcpy(&v, p, sizeof v);
    return std::endian::native == std::endian::big ? v : __builtin_bswap64(v);
}

// One tuple of the binary COPY format: its bytes, the bytes that name its row (field count, time,
// [pressure_level,] location_id) and whether its values (the fields after latitude and
// longitude) are all NULL.
struct Tuple {
    std::string_view bytes;
    std::string_view key;
    bool valuesNull = true;
};

// The tuples of `data` (binary COPY tuples, with or without the trailer).
std::vector<Tuple> tuplesOf(std::string_view data, bool levelColumn) {
    const std::size_t keyFields = levelColumn ? 3 : 2;
    std::vector<Tuple> out;
    std::size_t at = 0;
    const auto need = [&data, &at](std::size_t n) {
        if (data.size() - at < n) {
            throw Error("internal: a binary COPY tuple ends early (at byte " + std::to_string(at) + ")");
        }
    };
    while (at < data.size()) {
        need(2);
        const auto fields = static_cast<std::int16_t>(bigEndian16(data.data() + at));
        if (fields == -1) {
            break; // the trailer
        }
        const std::size_t start = at;
        at += 2;
        Tuple t;
        for (std::int16_t f = 0; f < fields; ++f) {
            need(4);
            const auto length = static_cast<std::int32_t>(bigEndian32(data.data() + at));
            at += 4;
            if (length >= 0) {
                need(static_cast<std::size_t>(length));
                at += static_cast<std::size_t>(length);
                if (static_cast<std::size_t>(f) >= keyFields + 2) {
                    t.valuesNull = false;
                }
            }
            if (static_cast<std::size_t>(f) + 1 == keyFields) {
                t.key = data.substr(start, at - start);
            }
        }
        t.bytes = data.substr(start, at - start);
        out.push_back(t);
    }
    return out;
}

// Whether a row of the table (a tuple of the columns tableHolds reads) lies in `place`.
bool rowIn(const Tuple& t, const UnitPlace& place, const GlobalGrid& grid, bool levelColumn) {
    // field count (2), time (4 + 8), [pressure_level (4 + 4),] location_id (4 + 4)
    const PgTimestamp time{static_cast<std::int64_t>(bigEndian64(t.bytes.data() + 6))};
    std::size_t at = 14;
    if (levelColumn) {
        const float level = std::bit_cast<float>(bigEndian32(t.bytes.data() + at + 4));
        if (!place.level || static_cast<float>(*place.level) != level) {
            return false;
        }
        at += 8;
    }
    const auto location = static_cast<std::int64_t>(bigEndian32(t.bytes.data() + at + 4)) - 1;
    const std::int64_t n = grid.longitudes();
    const std::int64_t row = location / n;
    const std::int64_t column = location % n;
    return place.time <= time && time <= place.last() && place.south <= row && row <= place.north &&
           place.west <= column && column <= place.east;
}

} // namespace

std::vector<bool> tableHolds(Connection& conn, const RowsTable& table, const GlobalGrid& grid,
                             const std::vector<UnitPlace>& places, const std::vector<std::string>& expected) {
    std::vector<bool> same(places.size(), true);
    if (places.empty()) {
        return same;
    }
    // What each place should hold, by the bytes that name each row.
    struct Want {
        std::string_view bytes;
        std::size_t place = 0;
        bool seen = false;
    };
    std::unordered_map<std::string_view, Want> want;
    for (std::size_t i = 0; i < places.size(); ++i) {
        for (const Tuple& t : tuplesOf(expected.at(i), table.levelColumn)) {
            if (!t.valuesNull && !want.try_emplace(t.key, Want{t.bytes, i}).second) {
                same[i] = false; // two rows of one time and location: not what a table holds
            }
        }
    }

    // One statement for all places: the span of their times first, which a time index, chunks
    // and partitions serve, then each place's own condition.
    PgTimestamp first = places.front().time;
    PgTimestamp last = places.front().last();
    std::string which;
    for (const UnitPlace& p : places) {
        first = std::min(first, p.time);
        last = std::max(last, p.last());
        which += (which.empty() ? "(" : " OR (") + placeCondition(conn, p, grid, table.levelColumn) + ")";
    }
    const std::string columns = table.columns.substr(1, table.columns.size() - 2); // without ( )
    const std::string sql = "COPY (SELECT " + columns + " FROM " + table.quoted + " WHERE time BETWEEN " +
                            conn.quoteLiteral(formatTimestamp(first)) + "::timestamptz AND " +
                            conn.quoteLiteral(formatTimestamp(last)) + "::timestamptz AND (" + which +
                            ")) TO STDOUT (FORMAT binary)";
    // The time index, however few statistics the table has (as a replacing load deletes).
    conn.exec("SET LOCAL enable_seqscan = off; SET LOCAL jit = off");
    std::string data;
    copyOut(conn, sql, "reading back rows of " + table.quoted,
            [&data](std::span<const char> piece) { data.append(piece.data(), piece.size()); });
    conn.exec("SET LOCAL enable_seqscan = DEFAULT; SET LOCAL jit = DEFAULT");

    // The header: signature (11), flags (4), extension length (4) and the extension.
    static constexpr std::string_view kSignature("PGCOPY\n\377\r\n\0", 11);
    if (data.size() < 19 || std::string_view(data).substr(0, 11) != kSignature) {
        throw Error("internal: reading back rows of " + table.quoted + " gave no binary COPY header");
    }
    const std::size_t body = 19 + bigEndian32(data.data() + 15);
    for (const Tuple& t :
         tuplesOf(std::string_view(data).substr(std::min(body, data.size())), table.levelColumn)) {
        if (t.valuesNull) {
            continue;
        }
        if (const auto it = want.find(t.key); it != want.end()) {
            if (it->second.seen || it->second.bytes != t.bytes) {
                same[it->second.place] = false; // another value, or the row twice
            }
            it->second.seen = true;
            continue;
        }
        for (std::size_t i = 0; i < places.size(); ++i) { // a row these files do not have
            if (rowIn(t, places[i], grid, table.levelColumn)) {
                same[i] = false;
            }
        }
    }
    for (const auto& [key, w] : want) {
        if (!w.seen) {
            same[w.place] = false; // a row the table lacks
        }
    }
    return same;
}

} // namespace isobar
