// SPDX-License-Identifier: GPL-3.0-or-later

// isobar-cli: the headless face of Isobar. Thin: parses the subcommand and hands over to core.

#include "Commands.h"
#include "Version.h"
#include "util/Error.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <pthread.h>
#include <stop_token>
#include <thread>

namespace {

const char* kUsage = R"(usage: isobar-cli [--verbose] COMMAND [options]

Loads ERA5 reanalysis files into PostgreSQL with binary COPY: NetCDF (classic, 64-bit offset,
netCDF-4/HDF5), GRIB editions 1 and 2, and the CDS's ZIP archives of them.

commands:
  load      load NetCDF, GRIB and CDS time-series files into a table (default: the embedded cluster)
  inspect   describe NetCDF, GRIB and CDS time-series files as Isobar reads them, and the rows a load
            would write
  synth     write a SYNTHETIC ERA5-like NetCDF or GRIB file to try Isobar with (once called sample)
  settings  what on a server endangers or slows a load, with the SQL to fix it (--restore: undo a
            killed load's durability changes)
  audit     a table's health: rows held twice, holes, ERA5T still there, the ledger against the rows
  report    render a saved run report as HTML, CSV or JSON
  bench     measure reading, loading against the server's own COPY, sustained loads and durability
            settings (bench read|ingest|sustained|durability)
  cluster   start, stop, inspect the embedded PostgreSQL cluster (start|stop|status|url)

  isobar-cli COMMAND --help   options of one command
  isobar-cli --version        print the version and the licence

exit status: 0 ok, 1 failed, 2 bad command line, 3 audit found problems, 130 cancelled (Ctrl-C /
SIGTERM)
)";

} // namespace

namespace isobar::cli {

void printError(const std::string& message) {
    std::cerr << "isobar-cli: error: " << message << std::endl;
}

// Process-wide, so the detached signal thread never refers to anything that main() destroys.
std::stop_source& stopSource() {
    static std::stop_source source;
    return source;
}

std::atomic<bool>& stoppable() {
    static std::atomic<bool> flag{false};
    return flag;
}

} // namespace isobar::cli

int main(int argc, char** argv) {
    using namespace isobar::cli;
    std::vector<std::string> args(argv + 1, argv + argc);

    auto logger = spdlog::stderr_color_st("isobar");
    logger->set_pattern("isobar-cli: %l: %v");
    logger->set_level(spdlog::level::warn);
    spdlog::set_default_logger(logger);

    while (!args.empty() && (args.front() == "--verbose" || args.front() == "-v")) {
        spdlog::set_level(spdlog::level::debug);
        args.erase(args.begin());
    }
    if (args.empty() || args.front() == "--help" || args.front() == "-h" || args.front() == "help") {
        std::cout << kUsage;
        return args.empty() ? kExitUsage : kExitOk;
    }
    if (args.front() == "--version" || args.front() == "-V") {
        std::cout << "isobar-cli " << isobar::kVersion << "\n"
                  << isobar::kCopyright << "\n"
                  << isobar::kLicence << "\n";
        return kExitOk;
    }

    // Ctrl-C / SIGTERM: while a command is in a stoppable phase (streaming rows, writing a synthetic file)
    // the first one is a stop request it honours between units of work, rolling back what is in
    // flight; otherwise, and for a second one, the process exits at once (nothing is half written
    // then). A dedicated thread waits for the signals, so no work happens in a signal handler.
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    std::thread signalThread([signals] {
        int received = 0;
        if (sigwait(&signals, &received) != 0) {
            return;
        }
        if (!stoppable().load()) {
            std::cerr << "\nisobar-cli: interrupted (signal " << received << ")" << std::endl;
            std::_Exit(kExitCancelled);
        }
        std::cerr << "\nisobar-cli: stopping (signal " << received
                  << "): rolling back what is in flight; press Ctrl-C again to abort at once" << std::endl;
        stopSource().request_stop();
        if (sigwait(&signals, &received) == 0) {
            std::cerr << "isobar-cli: aborted (signal " << received << ")" << std::endl;
            std::_Exit(kExitCancelled);
        }
    });
    signalThread.detach();

    const std::string command = args.front();
    args.erase(args.begin());
    try {
        if (command == "load") {
            return runLoadCommand(args, stopSource().get_token());
        }
        if (command != "settings") {
            warnAbandonedJournals();
        }
        if (command == "settings") {
            return runSettingsCommand(args);
        }
        if (command == "report") {
            return runReportCommand(args);
        }
        if (command == "audit") {
            return runAuditCommand(args);
        }
        if (command == "bench") {
            return runBenchCommand(args, stopSource().get_token());
        }
        if (command == "inspect") {
            return runInspectCommand(args);
        }
        if (command == "synth" || command == "sample") { // sample: its earlier name, still taken
            return runSynthCommand(args, stopSource().get_token());
        }
        if (command == "cluster") {
            return runClusterCommand(args);
        }
        throw UsageError{"unknown command '" + command + "'"};
    } catch (const isobar::Cancelled&) {
        std::cerr << "isobar-cli: cancelled" << std::endl;
        return kExitCancelled;
    } catch (const UsageError& e) {
        std::cerr << "isobar-cli: " << e.message << "\n(see isobar-cli --help, or isobar-cli " << command
                  << " --help)\n";
        return kExitUsage;
    } catch (const isobar::Error& e) {
        printError(e.what());
        return kExitFailed;
    } catch (const std::exception& e) {
        printError(std::string("unexpected failure: ") + e.what());
        return kExitFailed;
    }
}
