// SPDX-License-Identifier: GPL-3.0-or-later

#include "ingest/RoomCheck.h"

#include "util/Error.h"
#include "util/Format.h"

#include <spdlog/fmt/fmt.h>

#include <algorithm>

namespace isobar {

namespace {

std::string bytes(double b) {
    return formatBytes(static_cast<std::uint64_t>(std::max(0.0, b)));
}

std::string whereIs(const ServerFilesystem& fs, const ServerInfo& info) {
    return fs.path.string() + (fs.path == info.dataDirectory ? " (the server's data directory)" : "");
}

// One filesystem's verdict: an error when `need` does not fit, a warning when it fits tightly.
void judge(const std::string& what, double need, const ServerFilesystem& fs, const std::string& where,
           bool force, std::vector<std::string>& errors, LoadSink& sink) {
    if (need <= 0 || fs.freeBytes < 0) {
        return;
    }
    const double left = fs.freeBytes - need;
    if (left < kDiskReserveBytes) {
        const std::string said = "not enough disk for this load: " + what + " needs about " + bytes(need) +
                                 " on " + where + " (and " + bytes(kDiskReserveBytes) +
                                 " must stay free for the server), but " + bytes(fs.freeBytes) +
                                 " are free there";
        if (force) {
            sink.warning(said + " (--force: loading anyway; the load stops before the disk is full)");
        } else {
            errors.push_back(said);
        }
    } else if (left < 0.2 * fs.freeBytes) {
        sink.warning("the disk is tight for this load: " + what + " needs about " + bytes(need) + " of the " +
                     bytes(fs.freeBytes) + " free on " + where + ", leaving " + bytes(left));
    }
}

} // namespace

std::string describeFreeSpace(const ServerStorage& storage) {
    if (!storage.seen() || storage.data.freeBytes < 0) {
        return {};
    }
    std::string s = bytes(storage.data.freeBytes) + " free on " + storage.data.path.string();
    if (storage.wal && storage.wal->freeBytes >= 0) {
        s += ", " + bytes(storage.wal->freeBytes) + " on " + storage.wal->path.string() + " (pg_wal)";
    }
    return s;
}

RoomCheck checkRoom(Connection& conn, const LoadRequest& request, const ServerCheck& server,
                    const Dataset& dataset, const RoomRequest& room, LoadSink& sink) {
    RoomCheck check;
    check.storage = probeStorage(conn, server.info, request.table);
    ForecastInput in;
    in.rows = room.rows;
    for (const auto& v : dataset.columnVariables()) {
        ++in.shape.valueColumns;
        in.shape.nullColumns += v ? 0 : 1;
    }
    in.shape.pressureLevels = dataset.vertical() == Vertical::PressureLevels;
    in.type = room.type;
    in.compressAfter = request.tableOptions.compressAfter;
    in.setLoggedAfter = request.tableOptions.setLoggedAfter;
    if (!request.replace) {
        in.existingBytes = room.bytesBefore;
        in.existingRows = room.rowsBefore;
    }
    check.forecast = forecastLoad(in, server.info, server.wal, check.storage);
    const StorageForecast& f = check.forecast;
    std::string writes = "the load writes about " + bytes(f.tableBytes + f.indexBytes) + " of table (" +
                         std::to_string(f.rows) + " rows x " + fmt::format("{:.1f}", f.bytesPerRow) + " B, " +
                         f.perRowFrom + (f.indexBytes > 0 ? ", with its index" : "") + ")";
    if (f.walBytes > 0) {
        writes += " and " + bytes(f.walBytes) + " of WAL, " +
                  (f.walKeptBytes > 0 ? "of which up to " + bytes(f.walKeptBytes) + " stays in pg_wal"
                                      : std::string("with pg_wal no larger than it is now")) +
                  " (" + f.walKeptWhy + ")";
    }
    check.lines.push_back(writes);
    if (f.compressedBytes >= 0) {
        check.lines.push_back(
            "compressed after the load: about " + bytes(f.compressedBytes) +
            " (about a third, what TimescaleDB leaves of such rows with the settings Isobar "
            "chooses; the run says the real size)");
    }
    if (room.type == TableType::Distributed) {
        check.lines.push_back("the rows go to the Citus workers' disks, which cannot be seen from here");
        return check;
    }
    if (!check.storage.seen()) {
        check.lines.push_back("the server's free space cannot be seen: " + check.storage.unseen);
        return check;
    }
    // --replace frees the table's present files when the load's first transaction commits.
    double freed = request.replace ? std::max(0.0, room.bytesBefore) : 0.0;
    ServerFilesystem data = check.storage.data;
    data.freeBytes += freed;
    check.lines.push_back(describeFreeSpace(check.storage) +
                          (freed > 0 ? " (+" + bytes(freed) + " freed by --replace)" : std::string()) +
                          "; about " + bytes(data.freeBytes - f.dataNeeded) + " free after the load");
    std::vector<std::string> errors;
    judge(check.storage.wal ? "the table" : "the table with its WAL", f.dataNeeded, data,
          whereIs(data, server.info), request.force, errors, sink);
    if (check.storage.wal) {
        judge("its WAL", f.walNeeded, *check.storage.wal, check.storage.wal->path.string() + " (pg_wal)",
              request.force, errors, sink);
    }
    if (!errors.empty()) {
        std::string all;
        for (const auto& e : errors) {
            all += (all.empty() ? "" : "; ") + e;
        }
        throw Error(all +
                    ". Free some space, load fewer files, or use --force to start anyway (the load then "
                    "stops before the disk is full, and resumes later)");
    }
    return check;
}

} // namespace isobar
