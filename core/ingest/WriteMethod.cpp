#include "ingest/WriteMethod.h"

#include "db/CopyStream.h"
#include "util/Error.h"

#include <algorithm>
#include <fcntl.h>
#include <unistd.h>

namespace isobar {

namespace {

// Rows go to libpq in chunks of this size: big enough that per-call overhead vanishes, small
// enough that a cancel is noticed quickly.
constexpr std::size_t kChunkBytes = 4u << 20;

class StreamWrite final : public WriteMethod {
public:
    explicit StreamWrite(std::string copySql)
        : copySql_(std::move(copySql)) {}

    void write(Connection& conn, const BinaryCopyBuffer& unit, std::uint64_t rows,
               const std::stop_token& stop, const Progress& progress) override {
        CopyStream copy(conn, copySql_);
        const auto bytes = unit.bytes();
        for (std::size_t offset = 0; offset < bytes.size(); offset += kChunkBytes) {
            if (stop.stop_requested()) {
                copy.abort("the load was stopped");
                conn.exec("ROLLBACK");
                throw Cancelled();
            }
            const std::size_t n = std::min(kChunkBytes, bytes.size() - offset);
            copy.send(bytes.subspan(offset, n));
            progress(n, static_cast<std::uint64_t>(static_cast<double>(rows) * static_cast<double>(n) /
                                                   static_cast<double>(bytes.size())));
        }
        const std::uint64_t copied = copy.finish();
        if (copied != rows) {
            throw Error("the server reports " + std::to_string(copied) + " rows copied, but " +
                        std::to_string(rows) + " were sent");
        }
    }

private:
    std::string copySql_;
};

class ServerFileWrite final : public WriteMethod {
public:
    ServerFileWrite(std::string copyFromSql, std::filesystem::path file)
        : copyFromSql_(std::move(copyFromSql))
        , file_(std::move(file)) {}

    void write(Connection& conn, const BinaryCopyBuffer& unit, std::uint64_t rows, const std::stop_token&,
               const Progress& progress) override {
        // Written again on a retry, so the file always holds this unit.
        writeFile(unit);
        const Result r(PQexec(
            conn.raw(), (copyFromSql_ + conn.quoteLiteral(file_.string()) + " (FORMAT binary)").c_str()));
        if (r.raw() == nullptr || PQresultStatus(r.raw()) != PGRES_COMMAND_OK) {
            throwResultError(conn, r.raw(), "COPY from the unit file on " + conn.target() + " failed");
        }
        const std::uint64_t copied =
            std::stoull(PQcmdTuples(r.raw())[0] != '\0' ? PQcmdTuples(r.raw()) : "0");
        if (copied != rows) {
            throw Error("the server reports " + std::to_string(copied) + " rows copied, but the unit has " +
                        std::to_string(rows));
        }
        progress(unit.size(), rows);
    }

private:
    void writeFile(const BinaryCopyBuffer& unit) const {
        const int fd = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) {
            throw Error("cannot write the unit file " + file_.string() + ": " + systemErrorText(errno));
        }
        const char* p = unit.data();
        std::size_t left = unit.size();
        while (left > 0) {
            const ssize_t n = ::write(fd, p, left);
            if (n < 0 && errno == EINTR) {
                continue;
            }
            if (n <= 0) {
                const int err = errno;
                ::close(fd);
                throw Error("cannot write the unit file " + file_.string() +
                            " (is the disk full?): " + systemErrorText(err));
            }
            p += n;
            left -= static_cast<std::size_t>(n);
        }
        ::close(fd);
    }

    std::string copyFromSql_;
    std::filesystem::path file_;
};

} // namespace

std::unique_ptr<WriteMethod> makeStreamWrite(std::string copySql) {
    return std::make_unique<StreamWrite>(std::move(copySql));
}

std::unique_ptr<WriteMethod> makeServerFileWrite(std::string copyFromSql, std::filesystem::path file) {
    return std::make_unique<ServerFileWrite>(std::move(copyFromSql), std::move(file));
}

} // namespace isobar
