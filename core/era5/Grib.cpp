// SPDX-License-Identifier: GPL-3.0-or-later

#include "era5/Grib.h"

#include "util/Error.h"
#include "util/Format.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <eccodes.h>
#include <fcntl.h>
#include <functional>
#include <limits>
#include <memory>
#include <unistd.h>

namespace isobar {

namespace {

// ecCodes prints its own errors on stderr; Isobar says what is wrong in its messages instead.
codes_context* context() {
    static codes_context* ctx = [] {
        codes_context* c = codes_context_get_default();
        codes_context_set_logging_proc(c, [](const codes_context*, int, const char*) {});
        return c;
    }();
    return ctx;
}

struct HandleDeleter {
    void operator()(codes_handle* h) const { codes_handle_delete(h); }
};
using Handle = std::unique_ptr<codes_handle, HandleDeleter>;

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};

std::string textKey(codes_handle* h, const char* key) {
    std::array<char, 256> buf{};
    std::size_t len = buf.size();
    if (codes_get_string(h, key, buf.data(), &len) != CODES_SUCCESS) {
        return {};
    }
    return std::string(buf.data());
}

long longKey(codes_handle* h, const char* key, long fallback = 0) {
    long v = fallback;
    return codes_get_long(h, key, &v) == CODES_SUCCESS ? v : fallback;
}

std::optional<double> doubleKey(codes_handle* h, const char* key) {
    int err = 0;
    if (codes_is_defined(h, key) == 0 || codes_is_missing(h, key, &err) != 0) {
        return std::nullopt;
    }
    double v = 0.0;
    return codes_get_double(h, key, &v) == CODES_SUCCESS ? std::optional<double>(v) : std::nullopt;
}

GribMessage headerOf(codes_handle* h) {
    GribMessage m;
    m.edition = longKey(h, "edition");
    m.paramId = longKey(h, "paramId");
    m.shortName = textKey(h, "shortName");
    m.name = textKey(h, "name");
    m.units = textKey(h, "units");
    m.cfName = textKey(h, "cfName");
    m.typeOfLevel = textKey(h, "typeOfLevel");
    m.level = doubleKey(h, "level").value_or(0.0);
    m.dataDate = longKey(h, "dataDate");
    m.dataTime = longKey(h, "dataTime");
    // Steps in hours whatever unit the message counts in (ERA5's are hours).
    std::size_t unitLength = 1;
    m.stepsInHours = codes_set_string(h, "stepUnits", "h", &unitLength) == CODES_SUCCESS;
    m.startStep = longKey(h, "startStep");
    m.endStep = longKey(h, "endStep");
    m.stepRange = textKey(h, "stepRange");
    m.stepType = textKey(h, "stepType");
    m.gridType = textKey(h, "gridType");
    m.ni = longKey(h, "Ni");
    m.nj = longKey(h, "Nj");
    m.latitudeOfFirst = doubleKey(h, "latitudeOfFirstGridPointInDegrees").value_or(0.0);
    m.longitudeOfFirst = doubleKey(h, "longitudeOfFirstGridPointInDegrees").value_or(0.0);
    m.latitudeOfLast = doubleKey(h, "latitudeOfLastGridPointInDegrees").value_or(0.0);
    m.longitudeOfLast = doubleKey(h, "longitudeOfLastGridPointInDegrees").value_or(0.0);
    if (longKey(h, "ijDirectionIncrementGiven", 1) != 0) {
        m.iIncrement = doubleKey(h, "iDirectionIncrementInDegrees");
        m.jIncrement = doubleKey(h, "jDirectionIncrementInDegrees");
    }
    m.iScansNegatively = longKey(h, "iScansNegatively") != 0;
    m.jScansPositively = longKey(h, "jScansPositively") != 0;
    m.jPointsAreConsecutive = longKey(h, "jPointsAreConsecutive") != 0;
    m.alternativeRowScanning = longKey(h, "alternativeRowScanning") != 0;
    m.marsClass = textKey(h, "class");
    m.stream = textKey(h, "stream");
    m.dataType = textKey(h, "type");
    m.expver = textKey(h, "expver");
    m.number = longKey(h, "number");
    m.values = longKey(h, "numberOfDataPoints");
    m.packing = textKey(h, "packingType");
    m.bitsPerValue = longKey(h, "bitsPerValue");
    return m;
}

// Reads up to `size` bytes at `from`; returns how many it got.
std::size_t readInto(int fd, std::uint64_t from, unsigned char* out, std::size_t size) {
    std::size_t done = 0;
    while (done < size) {
        const ssize_t n = ::pread(fd, out + done, size - done, static_cast<off_t>(from + done));
        if (n <= 0) {
            break;
        }
        done += static_cast<std::size_t>(n);
    }
    return done;
}

// Reads [from, to) of the file.
std::vector<unsigned char> readRange(int fd, std::uint64_t from, std::uint64_t to) {
    std::vector<unsigned char> out(to - from);
    out.resize(readInto(fd, from, out.data(), out.size()));
    return out;
}

std::string bytesText(std::uint64_t n) {
    return std::to_string(n) + (n == 1 ? " byte" : " bytes");
}

[[noreturn]] void noMessage(const std::string& name) {
    throw Error(name + ": no GRIB message could be read (the file starts with \"GRIB\" but holds no "
                       "complete message): the file is damaged or not GRIB");
}

// How far past the previous message the next one's header is looked for (legacy CDS padding is
// under 120 bytes).
constexpr std::uint64_t kHeaderWindow = 4096;

// What scanGrib reads: ecCodes reads the messages through a stream, the bytes between them are
// read by range ([from, to), less where the input ends first).
struct GribInput {
    std::FILE* stream;
    std::uint64_t size;
    std::function<std::vector<unsigned char>(std::uint64_t, std::uint64_t)> range;
};

// Reads the header of every message of `in`, checking that what lies between them is padding.
GribScan scanMessages(const GribInput& in, const std::string& name) {
    GribScan scan;
    scan.fileSize = in.size;
    // Bytes between messages must be padding (NULs): anything else is not GRIB.
    const auto checkGap = [&](std::uint64_t from, std::uint64_t to, bool tail) {
        if (to <= from) {
            return;
        }
        if (to - from > (std::uint64_t{64} << 20)) {
            throw Error(name + ": " + bytesText(to - from) + " at byte " + std::to_string(from) +
                        " are not GRIB" + (tail ? " (a tail that is not GRIB)" : "") +
                        "; cut them off or download the file again");
        }
        const auto bytes = in.range(from, to);
        const auto junk = std::find_if(bytes.begin(), bytes.end(), [](unsigned char c) { return c != 0; });
        if (junk == bytes.end()) {
            scan.paddingBytes += to - from;
            return;
        }
        const std::uint64_t at = from + static_cast<std::uint64_t>(junk - bytes.begin());
        const std::string where = scan.messages.empty()
                                      ? std::string("before the first message")
                                      : "after message " + std::to_string(scan.messages.size());
        throw Error(name + ": " + bytesText(to - at) + " at byte " + std::to_string(at) + " (" + where +
                    ") are not GRIB" +
                    (tail ? ": the file has a tail that is not GRIB (two downloads joined, or an error page "
                            "appended?); cut it off or download the file again"
                          : "; the file is damaged: download it again"));
    };
    const auto cutShort = [&](std::uint64_t start, const std::string& declared) {
        throw Error(name + ": GRIB message " + std::to_string(scan.messages.size() + 1) + " (at byte " +
                    std::to_string(start) + ") is cut short" + declared + ": the file ends at byte " +
                    std::to_string(scan.fileSize) + "; the download is incomplete: download the file again");
    };
    // ecCodes allocates the length a message's section 0 declares before reading it: a damaged
    // length makes it ask for petabytes. The header of the next message (after NUL padding) is
    // checked here first.
    const auto checkDeclaredLength = [&](std::uint64_t from) {
        const auto head = in.range(from, std::min(scan.fileSize, from + kHeaderWindow + 16));
        const std::string_view view(reinterpret_cast<const char*>(head.data()), head.size());
        const auto pos = view.find("GRIB");
        if (pos > kHeaderWindow || head.size() < pos + 16) { // npos too
            return; // no complete section 0 close by: ecCodes looks further and says what it finds
        }
        const auto octet = [&](std::size_t i) {
            return static_cast<std::uint64_t>(head[pos + i]);
        };
        const std::uint64_t start = from + pos;
        std::uint64_t declared = 0;
        if (octet(7) == 1) {
            declared = octet(4) << 16 | octet(5) << 8 | octet(6);
            if ((declared & 0x800000) != 0) {
                return; // a GRIB1 message over 8 MB, whose length ecCodes works out from section 4
            }
        } else if (octet(7) == 2 || octet(7) == 3) {
            // ecCodes reads the experimental edition 3 as edition 2: a 64-bit length at octets 9-16.
            for (std::size_t i = 8; i < 16; ++i) {
                declared = declared << 8 | octet(i);
            }
        } else {
            return; // an edition ecCodes refuses before it allocates anything
        }
        if (declared > scan.fileSize - start) {
            cutShort(start, " (it declares " + bytesText(declared) + ")");
        }
    };
    std::lock_guard lock(gribMutex());
    std::uint64_t previousEnd = 0;
    for (;;) {
        checkDeclaredLength(previousEnd);
        int err = 0;
        Handle h(codes_handle_new_from_file(context(), in.stream, PRODUCT_GRIB, &err));
        if (!h) {
            if (err == CODES_SUCCESS || err == CODES_END_OF_FILE) {
                break;
            }
            // Where the broken message starts: the next "GRIB" after the last good one (looked for in
            // the next megabyte).
            const std::uint64_t to = std::max(previousEnd, std::min(scan.fileSize, previousEnd + (1U << 20)));
            const auto rest = in.range(previousEnd, to);
            const std::string_view view(reinterpret_cast<const char*>(rest.data()), rest.size());
            const auto pos = view.find("GRIB");
            const std::uint64_t start = previousEnd + (pos == std::string_view::npos ? 0 : pos);
            if (err == CODES_PREMATURE_END_OF_FILE) {
                cutShort(start, "");
            }
            throw Error(name + ": GRIB message " + std::to_string(scan.messages.size() + 1) + " (at byte " +
                        std::to_string(start) + ") cannot be read: " + codes_get_error_message(err) +
                        "; the file may be damaged");
        }
        std::size_t length = 0;
        const void* bytes = nullptr;
        codes_get_message(h.get(), &bytes, &length);
        const auto end = static_cast<std::uint64_t>(ftello(in.stream));
        GribMessage m = headerOf(h.get());
        m.length = length;
        m.offset = end >= length ? end - length : 0;
        checkGap(previousEnd, m.offset, false);
        previousEnd = m.offset + m.length;
        scan.messages.push_back(std::move(m));
    }
    if (scan.messages.empty()) {
        noMessage(name);
    }
    checkGap(previousEnd, scan.fileSize, true);
    return scan;
}

} // namespace

