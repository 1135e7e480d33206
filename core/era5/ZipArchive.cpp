#include "era5/ZipArchive.h"

#include "util/Error.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <iterator>
#include <zlib.h>

namespace isobar {

namespace {

constexpr std::uint32_t kLocalHeader = 0x04034b50;
constexpr std::uint32_t kCentralHeader = 0x02014b50;
constexpr std::uint32_t kEndOfCentralDirectory = 0x06054b50;
constexpr std::uint32_t kZip64Locator = 0x07064b50;
constexpr std::uint32_t kZip64End = 0x06064b50;

std::uint64_t le(const unsigned char* p, int bytes) {
    std::uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) {
        v = (v << 8) | p[i];
    }
    return v;
}

std::vector<unsigned char> readAt(std::ifstream& in, std::uint64_t offset, std::size_t size) {
    std::vector<unsigned char> buf(size);
    in.clear();
    in.seekg(static_cast<std::streamoff>(offset));
    if (!in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(size))) {
        buf.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    }
    return buf;
}

[[noreturn]] void corrupt(const std::filesystem::path& archive, const std::string& what) {
    throw Error(archive.string() + ": a ZIP archive that cannot be read: " + what +
                " (the download may be incomplete)");
}

} // namespace

bool looksLikeZip(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::array<unsigned char, 4> magic{};
    if (!in.read(reinterpret_cast<char*>(magic.data()), 4)) {
        return false;
    }
    const auto sig = static_cast<std::uint32_t>(le(magic.data(), 4));
    return sig == kLocalHeader || sig == kEndOfCentralDirectory;
}

std::vector<ZipMember> listZipMembers(const std::filesystem::path& archive) {
    std::ifstream in(archive, std::ios::binary);
    if (!in) {
        throw Error(archive.string() + ": cannot open the archive");
    }
    in.seekg(0, std::ios::end);
    const auto fileSize = static_cast<std::uint64_t>(in.tellg());
    // The end record is at most 22 + 65535 (comment) bytes from the end.
    const std::uint64_t tail = std::min<std::uint64_t>(fileSize, 22 + 65535);
    const auto buf = readAt(in, fileSize - tail, static_cast<std::size_t>(tail));
    std::int64_t eocd = -1;
    for (std::int64_t i = static_cast<std::int64_t>(buf.size()) - 22; i >= 0; --i) {
        if (le(&buf[static_cast<std::size_t>(i)], 4) == kEndOfCentralDirectory) {
            eocd = i;
            break;
        }
    }
    if (eocd < 0) {
        corrupt(archive, "no end-of-archive record");
    }
    const unsigned char* e = &buf[static_cast<std::size_t>(eocd)];
    std::uint64_t entries = le(e + 10, 2);
    std::uint64_t cdSize = le(e + 12, 4);
    std::uint64_t cdOffset = le(e + 16, 4);
    if (entries == 0xFFFF || cdSize == 0xFFFFFFFF || cdOffset == 0xFFFFFFFF) {
        // ZIP64: a locator just before the end record points at the ZIP64 end record.
        const std::uint64_t eocdAbs = fileSize - tail + static_cast<std::uint64_t>(eocd);
        if (eocdAbs < 20) {
            corrupt(archive, "ZIP64 locator missing");
        }
        const auto loc = readAt(in, eocdAbs - 20, 20);
        if (loc.size() != 20 || le(loc.data(), 4) != kZip64Locator) {
            corrupt(archive, "ZIP64 locator missing");
        }
        const auto z = readAt(in, le(loc.data() + 8, 8), 56);
        if (z.size() != 56 || le(z.data(), 4) != kZip64End) {
            corrupt(archive, "ZIP64 end record missing");
        }
        entries = le(z.data() + 32, 8);
        cdSize = le(z.data() + 40, 8);
        cdOffset = le(z.data() + 48, 8);
    }
    if (cdOffset + cdSize > fileSize || entries > 100000) {
        corrupt(archive, "the central directory lies outside the file");
    }
    const auto cd = readAt(in, cdOffset, static_cast<std::size_t>(cdSize));
    if (cd.size() != cdSize) {
        corrupt(archive, "the central directory is cut short");
    }
    std::vector<ZipMember> members;
    std::size_t p = 0;
    for (std::uint64_t n = 0; n < entries; ++n) {
        if (p + 46 > cd.size() || le(&cd[p], 4) != kCentralHeader) {
            corrupt(archive, "a central directory entry is damaged");
        }
        const unsigned char* h = &cd[p];
        ZipMember m;
        m.flags = static_cast<std::uint16_t>(le(h + 8, 2));
        m.method = static_cast<std::uint16_t>(le(h + 10, 2));
        m.crc32 = static_cast<std::uint32_t>(le(h + 16, 4));
        m.compressedSize = le(h + 20, 4);
        m.size = le(h + 24, 4);
        const std::size_t nameLen = le(h + 28, 2);
        const std::size_t extraLen = le(h + 30, 2);
        const std::size_t commentLen = le(h + 32, 2);
        m.localHeaderOffset = le(h + 42, 4);
        if (p + 46 + nameLen + extraLen + commentLen > cd.size()) {
            corrupt(archive, "a central directory entry is damaged");
        }
        m.name.assign(reinterpret_cast<const char*>(h + 46), nameLen);
        // ZIP64 extra field: the 64-bit values of the fields that are 0xFFFFFFFF, in order.
        const unsigned char* x = h + 46 + nameLen;
        for (std::size_t q = 0; q + 4 <= extraLen;) {
            const auto id = le(x + q, 2);
            const auto len = static_cast<std::size_t>(le(x + q + 2, 2));
            if (id == 0x0001) {
                std::size_t r = q + 4;
                if (m.size == 0xFFFFFFFF && r + 8 <= q + 4 + len) {
                    m.size = le(x + r, 8);
                    r += 8;
                }
                if (m.compressedSize == 0xFFFFFFFF && r + 8 <= q + 4 + len) {
                    m.compressedSize = le(x + r, 8);
                    r += 8;
                }
                if (m.localHeaderOffset == 0xFFFFFFFF && r + 8 <= q + 4 + len) {
                    m.localHeaderOffset = le(x + r, 8);
                }
            }
            q += 4 + len;
        }
        p += 46 + nameLen + extraLen + commentLen;
        if (!m.name.empty() && m.name.back() != '/') {
            members.push_back(std::move(m));
        }
    }
    return members;
}

