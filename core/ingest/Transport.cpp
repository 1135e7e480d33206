// SPDX-License-Identifier: GPL-3.0-or-later

#include "ingest/Transport.h"

#include "copy/BinaryCopyBuffer.h"
#include "db/CopyStream.h"
#include "db/SentStatement.h"
#include "util/Error.h"

#include <algorithm>
#include <array>
#include <fcntl.h>
#include <optional>
#include <unistd.h>

namespace isobar {

namespace {

// Rows go to the connection in chunks of this size: big enough that per-call overhead vanishes, small
// enough that a cancel is noticed quickly.
constexpr std::size_t kChunkBytes = 4u << 20;

// The binary COPY header and trailer, as BinaryCopyBuffer writes them.
BinaryCopyBuffer framing(bool header) {
    BinaryCopyBuffer b(32);
    if (header) {
        b.writeHeader();
    } else {
        b.writeTrailer();
    }
    return b;
}

class StreamTransport final : public Transport {
public:
    explicit StreamTransport(std::string copySql)
        : copySql_(std::move(copySql)) {}

    void begin(Connection& conn) override {
        copy_.reset();
        copy_.emplace(conn, copySql_);
        const BinaryCopyBuffer header = framing(true);
        copy_->send(header.bytes());
    }

    void send(std::span<const char> rows, std::uint64_t rowCount, const std::stop_token& stop,
              const Progress& progress) override {
        for (std::size_t offset = 0; offset < rows.size(); offset += kChunkBytes) {
            if (stop.stop_requested()) {
                throw Cancelled();
            }
            const std::size_t n = std::min(kChunkBytes, rows.size() - offset);
            copy_->send(rows.subspan(offset, n));
            progress(n, static_cast<std::uint64_t>(static_cast<double>(rowCount) * static_cast<double>(n) /
                                                   static_cast<double>(rows.size())));
        }
    }

    // The server has had every row but the trailer: its answer follows at once.
    std::uint64_t finish(const std::stop_token& /*stop*/) override {
        const BinaryCopyBuffer trailer = framing(false);
        copy_->send(trailer.bytes());
        const std::uint64_t copied = copy_->finish();
        copy_.reset();
        return copied;
    }

    void abort() noexcept override {
        if (copy_) {
            copy_->abort("the load was stopped");
            copy_.reset();
        }
    }

private:
    std::string copySql_;
    std::optional<CopyStream> copy_;
};

// Rows written to files the server reads with COPY ... FROM 'file', in turns: while the server
// reads one file the worker writes the next, so neither waits for the other. Two files per worker,
// each of about `rowsPerFile` rows: the disk holds little however long the transaction.
class ServerFileTransport final : public Transport {
public:
    ServerFileTransport(std::string copyFromSql, const std::filesystem::path& file, std::uint64_t rowsPerFile)
        : copyFromSql_(std::move(copyFromSql))
        , files_{withSuffix(file, "-a"), withSuffix(file, "-b")}
        , rowsPerFile_(std::max<std::uint64_t>(1, rowsPerFile)) {}
    ~ServerFileTransport() override {
        closeFile(); // a COPY in flight was waited for or cancelled (abort()) by the worker
        for (const auto& f : files_) {
            std::error_code ec;
            std::filesystem::remove(f, ec);
        }
    }
    ServerFileTransport(const ServerFileTransport&) = delete;
    ServerFileTransport& operator=(const ServerFileTransport&) = delete;

    void begin(Connection& conn) override {
        abort();
        conn_ = &conn;
        copied_ = 0;
        openFile();
    }

    void send(std::span<const char> rows, std::uint64_t rowCount, const std::stop_token& stop,
              const Progress& progress) override {
        if (stop.stop_requested()) {
            throw Cancelled();
        }
        writeAll(rows);
        rowsInFile_ += rowCount;
        progress(rows.size(), rowCount);
        if (rowsInFile_ >= rowsPerFile_) {
            // This file is complete: the server reads it once it has read the previous one, and
            // the worker writes the next meanwhile.
            completeFile();
            waitForCopy(stop);
            startCopy();
            current_ ^= 1U;
            openFile();
        }
    }

