// SPDX-License-Identifier: GPL-3.0-or-later

#include "era5/ClassicHeader.h"

#include <netcdf.h>

#include <array>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace isobar {

namespace {

constexpr std::uint32_t kTagDimension = 0x0A;
constexpr std::uint32_t kTagVariable = 0x0B;
constexpr std::uint32_t kTagAttribute = 0x0C;
constexpr std::uint32_t kStreaming = 0xFFFFFFFFu;

std::uint64_t typeSize(std::uint32_t type) {
    switch (type) {
    case 1: // byte
    case 2: // char
    case 7: // ubyte
        return 1;
    case 3: // short
    case 8: // ushort
        return 2;
    case 4: // int
    case 5: // float
    case 9: // uint
        return 4;
    case 6:  // double
    case 10: // int64
    case 11: // uint64
        return 8;
    default:
        return 0;
    }
}

std::uint64_t pad4(std::uint64_t n) {
    return (n + 3) & ~std::uint64_t{3};
}

// Where the header's bytes come from: a file read as it goes (it may be gigabytes), or bytes in
// memory. read() and skip() return false when the input ends first.
class StreamInput {
public:
    explicit StreamInput(std::istream& in)
        : in_(in) {}
    bool read(unsigned char* out, std::size_t n) {
        return static_cast<bool>(in_.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(n)));
    }
    bool skip(std::uint64_t n) {
        in_.ignore(static_cast<std::streamsize>(n));
        return static_cast<bool>(in_);
    }
    bool atEnd() const { return in_.eof(); }

private:
    std::istream& in_;
};

class MemoryInput {
public:
    explicit MemoryInput(std::span<const std::byte> bytes)
        : bytes_(bytes) {}
    bool read(unsigned char* out, std::size_t n) {
        if (n > bytes_.size() - at_) {
            at_ = bytes_.size();
            ended_ = true;
            return false;
        }
        std::memcpy(out, bytes_.data() + at_, n);
        at_ += n;
        return true;
    }
    bool skip(std::uint64_t n) {
        if (n > bytes_.size() - at_) {
            at_ = bytes_.size();
            ended_ = true;
            return false;
        }
        at_ += static_cast<std::size_t>(n);
        return true;
    }
    bool atEnd() const { return ended_; }

private:
    std::span<const std::byte> bytes_;
    std::size_t at_ = 0;
    bool ended_ = false;
};

// Sequential big-endian reader over the header bytes; any overrun marks it failed.
template <typename Input>
class Reader {
public:
    explicit Reader(Input& in)
        : in_(in) {}
    bool ok() const { return ok_; }
    // True when a read failed because the input ended, not because the header made no sense.
    bool hitEnd() const { return in_.atEnd(); }
    // Why the header made no sense (empty: it ended, or it made sense).
    const std::string& damage() const { return damage_; }
    std::uint64_t u32() { return read(4); }
    std::uint64_t u64() { return read(8); }
    void skip(std::uint64_t n) {
        if (ok_ && n > (1u << 30)) {
            fail("declares a name or attribute of " + std::to_string(n) + " bytes");
        }
        ok_ = ok_ && in_.skip(n);
    }
    void fail(std::string why) {
        if (ok_) {
            damage_ = std::move(why);
        }
        ok_ = false;
    }

private:
    std::uint64_t read(std::size_t bytes) {
        std::array<unsigned char, 8> b{};
        if (!ok_ || !in_.read(b.data(), bytes)) {
            ok_ = false;
            return 0;
        }
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < bytes; ++i) {
            v = (v << 8) | b[i];
        }
        return v;
    }

    Input& in_;
    bool ok_ = true;
    std::string damage_;
};

