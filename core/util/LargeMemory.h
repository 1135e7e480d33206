// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <cstddef>
#include <memory>
#include <new>

namespace isobar {

// Memory for buffers of megabytes that are written all over as soon as they are made: a unit's
// decoded values, the rows of a COPY. From kLargeBytes up it comes aligned to 2 MiB, and the kernel
// is asked to map it in transparent huge pages where it can (madvise; the machine's setting decides):
// one page fault then maps 2 MiB instead of 4 kB. On a virtual machine whose faults are dear (about
// 10 us each on a 2-core one here, against 0.2-0.7 us per 4 kB in a huge page) a worker's first
// unit waited some 20 ms for the faults of its buffers alone. Smaller requests are plain operator new.
inline constexpr std::size_t kLargeBytes = std::size_t{2} << 20;

void* allocateLarge(std::size_t bytes); // throws std::bad_alloc
void freeLarge(void* p, std::size_t bytes) noexcept;

template <typename T>
class LargeAllocator {
public:
    using value_type = T;

    LargeAllocator() = default;
    template <typename U>
    LargeAllocator(const LargeAllocator<U>& /*other*/) noexcept {}

    T* allocate(std::size_t n) {
        if (n > static_cast<std::size_t>(-1) / sizeof(T)) {
            throw std::bad_array_new_length();
        }
        return static_cast<T*>(allocateLarge(n * sizeof(T)));
    }
    void deallocate(T* p, std::size_t n) noexcept { freeLarge(p, n * sizeof(T)); }

    template <typename U>
    bool operator==(const LargeAllocator<U>& /*other*/) const noexcept {
        return true;
    }
};

// A buffer of `bytes` bytes from allocateLarge, left uninitialized.
struct LargeFree {
    std::size_t bytes = 0;
    void operator()(char* p) const noexcept { freeLarge(p, bytes); }
};
using LargeBytes = std::unique_ptr<char[], LargeFree>;
inline LargeBytes makeLargeBytes(std::size_t bytes) {
    return LargeBytes(static_cast<char*>(allocateLarge(bytes)), LargeFree{bytes});
}

} // namespace isobar
