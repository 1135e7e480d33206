// SPDX-License-Identifier: GPL-3.0-or-later

#include "copy/WeatherRowEncoder.h"

#include "domain/Variable.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <utility>

namespace isobar {

namespace {

// An 8-byte float4 field as it goes on the wire: int32 length 4, then the value, both big-endian,
// as a little-endian machine stores it from one uint64.
std::uint64_t floatField(float value) {
    const auto bits = std::bit_cast<std::uint32_t>(value);
    return (static_cast<std::uint64_t>(__builtin_bswap32(bits)) << 32) | 0x04000000ULL;
}

constexpr std::uint32_t kNullField = 0xFFFFFFFFU; // int32 length -1

// What the rows of one band are made of besides their values. Plain pointers in locals: the byte
// stores of the encoding may alias anything reached through a member, which would reload it on
// every row.
struct BandParts {
    // 18 bytes: field count, the timestamp field, the length of location_id; 26 with the
    // pressure_level field between the timestamp and location_id.
    const char* prefix;
    const std::uint64_t* latitudeField;
    const std::int32_t* rowFirstId;
    const std::int32_t* lonIndex;
    const std::uint64_t* longitudeField;
    std::size_t latBegin;
    std::size_t latCount;
    std::size_t nlon; // the box's columns: the stride of the values
    std::size_t colBegin;
    std::size_t colCount;
};

// Fixed > 0: the number of value columns, known at compile time so that the column loop unrolls
// (the seed's six: 17 % fewer instructions than a loop over a run-time count); 0: any. Level: the
// rows have a pressure_level field (part of the prefix).
template <std::size_t Fixed, bool Level>
void encodeRows(const BandParts& b, const float* const* columnsIn, std::size_t columnCount,
                BinaryCopyBuffer& out) {
    std::array<const float*, (Fixed > 0 ? Fixed : 1)> fixedColumns{};
    if constexpr (Fixed > 0) {
        std::copy_n(columnsIn, Fixed, fixedColumns.begin());
    }
    const std::size_t n = Fixed > 0 ? Fixed : columnCount;
    for (std::size_t i = b.latBegin; i < b.latBegin + b.latCount; ++i) {
        const std::uint64_t latField = b.latitudeField[i];
        const std::int32_t firstId = b.rowFirstId[i];
        std::size_t k = (i - b.latBegin) * b.nlon + b.colBegin;
        for (std::size_t j = b.colBegin; j < b.colBegin + b.colCount; ++j, ++k) {
            // Reserve was for the worst case; each row takes what it needs.
            constexpr std::size_t kPrefix = Level ? 26 : 18;
            char* p = out.append(kPrefix + 4 + 8 + 8);
            std::memcpy(p, b.prefix, kPrefix);
            const std::uint32_t id = __builtin_bswap32(static_cast<std::uint32_t>(firstId + b.lonIndex[j]));
            std::memcpy(p + kPrefix, &id, 4);
            std::memcpy(p + kPrefix + 4, &latField, 8);
            std::memcpy(p + kPrefix + 12, &b.longitudeField[j], 8);
            for (std::size_t c = 0; c < n; ++c) {
                const float* column = Fixed > 0 ? fixedColumns[c] : columnsIn[c];
                if (column == nullptr || std::isnan(column[k])) {
                    std::memcpy(out.append(4), &kNullField, 4);
                } else {
                    const std::uint64_t field = floatField(column[k]);
                    std::memcpy(out.append(8), &field, 8);
                }
            }
        }
    }
}

} // namespace

WeatherRowEncoder::WeatherRowEncoder(GridGeometry geometry)
    : geometry_(std::move(geometry)) {
    for (float lat : geometry_.latitude) {
        latitudeField_.push_back(floatField(lat));
    }
    for (float lon : geometry_.longitude) {
        longitudeField_.push_back(floatField(lon));
    }
}

void WeatherRowEncoder::encode(PgTimestamp time, std::optional<float> level, std::size_t latBegin,
                               std::size_t latCount, const BandValues& values, BinaryCopyBuffer& out,
                               std::size_t colBegin, std::size_t colCount) const {
    static_assert(std::endian::native == std::endian::little,
                  "the row layout below assumes a little-endian host");
    const std::size_t nlon = geometry_.longitude.size();
    if (colCount == 0) {
        colCount = nlon - std::min(colBegin, nlon);
    }
    out.reserve(latCount * colCount * maxWeatherRowBytes(values.size(), level.has_value()));
    // The first bytes are the same for every row of the band: field count, the timestamp field,
    // the pressure_level field (on pressure levels) and the length of location_id.
    char prefix[26];
    const std::size_t keyFields = level ? 5 : 4;
    const std::uint16_t fields = __builtin_bswap16(static_cast<std::uint16_t>(keyFields + values.size()));
    const std::uint32_t eight = __builtin_bswap32(8);
    const auto micros = __builtin_bswap64(static_cast<std::uint64_t>(time.micros));
    const std::uint32_t four = __builtin_bswap32(4);
    std::memcpy(prefix, &fields, 2);
    std::memcpy(prefix + 2, &eight, 4);
    std::memcpy(prefix + 6, &micros, 8);
    std::size_t at = 14;
    if (level) {
        const std::uint64_t levelField = floatField(*level);
        std::memcpy(prefix + at, &levelField, 8);
        at += 8;
    }
    std::memcpy(prefix + at, &four, 4);
    const BandParts parts{prefix,
                          latitudeField_.data(),
                          geometry_.rowFirstId.data(),
                          geometry_.lonIndex.data(),
                          longitudeField_.data(),
                          latBegin,
                          latCount,
                          nlon,
                          colBegin,
                          colCount};
    if (level) {
        encodeRows<0, true>(parts, values.data(), values.size(), out);
    } else if (values.size() == kSeedVariables.size()) {
        encodeRows<kSeedVariables.size(), false>(parts, values.data(), values.size(), out);
    } else {
        encodeRows<0, false>(parts, values.data(), values.size(), out);
    }
}

} // namespace isobar
