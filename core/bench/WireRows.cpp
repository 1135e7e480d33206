// SPDX-License-Identifier: GPL-3.0-or-later

#include "bench/WireRows.h"

#include "domain/Timestamp.h"
#include "util/Error.h"

#include <bit>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstring>

namespace isobar::bench {

namespace {

constexpr char kSignature[] = "PGCOPY\n\377\r\n";
constexpr std::size_t kSignatureBytes = 11;

template <typename T>
T bigEndian(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    if constexpr (std::endian::native == std::endian::little) {
        if constexpr (sizeof(T) == 2) {
            v = static_cast<T>(__builtin_bswap16(static_cast<std::uint16_t>(v)));
        } else if constexpr (sizeof(T) == 4) {
            v = static_cast<T>(__builtin_bswap32(static_cast<std::uint32_t>(v)));
        } else {
            v = static_cast<T>(__builtin_bswap64(static_cast<std::uint64_t>(v)));
        }
    }
    return v;
}

[[noreturn]] void broken(std::size_t pos) {
    throw Error("the encoded rows are cut short or malformed at byte " + std::to_string(pos));
}

} // namespace

WireReader::WireReader(std::span<const char> wire, std::size_t locationField)
    : wire_(wire)
    , locationField_(locationField) {
    if (wire_.size() >= kSignatureBytes && std::memcmp(wire_.data(), kSignature, kSignatureBytes) == 0) {
        // The file header: signature, flags, and the header extension's length and bytes.
        if (wire_.size() < kSignatureBytes + 8) {
            broken(wire_.size());
        }
        const auto extension = bigEndian<std::uint32_t>(wire_.data() + kSignatureBytes + 4);
        pos_ = kSignatureBytes + 8 + extension;
    }
}

bool WireReader::next(TextRow& row) {
    if (pos_ + 2 > wire_.size()) {
        return false;
    }
    const auto fields = bigEndian<std::int16_t>(wire_.data() + pos_);
    if (fields < 0) {
        return false; // the trailer
    }
    pos_ += 2;
    row.fields.resize(static_cast<std::size_t>(fields));
    row.nulls.assign(static_cast<std::size_t>(fields), false);
    for (std::size_t f = 0; f < static_cast<std::size_t>(fields); ++f) {
        if (pos_ + 4 > wire_.size()) {
            broken(pos_);
        }
        const auto length = bigEndian<std::int32_t>(wire_.data() + pos_);
        pos_ += 4;
        if (length < 0) {
            row.nulls[f] = true;
            row.fields[f].clear();
            continue;
        }
        if (pos_ + static_cast<std::size_t>(length) > wire_.size()) {
            broken(pos_);
        }
        const char* p = wire_.data() + pos_;
        pos_ += static_cast<std::size_t>(length);
        char buf[32];
        std::to_chars_result r{};
        if (f == 0 && length == 8) {
            const auto micros = bigEndian<std::int64_t>(p);
            if (lastTimeText_.empty() || micros != lastTime_) {
                lastTime_ = micros;
                lastTimeText_ = formatTimestamp(PgTimestamp{micros});
            }
            row.fields[f] = lastTimeText_;
            continue;
        }
        if (f == locationField_ && length == 4) {
            r = std::to_chars(buf, buf + sizeof buf, bigEndian<std::int32_t>(p));
        } else if (length == 4) {
            const auto bits = bigEndian<std::uint32_t>(p);
            r = std::to_chars(buf, buf + sizeof buf, std::bit_cast<float>(bits));
        } else {
            broken(pos_);
        }
        row.fields[f].assign(buf, r.ptr);
    }
    return true;
}

void appendCopyText(const TextRow& row, std::string& out) {
    for (std::size_t f = 0; f < row.fields.size(); ++f) {
        if (f > 0) {
            out += '\t';
        }
        if (row.nulls[f]) {
            out += "\\N";
        } else {
            out += row.fields[f]; // numbers and times: nothing to escape
        }
    }
    out += '\n';
}

void appendCsv(const TextRow& row, std::string& out) {
    for (std::size_t f = 0; f < row.fields.size(); ++f) {
        if (f > 0) {
            out += ',';
        }
        if (!row.nulls[f]) {
            out += row.fields[f];
        }
    }
    out += '\n';
}

void appendSqlTuple(const TextRow& row, std::string& out) {
    out += '(';
    for (std::size_t f = 0; f < row.fields.size(); ++f) {
        if (f > 0) {
            out += ", ";
        }
        if (row.nulls[f]) {
            out += "NULL";
        } else if (f == 0 || std::isalpha(static_cast<unsigned char>(row.fields[f].back())) != 0) {
            // A time, or a float that is not a plain number (inf, -inf, nan): a quoted literal.
            out += '\'';
            out += row.fields[f];
            out += '\'';
        } else {
            out += row.fields[f];
        }
    }
    out += ')';
}

} // namespace isobar::bench
