// SPDX-License-Identifier: GPL-3.0-or-later

#include "bench/IngestBenchmark.h"

#include "bench/BenchmarkStages.h"
#include "db/Compression.h"
#include "db/Connection.h"
#include "db/CopyStream.h"
#include "db/Ledger.h"
#include "db/ServerProbe.h"
#include "db/TableMetadata.h"
#include "db/WeatherSchema.h"
#include "ingest/Loader.h"
#include "plan/LoadPlan.h"
#include "rows/UnitSource.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/Format.h"
#include "util/Json.h"
#include "util/Process.h"
#include "util/TempDir.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace isobar {

namespace bench {

namespace {

constexpr const char* kIsobarTable = "isobar_bench_load";
constexpr const char* kCeilingTable = "isobar_bench_ceiling";

// The stages of a load's run that are its COPY phase (LoadPhases::run): its workers, and what
// makes the table ready after them (a hypertable's index on time), as the server's COPY and the
// bare client are timed.
bool inCopyPhase(const std::string& stage) {
    return stage == LoadPhases::kLoad || stage == LoadPhases::kFinishTable;
}

} // namespace

void checkServerCanReadFiles(Connection& conn) {
    const ServerFileAccess access = probeServerFileAccess(conn);
    if (!access.onThisMachine) {
        throw Error(
            "the server's own COPY limit is measured from files on the server's machine: run the benchmark "
            "against a server on this machine (the embedded cluster, or localhost)");
    }
    if (!access.mayReadFiles) {
        throw Error(
            "measuring the server's COPY limit needs a role that may read server files (superuser, or "
            "GRANT pg_read_server_files)");
    }
}

void syncToDisk(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fdatasync(fd) != 0) {
        const int err = errno;
        if (fd >= 0) {
            ::close(fd);
        }
        throw Error(path.string() + ": cannot write the benchmark file to the disk: " + systemErrorText(err));
    }
    ::close(fd);
}

// The rows of the plan encoded exactly as the engine sends them, unit i into file i % n.
std::vector<std::filesystem::path> writeCopyFiles(const Dataset& dataset, const LoadPlan& plan, int n,
                                                  const std::filesystem::path& dir,
                                                  const std::stop_token& stop) {
    const UnitSource source(dataset);
    std::vector<std::filesystem::path> paths;
    std::vector<std::ofstream> outs;
    for (int i = 0; i < n; ++i) {
        paths.push_back(dir / ("rows-" + std::to_string(n) + "-" + std::to_string(i) + ".bin"));
        outs.emplace_back(paths.back(), std::ios::binary | std::ios::trunc);
    }
    BinaryCopyBuffer buffer;
    for (auto& out : outs) {
        buffer.clear();
        buffer.writeHeader();
        out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    }
    RawUnit raw;
    DecodedBand decoded;
    for (std::size_t u = 0; u < plan.units().size(); ++u) {
        if (stop.stop_requested()) {
            throw Cancelled();
        }
        const WorkUnit& unit = plan.units()[u];
        source.fetch(unit, raw);
        source.decode(raw, decoded);
        buffer.clear();
        source.encode(unit, decoded, buffer);
        outs[u % static_cast<std::size_t>(n)].write(buffer.data(),
                                                    static_cast<std::streamsize>(buffer.size()));
    }
    for (std::size_t i = 0; i < outs.size(); ++i) {
        buffer.clear();
        buffer.writeTrailer();
        outs[i].write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        outs[i].close();
        if (!outs[i]) {
            throw Error(paths[i].string() + ": cannot write the benchmark file (is the disk full?)");
        }
        chmod(paths[i].c_str(), 0644);
        syncToDisk(paths[i]);
    }
    return paths;
}

