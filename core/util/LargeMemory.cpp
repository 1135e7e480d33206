// SPDX-License-Identifier: GPL-3.0-or-later

#include "util/LargeMemory.h"

#include <cstdlib>
#include <sys/mman.h>

namespace isobar {

namespace {

std::size_t roundedUp(std::size_t bytes) {
    return (bytes + kLargeBytes - 1) / kLargeBytes * kLargeBytes;
}

} // namespace

void* allocateLarge(std::size_t bytes) {
    if (bytes < kLargeBytes) {
        return ::operator new(bytes);
    }
    const std::size_t size = roundedUp(bytes);
    void* p = std::aligned_alloc(kLargeBytes, size);
    if (p == nullptr) {
        throw std::bad_alloc();
    }
    // Advice only: without transparent huge pages (or with none free) it is 4 kB pages as before.
    (void)::madvise(p, size, MADV_HUGEPAGE);
    return p;
}

void freeLarge(void* p, std::size_t bytes) noexcept {
    if (bytes < kLargeBytes) {
        ::operator delete(p);
    } else {
        std::free(p); // it came from std::aligned_alloc
    }
}

} // namespace isobar
