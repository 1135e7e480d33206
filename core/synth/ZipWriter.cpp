// SPDX-License-Identifier: GPL-3.0-or-later

#include "synth/ZipWriter.h"

#include "util/Error.h"

#include <memory>
#include <zip.h>

namespace isobar {

namespace {

struct Discard {
    void operator()(zip_t* z) const { zip_discard(z); }
};

std::string openErrorText(int code) {
    zip_error_t error{};
    zip_error_init_with_code(&error, code);
    std::string text = zip_error_strerror(&error);
    zip_error_fini(&error);
    return text;
}

} // namespace

void writeZip(const std::filesystem::path& out,
              const std::vector<std::pair<std::string, std::filesystem::path>>& members) {
    int code = ZIP_ER_OK;
    std::unique_ptr<zip_t, Discard> z(zip_open(out.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code));
    if (!z) {
        throw Error(out.string() + ": cannot create the archive: " + openErrorText(code));
    }
    const auto failed = [&z] {
        return std::string(zip_error_strerror(zip_get_error(z.get())));
    };
    for (const auto& [name, path] : members) {
        // Read when the archive is written, at zip_close.
        zip_source_t* source = zip_source_file(z.get(), path.c_str(), 0, -1);
        if (source == nullptr) {
            throw Error(path.string() + ": cannot read it to archive it: " + failed());
        }
        const zip_int64_t index = zip_file_add(z.get(), name.c_str(), source, ZIP_FL_ENC_UTF_8);
        if (index < 0) {
            zip_source_free(source);
            throw Error(out.string() + ": cannot add " + name + ": " + failed());
        }
        if (zip_set_file_compression(z.get(), static_cast<zip_uint64_t>(index), ZIP_CM_DEFLATE, 0) != 0) {
            throw Error(out.string() + ": cannot deflate " + name + ": " + failed());
        }
    }
    // zip_close writes a temporary file beside `out` and renames it; on failure the archive is
    // left to the deleter, which discards it.
    if (zip_close(z.get()) != 0) {
        throw Error(out.string() + ": cannot write the archive: " + failed());
    }
    (void)z.release(); // zip_close freed it
}

} // namespace isobar