void dropTables(Connection& conn) {
    // Hypertables drop their chunks and partitioned tables their partitions with them.
    const Result r = conn.query(
        "SELECT quote_ident(c.relname) FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace "
        "AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relname LIKE 'isobar\\_bench\\_%'");
    for (int i = 0; i < r.rows(); ++i) {
        conn.exec("DROP TABLE IF EXISTS " + r.text(i, 0) + " CASCADE");
    }
    // Their ledger and grid records go with them.
    forgetDroppedTables(conn);
    conn.exec(
        "DELETE FROM isobar.table_grid g WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = g.relid)");
}

DroppedAtEnd::~DroppedAtEnd() {
    if (conninfo_.empty()) {
        return;
    }
    try {
        Connection conn = Connection::open(conninfo_);
        dropTables(conn);
    } catch (const std::exception&) {
        // The server is gone: the next bench drops them first.
    }
}

namespace {

// Times `copyOne(connection, file)` run for every file at once, one connection and thread each,
// into a fresh table of the given type, made as a load makes it. A hypertable ends as a load leaves
// it: the copies go into it without its index on time, which is built afterwards, in the time.
double timeConcurrentCopies(const std::string& conninfo, const BenchTableType& type,
                            const TableLayout& layout, const std::vector<std::filesystem::path>& files,
                            const std::string& what,
                            const std::function<void(Connection&, const std::filesystem::path&)>& copyOne) {
    Connection admin = Connection::open(conninfo);
    const TableName table{"", kCeilingTable};
    TableOptions options;
    options.type = type.type;
    bool created = false;
    admin.exec("BEGIN");
    ensureTargetTable(admin, table, layout, options, created);
    // Compressed as a load compresses it, with the settings its automatic choice gives the rows
    // (hourly steps); by direct compress of COPY, or by compress_chunk() after the COPYs.
    std::string compressChunks;
    std::vector<std::string> sessionSettings;
    if (type.compressed) {
        const CompressionHint hint{3600.0, layout.vertical == Vertical::Surface ? 0U : 1U};
        setCompression(admin, table, chooseCompression(admin, table, options, hint, type.direct), true);
        if (type.direct) {
            sessionSettings = directCompressSettings(kDirectCompressSortLimit);
        } else {
            compressChunks = "SELECT count(compress_chunk(c)) FROM show_chunks(" +
                             admin.quoteLiteral(table.quoted(admin)) + "::regclass) c";
        }
    }
    admin.exec("COMMIT");
    admin.exec("CHECKPOINT");
    std::vector<std::unique_ptr<Connection>> conns;
    for (std::size_t i = 0; i < files.size(); ++i) {
        conns.push_back(std::make_unique<Connection>(Connection::open(conninfo)));
        for (const std::string& set : sessionSettings) {
            conns.back()->exec(set);
        }
    }
    std::vector<std::string> errors(files.size());
    const auto t0 = Clock::now();
    {
        std::vector<std::jthread> threads;
        for (std::size_t i = 0; i < files.size(); ++i) {
            threads.emplace_back([&, i] {
                try {
                    copyOne(*conns[i], files[i]);
                } catch (const std::exception& e) {
                    errors[i] = e.what();
                }
            });
        }
    }
    for (const auto& e : errors) {
        if (!e.empty()) {
            throw Error(what + " failed: " + e);
        }
    }
    if (type.type == TableType::Hypertable) {
        buildTimeIndex(admin, table);
    }
    if (!compressChunks.empty()) {
        admin.exec(compressChunks);
    }
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

} // namespace

void warmUp(const std::string& conninfo, Connection& conn, const TableLayout& layout,
            const std::vector<std::filesystem::path>& files,
            const std::function<void(const std::string&)>& progress) {
    progress("  warming up: the server's own COPY of the rows once, untimed");
    (void)timeCeiling(conninfo, BenchTableType{TableType::Regular, false, false}, layout, files);
    dropTables(conn);
}

// (b): the server reads the prepared files itself.
double timeCeiling(const std::string& conninfo, const BenchTableType& type, const TableLayout& layout,
                   const std::vector<std::filesystem::path>& files) {
    return timeConcurrentCopies(conninfo, type, layout, files, "the server-side COPY",
                                [&layout](Connection& conn, const std::filesystem::path& file) {
                                    conn.exec(std::string("COPY ") + kCeilingTable + " " +
                                              weatherColumnList(conn, layout) + " FROM " +
                                              conn.quoteLiteral(file.string()) + " (FORMAT binary)");
                                });
}

namespace {

// (c): a bare client streams the prepared files.
double timeStream(const std::string& conninfo, const BenchTableType& type, const TableLayout& layout,
                  const std::vector<std::filesystem::path>& files) {
    return timeConcurrentCopies(
        conninfo, type, layout, files, "streaming the prepared rows",
        [&layout](Connection& conn, const std::filesystem::path& file) {
            std::ifstream in(file, std::ios::binary);
            CopyStream copy(conn, std::string("COPY ") + kCeilingTable + " " +
                                      weatherColumnList(conn, layout) + " FROM STDIN (FORMAT binary)");
            std::vector<char> chunk(4u << 20);
            while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0) {
                copy.send(std::span<const char>(chunk.data(), static_cast<std::size_t>(in.gcount())));
            }
            copy.finish();
        });
}

LoadRequest benchRequest(const IngestBenchmarkOptions& options, const BenchTableType& type, int workers,
                         const DurabilityRequest& durability) {
    LoadRequest request;
    request.conninfo = options.conninfo;
    request.table = TableName{"", kIsobarTable};
    request.tableOptions.type = type.type;
    request.tableOptions.compressAfter = type.compressed;
    request.tableOptions.compressPath = type.direct ? CompressPath::Direct : CompressPath::AfterLoad;
    request.files = options.files;
    request.open = options.open;
    request.workers = workers;
    request.transport = options.transport;
    request.allMissing = AllMissingPolicy::Load; // the same rows as the files, even all-missing ones
    // The units' own counts: a count(*) afterwards is not part of what the ceiling does.
    request.verification = Verification::Units;
    request.durability = durability;
    return request;
}

// (a) in this process.
IsobarTiming timeIsobarHere(const LoadRequest& request, const std::stop_token& stop) {
    const auto t0 = Clock::now();
    const LoadSummary s = runLoadOrThrow(request, stop);
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    IsobarTiming timing{s.seconds, 0, wall, {}};
    for (const LoadPhases::Phase& p : s.phases.run) {
        if (inCopyPhase(p.name)) {
            timing.copySeconds += p.seconds;
        }
    }
    return timing;
}

// (a) as a user runs it: `isobar-cli load` as a process of its own, timed from start to exit;
// its load phase is read from the run report it writes.
IsobarTiming timeIsobarProcess(const IngestBenchmarkOptions& options, const LoadRequest& request,
                               const std::filesystem::path& reportPath) {
    std::vector<std::string> args{"load",
                                  "--table",
                                  kIsobarTable,
                                  "--workers",
                                  std::to_string(request.workers),
                                  "--table-type",
                                  std::string(tableTypeName(*request.tableOptions.type)),
                                  "--all-missing",
                                  "load",
                                  "--transport",
                                  request.transport == TransportKind::ServerFile ? "file" : "stream",
                                  "--reporting-period",
                                  "0",
                                  "--report",
                                  reportPath.string()};
    if (request.tableOptions.compressAfter) {
        args.push_back("--compress=" + std::string(compressPathName(request.tableOptions.compressPath)));
    }
    args.insert(args.end(), options.programArgs.begin(), options.programArgs.end());
    // The load runs in / (ProcessOptions' default): a file named relative to the bench's own
    // directory is given by its whole path.
    for (const auto& f : options.files) {
        args.push_back(std::filesystem::absolute(f).string());
    }
    ProcessOptions how;
    how.timeout = std::chrono::hours(24);
    const auto t0 = Clock::now();
    const ProcessResult r = runProcess(options.program, args, how);
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!r.ok()) {
        throw Error("the Isobar load (" + options.program.string() + " load) ended with " +
                    r.describeOutcome() + ": " + r.output);
    }
    std::string text;
    try {
        text = readWholeFile(reportPath);
    } catch (const Error& e) {
        throw Error(std::string("the Isobar load left no run report: ") + e.what());
    }
    const JsonValue report = JsonValue::parse(text);
    IsobarTiming timing{report["result"]["seconds"].number(), 0, wall, report};
    for (const JsonValue& p : report["result"]["phases"]["run"].array()) {
        if (inCopyPhase(p["name"].string())) {
            timing.copySeconds += p["seconds"].number();
        }
    }
    return timing;
}

} // namespace

