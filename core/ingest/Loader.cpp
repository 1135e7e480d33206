#include "ingest/Loader.h"

#include "copy/CopyStream.h"
#include "copy/WeatherRowEncoder.h"
#include "db/ConnInfo.h"
#include "db/TableMetadata.h"
#include "db/WeatherSchema.h"
#include "era5/BandReader.h"
#include "era5/Dataset.h"
#include "util/Error.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <set>

namespace isobar {

namespace {

// Flush encoded rows to libpq in chunks of this size: big enough that per-call overhead vanishes,
// small enough to keep memory flat.
constexpr std::size_t kFlushBytes = 4u << 20;
constexpr std::size_t kTargetBandRows = 32 * 1024;
// Steps are sent in COPY statements of at least this many rows; a rejected row is then traced to
// the files of one batch, without a round trip per small step.
constexpr std::uint64_t kRowsPerCopy = 256 * 1024;

double secondsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool allMissing(const BandValues& values, std::size_t n) {
    for (const float* column : values) {
        if (column == nullptr) {
            continue;
        }
        for (std::size_t k = 0; k < n; ++k) {
            if (!std::isnan(column[k])) {
                return false;
            }
        }
    }
    return true;
}

void reportInput(const Dataset& dataset, LoadSink& sink) {
    for (const Era5File& f : dataset.files()) {
        spdlog::debug("{}: {}, {}", f.name(), f.layout(), f.format());
        for (const auto& n : f.notes()) {
            sink.note(f.name() + ": " + n);
        }
        if (!f.ignoredVariables().empty()) {
            std::string names;
            for (const auto& n : f.ignoredVariables()) {
                names += (names.empty() ? "" : ", ") + n;
            }
            sink.warning(f.name() + ": ignoring variables Isobar does not load: " + names);
        }
    }
    for (const auto& n : dataset.notes()) {
        sink.note(n);
    }
}

} // namespace

LoadSummary runLoad(const LoadRequest& request, const std::stop_token& stop, LoadSink& sink) {
    const auto t0 = std::chrono::steady_clock::now();
    LoadSummary summary;
    std::string currentFiles;
    try {
        const Dataset dataset = Dataset::open(request.files, request.open);
        reportInput(dataset, sink);
        LoadStart start;
        for (const Era5File& f : dataset.files()) {
            start.files.push_back(f.name());
        }
        start.plannedRows = dataset.rowCount();
        start.target = redactConnInfo(request.conninfo);
        start.table = request.table.display();
        sink.started(start);

        if (stop.stop_requested()) {
            throw Cancelled();
        }
        Connection conn = Connection::open(request.conninfo);
        conn.exec("SET application_name = 'isobar'");
        ensureMetadataSchema(conn);
        // One transaction for table creation, bookkeeping and all rows: a failure leaves nothing.
        conn.exec("BEGIN");
        summary.tableCreated = ensureWeatherTable(conn, request.table);
        if (request.replace && !summary.tableCreated) {
            conn.exec("TRUNCATE " + request.table.quoted(conn));
        }
        checkTableGrid(conn, request.table,
                       TableGrid{dataset.grid().step(), dataset.grid().describe(), dataset.productName()});
        const std::string copySql = "COPY " + request.table.quoted(conn) + " " + weatherColumnList(conn) +
                                    " FROM STDIN (FORMAT binary)";

        std::vector<GridGeometry> geometries;
        for (const DatasetGeometry& g : dataset.geometries()) {
            geometries.push_back(GridGeometry::forBox(dataset.grid(), g.box.northRow, g.box.westColumn,
                                                      g.latitudes, g.longitudes));
        }
        const BandReader reader(dataset);
        RawUnit raw;
        DecodedBand decoded;
        BinaryCopyBuffer buffer(kFlushBytes + (1u << 20));

        std::size_t stepIndex = 0;
        const auto& steps = dataset.steps();
        while (stepIndex < steps.size()) {
            // One COPY for a batch of steps; errors name the files behind that batch.
            std::set<std::string> batchFiles;
            CopyStream copy(conn, copySql);
            std::uint64_t encodedRows = 0;
            buffer.clear();
            buffer.writeHeader();
            const auto flush = [&] {
                copy.send(buffer.bytes());
                summary.bytes += buffer.size();
                buffer.clear();
            };
            while (stepIndex < steps.size() && encodedRows < kRowsPerCopy) {
                const DatasetStep& step = steps[stepIndex];
                for (const auto& source : step.sources) {
                    if (source) {
                        batchFiles.insert(dataset.files()[source->file].name());
                    }
                }
                currentFiles.clear();
                for (const auto& f : batchFiles) {
                    currentFiles += (currentFiles.empty() ? "" : ", ") + f;
                }
                const GridBox& box = dataset.geometries()[step.geometry].box;
                const std::size_t bandRows = request.bandRows > 0
                                                 ? request.bandRows
                                                 : std::max<std::size_t>(1, kTargetBandRows / box.cols);
                for (std::size_t row0 = 0; row0 < box.rows; row0 += bandRows) {
                    if (stop.stop_requested()) {
                        copy.abort("cancelled by the user");
                        conn.exec("ROLLBACK");
                        summary.status = LoadStatus::Cancelled;
                        summary.rows = 0;
                        summary.seconds = secondsSince(t0);
                        sink.finished(summary);
                        return summary;
                    }
                    const std::size_t count = std::min(bandRows, box.rows - row0);
                    reader.fetch(stepIndex, row0, count, raw);
                    reader.decode(raw, decoded);
                    if (request.allMissing == AllMissingPolicy::Skip &&
                        allMissing(decoded.values, count * box.cols)) {
                        summary.skippedRows += count * box.cols;
                        continue;
                    }
                    encodeWeatherBand(geometries[step.geometry], step.time, row0, count, decoded.values,
                                      buffer);
                    encodedRows += count * box.cols;
                    if (buffer.size() >= kFlushBytes) {
                        flush();
                    }
                }
                ++stepIndex;
            }
            buffer.writeTrailer();
            flush();
            const std::uint64_t copied = copy.finish();
            if (copied != encodedRows) {
                throw Error("the server reports " + std::to_string(copied) + " rows copied, but " +
                            std::to_string(encodedRows) + " were sent; rolled back");
            }
            summary.rows += copied;
        }
        currentFiles.clear();
        conn.exec("COMMIT");
        if (summary.skippedRows > 0) {
            sink.warning(
                std::to_string(summary.skippedRows) +
                " rows had every value missing and were skipped (use --all-missing load to load them as "
                "rows of NULLs)");
        }
        summary.status = LoadStatus::Completed;
        summary.seconds = secondsSince(t0);
        sink.finished(summary);
        return summary;
    } catch (const Cancelled&) {
        // Stopped before anything was written (the connection, if any, rolled back on close).
        summary.status = LoadStatus::Cancelled;
        summary.rows = 0;
        summary.seconds = secondsSince(t0);
        sink.finished(summary);
        return summary;
    } catch (const DbError& e) {
        summary.error = LoadError{currentFiles, {}, {}, 0, e.sqlState(), e.what()};
    } catch (const Error& e) {
        summary.error = LoadError{currentFiles, {}, {}, 0, {}, e.what()};
    } catch (const std::exception& e) {
        summary.error =
            LoadError{currentFiles, {}, {}, 0, {}, std::string("unexpected failure: ") + e.what()};
    }
    summary.status = LoadStatus::Failed;
    summary.rows = 0;
    summary.seconds = secondsSince(t0);
    sink.failed(*summary.error);
    return summary;
}

} // namespace isobar
