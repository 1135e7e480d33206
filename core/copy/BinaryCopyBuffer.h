// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "domain/Timestamp.h"
#include "util/LargeMemory.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>

namespace isobar {

// Encodes rows in PostgreSQL's binary COPY format into one growable byte buffer:
//   header  "PGCOPY\n\377\r\n\0", int32 flags (0), int32 header-extension length (0)
//   tuple   int16 field count, then per field int32 length (-1 = NULL) and the value's bytes
//   trailer int16 -1
// All integers are big-endian. The buffer is meant to be reused: clear() keeps the allocation, so a
// worker encodes a few MiB, hands them to its COPY stream, clears and goes on.
//
// The add*() calls do not check capacity; call reserve() with an upper bound before a tuple (the
// hot loop reserves once per row). Those without an explicit bound check for themselves.
class BinaryCopyBuffer {
public:
    static constexpr std::size_t kHeaderSize = 19;

    explicit BinaryCopyBuffer(std::size_t initialCapacity = 4u << 20);

    void writeHeader();
    void writeTrailer();

    // Makes room for at least `bytes` more bytes.
    void reserve(std::size_t bytes) {
        if (capacity_ - size_ < bytes) {
            grow(bytes);
        }
    }

    void beginTuple(std::int16_t fieldCount) { putInt16(fieldCount); }
    void addNull() { putInt32(-1); }
    void addInt32(std::int32_t v) {
        putInt32(4);
        putInt32(v);
    }
    void addInt64(std::int64_t v) {
        putInt32(8);
        putInt64(v);
    }
    void addFloat4(float v) {
        putInt32(4);
        putInt32(std::bit_cast<std::int32_t>(v));
    }
    void addFloat8(double v) {
        putInt32(8);
        putInt64(std::bit_cast<std::int64_t>(v));
    }
    void addTimestamptz(PgTimestamp t) { addInt64(t.micros); }
    void addBool(bool v) {
        putInt32(1);
        data_[size_++] = v ? 1 : 0;
    }
    // A text/varchar value (the bytes as given; the client encoding is the caller's business).
    void addText(std::string_view text);

    std::span<const char> bytes() const noexcept { return {data_.get(), size_}; }
    const char* data() const noexcept { return data_.get(); }
    std::size_t size() const noexcept { return size_; }
    std::size_t capacity() const noexcept { return capacity_; }
    void clear() noexcept { size_ = 0; }

    // For encoders that lay out whole rows themselves: the next `bytes` bytes (reserve() first).
    char* append(std::size_t bytes) noexcept {
        char* p = data_.get() + size_;
        size_ += bytes;
        return p;
    }

private:
    void grow(std::size_t bytes);

    void putInt16(std::int16_t v) {
        const auto be = toBigEndian(static_cast<std::uint16_t>(v));
        std::memcpy(data_.get() + size_, &be, sizeof be);
        size_ += sizeof be;
    }
    void putInt32(std::int32_t v) {
        const auto be = toBigEndian(static_cast<std::uint32_t>(v));
        std::memcpy(data_.get() + size_, &be, sizeof be);
        size_ += sizeof be;
    }
    void putInt64(std::int64_t v) {
        const auto be = toBigEndian(static_cast<std::uint64_t>(v));
        std::memcpy(data_.get() + size_, &be, sizeof be);
        size_ += sizeof be;
    }

    template <typename T>
    static constexpr T toBigEndian(T v) {
        if constexpr (std::endian::native == std::endian::big) {
            return v;
        } else if constexpr (sizeof(T) == 2) {
            return __builtin_bswap16(v);
        } else if constexpr (sizeof(T) == 4) {
            return __builtin_bswap32(v);
        } else {
            return __builtin_bswap64(v);
        }
    }

    LargeBytes data_;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};

} // namespace isobar