IsobarTiming timeIsobar(const IngestBenchmarkOptions& options, const BenchTableType& type, int workers,
                        const std::stop_token& stop, const std::filesystem::path& reportPath,
                        const DurabilityRequest& durability) {
    {
        Connection admin = Connection::open(options.conninfo);
        admin.exec("CHECKPOINT");
    }
    const LoadRequest request = benchRequest(options, type, workers, durability);
    if (options.program.empty() || durability.any()) {
        return timeIsobarHere(request, stop);
    }
    return timeIsobarProcess(options, request, reportPath);
}

} // namespace bench

using namespace bench;

std::vector<IngestBenchmarkRow> benchmarkIngest(const IngestBenchmarkOptions& options,
                                                const std::function<void(const std::string&)>& progress,
                                                const std::stop_token& stop) {
    Connection conn = Connection::open(options.conninfo);
    checkServerCanReadFiles(conn);
    ensureMetadataSchema(conn);
    dropTables(conn);
    const Dataset dataset = Dataset::open(options.files, options.open);
    const LoadPlan plan = LoadPlan::build(dataset);
    // The same columns as the load into a fresh table: every variable of the files.
    const TableLayout layout{dataset.vertical(), dataset.columns()};
    TempDir dir("isobar-bench", 0711); // the server reads the files by name
    std::vector<IngestBenchmarkRow> results;
    for (int n : options.workers) {
        progress("encoding the rows into " + std::to_string(n) + " file(s) for the server-side COPY");
        const auto files = writeCopyFiles(dataset, plan, n, dir.path(), stop);
        warmUp(options.conninfo, conn, layout, files, progress);
        for (const BenchTableType& type : options.tableTypes) {
            IngestBenchmarkRow row;
            row.tableType = type;
            row.workers = n;
            row.rows = plan.totalRows();
            if (type.type == TableType::Hypertable) {
                std::vector<std::pair<std::string, std::string>> skipped;
                availableBenchTableTypes(conn, &skipped);
                const auto why = std::find_if(skipped.begin(), skipped.end(), [&type](const auto& s) {
                    return s.first == benchTableTypeName(type);
                });
                if (why != skipped.end()) {
                    row.skipped = why->second;
                    progress(why->first + ": not measured: " + why->second);
                    results.push_back(row);
                    continue;
                }
            }
            for (int round = 0; round < options.rounds; ++round) {
                // Rotate the order, so none always runs on the warmer server.
                for (int which = 0; which < 3; ++which) {
                    const int turn = (round + which) % 3; // 0 isobar, 1 server COPY, 2 bare client
                    if (stop.stop_requested()) {
                        throw Cancelled();
                    }
                    std::string said;
                    if (turn == 0) {
                        const IsobarTiming t = timeIsobar(options, type, n, stop, dir.path() / "run.json");
                        row.isobarWall.push_back(t.wallSeconds);
                        row.isobarLoad.push_back(t.loadSeconds);
                        row.isobarCopy.push_back(t.copySeconds);
                        said = "isobar load " + formatDuration(t.wallSeconds) + " (load phase " +
                               formatDuration(t.loadSeconds) + ", COPY phase " +
                               formatDuration(t.copySeconds) + ")";
                    } else if (turn == 1) {
                        row.ceiling.push_back(timeCeiling(options.conninfo, type, layout, files));
                        said = "server COPY " + formatDuration(row.ceiling.back());
                    } else {
                        row.stream.push_back(timeStream(options.conninfo, type, layout, files));
                        said = "bare client COPY " + formatDuration(row.stream.back());
                    }
                    progress(benchTableTypeName(type) + ", " + std::to_string(n) + " stream(s), round " +
                             std::to_string(round + 1) + ": " + said);
                    dropTables(conn);
                }
            }
            results.push_back(row);
        }
        for (const auto& f : files) {
            std::error_code ec;
            std::filesystem::remove(f, ec);
        }
    }
    return results;
}

