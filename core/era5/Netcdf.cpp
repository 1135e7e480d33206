// SPDX-License-Identifier: GPL-3.0-or-later

#include "era5/Netcdf.h"

#include "era5/ClassicHeader.h"
#include "util/Error.h"

#include <H5Epublic.h>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>
#include <utility>

namespace isobar {

std::mutex& netcdfMutex() {
    static std::mutex mutex;
    // netcdf-c turns HDF5's automatic error printing off once, on the thread that first opens a
    // netCDF-4 file; in a thread-safe HDF5 that setting is per thread, so every other thread (the
    // load's reader, the app's inspection pool) printed pages of "HDF5-DIAG" for each attribute
    // netcdf-c merely probes. netcdf-c reports every error itself.
    thread_local bool silenced = false;
    if (!silenced) {
        // Called before the caller locks: the first call on a thread cannot be holding the lock.
        const std::lock_guard lock(mutex);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
        silenced = true;
    }
    return mutex;
}

void ncCheck(int status, const std::filesystem::path& file, const std::string& what) {
    if (status != NC_NOERR) {
        throw Error(file.string() + ": " + what + ": " + nc_strerror(status));
    }
}

namespace {

// Looks at the first bytes so that a wrong file gets a message about what it is, not only
// netcdf-c's "Unknown file format".
std::string sniff(const std::filesystem::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        const int err = errno;
        if (err == ENOENT) {
            return "no such file";
        }
        if (err == EACCES) {
            return "permission denied (the file is not readable by this user)";
        }
        return std::string("cannot open it: ") + systemErrorText(err);
    }
    std::array<unsigned char, 8> magic{};
    const ssize_t n = ::read(fd, magic.data(), magic.size());
    ::close(fd);
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        return "is a directory, not a file";
    }
    if (n <= 0) {
        return "the file is empty";
    }
    if (n >= 4 && magic[0] == 'P' && magic[1] == 'K' && magic[2] == 3 && magic[3] == 4) {
        return "is a ZIP archive, not a NetCDF or GRIB file";
    }
    const bool cdf = n >= 4 && magic[0] == 'C' && magic[1] == 'D' && magic[2] == 'F';
    const bool hdf = n >= 8 && magic[0] == 0x89 && magic[1] == 'H' && magic[2] == 'D' && magic[3] == 'F';
    if (!cdf && !hdf) {
        return "neither a NetCDF nor a GRIB file";
    }
    return {};
}

} // namespace

NetcdfHandle NetcdfHandle::open(const std::filesystem::path& path, const std::string& displayName) {
    const std::string name = displayName.empty() ? path.string() : displayName;
    if (std::string problem = sniff(path); !problem.empty()) {
        throw Error(name + ": " + problem);
    }
    // A classic header is checked before netcdf-c reads it: netcdf-c allocates what a damaged
    // header declares before it finds out (gigabytes for one name).
    if (const auto layout = classicLayout(path)) {
        std::error_code ec;
        const auto actual = std::filesystem::file_size(path, ec);
        if (layout->headerTruncated) {
            throw Error(name + ": the file is truncated or corrupt: it ends inside its own header, after " +
                        std::to_string(actual) + " bytes (an interrupted download?)");
        }
        if (!layout->damage.empty()) {
            throw Error(name + ": the file is truncated or corrupt: its netCDF header " + layout->damage +
                        " (a damaged download?)");
        }
        if (!ec && actual < layout->declaredSize) {
            throw Error(name + ": the file is truncated or corrupt: its header declares " +
                        std::to_string(layout->declaredSize) + " bytes but the file has only " +
                        std::to_string(actual) + " (an interrupted download?)");
        }
    }
    int ncid = -1;
    int status = NC_NOERR;
    {
        std::lock_guard lock(netcdfMutex());
        status = nc_open(path.c_str(), NC_NOWRITE, &ncid);
    }
    if (status != NC_NOERR) {
        throw Error(name + ": cannot open it as NetCDF (the file may be truncated or corrupt): " +
                    nc_strerror(status));
    }
    return NetcdfHandle(ncid, path);
}

NetcdfHandle::NetcdfHandle(NetcdfHandle&& other) noexcept
    : ncid_(std::exchange(other.ncid_, -1))
    , path_(std::move(other.path_)) {}

