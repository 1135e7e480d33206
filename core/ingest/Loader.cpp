#include "ingest/Loader.h"

#include "copy/CopyStream.h"
#include "copy/WeatherRowEncoder.h"
#include "db/ConnInfo.h"
#include "db/WeatherSchema.h"
#include "era5/Era5File.h"
#include "era5/TimeUnits.h"
#include "util/Error.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>

namespace isobar {

namespace {

// Flush encoded rows to libpq in chunks of this size: big enough that per-call overhead vanishes,
// small enough to stay in cache-friendly territory and keep memory flat.
constexpr std::size_t kFlushBytes = 4u << 20;
constexpr std::size_t kTargetBandRows = 32 * 1024;

double secondsSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

LoadSummary runLoad(const LoadRequest& request, const std::stop_token& stop, LoadSink& sink) {
    const auto t0 = std::chrono::steady_clock::now();
    LoadSummary summary;
    std::string currentFile;
    try {
        if (request.files.empty()) {
            throw Error("no input files given");
        }
        std::vector<Era5File> files;
        files.reserve(request.files.size());
        LoadStart start;
        for (const auto& path : request.files) {
            files.push_back(Era5File::open(path));
            const Era5File& f = files.back();
            start.files.push_back(path.string());
            start.plannedRows += f.rowCount();
            if (!f.ignoredVariables().empty()) {
                std::string names;
                for (const auto& n : f.ignoredVariables()) {
                    names += (names.empty() ? "" : ", ") + n;
                }
                sink.warning(path.string() + ": ignoring variables Isobar does not load: " + names);
            }
        }
        start.target = redactConnInfo(request.conninfo);
        start.table = request.table.display();
        sink.started(start);

        Connection conn = Connection::open(request.conninfo);
        conn.exec("SET application_name = 'isobar'");
        // One transaction for table creation and all rows: a failure leaves nothing behind.
        conn.exec("BEGIN");
        summary.tableCreated = ensureWeatherTable(conn, request.table);
        if (request.replace && !summary.tableCreated) {
            conn.exec("TRUNCATE " + request.table.quoted(conn));
        }
        const std::string copySql = "COPY " + request.table.quoted(conn) + " " + weatherColumnList(conn) +
                                    " FROM STDIN (FORMAT binary)";
        BinaryCopyBuffer buffer(kFlushBytes + (1u << 20));
        RawBand raw;
        // One COPY per file (all in the one transaction), so that when the server rejects a row the
        // error is known to belong to the file being sent.
        for (const Era5File& file : files) {
            currentFile = file.path().string();
            CopyStream copy(conn, copySql);
            std::uint64_t encodedRows = 0;
            buffer.clear();
            buffer.writeHeader();
            const auto flush = [&] {
                copy.send(buffer.bytes());
                summary.bytes += buffer.size();
                buffer.clear();
            };
            const GridGeometry grid = GridGeometry::fromAxes(file.latitudes(), file.longitudes());
            const std::size_t nlat = file.latitudes().size();
            const std::size_t nlon = file.longitudes().size();
            const std::size_t bandRows =
                request.bandRows > 0 ? request.bandRows : std::max<std::size_t>(1, kTargetBandRows / nlon);
            std::vector<std::unique_ptr<ValueDecoder>> decoders(kVariableCount);
            std::vector<std::vector<float>> columns(kVariableCount);
            for (const auto& var : file.variables()) {
                decoders[index(var.variable)] = std::make_unique<ValueDecoder>(var);
                columns[index(var.variable)].resize(bandRows * nlon);
            }
            for (std::size_t t = 0; t < file.times().size(); ++t) {
                for (std::size_t lat0 = 0; lat0 < nlat; lat0 += bandRows) {
                    if (stop.stop_requested()) {
                        copy.abort("cancelled by the user");
                        conn.exec("ROLLBACK");
                        summary.status = LoadStatus::Cancelled;
                        summary.rows = 0;
                        summary.seconds = secondsSince(t0);
                        sink.finished(summary);
                        return summary;
                    }
                    const std::size_t count = std::min(bandRows, nlat - lat0);
                    BandValues values{};
                    for (const auto& var : file.variables()) {
                        file.readBand(var, t, lat0, count, raw);
                        float* out = columns[index(var.variable)].data();
                        decoders[index(var.variable)]->decode(raw, out);
                        values[index(var.variable)] = out;
                    }
                    encodeWeatherBand(grid, file.times()[t], lat0, count, values, buffer);
                    encodedRows += count * nlon;
                    if (buffer.size() >= kFlushBytes) {
                        flush();
                    }
                }
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
        currentFile.clear();
        conn.exec("COMMIT");
        summary.status = LoadStatus::Completed;
        summary.seconds = secondsSince(t0);
        sink.finished(summary);
        return summary;
    } catch (const DbError& e) {
        summary.error = LoadError{currentFile, {}, {}, 0, e.sqlState(), e.what()};
    } catch (const Error& e) {
        summary.error = LoadError{currentFile, {}, {}, 0, {}, e.what()};
    } catch (const std::exception& e) {
        summary.error = LoadError{currentFile, {}, {}, 0, {}, std::string("unexpected failure: ") + e.what()};
    }
    summary.status = LoadStatus::Failed;
    summary.rows = 0;
    summary.seconds = secondsSince(t0);
    sink.failed(*summary.error);
    return summary;
}

} // namespace isobar