// The header from its magic number on.
template <typename Input>
std::optional<ClassicLayout> parseClassicHeader(Input& in) {
    std::array<unsigned char, 4> magic{};
    if (!in.read(magic.data(), magic.size()) || magic[0] != 'C' || magic[1] != 'D' || magic[2] != 'F') {
        return std::nullopt;
    }
    const int version = magic[3];
    if (version != 1 && version != 2 && version != 5) {
        return std::nullopt;
    }
    const bool cdf5 = version == 5;
    Reader<Input> r(in);
    // A header that makes no sense, unless the input ended first (whatever was read then was 0).
    const auto damaged = [&](std::string why) -> std::optional<ClassicLayout> {
        r.fail(std::move(why));
        return r.hitEnd() ? ClassicLayout{true, 0, {}} : ClassicLayout{false, 0, r.damage()};
    };
    const auto count = [&] {
        return cdf5 ? r.u64() : r.u32();
    }; // nelems, dim lengths, vsize
    const auto offset = [&] {
        return version == 1 ? r.u32() : r.u64();
    };
    const auto name = [&] {
        r.skip(pad4(count()));
    };
    const auto attributes = [&] {
        const std::uint64_t tag = r.u32();
        const std::uint64_t n = count();
        if (tag == 0 && n == 0) {
            return;
        }
        if (tag != kTagAttribute) {
            r.fail("has a list tagged " + std::to_string(tag) + " where attributes belong");
            return;
        }
        for (std::uint64_t a = 0; a < n && r.ok(); ++a) {
            name();
            const auto type = static_cast<std::uint32_t>(r.u32());
            const std::uint64_t values = count();
            const std::uint64_t size = typeSize(type);
            if (size == 0) {
                r.fail("has an attribute of unknown type " + std::to_string(type));
                return;
            }
            if (values > (std::uint64_t{1} << 30) / size) {
                r.fail("declares an attribute of " + std::to_string(values) + " values");
                return;
            }
            r.skip(pad4(values * size));
        }
    };

    const std::uint64_t numrecs = cdf5 ? r.u64() : r.u32();
    if (!cdf5 && numrecs == kStreaming) {
        return std::nullopt;
    }
    // Dimensions.
    std::vector<std::uint64_t> dimLength;
    {
        const std::uint64_t tag = r.u32();
        const std::uint64_t n = count();
        if (!(tag == 0 && n == 0)) {
            if (tag != kTagDimension) {
                return damaged("has a list tagged " + std::to_string(tag) + " where dimensions belong");
            }
            if (n > 100000) {
                return damaged("declares " + std::to_string(n) + " dimensions");
            }
            for (std::uint64_t d = 0; d < n && r.ok(); ++d) {
                name();
                dimLength.push_back(count());
            }
        }
    }
    attributes(); // global attributes
    // Variables.
    struct Var {
        std::uint64_t dataBytes; // without the record dimension
        std::uint64_t begin;
        bool record;
    };
    std::vector<Var> vars;
    {
        const std::uint64_t tag = r.u32();
        const std::uint64_t n = count();
        if (!(tag == 0 && n == 0)) {
            if (tag != kTagVariable) {
                return damaged("has a list tagged " + std::to_string(tag) + " where variables belong");
            }
            if (n > 1000000) {
                return damaged("declares " + std::to_string(n) + " variables");
            }
            for (std::uint64_t v = 0; v < n && r.ok(); ++v) {
                name();
                const std::uint64_t ndims = count();
                if (ndims > NC_MAX_VAR_DIMS) {
                    return damaged("gives a variable " + std::to_string(ndims) + " dimensions");
                }
                std::uint64_t elements = 1;
                bool record = false;
                for (std::uint64_t d = 0; d < ndims && r.ok(); ++d) {
                    const std::uint64_t id = count();
                    if (id >= dimLength.size()) {
                        return damaged("gives a variable dimension " + std::to_string(id) + " of " +
                                       std::to_string(dimLength.size()));
                    }
                    if (dimLength[id] == 0) {
                        record = d == 0;
                        if (!record) {
                            return damaged("gives a variable the record dimension after its first");
                        }
                    } else {
                        elements *= dimLength[id];
                    }
                }
                attributes();
                const auto type = static_cast<std::uint32_t>(r.u32());
                (void)count(); // vsize: clamped for huge variables; computed below instead
                const std::uint64_t begin = offset();
                const std::uint64_t size = typeSize(type);
                if (size == 0) {
                    return damaged("gives a variable the unknown type " + std::to_string(type));
                }
                vars.push_back(Var{elements * size, begin, record});
            }
        }
    }
    if (!r.ok()) {
        return r.hitEnd() ? ClassicLayout{true, 0, {}} : ClassicLayout{false, 0, r.damage()};
    }
    std::uint64_t recordVars = 0;
    std::uint64_t recordSize = 0;
    for (const Var& v : vars) {
        if (v.record) {
            ++recordVars;
            recordSize += pad4(v.dataBytes);
        }
    }
    if (recordVars == 1) {
        // A lone record variable is not padded between records.
        for (const Var& v : vars) {
            if (v.record) {
                recordSize = v.dataBytes;
            }
        }
    }
    std::uint64_t declared = 0;
    for (const Var& v : vars) {
        std::uint64_t end = v.begin + v.dataBytes;
        if (v.record) {
            if (numrecs == 0) {
                continue; // no records: the file may end before where they would begin
            }
            end = v.begin + (numrecs - 1) * recordSize + v.dataBytes;
        }
        declared = std::max(declared, end);
    }
    return ClassicLayout{false, declared, {}};
}

} // namespace

std::optional<ClassicLayout> classicLayout(const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    StreamInput in(file);
    return parseClassicHeader(in);
}

std::optional<ClassicLayout> classicLayout(std::span<const std::byte> file) {
    MemoryInput in(file);
    return parseClassicHeader(in);
}

} // namespace isobar
