// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

// What the bench subcommands share (BenchCommand.cpp, WarehouseBenchCommand.cpp).

#include "CommandLine.h"
#include "bench/BenchReport.h"
#include "db/Connection.h"

#include <chrono>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stop_token>
#include <string>
#include <vector>

namespace isobar::cli {

// A comma-separated option value, each item through parseOne (nullopt: not understood, and the
// message says what is: `expected`).
template <typename T, typename F>
std::vector<T> parseList(const std::string& text, const std::string& option, F parseOne,
                         const std::string& expected) {
    std::vector<T> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ',')) {
        const auto v = parseOne(item);
        if (!v) {
            throw UsageError{"--" + option + ": '" + item + "' is not understood (" + expected + ")"};
        }
        out.push_back(*v);
    }
    if (out.empty()) {
        throw UsageError{"--" + option + " needs at least one value"};
    }
    return out;
}

// "1,10,50": whole numbers in [min, max].
std::vector<int> parseIntList(const std::string& text, const std::string& option, int min, int max);
// "1,2,4": worker counts 1-64.
std::vector<int> parseWorkerList(const std::string& text);

// One bench command as it runs: what it was told, and its report written at the end.
struct BenchRun {
    std::string kind;
    std::vector<std::string> args;
    std::optional<std::filesystem::path> extra; // --report
    std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();

    // A report with the kind, the command, the start time and the environment (the machine only
    // without a connection).
    BenchReport begin(Connection* conn) const;
    // Sets the duration and writes the report into the bench report directory (and --report),
    // saying where on stderr.
    void finish(BenchReport& report) const;
};

// bench methods, matrix and query.
int runWarehouseBench(const ParsedArgs& parsed, const std::vector<std::filesystem::path>& files,
                      const BenchRun& run, std::stop_token stop);

} // namespace isobar::cli
