// SPDX-License-Identifier: GPL-3.0-or-later

// bench methods: the published loading comparison, each method over libpq into a fresh table.

#include "bench/BenchmarkStages.h"
#include "bench/WireRows.h"
#include "db/Compression.h"
#include "db/CopyStream.h"
#include "db/Durability.h"
#include "db/ServerProbe.h"
#include "db/TableMetadata.h"
#include "db/TableType.h"
#include "db/WeatherSchema.h"
#include "rows/UnitSource.h"
#include "util/Error.h"
#include "util/Format.h"

#include <fstream>
#include <map>
#include <mutex>
#include <numeric>
#include <sys/stat.h>
#include <tuple>

namespace isobar {

namespace {

constexpr const char* kMethodsTable = "isobar_bench_method";
// A COPY FROM STDIN is handed to libpq in pieces of about this size.
constexpr std::size_t kSendBytes = 1u << 20;

} // namespace

namespace {

using namespace bench;

// One timed run of a method.
struct MethodRun {
    double seconds = 0;
    double withWriting = 0; // copy-csv-file: writing the CSV and the COPY
    double cpu = 0;
    double cpuWithWriting = 0; // copy-csv-file
    double wal = 0;
    std::uint64_t rows = 0;
};

// The rows of the bench, handed to the workers unit by unit: unit i to worker i % n. netcdf-c is
// not thread-safe, so fetches take turns; decoding and encoding run on each worker's thread.
class SharedRows {
public:
    SharedRows(const Dataset& dataset, const LoadPlan& plan)
        : source_(dataset)
        , plan_(plan)
        , locationField_(dataset.vertical() == Vertical::PressureLevels ? 2 : 1) {}

    // Calls fn(row) for every row of worker w's units, until fn returns false.
    template <typename F>
    void forEachRow(int w, int n, const std::stop_token& stop, F&& fn) const {
        RawUnit raw;
        DecodedBand decoded;
        BinaryCopyBuffer wire;
        bool more = true;
        for (std::size_t u = static_cast<std::size_t>(w); more && u < plan_.units().size();
             u += static_cast<std::size_t>(n)) {
            if (stop.stop_requested()) {
                throw Cancelled();
            }
            {
                const std::lock_guard lock(fetching_);
                source_.fetch(plan_.units()[u], raw);
            }
            source_.decode(raw, decoded);
            wire.clear();
            source_.encode(plan_.units()[u], decoded, wire);
            forEachWireRow(wire.bytes(), locationField_, [&](const TextRow& row) {
                more = fn(row);
                return more;
            });
        }
    }

private:
    UnitSource source_;
    const LoadPlan& plan_;
    std::size_t locationField_;
    mutable std::mutex fetching_;
};

struct Cell {
    std::string method;
    BenchTableType type;
    int workers = 1;
    std::string durability;
    std::vector<MethodRun> runs;
    std::string skipped;
};

class MethodsRunner {
public:
    MethodsRunner(const MethodsBenchmarkOptions& o, const Dataset& dataset, const LoadPlan& plan,
                  const PreparedData& data, const std::filesystem::path& dir, const std::stop_token& stop)
        : o_(o)
        , dataset_(dataset)
        , plan_(plan)
        , data_(data)
        , dir_(dir)
        , stop_(stop)
        , layout_{dataset.vertical(), dataset.columns()}
        , times_(dataset.validTimes())
        , rows_(dataset, plan) {}

