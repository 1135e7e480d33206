// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <netcdf.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace isobar {

// netcdf-c (and HDF5 below it) is not thread-safe: every nc_* call in Isobar holds this lock.
// Decoding, unit conversion and COPY encoding happen outside it, on the caller's own buffers.
std::mutex& netcdfMutex();

// Throws isobar::Error "<file>: <what>: <netcdf's reason>" when status is not NC_NOERR.
void ncCheck(int status, const std::filesystem::path& file, const std::string& what);

// An open NetCDF file (read-only). Every method takes netcdfMutex() itself.
class NetcdfHandle {
public:
    // Opens the file or throws isobar::Error naming it and saying what is wrong: missing,
    // unreadable, not a NetCDF file, a ZIP archive, ...
    // `displayName` is what messages call the file (empty: its path).
    static NetcdfHandle open(const std::filesystem::path& path, const std::string& displayName = {});

    NetcdfHandle(NetcdfHandle&& other) noexcept;
    NetcdfHandle& operator=(NetcdfHandle&& other) noexcept;
    NetcdfHandle(const NetcdfHandle&) = delete;
    NetcdfHandle& operator=(const NetcdfHandle&) = delete;
    ~NetcdfHandle();

    int id() const noexcept { return ncid_; }
    const std::filesystem::path& path() const noexcept { return path_; }

    // Attribute helpers; varid NC_GLOBAL for global attributes. Text attributes may be NC_CHAR or
    // NC_STRING (2024 CDS files use both).
    std::optional<std::string> textAttribute(int varid, const std::string& name) const;
    std::optional<double> numberAttribute(int varid, const std::string& name) const;
    // All values of a numeric attribute (missing_value may hold several); empty when absent.
    std::vector<double> numberAttributeValues(int varid, const std::string& name) const;

private:
    NetcdfHandle(int ncid, std::filesystem::path path)
        : ncid_(ncid)
        , path_(std::move(path)) {}

    int ncid_ = -1;
    std::filesystem::path path_;
};

// The files a dataset reads stay closed until read, and only a bounded number stay open at once
// (a user may hand Isobar thousands of NCAR files, one per variable per month), least recently
// used closed first. Every method must be called with netcdfMutex() held.
class NetcdfOpenFiles {
public:
    static NetcdfOpenFiles& instance();

    // The ncid of the file registered under `key`, opening it (and calling `onOpen(ncid)`, e.g. to
    // set chunk caches) when it is not open. Throws isobar::Error naming `displayName`.
    int acquire(std::uint64_t key, const std::filesystem::path& path, const std::string& displayName,
                const std::function<void(int)>& onOpen);
    // Closes the file of `key` if it is open.
    void release(std::uint64_t key);
    std::size_t openCount() const noexcept { return open_.size(); }

    static constexpr std::size_t kMaxOpen = 64;

private:
    struct Entry {
        std::uint64_t key;
        int ncid;
    };
    std::vector<Entry> open_; // most recently used last
};

// A process-unique key for NetcdfOpenFiles.
std::uint64_t nextNetcdfKey();

// "netCDF3 classic", "netCDF3 64-bit offset", "netCDF3 CDF5", "netCDF4 (HDF5)", "netCDF4 classic model"
std::string formatName(int ncFormat);

} // namespace isobar
