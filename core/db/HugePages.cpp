// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/HugePages.h"

#include "util/Files.h"
#include "util/Format.h"
#include "util/Text.h"

#include <algorithm>

namespace isobar {

namespace {

// Calls `line` with each line of `text`, without its newline.
template <typename F>
void forEachLine(std::string_view text, F line) {
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) {
            end = text.size();
        }
        line(text.substr(start, end - start));
        start = end + 1;
    }
}

} // namespace

std::optional<HugePages> parseMeminfo(std::string_view meminfo) {
    HugePages pages;
    bool any = false;
    forEachLine(meminfo, [&pages, &any](std::string_view line) {
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) {
            return;
        }
        const std::string key(trim(std::string(line.substr(0, colon))));
        const std::string value(trim(std::string(line.substr(colon + 1))));
        std::int64_t number = 0;
        try {
            number = std::stoll(value);
        } catch (const std::exception&) {
            return;
        }
        if (key == "HugePages_Total") {
            pages.total = number;
        } else if (key == "HugePages_Free") {
            pages.free = number;
        } else if (key == "HugePages_Rsvd") {
            pages.reserved = number;
        } else if (key == "Hugepagesize") {
            pages.pageBytes =
                static_cast<double>(number) * (value.find("kB") != std::string::npos ? 1024.0 : 1.0);
        } else {
            return;
        }
        any = true;
    });
    if (!any) {
        return std::nullopt;
    }
    return pages;
}

std::optional<bool> mapsShowHugePages(std::string_view maps) {
    std::uint64_t biggest = 0;
    std::optional<bool> huge;
    forEachLine(maps, [&biggest, &huge](std::string_view line) {
        // "7f1c00000000-7f1d10000000 rw-s 00000000 00:0f 1234   /anon_hugepage (deleted)"
        const bool hugeMapping = line.find("/anon_hugepage") != std::string_view::npos;
        const bool smallMapping =
            line.find("/dev/zero") != std::string_view::npos || line.find("/SYSV") != std::string_view::npos;
        const std::size_t dash = line.find('-');
        const std::size_t space = line.find(' ');
        if ((!hugeMapping && !smallMapping) || dash == std::string_view::npos ||
            space == std::string_view::npos || dash > space ||
            line.substr(space + 1, 4).find('s') == std::string_view::npos) {
            return;
        }
        std::uint64_t from = 0;
        std::uint64_t to = 0;
        try {
            from = std::stoull(std::string(line.substr(0, dash)), nullptr, 16);
            to = std::stoull(std::string(line.substr(dash + 1, space - dash - 1)), nullptr, 16);
        } catch (const std::exception&) {
            return;
        }
        if (to > from && to - from > biggest) {
            biggest = to - from;
            huge = hugeMapping;
        }
    });
    return huge;
}

std::string describeHugePages(const HugePages& pages) {
    const std::string needed = pages.needed > 0 ? std::to_string(pages.needed) + " huge pages of " +
                                                      formatBytes(static_cast<std::uint64_t>(pages.pageBytes))
                                                : std::string("huge pages");
    const std::string machine =
        pages.total == 0 ? std::string("this machine has none reserved")
                         : "this machine has " + std::to_string(pages.total) + " reserved, " +
                               std::to_string(std::max<std::int64_t>(0, pages.available())) + " unclaimed";
    if (pages.serverUses == std::optional<bool>(true)) {
        return "in huge pages (" + needed + "; " + machine + ")";
    }
    if (pages.serverUses == std::optional<bool>(false)) {
        return "in 4 kB pages: needs " + needed + ", " + machine +
               (pages.available() >= pages.needed && pages.needed > 0
                    ? " (a restart takes them)"
                    : " (sysctl -w vm.nr_hugepages as root, then a restart)");
    }
    return "needs " + needed + ", " + machine;
}

std::optional<HugePages> probeHugePages(int serverPid) {
    // Either file may be missing (no /proc in a container, a server that has just stopped): then
    // there is nothing to tell.
    std::error_code error;
    std::optional<HugePages> pages = parseMeminfo(readWholeFile("/proc/meminfo", error));
    if (pages && serverPid > 0) {
        const std::string maps = readWholeFile("/proc/" + std::to_string(serverPid) + "/maps", error);
        if (!maps.empty()) {
            pages->serverUses = mapsShowHugePages(maps);
        }
    }
    return pages;
}

} // namespace isobar
