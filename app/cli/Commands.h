// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "CommandLine.h"
#include "db/Durability.h"
#include "db/LocalCluster.h"
#include "db/SettingsAdvice.h"
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
int runSynthCommand(const std::vector<std::string>& args, std::stop_token stop);
int runLoadCommand(const std::vector<std::string>& args, std::stop_token stop);
int runInspectCommand(const std::vector<std::string>& args);
int runBenchCommand(const std::vector<std::string>& args, std::stop_token stop);
int runReportCommand(const std::vector<std::string>& args);
int runSettingsCommand(const std::vector<std::string>& args);
int runAuditCommand(const std::vector<std::string>& args);

// Options every command that may use the embedded cluster understands.
std::vector<OptionSpec> embeddedClusterOptionSpecs();
LocalClusterOptions clusterOptionsFrom(const ParsedArgs& args);
// The server a command talks to: --dsn, else the embedded cluster (started if needed, saying so).
std::string targetFrom(const ParsedArgs& args);

// --durability fast|safe|unchanged and the fine-grained --fsync, --full-page-writes,
// --synchronous-commit; consent comes from --yes.
std::vector<OptionSpec> durabilityOptionSpecs();
DurabilityRequest durabilityFrom(const ParsedArgs& args);
// Restores what a run that died left changed on this server, printing what it does; a problem
// (the owner is still running, the server is unreachable) is printed as a warning.
void restoreAbandonedOn(const std::string& conninfo);
// "[danger] fsync=off: ..." (and "    fix: SQL" on a second line when asked for).
std::string formatWarning(const SettingWarning& warning, bool withFix);
// One warning line per journal whose owner is gone: settings still changed on some server.
void warnAbandonedJournals();

// Options that say how to read the input files (off-grid points, grid spacing, product).
std::vector<OptionSpec> inputOptionSpecs();
OpenOptions openOptionsFrom(const ParsedArgs& args);
// --transport stream|file
TransportKind transportFrom(const ParsedArgs& args);

// The process's stop request (Ctrl-C, SIGTERM), and whether the running command honours it now:
// when it does not, a signal ends the process at once.
std::stop_source& stopSource();
std::atomic<bool>& stoppable();

// Prints "isobar-cli: error: <message>" to stderr.
void printError(const std::string& message);

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitProblemsFound = 3; // audit: the table has problems
inline constexpr int kExitCancelled = 130;

} // namespace isobar::cli
