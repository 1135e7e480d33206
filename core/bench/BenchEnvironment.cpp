// SPDX-License-Identifier: GPL-3.0-or-later

// What a bench report records of where it was measured: the machine and the server.

#include "Version.h"
#include "bench/BenchReport.h"
#include "db/ServerProbe.h"
#include "util/Format.h"

#include <fstream>
#include <sys/utsname.h>
#include <thread>
#include <unistd.h>

namespace isobar {

namespace {

// The value of the first "key: value" line of a /proc file whose key is `key`.
std::string procValue(const char* file, const std::string& key) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(key, 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) {
                std::string v = line.substr(colon + 1);
                v.erase(0, v.find_first_not_of(" \t"));
                return v;
            }
        }
    }
    return "";
}

} // namespace

std::vector<std::pair<std::string, std::string>> describeMachine() {
    std::vector<std::pair<std::string, std::string>> out;
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0) {
        out.emplace_back("host", host);
    }
    out.emplace_back("cores", std::to_string(std::thread::hardware_concurrency()));
    if (const std::string cpu = procValue("/proc/cpuinfo", "model name"); !cpu.empty()) {
        out.emplace_back("cpu", cpu);
    }
    if (const long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGE_SIZE);
        pages > 0 && size > 0) {
        out.emplace_back("memory",
                         formatBytes(static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(size)));
    }
    utsname u{};
    if (::uname(&u) == 0) {
        out.emplace_back("kernel", std::string(u.sysname) + " " + u.release);
    }
    out.emplace_back("isobar", kVersion);
    return out;
}

void describeEnvironment(Connection& conn, BenchReport& report) {
    report.machine = describeMachine();
    const ServerInfo info = probeServer(conn);
    report.server.clear();
    report.server.emplace_back("version", info.version);
    report.server.emplace_back("connection", conn.target());
    if (!info.dataDirectory.empty()) {
        report.server.emplace_back("data directory", info.dataDirectory);
    }
    for (const auto& line : info.extensionLines()) {
        report.server.emplace_back("extension", line);
    }
    if (info.hugePages) { // a sixth of a load's time on a virtual machine: part of the figures
        report.server.emplace_back("shared memory", describeHugePages(*info.hugePages));
    }
    report.settings.clear();
    for (const char* name :
         {"shared_buffers", "max_wal_size", "checkpoint_timeout", "wal_level", "fsync", "synchronous_commit",
          "full_page_writes", "wal_compression", "wal_buffers", "work_mem", "maintenance_work_mem",
          "max_parallel_workers_per_gather", "max_connections", "autovacuum", "data_checksums",
          "shared_preload_libraries", "huge_pages"}) {
        if (const std::string v = info.value(name); !v.empty()) {
            report.settings.emplace_back(name, v);
        }
    }
}

} // namespace isobar
