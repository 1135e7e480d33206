#pragma once

// Naming and unit conventions of ERA5 files, shared by the Era5File readers. Not a public API.

#include "domain/Variable.h"
#include "util/Format.h"

#include <netcdf.h>

#include <optional>
#include <string>

namespace isobar::conventions {

std::string lower(std::string s);
bool contains(const std::string& haystack, const char* needle);
// Variables that describe the data rather than being data: never "ignored variables".
bool isAuxiliary(const std::string& name);
// The conversion for a variable given the units its file declares, or an error naming both.
Conversion conversionFor(Variable v, const std::string& unitsText, const std::string& file,
                         const std::string& varName);
double defaultFill(nc_type type);
std::string typeName(nc_type type);

struct DimInfo {
    std::string name;
    std::size_t length = 0;
};

} // namespace isobar::conventions