std::vector<DurabilityBenchmarkRow>
benchmarkDurability(const IngestBenchmarkOptions& options,
                    const std::function<void(const std::string&)>& progress, const std::stop_token& stop) {
    Connection conn = Connection::open(options.conninfo);
    ensureMetadataSchema(conn);
    dropTables(conn);
    const Dataset dataset = Dataset::open(options.files, options.open);
    const std::uint64_t rows = LoadPlan::build(dataset).totalRows();
    DurabilityRequest safe = *DurabilityRequest::preset("safe");
    DurabilityRequest fast = *DurabilityRequest::preset("fast");
    fast.consent = true;
    std::vector<DurabilityBenchmarkRow> results;
    for (int n : options.workers) {
        for (const BenchTableType& type : options.tableTypes) {
            DurabilityBenchmarkRow row;
            row.tableType = type.type;
            row.workers = n;
            row.rows = rows;
            for (int round = 0; round < options.rounds; ++round) {
                for (int which = 0; which < 2; ++which) {
                    const bool isFast = (round + which) % 2 == 1; // alternate which goes first
                    if (stop.stop_requested()) {
                        throw Cancelled();
                    }
                    const IsobarTiming t = timeIsobar(options, type, n, stop, {}, isFast ? fast : safe);
                    const auto keep = [](double& best, double s) {
                        best = best == 0 ? s : std::min(best, s);
                    };
                    keep(isFast ? row.fastSeconds : row.safeSeconds, t.loadSeconds);
                    keep(isFast ? row.fastWallSeconds : row.safeWallSeconds, t.wallSeconds);
                    progress(benchTableTypeName(type) + ", " + std::to_string(n) + " worker(s), round " +
                             std::to_string(round + 1) + ": " + (isFast ? "fast " : "safe ") +
                             formatDuration(t.loadSeconds) + " (" + formatDuration(t.wallSeconds) +
                             " with the server check" + (isFast ? ", applying and restoring)" : ")"));
                    dropTables(conn);
                }
            }
            results.push_back(row);
        }
    }
    return results;
}