std::mutex& gribMutex() {
    static std::mutex m;
    return m;
}

bool looksLikeGrib(const std::filesystem::path& path) {
    std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
    std::array<char, 4> magic{};
    return f && std::fread(magic.data(), 1, magic.size(), f.get()) == magic.size() &&
           std::memcmp(magic.data(), "GRIB", 4) == 0;
}

GribScan scanGrib(const std::filesystem::path& path, const std::string& displayName) {
    const std::string& name = displayName.empty() ? path.string() : displayName;
    std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
    if (!f) {
        throw Error(name + ": cannot open: " + systemErrorText(errno));
    }
    const int fd = fileno(f.get());
    std::error_code ec;
    const std::uint64_t size = std::filesystem::file_size(path, ec);
    return scanMessages(GribInput{f.get(), size,
                                  [fd](std::uint64_t from, std::uint64_t to) {
                                      return readRange(fd, from, to);
                                  }},
                        name);
}

GribScan scanGrib(std::span<const std::byte> bytes, const std::string& displayName) {
    if (bytes.empty()) {
        noMessage(displayName);
    }
    // ecCodes reads messages from a FILE*: one over the bytes, read only ("rb": fmemopen writes
    // nothing, whence the const_cast).
    std::unique_ptr<std::FILE, FileCloser> f(
        fmemopen(const_cast<std::byte*>(bytes.data()), bytes.size(), "rb")); // NOLINT(*-const-cast)
    if (!f) {
        throw Error(displayName + ": cannot read it from memory: " + systemErrorText(errno));
    }
    const auto range = [bytes](std::uint64_t from, std::uint64_t to) {
        to = std::min<std::uint64_t>(to, bytes.size());
        const auto* first = reinterpret_cast<const unsigned char*>(bytes.data());
        return from < to ? std::vector<unsigned char>(first + from, first + to)
                         : std::vector<unsigned char>();
    };
    return scanMessages(GribInput{f.get(), bytes.size(), range}, displayName);
}

