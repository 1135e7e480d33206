// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "domain/Columns.h"
#include "domain/Grid.h"
#include "domain/Timestamp.h"
#include "domain/Variable.h"
#include "era5/Grib.h"
#include "era5/Netcdf.h"
#include "util/Error.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace isobar {

// What to do with points that are not on the grid (single-point downloads interpolated by the
// CDS, say).
enum class OffGridPolicy : std::uint8_t {
    Refuse,  // the default: refuse the file, naming the point
    Nearest, // load at the nearest grid cell's location_id, keeping the real latitude/longitude
};

// Which product the file holds. ERA5-Land accumulates precipitation and snowfall from 00 UTC, so
// its values must be turned into hourly amounts; ERA5's are hourly already.
enum class ProductOverride : std::uint8_t { Auto, Era5, Era5Land };

// Whether the file's values are hourly (or sampled hourly data) or monthly means. Auto: what the
// file says (GRIB stream and step type, GRIB_stepType, the dataset named in its history), else its
// times are loaded as they are. Never decided by the spacing of its times.
enum class MeansOverride : std::uint8_t { Auto, Hourly, Monthly };

// --product's words: auto, era5, era5-land, hourly, monthly, era5-hourly, era5-monthly,
// era5-land-hourly, era5-land-monthly. nullopt for anything else.
struct ProductChoice {
    ProductOverride product = ProductOverride::Auto;
    MeansOverride means = MeansOverride::Auto;
};
std::optional<ProductChoice> parseProduct(std::string_view word);
inline constexpr const char* kProductWords = "auto, era5, era5-land, hourly, monthly, era5-hourly, "
                                             "era5-monthly, era5-land-hourly or era5-land-monthly";

struct OpenOptions {
    OffGridPolicy offGrid = OffGridPolicy::Refuse;
    // The spacing of the global grid whose location_ids the rows get. Empty: the grid of the
    // product when the file's points are on it (ERA5's 0.25 deg, also for coarser downloads of its
    // points; ERA5-Land's 0.1 deg), else the grid of the file's own spacing (when that divides 360),
    // else the product's grid with the points off it.
    std::optional<double> gridSpacing;
    ProductOverride product = ProductOverride::Auto;
    MeansOverride means = MeansOverride::Auto;
};

// Thrown when a file holds no variable on a latitude/longitude grid; archives use it to tell a member
// without data (a coordinates-only member) from a broken one.
class NoTargetVariables : public Error {
public:
    NoTargetVariables(const std::string& message, std::vector<std::string> found)
        : Error(message)
        , found_(std::move(found)) {}
    const std::vector<std::string>& found() const noexcept { return found_; }

private:
    std::vector<std::string> found_;
};

// The role a dimension plays for a variable.
enum class DimRole : std::uint8_t {
    Time,
    ForecastInit,
    ForecastHour,
    Expver,
    Latitude,
    Longitude,
    Level, // pressure level
    Singleton
};

// One variable of a file that loads into a column, as the file stores it.
struct FileVariable {
    ValueColumn column; // the table column it goes to: a catalog variable, or one the catalog lacks
    std::string name;   // the variable's name in the file
    std::string longName;
    std::string standardName;
    std::optional<long> paramId; // GRIB_paramId, where the file carries it
    // Which rule found its parameter ("GRIB_paramId 167", "name t2m", "long_name '...'"), and
    // whether only long_name or standard_name did (said so in inspect). Empty: ECMWF does not
    // define it.
    std::string matchedBy;
    bool looseMatch = false;
    int varid = -1;
    nc_type type = NC_NAT;                    // NC_SHORT, NC_INT, NC_FLOAT or NC_DOUBLE
    double scale = 1.0;                       // scale_factor (1 when absent)
    double offset = 0.0;                      // add_offset (0 when absent)
    bool packed = false;                      // scale_factor or add_offset present
    std::vector<double> missingValues;        // _FillValue and missing_value, in the stored type
    std::string units;                        // as the file declares them
    Conversion conversion = Conversion::None; // from those units to the column's
    std::vector<DimRole> dims;                // the variable's dimensions in file order
    bool latBeforeLon = true;
    std::string stepType; // GRIB_stepType when the file says (instant, accum, avgad, ...)
    // Positions along the expver dimension, most trusted first (final ERA5 before ERA5T).
    std::vector<std::size_t> expverOrder;
    // ERA5-Land accumulation since 00 UTC: the hourly amount is this hour's value minus the last.
    bool accumulatedSinceMidnight = false;
    // How a GRIB file packs it ("GRIB1 grid_simple, 16 bits"); empty for NetCDF.
    std::string gribStorage;
    // Where a GRIB file's messages of it come from: "analyses", "forecasts from 06, 18 UTC at steps
    // 1-12 h"; empty for NetCDF.
    std::string gribTiming;
};

// For a GRIB file: its messages and which one holds each (variable, step, level). The values of
// the messages read last are in gribValueCache(), dropped when this goes.
struct GribContent {
    std::vector<GribMessage> messages;
    std::size_t steps = 0;
    std::size_t levels = 1;
    std::vector<std::int32_t> table; // [(variable * steps + step) * levels + level]: message, -1 none
    std::uint64_t paddingBytes = 0;