void extractZipMember(const std::filesystem::path& archive, const ZipMember& member,
                      const std::filesystem::path& out) {
    const std::string where = archive.string() + " (member " + member.name + ")";
    if ((member.flags & 1U) != 0) {
        throw Error(where + ": the member is encrypted");
    }
    if (member.method != 0 && member.method != 8) {
        throw Error(where + ": compression method " + std::to_string(member.method) +
                    " is not supported (only stored and deflate)");
    }
    std::ifstream in(archive, std::ios::binary);
    const auto local = readAt(in, member.localHeaderOffset, 30);
    if (local.size() != 30 || le(local.data(), 4) != kLocalHeader) {
        corrupt(archive, "the local header of " + member.name + " is damaged");
    }
    const std::uint64_t dataOffset =
        member.localHeaderOffset + 30 + le(local.data() + 26, 2) + le(local.data() + 28, 2);
    in.clear();
    in.seekg(static_cast<std::streamoff>(dataOffset));

    std::ofstream output(out, std::ios::binary | std::ios::trunc);
    if (!output) {
        throw Error(where + ": cannot create " + out.string());
    }
    std::vector<char> inBuf(1 << 20);
    std::vector<char> outBuf(1 << 20);
    std::uint64_t remaining = member.compressedSize;
    std::uint64_t written = 0;
    uLong crc = crc32(0L, Z_NULL, 0);
    const auto emit = [&](const char* data, std::size_t n) {
        output.write(data, static_cast<std::streamsize>(n));
        if (!output) {
            throw Error(where + ": cannot write " + out.string() + " (is the disk full?)");
        }
        crc = crc32(crc, reinterpret_cast<const Bytef*>(data), static_cast<uInt>(n));
        written += n;
    };
    if (member.method == 0) {
        while (remaining > 0) {
            const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining, inBuf.size()));
            if (!in.read(inBuf.data(), static_cast<std::streamsize>(n))) {
                corrupt(archive, member.name + " is cut short");
            }
            emit(inBuf.data(), n);
            remaining -= n;
        }
    } else {
        z_stream z{};
        if (inflateInit2(&z, -MAX_WBITS) != Z_OK) {
            throw Error(where + ": cannot start decompression");
        }
        int rc = Z_OK;
        while (rc != Z_STREAM_END) {
            if (z.avail_in == 0) {
                if (remaining == 0) {
                    inflateEnd(&z);
                    corrupt(archive, member.name + " ends before its compressed data does");
                }
                const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(remaining, inBuf.size()));
                if (!in.read(inBuf.data(), static_cast<std::streamsize>(n))) {
                    inflateEnd(&z);
                    corrupt(archive, member.name + " is cut short");
                }
                remaining -= n;
                z.next_in = reinterpret_cast<Bytef*>(inBuf.data());
                z.avail_in = static_cast<uInt>(n);
            }
            z.next_out = reinterpret_cast<Bytef*>(outBuf.data());
            z.avail_out = static_cast<uInt>(outBuf.size());
            rc = inflate(&z, Z_NO_FLUSH);
            if (rc != Z_OK && rc != Z_STREAM_END) {
                inflateEnd(&z);
                corrupt(archive, member.name + " does not decompress (" +
                                     std::string(z.msg != nullptr ? z.msg : "zlib error") + ")");
            }
            try {
                emit(outBuf.data(), outBuf.size() - z.avail_out);
            } catch (...) {
                inflateEnd(&z);
                throw;
            }
        }
        inflateEnd(&z);
    }
    output.close();
    if (!output) {
        throw Error(where + ": cannot finish writing " + out.string() + " (is the disk full?)");
    }
    if (written != member.size || static_cast<std::uint32_t>(crc) != member.crc32) {
        corrupt(archive, member.name + " fails its CRC-32 / size check");
    }
}

