#include "ingest/WriteMethod.h"

#include "copy/BinaryCopyBuffer.h"
#include "db/CopyStream.h"
#include "util/Error.h"

#include <algorithm>
#include <fcntl.h>
#include <optional>
#include <unistd.h>

namespace isobar {

namespace {

// Rows go to libpq in chunks of this size: big enough that per-call overhead vanishes, small
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

class StreamWrite final : public WriteMethod {
public:
    explicit StreamWrite(std::string copySql)
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

    std::uint64_t finish() override {
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

class ServerFileWrite final : public WriteMethod {
public:
    ServerFileWrite(std::string copyFromSql, std::filesystem::path file)
        : copyFromSql_(std::move(copyFromSql))
        , file_(std::move(file)) {}
    ~ServerFileWrite() override { closeFile(); }
    ServerFileWrite(const ServerFileWrite&) = delete;
    ServerFileWrite& operator=(const ServerFileWrite&) = delete;

    void begin(Connection& conn) override {
        closeFile();
        conn_ = &conn;
        // Written anew for each transaction (a retry too), so the file holds exactly its rows.
        fd_ = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd_ < 0) {
            throw Error("cannot write the unit file " + file_.string() + ": " + systemErrorText(errno));
        }
        const BinaryCopyBuffer header = framing(true);
        writeAll(header.bytes());
    }

    void send(std::span<const char> rows, std::uint64_t rowCount, const std::stop_token&,
              const Progress& progress) override {
        writeAll(rows);
        progress(rows.size(), rowCount);
    }

    std::uint64_t finish() override {
        const BinaryCopyBuffer trailer = framing(false);
        writeAll(trailer.bytes());
        closeFile();
        Connection& conn = *conn_;
        const Result r(PQexec(
            conn.raw(), (copyFromSql_ + conn.quoteLiteral(file_.string()) + " (FORMAT binary)").c_str()));
        if (r.raw() == nullptr || PQresultStatus(r.raw()) != PGRES_COMMAND_OK) {
            throwResultError(conn, r.raw(), "COPY from the unit file on " + conn.target() + " failed");
        }
        return std::stoull(PQcmdTuples(r.raw())[0] != '\0' ? PQcmdTuples(r.raw()) : "0");
    }

    void abort() noexcept override { closeFile(); }
    std::uint64_t maxRows() const noexcept override { return 1'000'000; }

private:
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
                throw Error("cannot write the unit file " + file_.string() +
                            " (is the disk full?): " + systemErrorText(err));
            }
            p += n;
            left -= static_cast<std::size_t>(n);
        }
    }

    void closeFile() noexcept {
        if (fd_ >= 0) {
            ::close(fd_);
            fd_ = -1;
        }
    }

    std::string copyFromSql_;
    std::filesystem::path file_;
    Connection* conn_ = nullptr;
    int fd_ = -1;
};

} // namespace

std::unique_ptr<WriteMethod> makeStreamWrite(std::string copySql) {
    return std::make_unique<StreamWrite>(std::move(copySql));
}

std::unique_ptr<WriteMethod> makeServerFileWrite(std::string copyFromSql, std::filesystem::path file) {
    return std::make_unique<ServerFileWrite>(std::move(copyFromSql), std::move(file));
}

} // namespace isobar
