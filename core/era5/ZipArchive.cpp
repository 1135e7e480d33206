// SPDX-License-Identifier: GPL-3.0-or-later

#include "era5/ZipArchive.h"

#include "util/Error.h"

#include <array>
#include <cstring>
#include <fstream>
#include <memory>
#include <span>
#include <zip.h>

namespace isobar {

namespace {

struct Discard {
    void operator()(zip_t* z) const { zip_discard(z); }
};
using Archive = std::unique_ptr<zip_t, Discard>;

struct Close {
    void operator()(zip_file_t* f) const { zip_fclose(f); }
};
using MemberReader = std::unique_ptr<zip_file_t, Close>;

// The error of a zip_open that failed: libzip gives only its code (zip_open), or fills one in
// (zip_source_buffer_create, zip_open_from_source).
class OpenError {
public:
    OpenError() { zip_error_init(&error_); }
    explicit OpenError(int code) { zip_error_init_with_code(&error_, code); }
    ~OpenError() { zip_error_fini(&error_); }
    OpenError(const OpenError&) = delete;
    OpenError& operator=(const OpenError&) = delete;
    zip_error_t* get() { return &error_; }

private:
    zip_error_t error_{};
};

// libzip's error in the words of someone who downloaded the file; its own text for the rest.
std::string reason(zip_error_t* error, const std::string& member = {}) {
    const std::string subject = member.empty() ? "the archive" : member;
    switch (zip_error_code_zip(error)) {
    case ZIP_ER_NOZIP:
        return "no end-of-archive record";
    case ZIP_ER_INCONS:
        return "its central directory does not match the members it lists";
    case ZIP_ER_MULTIDISK:
        return "it is one part of an archive split over several files";
    case ZIP_ER_EOF:
        return subject + " is cut short";
    case ZIP_ER_CRC:
        return subject + " fails its CRC-32 / size check";
    case ZIP_ER_COMPRESSED_DATA:
    case ZIP_ER_ZLIB:
        return subject + " does not decompress (" + zip_error_strerror(error) + ")";
    default:
        return subject + ": " + zip_error_strerror(error);
    }
}

// Errors of the disk or the system, not of the archive's content.
bool systemError(zip_error_t* error) {
    return zip_error_system_type(error) == ZIP_ET_SYS || zip_error_code_zip(error) == ZIP_ER_NOENT ||
           zip_error_code_zip(error) == ZIP_ER_MEMORY;
}

[[noreturn]] void corrupt(const std::string& archive, const std::string& what) {
    throw Error(archive + ": a ZIP archive that cannot be read: " + what +
                " (the download may be incomplete)");
}

[[noreturn]] void fail(const std::string& archive, zip_error_t* error, const std::string& member = {}) {
    if (systemError(error)) {
        throw Error(archive + (member.empty() ? "" : " (member " + member + ")") +
                    ": cannot read the archive: " + zip_error_strerror(error));
    }
    corrupt(archive, reason(error, member));
}

// ZIP_CHECKCONS: the local headers must agree with the central directory, so a damaged archive
// fails here, naming what is wrong, rather than half-way through a member.
Archive openForReading(const std::filesystem::path& archive) {
    int code = ZIP_ER_OK;
    Archive z(zip_open(archive.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code));
    if (!z) {
        fail(archive.string(), OpenError(code).get());
    }
    return z;
}

// The same for an archive in memory, read in place.
Archive openForReading(std::span<const std::byte> bytes, const std::string& name) {
    OpenError error;
    zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, error.get());
    if (source == nullptr) {
        fail(name, error.get());
    }
    Archive z(zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, error.get()));
    if (!z) {
        zip_source_free(source); // kept by libzip only when the archive opens
        fail(name, error.get());
    }
    return z;
}

// The members of an open archive that are files (not directories).
std::vector<ZipMember> filesOf(zip_t* z, const std::string& archive) {
    const zip_int64_t entries = zip_get_num_entries(z, 0);
    std::vector<ZipMember> members;
    for (zip_int64_t i = 0; i < entries; ++i) {
        zip_stat_t st;
        if (zip_stat_index(z, static_cast<zip_uint64_t>(i), 0, &st) != 0) {
            fail(archive, zip_get_error(z));
        }
        ZipMember m;
        m.name = st.name;
        m.index = st.index;
        m.size = st.size;
        m.compressedSize = st.comp_size;
        if (!m.name.empty() && m.name.back() != '/') {
            members.push_back(std::move(m));
        }
    }
    return members;
}

} // namespace

bool looksLikeZip(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::array<char, 4> magic{};
    if (!in.read(magic.data(), magic.size())) {
        return false;
    }
    return std::memcmp(magic.data(), "PK\x03\x04", 4) == 0 || std::memcmp(magic.data(), "PK\x05\x06", 4) == 0;
}

std::vector<ZipMember> listZipMembers(const std::filesystem::path& archive) {
    const Archive z = openForReading(archive);
    return filesOf(z.get(), archive.string());
}

std::vector<ZipMember> listZipMembers(std::span<const std::byte> archive, const std::string& name) {
    const Archive z = openForReading(archive, name);
    return filesOf(z.get(), name);
}

void extractZipMember(const std::filesystem::path& archive, const ZipMember& member,
                      const std::filesystem::path& out) {
    const std::string where = archive.string() + " (member " + member.name + ")";
    const Archive z = openForReading(archive);
    zip_stat_t st;
    if (zip_stat_index(z.get(), member.index, 0, &st) != 0) {
        fail(archive.string(), zip_get_error(z.get()), member.name);
    }
    if (st.encryption_method != ZIP_EM_NONE) {
        throw Error(where + ": the member is encrypted");
    }
    if (zip_compression_method_supported(st.comp_method, 0) == 0) {
        throw Error(where + ": compression method " + std::to_string(st.comp_method) +
                    " is not supported by this libzip");
    }
    const MemberReader in(zip_fopen_index(z.get(), member.index, 0));
    if (!in) {
        fail(archive.string(), zip_get_error(z.get()), member.name);
    }

    std::ofstream output(out, std::ios::binary | std::ios::trunc);
    if (!output) {
        throw Error(where + ": cannot create " + out.string());
    }
    std::vector<char> buf(1 << 20);
    std::uint64_t written = 0;
    // libzip decompresses and, at the member's end, checks the CRC-32: a short read or a
    // mismatch is an error of zip_fread.
    for (;;) {
        const zip_int64_t n = zip_fread(in.get(), buf.data(), buf.size());
        if (n < 0) {
            fail(archive.string(), zip_file_get_error(in.get()), member.name);
        }
        if (n == 0) {
            break;
        }
        output.write(buf.data(), static_cast<std::streamsize>(n));
        if (!output) {
            throw Error(where + ": cannot write " + out.string() + " (is the disk full?)");
        }
        written += static_cast<std::uint64_t>(n);
    }
    output.close();
    if (!output) {
        throw Error(where + ": cannot finish writing " + out.string() + " (is the disk full?)");
    }
    if (written != st.size) {
        corrupt(archive.string(), member.name + " fails its CRC-32 / size check");
    }
}

} // namespace isobar