std::string formatDurabilityBenchmark(const std::vector<DurabilityBenchmarkRow>& rows) {
    std::string out =
        "table type   workers       rows   safe rows/s   fast rows/s  fast/safe   until durable: safe  "
        "     fast  fast/safe\n";
    for (const auto& r : rows) {
        const auto rate = [&r](double s) {
            return s > 0 ? static_cast<double>(r.rows) / s : 0.0;
        };
        char line[200];
        std::snprintf(line, sizeof line, "%-11s %8d %10llu %13.0f %13.0f %10.2f %20.0f %10.0f %10.2f\n",
                      std::string(tableTypeName(r.tableType)).c_str(), r.workers,
                      static_cast<unsigned long long>(r.rows), rate(r.safeSeconds), rate(r.fastSeconds),
                      r.safeSeconds > 0 && r.fastSeconds > 0 ? r.safeSeconds / r.fastSeconds : 0.0,
                      rate(r.safeWallSeconds), rate(r.fastWallSeconds),
                      r.safeWallSeconds > 0 && r.fastWallSeconds > 0 ? r.safeWallSeconds / r.fastWallSeconds
                                                                     : 0.0);
        out += line;
    }
    out += "best round of each. safe: fsync, full_page_writes, synchronous_commit on; fast: all three off "
           "for the run.\n"
           "rows/s of the load itself; 'until durable' adds checking the server and, for fast, applying the "
           "settings,\n"
           "restoring them, sync on the server and the CHECKPOINT that makes the rows durable.\n";
    return out;
}