    MethodRun run(LoadMethod m, const BenchTableType& type, int n, bool fast) {
        Connection admin = Connection::open(o_.conninfo);
        dropTables(admin);
        std::vector<std::string> sessionSettings;
        if (m != LoadMethod::CopyBinary) {
            createBenchTable(admin, kMethodsTable, type.type, layout_, times_);
            if (type.direct) {
                // Compressed as the engine's --compress=direct compresses: its settings, its sessions'.
                const TableName table{"", kMethodsTable};
                TableOptions options;
                options.compressAfter = true;
                options.compressPath = CompressPath::Direct;
                sessionSettings =
                    startCompression(admin, table, options, CompressionHint{3600.0, 0}).sessionSettings;
            }
        }
        if (m == LoadMethod::ServerLimit && !copyFiles_.contains(n)) {
            copyFiles_[n] = writeCopyFiles(dataset_, plan_, n, dir_, stop_);
        }
        admin.exec("CHECKPOINT");
        std::optional<DurabilitySession> session;
        DurabilityRequest durability = *DurabilityRequest::preset(fast ? "fast" : "safe");
        durability.consent = o_.consent;
        // Applied before the clock starts and restored after it stops, for every method alike (the
        // engine's own connections get synchronous_commit as its request says).
        if (fast) {
            session.emplace(o_.conninfo, durability, [](const std::string&) {});
        }
        DurabilityRequest engineDurability;
        if (fast) {
            engineDurability.synchronousCommit = session->synchronousCommit();
            engineDurability.consent = o_.consent;
        }
        std::vector<Connection> conns;
        if (m != LoadMethod::CopyBinary) {
            for (int i = 0; i < n; ++i) {
                conns.push_back(Connection::open(o_.conninfo));
                for (const std::string& set : sessionSettings) {
                    conns.back().exec(set);
                }
                if (session && !session->synchronousCommit().empty()) {
                    conns.back().exec("SET synchronous_commit = " + session->synchronousCommit());
                }
            }
        }
        const std::string wal0 = walPosition(admin);
        const double cpu0 = processCpuSeconds();
        const auto t0 = Clock::now();
        MethodRun r;
        switch (m) {
        case LoadMethod::Insert:
            r.rows = insertRows(conns);
            break;
        case LoadMethod::MultiInsert:
            r.rows = multiInsert(conns);
            break;
        case LoadMethod::CopyText:
            r.rows = copyText(conns);
            break;
        case LoadMethod::CopyCsvFile:
            r.rows = copyCsvFile(conns);
            break;
        case LoadMethod::CopyBinary: {
            // Timed as the other methods are: from reading the first row to the finished table; its
            // own start (opening the files, checking the server, making the table) is left out.
            const EngineLoad load =
                loadWithEngine(o_.conninfo, data_, kMethodsTable, type, n, engineDurability, stop_);
            r.rows = load.rows;
            engineSetupSeconds_ = load.seconds - load.copySeconds;
            break;
        }
        case LoadMethod::ServerLimit:
            r.rows = copyFromFiles(conns, copyFiles_[n], "binary");
            break;
        }
        if (type.type == TableType::Hypertable && m != LoadMethod::CopyBinary) {
            // The engine builds the index on time after its load; so do the others, in their time.
            buildTimeIndex(admin, TableName{"", kMethodsTable});
        }
        r.seconds = secondsSince(t0);
        r.cpu = processCpuSeconds() - cpu0;
        if (m == LoadMethod::CopyBinary) {
            r.seconds -= engineSetupSeconds_;
        }
        if (m == LoadMethod::CopyCsvFile) {
            r.withWriting = r.seconds;
            r.seconds -= csvWritingSeconds_;
            r.cpuWithWriting = r.cpu;
            r.cpu -= csvWritingCpu_;
            removeCsvFiles();
        }
        r.wal = walBytesSince(admin, wal0);
        if (session) {
            if (const DurabilityOutcome out = session->restore(); !out.problem.empty()) {
                throw Error("restoring the durability settings: " + out.problem);
            }
        }
        const std::uint64_t counted = countRows(admin, kMethodsTable);
        if (counted != r.rows) {
            throw Error(std::string(loadMethodName(m)) + ": the table holds " + std::to_string(counted) +
                        " rows after sending " + std::to_string(r.rows));
        }
        dropTables(admin);
        return r;
    }

private:
    std::string columns(Connection& c) const { return weatherColumnList(c, layout_); }

    // Runs fn(w, its connection) on every connection at once; the rows they report, summed.
    std::uint64_t eachWorker(std::vector<Connection>& conns, const std::string& what,
                             const std::function<std::uint64_t(int, Connection&)>& fn) {
        std::vector<std::uint64_t> rows(conns.size(), 0);
        runParallel(static_cast<int>(conns.size()), what, [&](int w) {
            rows[static_cast<std::size_t>(w)] = fn(w, conns[static_cast<std::size_t>(w)]);
        });
        if (stop_.stop_requested()) {
            throw Cancelled();
        }
        return std::accumulate(rows.begin(), rows.end(), std::uint64_t{0});
    }

