#pragma once

#include "CommandLine.h"
#include "db/LocalCluster.h"
#include "era5/Era5File.h"
#include "ingest/Loader.h"

#include <atomic>
#include <stop_token>
#include <string>
#include <vector>

namespace isobar::cli {

// Each subcommand: parses its own arguments, prints its results to stdout and problems to stderr,
// returns the process exit status (0 ok, 1 failed, 2 usage, 130 cancelled).
int runClusterCommand(const std::vector<std::string>& args);
int runSampleCommand(const std::vector<std::string>& args, std::stop_token stop);
int runLoadCommand(const std::vector<std::string>& args, std::stop_token stop);
int runInspectCommand(const std::vector<std::string>& args);
int runBenchCommand(const std::vector<std::string>& args, std::stop_token stop);
int runReportCommand(const std::vector<std::string>& args);

// Options every command that may use the embedded cluster understands.
std::vector<OptionSpec> embeddedClusterOptionSpecs();
LocalClusterOptions clusterOptionsFrom(const ParsedArgs& args);

// Options that say how to read the input files (off-grid points, grid spacing, product).
std::vector<OptionSpec> inputOptionSpecs();
OpenOptions openOptionsFrom(const ParsedArgs& args);
// --transport stream|file
Transport transportFrom(const ParsedArgs& args);

// The process's stop request (Ctrl-C, SIGTERM), and whether the running command honours it now:
// when it does not, a signal ends the process at once.
std::stop_source& stopSource();
std::atomic<bool>& stoppable();

// Prints "isobar-cli: error: <message>" to stderr.
void printError(const std::string& message);

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitCancelled = 130;

} // namespace isobar::cli