void decodeGribValues(const std::filesystem::path& path, const std::string& displayName,
                      const GribMessage& message, std::vector<float>& out) {
    const std::string& name = displayName.empty() ? path.string() : displayName;
    // Buffers kept across calls (gribMutex() is held): a global message is 2 MB of bytes and 8 MB
    // of doubles, and fresh ones would cost more in page faults than the decoding itself.
    static std::vector<unsigned char> bytes;
    static std::vector<double> values;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        throw Error(name + ": cannot open: " + systemErrorText(errno));
    }
    bytes.resize(message.length);
    const std::size_t got = readInto(fd, message.offset, bytes.data(), bytes.size());
    ::close(fd);
    const std::string what = message.shortName + " at " + std::to_string(message.dataDate) + " " +
                             std::to_string(message.dataTime) + " step " + message.stepRange;
    if (got != message.length) {
        throw Error(name + ": cannot read the GRIB message of " + what + " at byte " +
                    std::to_string(message.offset) + ": the file is shorter than when it was opened");
    }
    // A value no ERA5 field reaches marks the bitmap's missing points.
    constexpr double kMissing = 9.87654321e36;
    values.resize(static_cast<std::size_t>(std::max<long>(message.values, 0)));
    Handle h(codes_handle_new_from_message(context(), bytes.data(), bytes.size()));
    if (!h) {
        throw Error(name + ": the GRIB message of " + what + " at byte " + std::to_string(message.offset) +
                    " cannot be read; the file may be damaged");
    }
    codes_set_double(h.get(), "missingValue", kMissing);
    std::size_t n = values.size();
    if (const int err = codes_get_double_array(h.get(), "values", values.data(), &n); err != CODES_SUCCESS) {
        throw Error(name + ": cannot decode the values of " + what + " (GRIB message at byte " +
                    std::to_string(message.offset) + "): " + codes_get_error_message(err));
    }
    out.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        out[i] =
            values[i] == kMissing ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(values[i]);
    }
}

