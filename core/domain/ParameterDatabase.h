// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace isobar {

// One parameter of ECMWF's parameter database, as the installed ecCodes defines it: what a paramId
// is called, in which units ERA5 stores it, and the names netCDF writers give it.
struct EcmwfParameter {
    long paramId = 0;
    std::string shortName; // ecCodes' shortName ("2t")
    std::string name;      // "2 metre temperature"
    std::string units;     // "K"
    std::string cfVarName; // the netCDF variable name cfgrib and the CDS give it ("t2m")
    std::string cfName;    // its CF standard_name, where ECMWF gives one
    // A GRIB 2 definition of it says typeOfStatisticalProcessing = 1 (an accumulation).
    bool accumulated = false;
};

// ECMWF's parameter database read from ecCodes' definition files (the concept files paramId.def,
// shortName.def, name.def, units.def, cfVarName.def and cfName.def of GRIB 1 and 2, ECMWF's local
// concepts first), joined entry by entry on their identical conditions. ecCodes has no call that
// lists its parameters, and setting each paramId on a GRIB handle stops at an assertion inside the
// library for some of them (aerosol templates), so its own files are read, as it reads them.
class ParameterDatabase {
public:
    // Reads the definitions under `root` (a directory holding grib1/ and grib2/). Throws
    // isobar::Error naming the directory when it holds no parameter.
    static ParameterDatabase read(const std::filesystem::path& root);

    const EcmwfParameter* byParamId(long paramId) const;
    // The parameters netCDF writers name `name` (cfVarName), or ecCodes does (shortName); exact.
    std::vector<const EcmwfParameter*> byVariableName(std::string_view name) const;
    // The parameters of this name ("Lake bottom temperature"), compared case-insensitively.
    std::vector<const EcmwfParameter*> byName(std::string_view name) const;
    // The parameters with this CF standard_name.
    std::vector<const EcmwfParameter*> byCfName(std::string_view cfName) const;

    std::size_t size() const noexcept { return parameters_.size(); }
    const std::filesystem::path& root() const noexcept { return root_; }

private:
    std::filesystem::path root_;
    std::vector<EcmwfParameter> parameters_;
    std::unordered_map<long, std::size_t> byId_;
    std::unordered_multimap<std::string, std::size_t> byVariableName_;
    std::unordered_multimap<std::string, std::size_t> byName_; // lower case
    std::unordered_multimap<std::string, std::size_t> byCfName_;
};

// The directory of definitions the installed ecCodes reads (ECCODES_DEFINITION_PATH, or the one it
// was built with); of a path of several, the first that holds grib2/paramId.def.
std::filesystem::path ecCodesDefinitions();

// The database of the installed ecCodes, read once at first use (about 30 ms). Throws isobar::Error
// naming the directory and the package to install when the definitions are missing.
const ParameterDatabase& ecmwfParameters();

} // namespace isobar
