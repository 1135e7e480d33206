// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/Compression.h"

#include "db/Ledger.h"
#include "db/TableMetadata.h"
#include "util/Error.h"
#include "util/Format.h"
#include "util/Text.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <sstream>
#include <thread>

namespace isobar {

namespace {

// TimescaleDB 2.<this> and later compress rows as COPY receives them.
constexpr int kDirectCompressMinor = 21;

constexpr const char* kHypertableOf =
    "format('%I.%I', hypertable_schema, hypertable_name)::regclass = $1::regclass";

std::vector<std::string> splitList(const std::string& list) {
    std::vector<std::string> out;
    std::stringstream in(list);
    std::string item;
    while (std::getline(in, item, ',')) {
        out.push_back(trim(item));
    }
    return out;
}

std::string lowered(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

// "1 day" for 86400 s, "7 days", "1 month" (30 days or more), else hours.
std::string describeInterval(double seconds) {
    constexpr double kDay = 86'400;
    if (seconds >= 28 * kDay) {
        const double months = std::round(seconds / (30.4 * kDay));
        return fmt::format("{:.0f} month{}", months, months == 1 ? "" : "s");
    }
    if (seconds >= kDay) {
        const double days = std::round(seconds / kDay);
        return fmt::format("{:.0f} day{}", days, days == 1 ? "" : "s");
    }
    const double hours = std::round(seconds / 3600);
    return fmt::format("{:.0f} hour{}", hours, hours == 1 ? "" : "s");
}

CompressionChoice automaticChoice(Connection& conn, const TableName& table, const CompressionHint& hint,
                                  bool direct) {
    const Result interval = conn.query(std::string("SELECT extract(epoch FROM time_interval)::float8 FROM "
                                                   "timescaledb_information.dimensions WHERE ") +
                                           kHypertableOf + " AND dimension_number = 1",
                                       {table.quoted(conn)});
    const std::string levels = hint.levels > 0 ? "pressure_level, " : "";
    CompressionChoice c;
    if (interval.rows() == 0 || interval.isNull(0, 0)) {
        c.orderBy = "location_id, " + levels + "time";
        c.why = "not segmented (the chunks are not by time intervals), ordered by location_id, " + levels +
                "time";
        return c;
    }
    const double chunkSeconds = std::stod(interval.text(0, 0));
    // A single time gives no step: ERA5's is an hour.
    const double step = hint.stepSeconds.value_or(3600.0);
    const double rows = std::floor(chunkSeconds / std::max(1.0, step)) *
                        static_cast<double>(std::max<std::size_t>(1, hint.levels));
    const std::string holds = fmt::format("a chunk of {} holds up to {:.0f} rows of each location",
                                          describeInterval(chunkSeconds), rows);
    if (direct) {
        // A COPY of time-major rows holds a location's rows of one or a few times: segmented by
        // location_id, each would be a batch of its own (a trap measured at ~30k rows/s).
        c.orderBy = "location_id, " + levels + "time";
        c.why = "not segmented, ordered by " + c.orderBy +
                ": the rows reach the server a time of the grid after another, so a segment by location_id "
                "would hold a row or two of each COPY (" +
                holds + ")";
        return c;
    }
    if (rows >= kMinSegmentRows) {
        c.segmentBy = "location_id";
        c.orderBy = levels + "time";
        c.why = "segmented by location_id, ordered by " + c.orderBy + ": " + holds;
    } else {
        c.orderBy = "location_id, " + levels + "time";
        c.why = "not segmented, ordered by " + c.orderBy + ": " + holds +
                fmt::format(", fewer than fill a compressed batch ({:.0f}): segmenting by location_id would "
                            "make the chunks bigger",
                            kMinSegmentRows);
    }
    return c;
}

struct Chunk {
    std::string name;
    std::int64_t bytes = 0;
};

std::vector<Chunk> chunksToCompress(Connection& conn, const TableName& table) {
    // Uncompressed, or compressed with rows inserted since (status bit 8: "partial"), which
    // compress_chunk() recompresses.
    const Result r = conn.query(
        "SELECT format('%I.%I', chunk_schema, chunk_name), pg_total_relation_size(format('%I.%I', "
        "chunk_schema, "
        "chunk_name)::regclass) FROM timescaledb_information.chunks ch WHERE " +
            std::string(kHypertableOf) +
            " AND (NOT is_compressed OR EXISTS (SELECT 1 FROM _timescaledb_catalog.chunk c WHERE "
            "c.schema_name = "
            "ch.chunk_schema AND c.table_name = ch.chunk_name AND c.status & 8 = 8)) ORDER BY range_start",
        {table.quoted(conn)});
    std::vector<Chunk> chunks;
    chunks.reserve(static_cast<std::size_t>(r.rows()));
    for (int i = 0; i < r.rows(); ++i) {
        chunks.push_back(Chunk{r.text(i, 0), r.integer(i, 1)});
    }
    return chunks;
}

std::int64_t hypertableBytes(Connection& conn, const TableName& table) {
    const Result r = conn.query("SELECT hypertable_size($1::regclass)", {table.quoted(conn)});
    return r.isNull(0, 0) ? -1 : r.integer(0, 0);
}

// Compresses `chunks` on up to run.parallel connections of their own; returns how many were done.
std::size_t compressChunks(const std::vector<Chunk>& chunks, const CompressionRun& run) {
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> done{0};
    std::mutex m;
    std::optional<DbError> failure;
    std::atomic<bool> failed{false};
    const auto work = [&] {
        try {
            Connection conn = Connection::open(run.conninfo);
            conn.exec("SET application_name = 'isobar compress'");
            for (std::size_t i = next++; i < chunks.size(); i = next++) {
                if (run.stop.stop_requested() || failed) {
                    return;
                }
                const Chunk& chunk = chunks[i];
                conn.query("SELECT compress_chunk($1::regclass, if_not_compressed => true)", {chunk.name});
                // The chunk and its compressed rows as they are now (chunk_compression_stats keeps
                // the first compression's figures when a chunk is compressed again).
                const Result after = conn.query(
                    "SELECT pg_total_relation_size(c.oid) + coalesce((SELECT "
                    "pg_total_relation_size(format('%I.%I', "
                    "cc.schema_name, cc.table_name)::regclass) FROM _timescaledb_catalog.chunk ch JOIN "
                    "_timescaledb_catalog.chunk cc ON cc.id = ch.compressed_chunk_id WHERE format('%I.%I', "
                    "ch.schema_name, ch.table_name) = $1), 0) FROM pg_class c WHERE c.oid = $1::regclass",
                    {chunk.name});
                const std::size_t n = ++done;
                const std::string size =
                    after.rows() == 1 && !after.isNull(0, 0)
                        ? formatBytes(static_cast<std::uint64_t>(chunk.bytes)) + " -> " +
                              formatBytes(static_cast<std::uint64_t>(after.integer(0, 0)))
                        : formatBytes(static_cast<std::uint64_t>(chunk.bytes)) + " before";
                const std::scoped_lock lock(m);
                if (run.note) {
                    run.note(fmt::format("compressed chunk {} of {} ({}): {}", n, chunks.size(), chunk.name,
                                         size));
                }
            }
        } catch (const DbError& e) {
            const std::scoped_lock lock(m);
            if (!failure) {
                failure = e;
            }
            failed = true;
        }
    };
    {
        std::vector<std::jthread> threads;
        const auto count = std::clamp<std::size_t>(static_cast<std::size_t>(run.parallel), 1, chunks.size());
        for (std::size_t t = 0; t < count; ++t) {
            threads.emplace_back(work);
        }
    }
    if (failure) {
        throw *failure;
    }
    return done;
}

} // namespace

CompressionChoice chooseCompression(Connection& conn, const TableName& table, const TableOptions& options,
                                    const CompressionHint& hint, bool direct) {
    const bool asked = options.compressSegmentBy || options.compressOrderBy;
    if (!asked) {
        const Result existing = conn.query(
            "SELECT coalesce(segmentby, ''), coalesce(orderby, '') FROM "
            "timescaledb_information.hypertable_compression_settings WHERE hypertable = $1::regclass AND "
            "(segmentby IS NOT NULL OR orderby IS NOT NULL)",
            {table.quoted(conn)});
        if (existing.rows() > 0) {
            CompressionChoice c{existing.text(0, 0), existing.text(0, 1), {}};
            c.why = "the table's own settings: " +
                    (c.segmentBy.empty() ? "not segmented" : "segmented by " + c.segmentBy) +
                    ", ordered by " + c.orderBy + " (--compress-segmentby / --compress-orderby change them)";
            return c;
        }
    }
    CompressionChoice c = automaticChoice(conn, table, hint, direct);
    if (asked) {
        c.segmentBy = options.compressSegmentBy.value_or(c.segmentBy);
        c.orderBy = options.compressOrderBy.value_or(c.orderBy);
        c.why = "as asked: " + (c.segmentBy.empty() ? "not segmented" : "segmented by " + c.segmentBy) +
                ", ordered by " + (c.orderBy.empty() ? "TimescaleDB's default" : c.orderBy);
    }
    return c;
}

void checkCompressionColumns(const TableOptions& options, const std::vector<std::string>& columns) {
    const auto check = [&columns](const std::optional<std::string>& list, const char* option, bool ordered) {
        if (!list || list->empty()) {
            return;
        }
        for (const std::string& item : splitList(*list)) {
            std::stringstream words(item);
            std::string name;
            words >> name;
            std::string rest;
            std::string word;
            while (words >> word) {
                rest += (rest.empty() ? "" : " ") + lowered(word);
            }
            const bool known = std::find(columns.begin(), columns.end(), name) != columns.end();
            const bool modifiers =
                rest.empty() ||
                (ordered && (rest == "asc" || rest == "desc" || rest == "nulls first" ||
                             rest == "nulls last" || rest == "asc nulls first" || rest == "asc nulls last" ||
                             rest == "desc nulls first" || rest == "desc nulls last"));
            if (name.empty() || !known || !modifiers) {
                const std::string all = join(columns, ", ");
                throw Error(std::string(option) + " '" + *list + "': " +
                            (name.empty() ? "an empty column name"
                             : !known     ? "the table has no column " + name
                                          : "'" + item + "' is not a column" +
                                            (ordered ? " with ASC/DESC, NULLS FIRST/LAST" : "")) +
                            "; its columns are " + all);
            }
        }
    };
    check(options.compressSegmentBy, "--compress-segmentby", false);
    check(options.compressOrderBy, "--compress-orderby", true);
}

bool hasDirectCompress(const std::string& version) {
    int major = 0;
    int minor = 0;
    if (std::sscanf(version.c_str(), "%d.%d", &major, &minor) != 2) {
        return false;
    }
    return major > 2 || (major == 2 && minor >= kDirectCompressMinor);
}

std::string describeCompressPath(const ExtensionStatus& timescaledb, CompressPath path) {
    const std::string& version =
        timescaledb.installedVersion.empty() ? timescaledb.availableVersion : timescaledb.installedVersion;
    if (path == CompressPath::AfterLoad) {
        return "The chunks are compressed after the load, as chosen.";
    }
    if (!timescaledb.usable) {
        return "Compression needs TimescaleDB: " + timescaledb.reason;
    }
    if (hasDirectCompress(version)) {
        return "Compressed as COPY receives the rows: TimescaleDB " + version +
               " has direct compress (which it calls experimental). A table with a unique index, triggers "
               "or segments is compressed after the load instead.";
    }
    return "Compressed after the load: TimescaleDB " + version +
           " cannot compress rows as COPY receives them (2.21 and later can, in about half the time).";
}

void setCompression(Connection& conn, const TableName& table, const CompressionChoice& choice, bool always) {
    const std::string qualified = table.quoted(conn);
    if (!always) {
        const Result enabled = conn.query(
            std::string("SELECT compression_enabled FROM timescaledb_information.hypertables WHERE ") +
                kHypertableOf,
            {qualified});
        if (enabled.rows() == 1 && enabled.text(0, 0) == "t") {
            return;
        }
    }
    conn.exec("ALTER TABLE " + qualified + " SET (timescaledb.compress, timescaledb.compress_segmentby = " +
              conn.quoteLiteral(choice.segmentBy) +
              ", timescaledb.compress_orderby = " + conn.quoteLiteral(choice.orderBy) + ")");
}

DirectCompress directCompressSupport(Connection& conn) {
    DirectCompress out;
    const Result ext = conn.query("SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'");
    if (ext.rows() == 0) {
        out.why = "TimescaleDB is not created in this database";
        return out;
    }
    out.version = ext.text(0, 0);
    // Defined by the extension's library from 2.21 on; NULL (not an error) before.
    const Result setting =
        conn.query("SELECT coalesce(extra_desc, short_desc, '') FROM pg_settings WHERE name = "
                   "'timescaledb.enable_direct_compress_copy'");
    if (setting.rows() == 0) {
        out.why = "TimescaleDB " + out.version +
                  " cannot compress rows as COPY receives them (2.21 and later can: "
                  "timescaledb.enable_direct_compress_copy)";
        return out;
    }
    out.available = true;
    out.experimental = setting.text(0, 0).find("xperimental") != std::string::npos;
    return out;
}

std::vector<std::string> directCompressSettings(int sortLimit) {
    return {"SET timescaledb.enable_direct_compress_copy = on",
            // Rows of concurrent COPYs overlap: the server sorts each run and marks the chunk
            // unordered. client_sorted would claim an order across the chunk that two workers'
            // batches do not have, and ordered scans would return rows out of order.
            "SET timescaledb.enable_direct_compress_copy_client_sorted = off",
            "SET timescaledb.enable_direct_compress_copy_sort_batches = on",
            "SET timescaledb.direct_compress_copy_tuple_sort_limit = " + std::to_string(sortLimit)};
}

CompressionStart startCompression(Connection& conn, const TableName& table, const TableOptions& options,
                                  const CompressionHint& hint) {
    CompressionStart out;
    if (options.compressPath == CompressPath::AfterLoad) {
        out.why = "the chunks are compressed after the load, as asked (--compress=after-load)";
        return out;
    }
    const bool insisted = options.compressPath == CompressPath::Direct;
    const auto afterLoad = [&](const std::string& reason) {
        if (insisted) {
            throw Error("--compress=direct: " + reason +
                        "; leave out =direct to compress the chunks after the load instead");
        }
        out.why = "the chunks are compressed after the load: " + reason;
        return out;
    };
    const DirectCompress support = directCompressSupport(conn);
    if (!support.available) {
        return afterLoad(support.why);
    }
    const std::string qualified = table.quoted(conn);
    conn.exec(kBeginReadCommitted);
    try {
        lockTablePreparation(conn, table);
        // What makes TimescaleDB write the rows uncompressed after all (it says so in a WARNING).
        const std::pair<const char*, const char*> obstacles[] = {
            {"SELECT string_agg(indexrelid::regclass::text, ', ') FROM pg_index WHERE indrelid = "
             "$1::regclass "
             "AND (indisunique OR indisprimary)",
             "a unique index (%s), which TimescaleDB's direct compress of COPY does not check"},
            {"SELECT string_agg(tgname, ', ') FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT "
             "tgisinternal "
             "AND tgname <> 'ts_insert_blocker'",
             "triggers (%s), which TimescaleDB's direct compress of COPY does not fire"}};
        for (const auto& [sql, what] : obstacles) {
            if (const Result found = conn.query(sql, {qualified}); !found.isNull(0, 0)) {
                conn.exec("ROLLBACK");
                std::string reason = what;
                reason.replace(reason.find("%s"), 2, found.text(0, 0));
                return afterLoad("the table has " + reason);
            }
        }
        out.settings = chooseCompression(conn, table, options, hint, true);
        if (!out.settings.segmentBy.empty() && !insisted) {
            conn.exec("ROLLBACK");
            return afterLoad("the table is segmented by " + out.settings.segmentBy +
                             ", and the rows reach the server a time of the grid after another: each COPY "
                             "would hold a row or two of a segment, a compressed batch each "
                             "(--compress=direct loads so all the same)");
        }
        setCompression(conn, table, out.settings, options.compressSegmentBy || options.compressOrderBy);
        conn.exec("COMMIT");
    } catch (...) {
        if (conn.connected() && conn.inTransaction()) {
            conn.exec("ROLLBACK");
        }
        throw;
    }
    out.direct = true;
    out.sessionSettings = directCompressSettings(kDirectCompressSortLimit);
    out.rowsPerTransaction = kDirectCompressRowsPerTransaction;
    out.why = "direct compress of COPY (TimescaleDB " + support.version +
              (support.experimental ? ", which calls it experimental" : "") +
              "): the server compresses the rows as it receives them, sorted in runs of " +
              std::to_string(kDirectCompressSortLimit) + ", in transactions of up to " +
              std::to_string(kDirectCompressRowsPerTransaction) +
              " rows (longer ones slow it down); --compress=after-load compresses after the load";
    return out;
}

std::string CompressionOutcome::describe() const {
    std::string out;
    if (direct) {
        out = "written compressed by COPY" +
              (bytesAfter >= 0 ? ": " + formatBytes(static_cast<std::uint64_t>(bytesAfter)) : std::string()) +
              (bytesBefore > 0 && bytesAfter >= 0
                   ? fmt::format(" ({:.2f}x of {}{} uncompressed)",
                                 static_cast<double>(bytesAfter) / static_cast<double>(bytesBefore),
                                 beforeEstimated ? "about " : "",
                                 formatBytes(static_cast<std::uint64_t>(bytesBefore)))
                   : std::string());
        out += fmt::format("; {} chunk(s) compressed after the load in {:.1f} s", chunks, seconds);
        if (chunksLeft > 0) {
            out += fmt::format(", {} left uncompressed", chunksLeft);
        }
        return out + "; " + settings.why;
    }
    if (bytesBefore >= 0 && bytesAfter >= 0) {
        out = formatBytes(static_cast<std::uint64_t>(bytesBefore)) + " before compression, " +
              formatBytes(static_cast<std::uint64_t>(bytesAfter)) + " after" +
              (bytesBefore > 0 ? fmt::format(" ({:.2f}x)", static_cast<double>(bytesAfter) /
                                                               static_cast<double>(bytesBefore))
                               : "");
    }
    out += fmt::format("{}{} chunk(s) compressed in {:.1f} s", out.empty() ? "" : ": ", chunks, seconds);
    if (chunksLeft > 0) {
        out += fmt::format(", {} left uncompressed", chunksLeft);
    }
    return out + "; " + settings.why;
}

CompressionOutcome compressHypertable(Connection& conn, const TableName& table, const TableOptions& options,
                                      const CompressionRun& run) {
    const auto t0 = std::chrono::steady_clock::now();
    CompressionOutcome out;
    const std::string qualified = table.quoted(conn);
    // Settings first, in a transaction of their own: ALTER TABLE holds the hypertable's lock to its
    // end, which the chunks' compression waits for.
    conn.exec(kBeginReadCommitted);
    lockTablePreparation(conn, table);
    const bool direct = run.started && run.started->direct;
    out.settings = direct ? run.started->settings : chooseCompression(conn, table, options, run.hint);
    out.direct = direct;
    out.path = run.started ? run.started->why : "the chunks are compressed after the load";
    setCompression(conn, table, out.settings,
                   !direct && (options.compressSegmentBy || options.compressOrderBy));
    conn.exec("COMMIT");
    // Held meanwhile, so that another run of the table finishing now waits instead of compressing
    // the same chunks.
    conn.exec(kBeginReadCommitted);
    lockTablePreparation(conn, table);
    out.bytesBefore = direct ? -1 : hypertableBytes(conn, table);
    const std::vector<Chunk> chunks = chunksToCompress(conn, table);
    if (run.note) {
        run.note(chunks.empty() ? (direct ? "compression: every chunk was written compressed by COPY"
                                          : "compression: every chunk is compressed already")
                                : fmt::format("compressing {} chunk(s), {} at a time; {}", chunks.size(),
                                              std::clamp<std::size_t>(static_cast<std::size_t>(run.parallel),
                                                                      1, chunks.size()),
                                              out.settings.why));
    }
    try {
        out.chunks = chunks.empty() ? 0 : compressChunks(chunks, run);
    } catch (...) {
        conn.exec("ROLLBACK");
        throw;
    }
    out.chunksLeft = chunks.size() - out.chunks;
    conn.exec("COMMIT");
    // Recompressing a chunk deletes its rows that were not compressed, and the batches it rewrites:
    // their pages stay until VACUUM gives them back (a second load into a day's chunk: 444 MiB
    // before, 636 MiB after without it). After the transaction holding the lock, which would keep
    // VACUUM from removing them; nearly nothing to do after a first compression.
    for (std::size_t i = 0; i < out.chunks; ++i) {
        conn.exec("VACUUM " + chunks[i].name);
        const Result compressed = conn.query(
            "SELECT format('%I.%I', cc.schema_name, cc.table_name) FROM _timescaledb_catalog.chunk c JOIN "
            "_timescaledb_catalog.chunk cc ON cc.id = c.compressed_chunk_id WHERE format('%I.%I', "
            "c.schema_name, "
            "c.table_name) = $1",
            {chunks[i].name});
        if (compressed.rows() == 1) {
            conn.exec("VACUUM " + compressed.text(0, 0));
        }
    }
    out.bytesAfter = hypertableBytes(conn, table);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    spdlog::debug("compression of {}: {}", table.display(), out.describe());
    return out;
}

} // namespace isobar
