#pragma once

#include "copy/BinaryCopyBuffer.h"
#include "db/Connection.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>

namespace isobar {

// How a unit's rows reach the server, inside the transaction its worker holds open: the write
// side of a load, separate from the row source (UnitSource), so another method is a small class,
// not a fork of the engine. One instance per worker: an instance may keep per-worker state.
class WriteMethod {
public:
    // Told as data leaves: bytes handed over and (an estimate of) the rows they hold.
    using Progress = std::function<void(std::uint64_t bytes, std::uint64_t rows)>;

    virtual ~WriteMethod() = default;

    // Sends one unit, encoded whole (COPY header to trailer, `rows` rows), on `conn`. Throws
    // DbError for the server's failures and Error when the server's count disagrees. A method that
    // notices `stop` midway (the stream does, between chunks) rolls the transaction back and
    // throws Cancelled.
    virtual void write(Connection& conn, const BinaryCopyBuffer& unit, std::uint64_t rows,
                       const std::stop_token& stop, const Progress& progress) = 0;
};

// COPY ... FROM STDIN (FORMAT binary), in chunks so a cancel is noticed quickly.
// `copySql` is the whole statement.
std::unique_ptr<WriteMethod> makeStreamWrite(std::string copySql);

// For a server on this machine that may read the client's files: the unit is written to `file`
// and the server reads it with COPY ... FROM 'file', which skips the socket. `copyFromSql` is the
// statement up to FROM ("COPY t (cols) FROM "); the quoted path and options follow.
std::unique_ptr<WriteMethod> makeServerFileWrite(std::string copyFromSql, std::filesystem::path file);

} // namespace isobar