GribValueCache& gribValueCache() {
    static GribValueCache cache;
    return cache;
}

void GribValueCache::reserve(std::size_t bytes) {
    maxBytes_ = std::max(maxBytes_, std::min(bytes, std::size_t{512} << 20));
}

void GribValueCache::forget(const void* owner) {
    for (auto it = entries_.begin(); it != entries_.end();) {
        if (it->owner == owner) {
            bytes_ -= it->values.size() * sizeof(float);
            it = entries_.erase(it);
        } else {
            ++it;
        }
    }
}

const std::vector<float>& GribValueCache::values(const void* owner, const std::filesystem::path& path,
                                                 const std::string& displayName, const GribMessage& message,
                                                 std::size_t index) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
        if (it->owner == owner && it->index == index) {
            entries_.splice(entries_.begin(), entries_, it);
            return entries_.front().values;
        }
    }
    Entry entry{owner, index, {}};
    const std::size_t size = static_cast<std::size_t>(std::max<long>(message.values, 0)) * sizeof(float);
    if (!entries_.empty() && bytes_ + size > maxBytes_) {
        // Reuse the least recently used buffer: no fresh pages to fault in.
        entry.values = std::move(entries_.back().values);
        bytes_ -= entry.values.size() * sizeof(float);
        entries_.pop_back();
    }
    decodeGribValues(path, displayName, message, entry.values);
    bytes_ += entry.values.size() * sizeof(float);
    entries_.push_front(std::move(entry));
    while (bytes_ > maxBytes_ && entries_.size() > 1) {
        bytes_ -= entries_.back().values.size() * sizeof(float);
        entries_.pop_back();
    }
    return entries_.front().values;
}

} // namespace isobar