    std::uint64_t finish(const std::stop_token& stop) override {
        try {
            const bool rowsLeft = rowsInFile_ > 0 || !copy_;
            completeFile();
            waitForCopy(stop);
            if (rowsLeft) { // the last file; the only one when nothing was read yet (an empty COPY)
                startCopy();
                waitForCopy(stop);
            }
            return copied_;
        } catch (...) {
            // A COPY still in flight (a stop, or the last file could not be written) is cancelled.
            abort();
            throw;
        }
    }

    void abort() noexcept override {
        closeFile();
        copy_.reset(); // stops the server reading and discards its answer: the connection can roll back
    }

private:
    static std::filesystem::path withSuffix(const std::filesystem::path& file, const char* suffix) {
        std::filesystem::path p = file;
        p.replace_filename(file.stem().string() + suffix + file.extension().string());
        return p;
    }

    const std::filesystem::path& currentFile() const { return files_[current_]; }

    void openFile() {
        // Written anew each time (a retry too), so a file holds exactly the rows of its COPY. A new
        // file, not the old one truncated: ext4 writes a truncated file's data out to the disk
        // (auto_da_alloc), which a deleted one's never reaches.
        ::unlink(currentFile().c_str());
        fd_ = ::open(currentFile().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd_ < 0) {
            throw Error("cannot write the unit file " + currentFile().string() + ": " +
                        systemErrorText(errno));
        }
        rowsInFile_ = 0;
        const BinaryCopyBuffer header = framing(true);
        writeAll(header.bytes());
    }

    void startCopy() {
        Connection& conn = *conn_;
        copy_.emplace(conn, copyFromSql_ + conn.quoteLiteral(currentFile().string()) + " (FORMAT binary)",
                      "COPY from the unit file");
    }

    // Waits for the COPY in flight, if any, and adds its row count. A stop request is noticed
    // while waiting (Cancelled; abort() then cancels the COPY).
    void waitForCopy(const std::stop_token& stop) {
        if (copy_) {
            const std::uint64_t rows = copy_->wait(stop);
            copy_.reset();
            copied_ += rows;
        }
    }

    void writeAll(std::span<const char> bytes) {
        const char* p = bytes.data();
        std::size_t left = bytes.size();
        while (left > 0) {
            const ssize_t n = ::write(fd_, p, left);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                const int err = errno;
                closeFile();
                throw Error("cannot write the unit file " + currentFile().string() +
                            " (is the disk full?): " + systemErrorText(err));
            }
            p += n;
            left -= static_cast<std::size_t>(n);
        }
    }

    // The trailer, then the file is closed for the server to read.
    void completeFile() {
        const BinaryCopyBuffer trailer = framing(false);
        writeAll(trailer.bytes());
        closeFile();
    }

    void closeFile() noexcept {
        if (fd_ >= 0) {
            ::close(fd_);
            fd_ = -1;
        }
    }

    std::string copyFromSql_;
    std::array<std::filesystem::path, 2> files_;
    std::uint64_t rowsPerFile_;
    unsigned current_ = 0;
    Connection* conn_ = nullptr;
    int fd_ = -1;
    std::uint64_t rowsInFile_ = 0;
    std::optional<SentStatement> copy_;
    std::uint64_t copied_ = 0;
};

} // namespace

std::unique_ptr<Transport> makeStreamTransport(std::string copySql) {
    return std::make_unique<StreamTransport>(std::move(copySql));
}

std::unique_ptr<Transport> makeServerFileTransport(std::string copyFromSql, const std::filesystem::path& file,
                                                   std::uint64_t rowsPerFile) {
    return std::make_unique<ServerFileTransport>(std::move(copyFromSql), file, rowsPerFile);
}

} // namespace isobar
