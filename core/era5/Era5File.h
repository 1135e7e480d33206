#pragma once

#include "copy/PgTypes.h"
#include "era5/Netcdf.h"
#include "era5/Variable.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace isobar {

// One target variable as a file stores it.
struct FileVariable {
    Variable variable = Variable::T2m;
    std::string name; // the variable's name in the file
    int varid = -1;
    nc_type type = NC_NAT;             // NC_SHORT (packed), NC_FLOAT or NC_DOUBLE
    double scale = 1.0;                // scale_factor (1 when absent)
    double offset = 0.0;               // add_offset (0 when absent)
    bool packed = false;               // scale_factor or add_offset present
    std::vector<double> missingValues; // _FillValue and missing_value, in the stored type
    std::string units;
    Conversion conversion = Conversion::None;
};

// A raw band read from a file: one variable, one time step, a run of latitude rows, all longitudes.
struct RawBand {
    nc_type type = NC_NAT;
    std::size_t count = 0;
    std::vector<std::int16_t> shorts;
    std::vector<float> floats;
    std::vector<double> doubles;
};

// An opened ERA5 surface file: its grid, time axis and the target variables it holds.
//
// Layout understood today: the classic CDS download and float32 files with a (time|valid_time,
// latitude, longitude) variable shape. Anything else is refused with a message naming the file and
// what was found.
class Era5File {
public:
    // Opens and inspects the file. Throws isobar::Error with a message naming the file.
    static Era5File open(const std::filesystem::path& path);

    const std::filesystem::path& path() const noexcept { return handle_.path(); }
    const std::string& format() const noexcept { return format_; }
    const std::vector<double>& latitudes() const noexcept { return latitudes_; }
    const std::vector<double>& longitudes() const noexcept { return longitudes_; }
    const std::vector<PgTimestamp>& times() const noexcept { return times_; }
    const std::vector<FileVariable>& variables() const noexcept { return variables_; }
    // Data variables that are not one of the six (listed, never loaded).
    const std::vector<std::string>& ignoredVariables() const noexcept { return ignored_; }
    std::uint64_t rowCount() const noexcept {
        return static_cast<std::uint64_t>(times_.size()) * latitudes_.size() * longitudes_.size();
    }
    const FileVariable* find(Variable v) const;

    // Reads one variable at one time step for latitude rows [latBegin, latBegin + latCount), all
    // longitudes, row-major. Serialized on netcdfMutex(); decoding happens elsewhere.
    void readBand(const FileVariable& var, std::size_t timeIndex, std::size_t latBegin, std::size_t latCount,
                  RawBand& out) const;

private:
    explicit Era5File(NetcdfHandle handle)
        : handle_(std::move(handle)) {}

    NetcdfHandle handle_;
    std::string format_;
    std::vector<double> latitudes_;
    std::vector<double> longitudes_;
    std::vector<PgTimestamp> times_;
    std::vector<FileVariable> variables_;
    std::vector<std::string> ignored_;
};

// Turns raw stored values into table values: unpacks (x * scale_factor + add_offset), converts units,
// and marks missing values (_FillValue, missing_value, NaN) as NaN, which the encoder writes as NULL.
// For packed int16 data it precomputes all 65536 results once, so decoding is one table lookup.
class ValueDecoder {
public:
    explicit ValueDecoder(const FileVariable& var);
    void decode(const RawBand& raw, float* out) const;

private:
    const FileVariable* var_;
    std::vector<float> shortTable_; // indexed by (uint16) raw value
};

// Float value a stored value decodes to, computed the straightforward way (no table); NaN when the
// value is missing. The reference the fast path is tested against.
float decodeOne(const FileVariable& var, double stored);

} // namespace isobar