    std::uint64_t insertRows(std::vector<Connection>& conns) {
        const int n = static_cast<int>(conns.size());
        const std::uint64_t each = std::max<std::uint64_t>(1, o_.insertRows / conns.size());
        return eachWorker(conns, "insert", [&](int w, Connection& c) {
            const std::size_t fields = weatherColumns(layout_).size();
            std::string sql = "INSERT INTO " + std::string(kMethodsTable) + " " + columns(c) + " VALUES (";
            for (std::size_t f = 0; f < fields; ++f) {
                sql += (f > 0 ? ", $" : "$") + std::to_string(f + 1);
            }
            sql += ")";
            c.exec("BEGIN");
            c.prepare("row", sql, static_cast<int>(fields));
            std::vector<const char*> params(fields);
            std::uint64_t sent = 0;
            rows_.forEachRow(w, n, stop_, [&](const TextRow& row) {
                for (std::size_t f = 0; f < fields; ++f) {
                    params[f] = row.nulls[f] ? nullptr : row.fields[f].c_str();
                }
                c.runPrepared("row", params);
                return ++sent < each && !stop_.stop_requested();
            });
            c.exec("COMMIT");
            return sent;
        });
    }

    std::uint64_t multiInsert(std::vector<Connection>& conns) {
        const int n = static_cast<int>(conns.size());
        return eachWorker(conns, "multi-insert", [&](int w, Connection& c) {
            const std::string head =
                "INSERT INTO " + std::string(kMethodsTable) + " " + columns(c) + " VALUES ";
            std::string sql = head;
            std::uint64_t inBatch = 0;
            std::uint64_t sent = 0;
            const auto flush = [&] {
                c.exec(sql);
                sent += inBatch;
                sql = head;
                inBatch = 0;
            };
            c.exec("BEGIN");
            rows_.forEachRow(w, n, stop_, [&](const TextRow& row) {
                if (inBatch > 0) {
                    sql += ", ";
                }
                appendSqlTuple(row, sql);
                if (++inBatch == o_.batchRows) {
                    flush();
                }
                return true;
            });
            if (inBatch > 0) {
                flush();
            }
            c.exec("COMMIT");
            return sent;
        });
    }

    // Worker w's rows, formatted by `append`, handed to `take` in pieces of about kSendBytes.
    void formatted(int w, int n, void (*append)(const TextRow&, std::string&),
                   const std::function<void(const std::string&)>& take) {
        std::string out;
        out.reserve(kSendBytes + 4096);
        rows_.forEachRow(w, n, stop_, [&](const TextRow& row) {
            append(row, out);
            if (out.size() >= kSendBytes) {
                take(out);
                out.clear();
            }
            return true;
        });
        take(out);
    }

    std::uint64_t copyText(std::vector<Connection>& conns) {
        const int n = static_cast<int>(conns.size());
        return eachWorker(conns, "copy-text", [&](int w, Connection& c) {
            CopyStream copy(c, "COPY " + std::string(kMethodsTable) + " " + columns(c) + " FROM STDIN");
            formatted(w, n, appendCopyText, [&copy](const std::string& piece) { copy.send(piece); });
            return copy.finish();
        });
    }