namespace {

void putLe(std::string& out, std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) {
        out += static_cast<char>((v >> (8 * i)) & 0xFF);
    }
}

} // namespace

void writeZip(const std::filesystem::path& out,
              const std::vector<std::pair<std::string, std::filesystem::path>>& members) {
    std::ofstream zip(out, std::ios::binary | std::ios::trunc);
    if (!zip) {
        throw Error(out.string() + ": cannot create the archive");
    }
    std::string central;
    std::uint64_t offset = 0;
    for (const auto& [name, path] : members) {
        std::ifstream in(path, std::ios::binary);
        const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (!in && !in.eof()) {
            throw Error(path.string() + ": cannot read it to archive it");
        }
        const uLong crc = crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(data.data()),
                                static_cast<uInt>(data.size()));
        // Raw deflate (no zlib header), as ZIP wants.
        z_stream z{};
        deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
        std::string packed(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
        z.avail_in = static_cast<uInt>(data.size());
        z.next_out = reinterpret_cast<Bytef*>(packed.data());
        z.avail_out = static_cast<uInt>(packed.size());
        const int rc = deflate(&z, Z_FINISH);
        packed.resize(z.total_out);
        deflateEnd(&z);
        if (rc != Z_STREAM_END || data.size() >= 0xFFFFFFFFull || packed.size() >= 0xFFFFFFFFull) {
            throw Error(out.string() + ": cannot compress " + name + " (too large for this archive writer?)");
        }
        std::string local;
        putLe(local, kLocalHeader, 4);
        putLe(local, 20, 2); // version needed
        putLe(local, 0, 2);  // flags
        putLe(local, 8, 2);  // deflate
        putLe(local, 0, 4);  // time, date
        putLe(local, crc, 4);
        putLe(local, packed.size(), 4);
        putLe(local, data.size(), 4);
        putLe(local, name.size(), 2);
        putLe(local, 0, 2);
        local += name;
        zip << local << packed;

        putLe(central, kCentralHeader, 4);
        putLe(central, 20, 2); // made by
        putLe(central, 20, 2); // needed
        putLe(central, 0, 2);
        putLe(central, 8, 2);
        putLe(central, 0, 4);
        putLe(central, crc, 4);
        putLe(central, packed.size(), 4);
        putLe(central, data.size(), 4);
        putLe(central, name.size(), 2);
        putLe(central, 0, 2); // extra
        putLe(central, 0, 2); // comment
        putLe(central, 0, 2); // disk
        putLe(central, 0, 2); // internal attributes
        putLe(central, 0, 4); // external attributes
        putLe(central, offset, 4);
        central += name;
        offset += local.size() + packed.size();
    }
    std::string end;
    putLe(end, kEndOfCentralDirectory, 4);
    putLe(end, 0, 4);
    putLe(end, members.size(), 2);
    putLe(end, members.size(), 2);
    putLe(end, central.size(), 4);
    putLe(end, offset, 4);
    putLe(end, 0, 2);
    zip << central << end;
    zip.close();
    if (!zip) {
        throw Error(out.string() + ": cannot write the archive (is the disk full?)");
    }
}

} // namespace isobar
