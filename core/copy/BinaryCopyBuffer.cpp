// SPDX-License-Identifier: GPL-3.0-or-later

#include "copy/BinaryCopyBuffer.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace isobar {

BinaryCopyBuffer::BinaryCopyBuffer(std::size_t initialCapacity)
    : data_(makeLargeBytes(std::max<std::size_t>(initialCapacity, 64)))
    , capacity_(std::max<std::size_t>(initialCapacity, 64)) {}

void BinaryCopyBuffer::grow(std::size_t bytes) {
    const std::size_t needed = size_ + bytes;
    const std::size_t newCapacity = std::max(needed, capacity_ * 2);
    LargeBytes bigger = makeLargeBytes(newCapacity);
    std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
    capacity_ = newCapacity;
}

void BinaryCopyBuffer::writeHeader() {
    static constexpr char signature[11] = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', '\377', '\r', '\n', '\0'};
    reserve(kHeaderSize);
    std::memcpy(data_.get() + size_, signature, sizeof signature);
    size_ += sizeof signature;
    putInt32(0); // flags: no OIDs
    putInt32(0); // header extension length
}

void BinaryCopyBuffer::writeTrailer() {
    reserve(2);
    putInt16(-1);
}

void BinaryCopyBuffer::addText(std::string_view text) {
    if (text.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
        throw std::length_error("text value too long for a COPY field");
    }
    reserve(4 + text.size());
    putInt32(static_cast<std::int32_t>(text.size()));
    std::memcpy(data_.get() + size_, text.data(), text.size());
    size_ += text.size();
}

} // namespace isobar