    // Writes each worker's rows into a CSV file (its time kept in csvWritingSeconds_), then the
    // server reads them all at once.
    std::uint64_t copyCsvFile(std::vector<Connection>& conns) {
        const int n = static_cast<int>(conns.size());
        std::vector<std::filesystem::path> files;
        files.reserve(static_cast<std::size_t>(n));
        for (int w = 0; w < n; ++w) {
            files.push_back(dir_ / ("rows-" + std::to_string(w) + ".csv"));
        }
        const auto t0 = Clock::now();
        const double cpu0 = processCpuSeconds();
        runParallel(n, "writing the CSV files", [&](int w) {
            const auto& path = files[static_cast<std::size_t>(w)];
            std::ofstream file(path, std::ios::binary | std::ios::trunc);
            formatted(w, n, appendCsv, [&file](const std::string& piece) {
                file.write(piece.data(), static_cast<std::streamsize>(piece.size()));
            });
            file.close();
            if (!file) {
                throw Error(path.string() + ": cannot write the CSV file (is the disk full?)");
            }
            ::chmod(path.c_str(), 0644); // the server reads it
        });
        csvWritingSeconds_ = secondsSince(t0);
        csvWritingCpu_ = processCpuSeconds() - cpu0;
        csvFiles_ = files;
        return copyFromFiles(conns, files, "csv");
    }

    void removeCsvFiles() {
        for (const auto& f : csvFiles_) {
            std::error_code ec;
            std::filesystem::remove(f, ec);
        }
        csvFiles_.clear();
    }

    // The server reads file w on connection w, all at once.
    std::uint64_t copyFromFiles(std::vector<Connection>& conns,
                                const std::vector<std::filesystem::path>& files, const std::string& format) {
        return eachWorker(conns, "the server-side COPY", [&](int w, Connection& c) {
            const Result res = c.query("COPY " + std::string(kMethodsTable) + " " + columns(c) + " FROM " +
                                       c.quoteLiteral(files[static_cast<std::size_t>(w)].string()) +
                                       " (FORMAT " + format + ")");
            return res.affectedRows();
        });
    }