double median(std::vector<double> values) {
    if (values.empty()) {
        return 0;
    }
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

double IngestBenchmarkRow::rate(const std::vector<double>& seconds) const {
    const double s = median(seconds);
    return s > 0 ? static_cast<double>(rows) / s : 0;
}

std::string IngestBenchmarkRow::byRound() const {
    // x over y as rates: y's seconds over x's, round by round.
    const auto line = [](const char* name, const std::vector<double>& x, const std::vector<double>& y) {
        std::vector<double> ratios;
        std::string out = std::string(name) + " by round";
        char number[32];
        for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
            if (x[i] > 0) {
                ratios.push_back(y[i] / x[i]);
                std::snprintf(number, sizeof number, " %.2f", ratios.back());
                out += number;
            }
        }
        std::snprintf(number, sizeof number, " (median %.2f)", median(ratios));
        return out + number;
    };
    return line("a/b", isobarWall, ceiling) + "; " + line("a''/c", isobarCopy, stream);
}

std::string formatIngestBenchmark(const std::vector<IngestBenchmarkRow>& rows) {
    std::string out =
        "table type             streams       rows   (a) isobar  (a') load phase  (a'') COPY phase  "
        "(b) server COPY  (c) bare client    a/b   a'/b    c/b  a''/c\n";
    for (const auto& r : rows) {
        if (!r.skipped.empty()) {
            char head[64];
            std::snprintf(head, sizeof head, "%-21s %8d", benchTableTypeName(r.tableType).c_str(), r.workers);
            out += std::string(head) + "  not measured: " + r.skipped + "\n";
            continue;
        }
        const double a = r.rate(r.isobarWall);
        const double load = r.rate(r.isobarLoad);
        const double copy = r.rate(r.isobarCopy);
        const double b = r.rate(r.ceiling);
        const double c = r.rate(r.stream);
        const auto ratio = [](double x, double y) {
            return y > 0 ? x / y : 0.0;
        };
        char line[240];
        std::snprintf(line, sizeof line,
                      "%-21s %8d %10llu %12.0f %16.0f %17.0f %16.0f %16.0f %6.2f %6.2f %6.2f %6.2f\n",
                      benchTableTypeName(r.tableType).c_str(), r.workers,
                      static_cast<unsigned long long>(r.rows), a, load, copy, b, c, ratio(a, b),
                      ratio(load, b), ratio(c, b), ratio(copy, c));
        out += line;
    }
    for (const auto& r : rows) {
        if (r.skipped.empty()) {
            out += benchTableTypeName(r.tableType) + ", " + std::to_string(r.workers) +
                   " stream(s): " + r.byRound() + "\n";
        }
    }
    out +=
        "rows/s of the median round. (a) isobar-cli load of the files, the whole process from start to "
        "exit as /usr/bin/time\n"
        "sees it; (a') its load phase (checking the server, preparing the table, COPY, commits, finishing "
        "the table);\n"
        "(a'') its COPY phase, from the workers' start to the table ready (a hypertable's index built);\n"
        "(b) server-side COPY FROM file of the same rows; (c) the same rows streamed by a bare libpq client, "
        "its connections\n"
        "open and its table made before its clock starts, as (b)'s: c/b is what streaming the rows from a "
        "client costs here\n"
        "(the protocol, and on a small machine the client's share of its cores), a''/c what Isobar's "
        "pipeline costs beside a bare client.\n";
    return out;
}

} // namespace isobar