    GribContent() = default;
    GribContent(const GribContent&) = delete;
    GribContent& operator=(const GribContent&) = delete;
    ~GribContent() {
        std::lock_guard lock(gribMutex());
        gribValueCache().forget(this);
    }

    std::int32_t& at(std::size_t variable, std::size_t step, std::size_t level) {
        return table[(variable * steps + step) * levels + level];
    }
    std::int32_t at(std::size_t variable, std::size_t step, std::size_t level) const {
        return table[(variable * steps + step) * levels + level];
    }
};

// One time step of a file: its valid time and where it is stored.
struct FileStep {
    PgTimestamp time;
    std::size_t timeIndex = 0; // along the time dimension (or forecast_initial_time)
    std::size_t hourIndex = 0; // along forecast_hour, for forecast files
    std::string expver;        // the step's expver label when the file has one per step ("0001", "0005")
};

// A raw slab read from a file: one variable at one time step (and expver), a run of file latitude
// rows, all longitudes, in the file's own order (latitude-major unless latMajor is false).
struct RawBand {
    nc_type type = NC_NAT;
    std::size_t rows = 0;
    std::size_t cols = 0;
    bool latMajor = true;
    std::size_t count() const { return rows * cols; }
    std::vector<std::int16_t> shorts;
    std::vector<std::int32_t> ints;
    std::vector<float> floats;
    std::vector<double> doubles;
};

// A point series (the CDS time-series datasets: one grid point, years of hours): each variable's
// values at every step along the file's time axis (rows = steps, cols = 1), read whole when the file
// is opened - a CSV has no other copy to read from, and a netCDF series is read in one call per
// variable instead of one per hour.
struct SeriesContent {
    std::vector<RawBand> values; // per variable of the file, in variables() order
};

// A contiguous run of columns: file columns fileCol, fileCol + step, ... go to box columns
// boxCol, boxCol + 1, ...
struct ColumnRun {
    std::size_t fileCol = 0;
    std::size_t boxCol = 0;
    std::size_t length = 0;
    int step = 1;
};

// An opened ERA5 file, NetCDF or GRIB (told apart by content): layout, grid, time axis, pressure
// levels and the variables it holds. Detects the common layouts (classic CDS, CDS 2024, expver dimension,
// NCAR RDA analysis and forecast files, ERA5-Land, monthly means, regional boxes in any orientation and
// dimension order, single levels and pressure levels) and refuses anything else with a message naming the
// file and what was found.
class Era5File {
public:
    // Opens and inspects `path`. `displayName` is what messages call it (an archive member is
    // "archive.nc!member.nc"); empty: the path. Throws isobar::Error naming the file.
    static Era5File open(const std::filesystem::path& path, const OpenOptions& options = {},
                         const std::string& displayName = {});

    Era5File(Era5File&& other) noexcept;
    Era5File& operator=(Era5File&& other) noexcept;
    Era5File(const Era5File&) = delete;
    Era5File& operator=(const Era5File&) = delete;
    ~Era5File();

    const std::filesystem::path& path() const noexcept { return path_; }
    const std::string& name() const noexcept { return name_; }
    // What identifies the file across runs, for the resume ledger: its name (without directory)
    // and size, "e5.oper.an.sfc.nc:8294112". Moving the file elsewhere keeps it; a new download
    // of another size does not.
    const std::string& identity() const noexcept { return identity_; }
    const std::string& format() const noexcept { return format_; }
    const std::string& layout() const noexcept { return layout_; }
    bool era5Land() const noexcept { return era5Land_; }
    bool monthlyMeans() const noexcept { return monthly_; }
    // What decided monthlyMeans(): "monthly means: GRIB_stepType avgad (tp)", "hourly: GRIB stream
    // oper", "times as stored: the file does not say whether it holds monthly means".
    const std::string& timeRule() const noexcept { return timeRule_; }

    const GlobalGrid& grid() const noexcept { return grid_; }
    const GridBox& box() const noexcept { return box_; }
    bool latitudesAscending() const noexcept { return latAscending_; }
    bool gridSpacingAssumed() const noexcept { return gridSpacingAssumed_; }
    bool offGrid() const noexcept { return offGrid_; }
    // How far apart the file's own points are (empty along an axis of one point): the grid's step,
    // a multiple of it for a coarser grid on this one, anything for points off the grid.
    std::optional<double> latitudeSpacing() const noexcept { return latSpacing_; }
    std::optional<double> longitudeSpacing() const noexcept { return lonSpacing_; }
    // "1 deg", "0.25 x 0.25025 deg" (latitude x longitude); empty for a single point.
    std::string spacingText() const;
    // Coordinates as stored, in file order.
    const std::vector<double>& latitudes() const noexcept { return latitudes_; }
    const std::vector<double>& longitudes() const noexcept { return longitudes_; }
    // The coordinates of the box's rows (north to south) and columns (west to east), as the file
    // stores them (real positions, also for points snapped to the grid).
    std::vector<double> boxLatitudes() const;
    std::vector<double> boxLongitudes() const;
    const std::vector<ColumnRun>& columnRuns() const noexcept { return columnRuns_; }
    // The file rows that hold box rows [boxRow, boxRow + count).
    std::size_t firstFileRow(std::size_t boxRow, std::size_t count) const {
        return latAscending_ ? box_.rows - boxRow - count : boxRow;
    }

