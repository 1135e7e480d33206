// SPDX-License-Identifier: GPL-3.0-or-later

#include "Commands.h"
#include "db/EmbeddedDefaults.h"
#include "db/LocalCluster.h"
#include "util/Error.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace isobar::cli {

namespace {

const char* kClusterHelp = R"(usage: isobar-cli cluster start|stop|status|url [options]

Manages Isobar's embedded PostgreSQL cluster: a private server on a unix socket (no TCP) with its
data under $XDG_DATA_HOME/isobar/pg<version> (/var/lib/isobar/pg<version> when run as root).

  start    create the cluster if needed and start it (reuses a running one)
  stop     stop it (fast shutdown)
  status   print whether it exists and runs, where, and as which user
  url      print a libpq connection string for it (use with psql or --dsn)

options:
)";

} // namespace

std::vector<OptionSpec> embeddedClusterOptionSpecs() {
    return {
        {"data-dir", "DIR", "embedded cluster directory (default: per-user data directory)"},
        {"port", "N", "port number of the embedded cluster's socket (default 5432; no TCP)"},
    };
}

// "timescaledb installed, preloaded; citus not installed (shared_preload_libraries = 'timescaledb')"
std::string describeExtensions(const ClusterStatus& s) {
    std::string out;
    for (const char* name : {"timescaledb", "citus"}) {
        const bool installed = std::find(s.extensionLibraries.begin(), s.extensionLibraries.end(), name) !=
                               s.extensionLibraries.end();
        const bool preloaded = s.preloadLibraries.find(name) != std::string::npos;
        out += (out.empty() ? "" : "; ") + std::string(name) +
               (installed ? (preloaded ? " installed, preloaded" : " installed, NOT preloaded")
                          : " not installed");
    }
    return out + (s.state == ClusterState::NotCreated
                      ? std::string()
                      : " (shared_preload_libraries = '" + s.preloadLibraries + "'" +
                            (s.state == ClusterState::Running ? ", as the server has it)"
                                                              : ", from its settings files)"));
}

std::string targetFrom(const ParsedArgs& args) {
    if (const auto dsn = args.value("dsn")) {
        if (args.value("data-dir") || args.value("port")) {
            throw UsageError{"--data-dir and --port choose the embedded cluster; they do not go with --dsn"};
        }
        return *dsn;
    }
    LocalCluster cluster(clusterOptionsFrom(args));
    const bool started = cluster.start();
    std::cerr << "using the embedded PostgreSQL " << cluster.majorVersion() << " cluster in "
              << cluster.dataDir().string() << (started ? " (started)" : " (already running)") << "\n";
    return cluster.connectionString();
}

LocalClusterOptions clusterOptionsFrom(const ParsedArgs& args) {
    std::optional<std::filesystem::path> dir;
    if (auto d = args.value("data-dir")) {
        dir = *d;
    }
    std::optional<int> port;
    if (args.value("port")) {
        port = static_cast<int>(args.integer("port", 5432, 1, 65535));
    }
    return embeddedClusterOptions(dir, port);
}

int runClusterCommand(const std::vector<std::string>& args) {
    auto specs = embeddedClusterOptionSpecs();
    specs.push_back({"help", "", "show this help"});
    const ParsedArgs parsed("cluster", specs, args);
    if (parsed.flag("help")) {
        std::cout << kClusterHelp << describeOptions(specs);
        return kExitOk;
    }
    if (parsed.positional().size() != 1) {
        throw UsageError{"cluster needs exactly one action: start, stop, status or url"};
    }
    const std::string& action = parsed.positional().front();
    if (action != "start" && action != "stop" && action != "status" && action != "url") {
        throw UsageError{"unknown cluster action '" + action + "' (start, stop, status or url)"};
    }
    LocalCluster cluster(clusterOptionsFrom(parsed));
    if (action == "start") {
        const bool started = cluster.start();
        std::cout << (started ? "started" : "already running") << ": PostgreSQL " << cluster.majorVersion()
                  << " in " << cluster.dataDir().string() << "\n"
                  << cluster.connectionString() << "\n";
        return kExitOk;
    }
    if (action == "stop") {
        const bool stopped = cluster.stop();
        std::cout << (stopped ? "stopped" : "not running") << ": " << cluster.dataDir().string() << "\n";
        return kExitOk;
    }
    if (action == "url") {
        std::cout << cluster.connectionString() << "\n";
        return kExitOk;
    }
    const ClusterStatus s = cluster.status();
    const char* state = s.state == ClusterState::Running   ? "running"
                        : s.state == ClusterState::Stopped ? "stopped"
                                                           : "not created";
    std::cout << "state:        " << state << "\n";
    if (s.state == ClusterState::Running) {
        std::cout << "pid:          " << s.pid << "\n";
    }
    std::cout << "version:      PostgreSQL " << cluster.majorVersion() << " (" << cluster.binDir().string()
              << ")\n"
              << "data:         " << s.dataDir.string() << "\n"
              << "socket:       " << s.socketDir.string() << " port " << s.port << " (no TCP)\n"
              << "server user:  " << s.serverUser << "\n"
              << "extensions:   " << describeExtensions(s) << "\n"
              << (s.sharedMemory.empty() ? std::string() : "shared mem:   " + s.sharedMemory + "\n")
              << "url:          " << cluster.connectionString() << "\n";
    // Exit status like pg_ctl status: 0 running, 3 not running.
    return s.state == ClusterState::Running ? kExitOk : 3;
}

} // namespace isobar::cli
