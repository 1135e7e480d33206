// SPDX-License-Identifier: GPL-3.0-or-later

#include "era5/SeriesParser.h"

#include "era5/FileConventions.h"
#include "era5/GridFit.h"
#include "era5/SeriesCsv.h"
#include "util/Error.h"
#include "util/Format.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

namespace isobar {

using namespace conventions;

SeriesProduct seriesProduct(const OpenOptions& options, const std::string& fileName,
                            const std::string& provenance, double latitude, double longitude) {
    if (options.product == ProductOverride::Era5Land) {
        return {true, "--product era5-land"};
    }
    if (options.product == ProductOverride::Era5) {
        return {false, "--product era5"};
    }
    // The names of the file itself: an archive member's and its archive's ("dl.zip!reanalysis-era5-
    // land-timeseries-....csv"), never the folders above them (a folder "era5-land-vs-era5" says
    // nothing of a file in it).
    std::vector<std::string> names;
    if (const auto bang = fileName.find('!'); bang != std::string::npos) {
        names.push_back(std::filesystem::path(fileName.substr(bang + 1)).filename().string());
        names.push_back(std::filesystem::path(fileName.substr(0, bang)).filename().string());
    } else {
        names.push_back(std::filesystem::path(fileName).filename().string());
    }
    for (const std::string& shown : names) {
        const std::string said = lower(shown);
        if (contains(said, "era5-land") || contains(said, "era5_land")) {
            return {true, "its name says ERA5-Land (" + shown + ")"};
        }
        if (contains(said, "era5-single-levels") || contains(said, "era5_single_levels")) {
            return {false, "its name says ERA5 single levels (" + shown + ")"};
        }
    }
    if (contains(provenance, "era5-land") || contains(provenance, "era5_land") ||
        contains(provenance, "era5land")) {
        return {true, "its attributes name ERA5-Land"};
    }
    if (contains(provenance, "era5-single-levels") || contains(provenance, "era5_single_levels")) {
        return {false, "its attributes name ERA5 single levels"};
    }
    const std::string point = "(" + formatCoordinate(latitude) + ", " + formatCoordinate(longitude) + ")";
    if (onGrid(latitude, 0.25) && onGrid(longitude, 0.25)) {
        return {false, "its point " + point + " is on ERA5's 0.25 degree grid"};
    }
    if (onGrid(latitude, 0.1) && onGrid(longitude, 0.1)) {
        return {true,
                "its point " + point + " is on ERA5-Land's 0.1 degree grid, not on ERA5's 0.25 degree one"};
    }
    return {false, "nothing names the product and its point " + point + " is on neither grid: taken as ERA5"};
}

bool SeriesParser::looksLikeCsv(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::array<char, 4096> head{};
    in.read(head.data(), head.size());
    const std::string_view text(head.data(), static_cast<std::size_t>(in.gcount()));
    if (looksLikeSeriesCsv(text)) {
        return true;
    }
    // Any other text whose first line has a comma is a CSV too, refused with its header named
    // (netCDF, HDF5, GRIB and ZIP files start with bytes no text has).
    const std::size_t end = text.find('\n');
    if (end == std::string_view::npos) {
        return false;
    }
    std::string_view line = text.substr(0, end);
    line = line.substr(0, 3) == "\xEF\xBB\xBF" ? line.substr(3) : line;
    const bool printable = std::all_of(
        line.begin(), line.end(), [](char c) { return (c >= ' ' && c <= '~') || c == '\t' || c == '\r'; });
    return printable && line.find(',') != std::string_view::npos;
}

void SeriesParser::parseCsv() {
    std::string text;
    {
        std::ifstream in(f_.path_, std::ios::binary);
        if (!in) {
            fail("cannot read the file");
        }
        std::ostringstream all;
        all << in.rdbuf();
        text = std::move(all).str();
    }
    if (!looksLikeSeriesCsv(text)) {
        const std::string first = text.substr(0, std::min<std::size_t>(text.find_first_of("\r\n"), 60));
        fail("neither a NetCDF nor a GRIB file, nor a CSV of the CDS time-series datasets: its first line is "
             "'" +
             first +
             "' (such a CSV starts valid_time,<variables...>,latitude,longitude); check that it is the file "
             "you downloaded");
    }
    SeriesCsv csv = parseSeriesCsv(text, f_.name_);
    text.clear();
    f_.format_ = "CSV";
    f_.layout_ = "CDS time series (CSV)";
    // The header's short names: the parameter each is, and so the units ECMWF's database gives it
    // (a CSV says none).
    std::vector<FileVariable> variables;
    for (std::size_t v = 0; v < csv.variables.size(); ++v) {
        const std::string& name = csv.variables[v];
        std::optional<ParameterMatch> match;
        try {
            match = matchParameter(VariableClues{name, {}, {}, std::nullopt, {}});
        } catch (const ParameterClash& e) {
            fail(std::string("column ") + name + ": " + e.what());
        }
        if (!match || match->parameter == nullptr) {
            fail("column " + name +
                 " of the header is not a parameter ECMWF's parameter database knows by that short name, "
                 "so its units are unknown (the CDS time-series CSV names its variables as the CDS netCDF "
                 "does: u10, t2m, ssrd, ...)");
        }
        FileVariable fv;
        fv.name = name;
        fv.units = match->parameter->units;
        fv.longName = match->parameter->name;
        fv.standardName = match->parameter->cfName;
        fv.type = NC_FLOAT;
        fv.dims = {DimRole::Time};
        auto column = columnOfParameter(fv, f_.name_);
        if (!column) {
            fail("column " + name + ": ECMWF's parameter database does not define it");
        }
        fv.column = std::move(*column);
        fv.paramId = match->parameter->paramId;
        for (const FileVariable& existing : variables) {
            if (existing.column.column == fv.column.column) {
                fail("columns " + existing.name + " and " + name + " would load into column " +
                     fv.column.column + "; refusing to choose");
            }
        }
        variables.push_back(std::move(fv));
    }
    // Catalog variables in the catalog's order, then the others by name (as the other readers).
    const std::vector<std::size_t> order = catalogOrder(variables);
    auto content = std::make_shared<SeriesContent>();
    for (const std::size_t i : order) {
        f_.variables_.push_back(std::move(variables[i]));
        RawBand band;
        band.type = NC_FLOAT;
        band.rows = csv.times.size();
        band.cols = 1;
        band.floats = std::move(csv.values[i]);
        content->values.push_back(std::move(band));
    }
    f_.series_ = std::move(content);
    for (std::size_t s = 0; s < csv.times.size(); ++s) {
        f_.steps_.push_back(FileStep{csv.times[s], s, 0, {}});
    }
    placePoint(csv.latitude, csv.longitude, {});
    f_.stepLevels_ = f_.steps_.size();
}

void SeriesParser::placePoint(double latitude, double longitude, const std::string& provenance) {
    if (options_.means == MeansOverride::Monthly) {
        fail("--product says monthly means, but the file is a time series of the CDS time-series dataset: "
             "hourly values");
    }
    const SeriesProduct product = seriesProduct(options_, f_.name_, provenance, latitude, longitude);
    const double spacing = options_.gridSpacing.value_or(product.era5Land ? 0.1 : 0.25);
    // The CDS writes the point it snapped the request to with float noise (-22.8999999999992):
    // its grid point's coordinates are the row's.
    const auto snapped = [&](double value) {
        const double k = std::round(value / spacing);
        return std::fabs(k * spacing - value) < 1e-6 ? std::round(k * spacing * 1e6) / 1e6 : value;
    };
    f_.latitudes_ = {snapped(latitude)};
    f_.longitudes_ = {snapped(longitude)};
    f_.era5Land_ = product.era5Land;
    GridClues clues;
    clues.declaredIncrement = product.era5Land ? 0.1 : 0.25;
    clues.namedEra5Land = product.era5Land;
    GridFit(f_, options_, clues).place();
    f_.monthly_ = false;
    f_.timeRule_ = "hourly: a series of the CDS time-series dataset";
    f_.notes_.push_back(std::string("a point series of the CDS ") +
                        (product.era5Land ? "ERA5-Land" : "ERA5 single-levels") +
                        " time-series dataset: " + product.why);
    if (product.era5Land) {
        f_.layout_ += ", ERA5-Land";
        std::string names;
        for (const FileVariable& var : f_.variables_) {
            if (var.column.accumulated) {
                names += (names.empty() ? "" : ", ") + var.column.key;
            }
        }
        if (!names.empty()) {
            f_.notes_.push_back(
                "ECMWF's ERA5-Land time series gives " + names +
                " as hourly amounts already (whatever GRIB_stepType says): loaded as given, not turned "
                "into hourly amounts again, ECMWF's small negative values included");
        }
    }
    f_.layout_ += ", single point";
}

} // namespace isobar
