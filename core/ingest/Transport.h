// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <stop_token>
#include <string>

namespace isobar {

// How a transaction's rows reach the server, inside the transaction its worker holds open: the
// write side of a load, separate from the row source (UnitSource), so another method is a small
// class, not a fork of the engine. One COPY per transaction (the file method: one per file), fed unit
// by unit: begin(), send() each unit's rows, finish(). One instance per worker: an instance may keep
// per-worker state.
class Transport {
public:
    // Told as data leaves: bytes handed over and (an estimate of) the rows they hold.
    using Progress = std::function<void(std::uint64_t bytes, std::uint64_t rows)>;

    virtual ~Transport() = default;

    // Starts the COPY on `conn` (binary format; the method writes the header). Throws DbError.
    virtual void begin(Connection& conn) = 0;
    // Hands over `rows` rows encoded on the binary COPY wire (no header, no trailer). Throws
    // DbError for the server's failures, Error for the client's (a full disk). A method that
    // notices `stop` midway (the stream does, between chunks) throws Cancelled; the caller then
    // calls abort().
    virtual void send(std::span<const char> rows, std::uint64_t rowCount, const std::stop_token& stop,
                      const Progress& progress) = 0;
    // Ends the COPY (the trailer) and returns the row count the server reports. Throws DbError when
    // the server rejects the data. A method that still waits for the server here (the file method:
    // its last files) notices `stop` while it waits: it cancels its COPY and throws Cancelled.
    virtual std::uint64_t finish(const std::stop_token& stop) = 0;
    // Abandons a COPY begun and not finished, so everything sent is discarded and the connection
    // can roll the transaction back. Never throws; does nothing when no COPY is open.
    virtual void abort() noexcept = 0;
};

// About 50 MB of file for six variables: big enough that a COPY statement's own cost vanishes,
// small enough that the server starts reading soon after a transaction begins.
constexpr std::uint64_t kRowsPerServerFile = 500'000;

// COPY ... FROM STDIN (FORMAT binary), in chunks so a cancel is noticed quickly.
// `copySql` is the whole statement.
std::unique_ptr<Transport> makeStreamTransport(std::string copySql);

// For a server on this machine that may read the client's files: the rows are written to two
// files next to `file` (its name with -a and -b), used in turns, each closed once it holds
// `rowsPerFile` rows or more, which the server reads with COPY ... FROM 'file': no socket, no
// protocol. While the server reads one file the worker writes the next. `copyFromSql` is the
// statement up to FROM ("COPY t (cols) FROM "); the quoted path and options follow.
std::unique_ptr<Transport> makeServerFileTransport(std::string copyFromSql, const std::filesystem::path& file,
                                                   std::uint64_t rowsPerFile = kRowsPerServerFile);

} // namespace isobar