NetcdfHandle& NetcdfHandle::operator=(NetcdfHandle&& other) noexcept {
    if (this != &other) {
        if (ncid_ >= 0) {
            std::lock_guard lock(netcdfMutex());
            nc_close(ncid_);
        }
        ncid_ = std::exchange(other.ncid_, -1);
        path_ = std::move(other.path_);
    }
    return *this;
}

NetcdfHandle::~NetcdfHandle() {
    if (ncid_ >= 0) {
        std::lock_guard lock(netcdfMutex());
        nc_close(ncid_);
    }
}

std::optional<std::string> NetcdfHandle::textAttribute(int varid, const std::string& name) const {
    std::lock_guard lock(netcdfMutex());
    nc_type type = NC_NAT;
    size_t length = 0;
    if (nc_inq_att(ncid_, varid, name.c_str(), &type, &length) != NC_NOERR) {
        return std::nullopt;
    }
    if (type == NC_CHAR) {
        std::string value(length, '\0');
        if (length > 0 && nc_get_att_text(ncid_, varid, name.c_str(), value.data()) != NC_NOERR) {
            return std::nullopt;
        }
        while (!value.empty() && value.back() == '\0') {
            value.pop_back();
        }
        return value;
    }
    if (type == NC_STRING && length >= 1) {
        std::vector<char*> values(length, nullptr);
        if (nc_get_att_string(ncid_, varid, name.c_str(), values.data()) != NC_NOERR) {
            return std::nullopt;
        }
        std::string value = values[0] != nullptr ? values[0] : "";
        nc_free_string(length, values.data());
        return value;
    }
    return std::nullopt;
}

std::vector<double> NetcdfHandle::numberAttributeValues(int varid, const std::string& name) const {
    std::lock_guard lock(netcdfMutex());
    nc_type type = NC_NAT;
    size_t length = 0;
    if (nc_inq_att(ncid_, varid, name.c_str(), &type, &length) != NC_NOERR || length < 1 || type == NC_CHAR ||
        type == NC_STRING) {
        return {};
    }
    std::vector<double> values(length);
    if (nc_get_att_double(ncid_, varid, name.c_str(), values.data()) != NC_NOERR) {
        return {};
    }
    return values;
}

std::optional<double> NetcdfHandle::numberAttribute(int varid, const std::string& name) const {
    const std::vector<double> values = numberAttributeValues(varid, name);
    if (values.empty()) {
        return std::nullopt;
    }
    return values.front();
}

NetcdfOpenFiles& NetcdfOpenFiles::instance() {
    static NetcdfOpenFiles files;
    return files;
}

std::uint64_t nextNetcdfKey() {
    static std::atomic<std::uint64_t> next{1};
    return next++;
}

int NetcdfOpenFiles::acquire(std::uint64_t key, const std::filesystem::path& path,
                             const std::string& displayName, const std::function<void(int)>& onOpen) {
    for (auto it = open_.begin(); it != open_.end(); ++it) {
        if (it->key == key) {
            const Entry e = *it;
            open_.erase(it);
            open_.push_back(e);
            return e.ncid;
        }
    }
    while (open_.size() >= kMaxOpen) {
        nc_close(open_.front().ncid);
        open_.erase(open_.begin());
    }
    int ncid = -1;
    const int status = nc_open(path.c_str(), NC_NOWRITE, &ncid);
    if (status != NC_NOERR) {
        throw Error(displayName + ": cannot open it again for reading (was it moved, deleted or changed?): " +
                    nc_strerror(status));
    }
    if (onOpen) {
        onOpen(ncid);
    }
    open_.push_back(Entry{key, ncid});
    return ncid;
}

void NetcdfOpenFiles::release(std::uint64_t key) {
    for (auto it = open_.begin(); it != open_.end(); ++it) {
        if (it->key == key) {
            nc_close(it->ncid);
            open_.erase(it);
            return;
        }
    }
}

std::string formatName(int ncFormat) {
    switch (ncFormat) {
    case NC_FORMAT_CLASSIC:
        return "netCDF3 classic";
    case NC_FORMAT_64BIT_OFFSET:
        return "netCDF3 64-bit offset";
    case NC_FORMAT_CDF5:
        return "netCDF3 CDF5";
    case NC_FORMAT_NETCDF4:
        return "netCDF4 (HDF5)";
    case NC_FORMAT_NETCDF4_CLASSIC:
        return "netCDF4 classic model";
    default:
        return "unknown NetCDF format " + std::to_string(ncFormat);
    }
}

} // namespace isobar