    const std::vector<FileStep>& steps() const noexcept { return steps_; }
    // Surface (single-level) or pressure levels; levels() are the pressure levels in hPa, in file
    // order (empty for a surface file).
    Vertical vertical() const noexcept {
        return levels_.empty() ? Vertical::Surface : Vertical::PressureLevels;
    }
    const std::vector<double>& levels() const noexcept { return levels_; }
    const std::vector<FileVariable>& variables() const noexcept { return variables_; }
    // Whether a variable needs the hour before each hour (accumulated since midnight).
    bool accumulatesSinceMidnight() const {
        return std::any_of(variables_.begin(), variables_.end(),
                           [](const FileVariable& v) { return v.accumulatedSinceMidnight; });
    }
    // Data variables that cannot be loaded, with the reason ("time_bnds: not on the grid").
    const std::vector<std::string>& ignoredVariables() const noexcept { return ignored_; }
    // Facts worth telling the user (expver mix, assumed grid spacing, accumulation handling, ...).
    const std::vector<std::string>& notes() const noexcept { return notes_; }
    std::uint64_t rowCount() const noexcept {
        return static_cast<std::uint64_t>(stepLevels_) * box_.rows * box_.cols;
    }
    // Whether the file holds variable `variable` at step `step` and level `level`: always for
    // NetCDF; a GRIB file may lack some (a message per variable, time and level).
    bool provides(std::size_t variable, std::size_t step, std::size_t level) const {
        return !grib_ || grib_->at(variable, step, level) >= 0;
    }
    // A point series of the CDS time-series datasets (a CSV, or a netCDF file of one point with
    // scalar latitude and longitude): one box cell, its values held in memory.
    bool pointSeries() const noexcept { return series_ != nullptr; }
    // The GRIB messages behind the file; nullptr for NetCDF.
    const GribContent* grib() const noexcept { return grib_.get(); }
    // The file's variable for a column key ("t2m", or an unknown variable's column), if any.
    const FileVariable* find(std::string_view key) const;
    const FileVariable* find(Variable v) const { return find(spec(v).shortName); }

    // Reads one variable at one step (and position along expver, and pressure level) for file rows
    // [fileRow, fileRow + rowCount), all longitudes. Serialized on netcdfMutex(); decoding
    // happens elsewhere. The file is opened on demand (see NetcdfOpenFiles).
    void readRaw(const FileVariable& var, const FileStep& step, std::size_t expverPosition, std::size_t level,
                 std::size_t fileRow, std::size_t rowCount, RawBand& out) const;
    // A point series' values of one variable at `count` consecutive steps of its time axis from
    // `first` on: out.rows = count, one value each (the series is in memory: no lock).
    void readSeries(const FileVariable& var, const FileStep& first, std::size_t count, RawBand& out) const;

private:
    Era5File() = default;

    void readGrib(const FileVariable& var, const FileStep& step, std::size_t level, std::size_t fileRow,
                  std::size_t rowCount, RawBand& out) const;

    // Per-variable HDF5 chunk cache sizes, applied whenever the file is (re)opened.
    struct ChunkCache {
        int varid;
        std::size_t bytes;
        std::size_t slotCount;
    };

    std::filesystem::path path_;
    std::uint64_t key_ = 0; // in NetcdfOpenFiles
    std::vector<ChunkCache> chunkCaches_;
    std::string name_;
    std::string identity_;
    std::string format_;
    std::string layout_;
    bool era5Land_ = false;
    bool monthly_ = false;
    std::string timeRule_;
    GlobalGrid grid_;
    GridBox box_;
    bool latAscending_ = false;
    bool gridSpacingAssumed_ = false;
    bool offGrid_ = false;
    std::optional<double> latSpacing_;
    std::optional<double> lonSpacing_;
    std::vector<double> latitudes_;
    std::vector<double> longitudes_;
    std::vector<std::int32_t> lonIndex_; // global column of each file column
    std::vector<ColumnRun> columnRuns_;
    std::vector<FileStep> steps_;
    std::vector<double> levels_; // hPa, file order
    std::vector<FileVariable> variables_;
    std::vector<std::string> ignored_;
    std::vector<std::string> notes_;
    std::size_t latLength_ = 0;
    std::size_t lonLength_ = 0;
    std::size_t stepLevels_ = 0; // (step, level) pairs with data
    std::shared_ptr<GribContent> grib_;
    std::shared_ptr<const SeriesContent> series_;

    friend class NetcdfParser;
    friend class SeriesParser;
    friend class GribParser;
    friend class Dataset; // loadAsStored()
    friend class GridFit;
};

} // namespace isobar
