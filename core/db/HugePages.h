// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace isobar {

// Whether a server on this machine keeps its shared memory (shared_buffers, WAL buffers) in huge
// pages, and what the machine has reserved of them. In 4 kB pages every backend - each of a load's
// new worker connections - faults in and walks the page tables for every buffer page it touches:
// on a 2-core virtual machine (shared_buffers 4GB), 4 global hours loaded 1.2-1.3x faster with huge
// pages, and the server's own COPY of them 1.2x; over 24 hours the gain was smaller and varied.
struct HugePages {
    std::int64_t total = 0;    // HugePages_Total: reserved on this machine (vm.nr_hugepages)
    std::int64_t free = 0;     // HugePages_Free
    std::int64_t reserved = 0; // HugePages_Rsvd: promised to mappings, not yet touched
    double pageBytes = 0;      // Hugepagesize
    // Whether the server's shared memory is in huge pages: nullopt when this process may not look at
    // the server's mappings (another user's server).
    std::optional<bool> serverUses;
    // shared_memory_size_in_huge_pages: what the server would need (PostgreSQL 15 and later); -1 unknown.
    std::int64_t needed = -1;

    // Huge pages not yet claimed by anyone: what a restarted server could take.
    std::int64_t available() const { return free - reserved; }
};

// HugePages_Total, _Free, _Rsvd and Hugepagesize out of /proc/meminfo's text; nullopt when it has none
// of them (not Linux, or a kernel without hugetlbfs).
std::optional<HugePages> parseMeminfo(std::string_view meminfo);

// Out of a process's /proc/PID/maps: whether its biggest shared anonymous mapping (PostgreSQL's main
// shared memory) is in huge pages ("/anon_hugepage (deleted)") or not ("/dev/zero (deleted)", or
// System V shared memory); nullopt when neither is there.
std::optional<bool> mapsShowHugePages(std::string_view maps);

// One line for a status or a bench report: "in huge pages (2052 needed of 2300 reserved on this
// machine)", "in 4 kB pages: needs 2052 huge pages of 2.0 MiB, this machine has none reserved (...)".
std::string describeHugePages(const HugePages& pages);

// This machine's huge pages, and whether the server process `serverPid` (a backend of a server on this
// machine: it maps the postmaster's shared memory) uses them; nullopt where /proc/meminfo has none.
std::optional<HugePages> probeHugePages(int serverPid);

} // namespace isobar