    const MethodsBenchmarkOptions& o_;
    const Dataset& dataset_;
    const LoadPlan& plan_;
    const PreparedData& data_;
    std::filesystem::path dir_;
    std::stop_token stop_;
    TableLayout layout_;
    std::vector<PgTimestamp> times_;
    SharedRows rows_;
    std::map<int, std::vector<std::filesystem::path>> copyFiles_;
    double csvWritingSeconds_ = 0; // of the copy-csv-file run under way
    double csvWritingCpu_ = 0;
    std::vector<std::filesystem::path> csvFiles_; // removed once the run is timed
    double engineSetupSeconds_ = 0;               // of the copy-binary run under way
};

void validate(const MethodsBenchmarkOptions& o) {
    for (const auto& [empty, what] : {std::pair{o.methods.empty(), "method"},
                                      {o.tableTypes.empty(), "table type"},
                                      {o.workers.empty(), "worker count"},
                                      {o.durability.empty(), "durability"}}) {
        if (empty) {
            throw Error(std::string("bench methods needs at least one ") + what);
        }
    }
    for (const auto& d : o.durability) {
        if (d != "safe" && d != "fast") {
            throw Error("durability '" + d + "' is not understood (safe or fast)");
        }
        if (d == "fast" && !o.consent) {
            throw Error("the fast runs turn fsync and full_page_writes off server-wide for their duration: "
                        "they need consent (--yes)");
        }
    }
    if (o.rounds < 1 || o.insertRows < 1 || o.batchRows < 1) {
        throw Error("rounds, the INSERT sample and the batch size must be at least 1");
    }
}

std::string cellMethodName(LoadMethod m) {
    return std::string(loadMethodName(m));
}

} // namespace

BenchReport benchmarkMethods(const MethodsBenchmarkOptions& o, const BenchProgress& progress,
                             const std::stop_token& stop) {
    validate(o);
    BenchFrame frame(o.conninfo, "methods");
    std::vector<Cell> cells;
    std::uint64_t allRows = 0;
    std::string dataDescription;
    frame.measure([&] {
        TempDir dir("isobar-bench", 0711); // the server reads the CSV and binary files by name
        const PreparedData data = prepareData(o.data, dir.path(), "methods", progress, stop);
        dataDescription = data.description;
        const Dataset dataset = Dataset::open(data.files, data.open);
        const LoadPlan plan = LoadPlan::build(dataset);
        allRows = plan.totalRows();
        const ServerFileAccess access = probeServerFileAccess(frame.conn);
        const std::string noServerFiles =
            !access.onThisMachine ? "the server runs on another machine: it cannot read this machine's files"
            : !access.mayReadFiles
                ? "the role may not read server files (superuser, or GRANT pg_read_server_files)"
                : "";
        MethodsRunner runner(o, dataset, plan, data, dir.path(), stop);
        const std::size_t total = o.durability.size() * o.tableTypes.size() * o.workers.size() *
                                  o.methods.size() * static_cast<std::size_t>(o.rounds);
        std::size_t done = 0;
        for (const auto& d : o.durability) {
            for (const BenchTableType& type : o.tableTypes) {
                for (int n : o.workers) {
                    std::vector<std::size_t> group; // the cells of this group, in o.methods' order
                    for (LoadMethod m : o.methods) {
                        Cell c{cellMethodName(m), type, n, d, {}, {}};
                        c.skipped = frame.whyNot(type);
                        if (c.skipped.empty() && type.direct &&
                            (m == LoadMethod::Insert || m == LoadMethod::MultiInsert)) {
                            c.skipped =
                                "direct compress is of COPY (INSERT has an experimental one of its own, "
                                "timescaledb.enable_direct_compress_insert, not measured)";
                        }
                        if (c.skipped.empty() &&
                            (m == LoadMethod::CopyCsvFile || m == LoadMethod::ServerLimit) &&
                            !noServerFiles.empty()) {
                            c.skipped = noServerFiles;
                        }
                        group.push_back(cells.size());
                        cells.push_back(c);
                    }
                    for (int round = 0; round < o.rounds; ++round) {
                        // Rotate the order, so no method always runs on the warmer server.
                        for (std::size_t k = 0; k < o.methods.size(); ++k) {
                            const std::size_t i = (k + static_cast<std::size_t>(round)) % o.methods.size();
                            Cell& c = cells[group[i]];
                            ++done;
                            if (!c.skipped.empty()) {
                                continue;
                            }
                            if (stop.stop_requested()) {
                                throw Cancelled();
                            }
                            progress(c.method + ", " + benchTableTypeName(type) + ", " + std::to_string(n) +
                                         " worker(s), " + d + ", round " + std::to_string(round + 1),
                                     static_cast<double>(done - 1) / static_cast<double>(total));
                            c.runs.push_back(runner.run(o.methods[i], type, n, d == "fast"));
                        }
                    }
                }
            }
        }
        progress("done", 1);
    });

    BenchTable table{"methods", "Loading methods", {}, {}, {}};
    table.columns = {{"method", "method", ""},
                     {"table_type", "table type", ""},
                     {"workers", "workers", "int"},
                     {"durability", "durability", ""},
                     {"rows", "rows", "int"},
                     {"seconds", "seconds", "seconds"},
                     {"rows_per_s", "rows/s", "rate"},
                     {"vs_server_limit", "/ server-limit", "ratio"},
                     {"client_cpu_s", "client CPU", "seconds"},
                     {"wal_bytes", "WAL written", "bytes"},
                     {"rounds", "rounds", "int"},
                     {"note", "note", ""}};
    // The ceiling's rate of each group, for the ratios.
    std::map<std::tuple<std::string, int, std::string>, double> ceiling;
    const auto medianOf = [](const std::vector<MethodRun>& runs, auto field) {
        std::vector<double> v;
        v.reserve(runs.size());
        for (const auto& r : runs) {
            v.push_back(field(r));
        }
        return median(v);
    };
    const auto rateOf = [&](const std::vector<MethodRun>& runs, bool writing) {
        const double s =
            medianOf(runs, [writing](const MethodRun& r) { return writing ? r.withWriting : r.seconds; });
        return s > 0 ? static_cast<double>(runs.front().rows) / s : 0.0;
    };
    for (const auto& c : cells) {
        if (c.method == "server-limit" && !c.runs.empty()) {
            ceiling[{c.durability, c.workers, benchTableTypeName(c.type)}] = rateOf(c.runs, false);
        }
    }
    BenchPlot plot;
    plot.kind = BenchPlot::Kind::Lines;
    plot.title = "Rows per second against workers";
    plot.xLabel = "workers";
    plot.yLabel = "rows/s";
    plot.yFormat = "rate";
    for (int n : o.workers) {
        plot.categories.push_back(std::to_string(n));
    }
    std::map<std::string, std::size_t> seriesOf;
    const auto addRow = [&](const Cell& c, const std::string& method, bool writing, const std::string& note) {
        std::vector<BenchValue> row{method, benchTableTypeName(c.type), double(c.workers), c.durability};
        if (c.runs.empty()) {
            row.insert(row.end(),
                       {std::monostate{}, std::monostate{}, std::monostate{}, std::monostate{},
                        std::monostate{}, std::monostate{}, 0.0,
                        c.skipped.empty() ? std::string("not measured") : "not measured: " + c.skipped});
            table.rows.push_back(row);
            return;
        }
        const double rate = rateOf(c.runs, writing);
        const auto limit = ceiling.find({c.durability, c.workers, benchTableTypeName(c.type)});
        row.insert(
            row.end(),
            {double(c.runs.front().rows),
             medianOf(c.runs, [writing](const MethodRun& r) { return writing ? r.withWriting : r.seconds; }),
             rate,
             limit != ceiling.end() && limit->second > 0 ? BenchValue(rate / limit->second) : BenchValue{},
             medianOf(c.runs, [writing](const MethodRun& r) { return writing ? r.cpuWithWriting : r.cpu; }),
             medianOf(c.runs, [](const MethodRun& r) { return r.wal; }), double(c.runs.size()), note});
        table.rows.push_back(row);
        const std::string name = method + " (" + benchTableTypeName(c.type) + ", " + c.durability + ")";
        if (!seriesOf.contains(name)) {
            seriesOf[name] = plot.series.size();
            plot.series.push_back({name, std::vector<std::optional<double>>(plot.categories.size())});
        }
        for (std::size_t k = 0; k < o.workers.size(); ++k) {
            if (o.workers[k] == c.workers) {
                plot.series[seriesOf[name]].values[k] = rate;
            }
        }
    };
    for (const auto& c : cells) {
        if (c.method == "insert") {
            addRow(c, c.method, false,
                   c.runs.empty() ? ""
                                  : "a sample of " + formatThousands(c.runs.front().rows) + " of the " +
                                        formatThousands(allRows) + " rows (" +
                                        (c.workers == 1 ? std::string("the first ones")
                                                        : "the first of each worker's share") +
                                        ")");
        } else if (c.method == "copy-csv-file") {
            addRow(c, c.method, false, "the server's COPY of the CSV files only");
            if (!c.runs.empty()) {
                addRow(c, "copy-csv-file+write", true, "writing the CSV files, then the COPY");
            }
        } else if (c.method == "multi-insert") {
            addRow(c, c.method, false, std::to_string(o.batchRows) + " rows per INSERT");
        } else {
            addRow(c, c.method, false,
                   c.method == "server-limit" ? "the ceiling: the server reads the rows from files" : "");
        }
    }
    table.notes = {
        "Rows: " + dataDescription + ", " + formatThousands(allRows) +
            " rows; every method into a fresh table after a CHECKPOINT, counted by count(*) afterwards.",
        "The median of the rounds; methods rotate which goes first in each round. Each client method reads "
        "and "
        "decodes the files itself, as Isobar's engine (copy-binary) does; server-limit reads rows encoded "
        "beforehand.",
        "insert: one parameterized INSERT per row in one transaction; multi-insert: INSERT ... VALUES of "
        "many rows; "
        "copy-text: COPY FROM STDIN in text format; copy-csv-file: a CSV file per worker, then COPY FROM it "
        "on "
        "the server; copy-binary: Isobar's load; server-limit: server-side binary COPY FROM files.",
        "client CPU: this process (every thread); WAL written: pg_current_wal_insert_lsn() before and after. "
        "fast: fsync, full_page_writes and synchronous_commit off for the run, restored after each."};
    frame.report.tables.push_back(std::move(table));
    if (!plot.series.empty()) {
        frame.report.plots.push_back(std::move(plot));
    }
    return frame.finish();
}

} // namespace isobar
