// SPDX-License-Identifier: GPL-3.0-or-later

#include "geo/Shorelines.h"

#include "era5/Netcdf.h"
#include "util/Error.h"

#include <netcdf.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

namespace isobar::geo {

namespace {

// GSHHG's binned files (GMT's gmt_shore format): the globe in square bins, numbered west to east
// from 0 degrees and north to south from 90 N; each bin holds segments, each segment a run of
// points stored as 16-bit offsets (0..65535) from the bin's south-west corner.
struct BinnedFile {
    double binDegrees = 0.0;
    int binsX = 0;
    int binsY = 0;
    std::vector<int> binFirstSegment;
    std::vector<int> binSegments;
    std::vector<int> segmentFirstPoint;
    std::vector<int> segmentPoints;
    std::vector<int> segmentLevel;
    std::vector<std::uint16_t> dx;
    std::vector<std::uint16_t> dy;
};

enum class FileKind { Shores, Borders };

std::size_t dimensionOf(const NetcdfHandle& file, int varid, const std::filesystem::path& path,
                        const std::string& name) {
    int dims = 0;
    ncCheck(nc_inq_varndims(file.id(), varid, &dims), path, "reading " + name);
    if (dims != 1) {
        throw Error(path.string() + ": " + name + " has " + std::to_string(dims) +
                    " dimensions, not 1: not a GSHHG binned file as GMT writes them");
    }
    int dim = 0;
    ncCheck(nc_inq_vardimid(file.id(), varid, &dim), path, "reading " + name);
    std::size_t length = 0;
    ncCheck(nc_inq_dimlen(file.id(), dim, &length), path, "reading " + name);
    return length;
}

// A whole one-dimensional variable, read with netcdf-c's getter for T (nc_get_var_int, ...).
template <typename T>
std::vector<T> readVariable(const NetcdfHandle& file, const std::filesystem::path& path,
                            const std::string& name, int (*get)(int, int, T*)) {
    int varid = 0;
    ncCheck(nc_inq_varid(file.id(), name.c_str(), &varid), path, "finding " + name);
    std::vector<T> values(dimensionOf(file, varid, path, name));
    if (!values.empty()) {
        ncCheck(get(file.id(), varid, values.data()), path, "reading " + name);
    }
    return values;
}

std::vector<int> readInts(const NetcdfHandle& file, const std::filesystem::path& path,
                          const std::string& name) {
    return readVariable<int>(file, path, name, nc_get_var_int);
}

// The offsets are unsigned 16-bit values kept in netCDF shorts.
std::vector<std::uint16_t> readOffsets(const NetcdfHandle& file, const std::filesystem::path& path,
                                       const std::string& name) {
    const std::vector<short> raw = readVariable<short>(file, path, name, nc_get_var_short);
    std::vector<std::uint16_t> values;
    values.reserve(raw.size());
    for (const short v : raw) {
        values.push_back(static_cast<std::uint16_t>(v));
    }
    return values;
}

int scalar(const NetcdfHandle& file, const std::filesystem::path& path, const std::string& name) {
    const std::vector<int> v = readInts(file, path, name);
    if (v.size() != 1) {
        throw Error(path.string() + ": " + name + " holds " + std::to_string(v.size()) +
                    " values, not 1: not a GSHHG binned file as GMT writes them");
    }
    return v[0];
}

// Every index the bins and segments hold points inside the arrays, so that drawing never reads
// past them: a damaged file is refused here, naming what does not add up.
void checkConsistent(const BinnedFile& f, const std::filesystem::path& path) {
    const auto refuse = [&path](const std::string& what) {
        throw Error(path.string() + ": " + what + ": a damaged GSHHG file (reinstall its package)");
    };
    if (f.binsX <= 0 || f.binsY <= 0 || !(f.binDegrees > 0.0) ||
        std::fabs(f.binDegrees * f.binsX - 360.0) > 1e-6 ||
        std::fabs(f.binDegrees * f.binsY - 180.0) > 1e-6) {
        refuse("its bins do not tile the globe");
    }
    const auto bins = static_cast<std::size_t>(f.binsX) * static_cast<std::size_t>(f.binsY);
    if (f.binFirstSegment.size() != bins || f.binSegments.size() != bins) {
        refuse("it has " + std::to_string(f.binSegments.size()) + " bins, not " + std::to_string(bins));
    }
    const std::size_t segments = f.segmentFirstPoint.size();
    if (f.segmentPoints.size() != segments || f.segmentLevel.size() != segments ||
        f.dx.size() != f.dy.size()) {
        refuse("its segment or point arrays differ in length");
    }
    for (std::size_t b = 0; b < bins; ++b) {
        const long long first = f.binFirstSegment[b];
        const long long count = f.binSegments[b];
        if (count < 0 || (count > 0 && (first < 0 || first + count > static_cast<long long>(segments)))) {
            refuse("bin " + std::to_string(b) + " names segments it does not have");
        }
    }
    for (std::size_t s = 0; s < segments; ++s) {
        const long long first = f.segmentFirstPoint[s];
        const long long count = f.segmentPoints[s];
        if (count < 0 || first < 0 || first + count > static_cast<long long>(f.dx.size())) {
            refuse("segment " + std::to_string(s) + " names points it does not have");
        }
    }
}

BinnedFile readBinned(const std::filesystem::path& path, FileKind kind) {
    // open() and the handle's destructor take netcdfMutex() themselves; the reads between need it.
    const NetcdfHandle file = NetcdfHandle::open(path);
    std::lock_guard lock(netcdfMutex());
    BinnedFile f;
    f.binDegrees = scalar(file, path, "Bin_size_in_minutes") / 60.0;
    f.binsX = scalar(file, path, "N_bins_in_360_longitude_range");
    f.binsY = scalar(file, path, "N_bins_in_180_degree_latitude_range");
    f.binFirstSegment = readInts(file, path, "Id_of_first_segment_in_a_bin");
    f.binSegments = readInts(file, path, "N_segments_in_a_bin");
    f.segmentFirstPoint = readInts(file, path, "Id_of_first_point_in_a_segment");
    if (kind == FileKind::Shores) {
        // Packed: points << 9 | level << 6 | exit << 3 | entry (GMT's gmt_shore.c).
        const std::vector<int> info = readInts(file, path, "Embedded_npts_levels_exit_entry_for_a_segment");
        // Appended, not resized: GCC 12 at -O3 warns of a null dereference in resize() of a vector
        // that may be empty (-Wnull-dereference, a false positive).
        f.segmentPoints.reserve(info.size());
        f.segmentLevel.reserve(info.size());
        for (const int value : info) {
            const auto packed = static_cast<std::uint32_t>(value);
            f.segmentPoints.push_back(static_cast<int>(packed >> 9U));
            f.segmentLevel.push_back(static_cast<int>((packed >> 6U) & 7U));
        }
    } else {
        f.segmentPoints = readInts(file, path, "N_points_for_a_segment");
        f.segmentLevel = readInts(file, path, "Hierarchial_level_of_a_segment"); // GSHHG's spelling
    }
    f.dx = readOffsets(file, path, "Relative_longitude_from_SW_corner_of_bin");
    f.dy = readOffsets(file, path, "Relative_latitude_from_SW_corner_of_bin");
    checkConsistent(f, path);
    return f;
}

std::filesystem::path fileOf(FileKind kind, Resolution resolution) {
    const std::string stem = kind == FileKind::Shores ? "binned_GSHHS_" : "binned_border_";
    return gshhgDirectory() / (stem + resolutionLetter(resolution) + ".nc");
}

// The files read so far, for the life of the process (the maps are redrawn on every resize).
const BinnedFile& cached(FileKind kind, Resolution resolution) {
    static std::mutex mutex;
    static std::map<std::filesystem::path, std::unique_ptr<BinnedFile>> files;
    const std::filesystem::path path = fileOf(kind, resolution);
    std::lock_guard lock(mutex);
    auto& slot = files[path];
    if (!slot) {
        slot = std::make_unique<BinnedFile>(readBinned(path, kind));
    }
    return *slot;
}

// Which segments a map draws: GSHHS levels 1 (land), 2 (lake), 3 (island in a lake), 4 (pond);
// level 6 is Antarctica's grounding line, under the ice shelves whose front (level 1) is the coast.
// Borders: level 1 is national; 2 (states of a few countries) and 3 (maritime) are left out.
bool drawn(FileKind kind, int level, ShoreKind& as) {
    if (kind == FileKind::Borders) {
        as = ShoreKind::Border;
        return level == 1;
    }
    as = level == 1 ? ShoreKind::Coast : ShoreKind::Lake;
    return level >= 1 && level <= 4;
}

void collect(const BinnedFile& f, FileKind kind, const Box& box, std::vector<Shoreline>& out) {
    const double size = f.binDegrees;
    // Bins by their west edge in the box's own longitudes: bin column i (any integer) is data
    // column i mod binsX, its west edge i * size degrees, so lines come out continuous across the
    // date line and the prime meridian alike.
    const auto firstColumn = static_cast<long long>(std::floor(box.west / size));
    const auto lastColumn = static_cast<long long>(std::ceil(box.east / size)) - 1;
    const int topRow = std::max(0, static_cast<int>(std::floor((90.0 - box.north) / size)));
    const int bottomRow = std::min(f.binsY - 1, static_cast<int>(std::ceil((90.0 - box.south) / size)) - 1);
    for (int row = topRow; row <= bottomRow; ++row) {
        const double south = 90.0 - (row + 1) * size;
        for (long long column = firstColumn; column <= lastColumn; ++column) {
            const long long dataColumn = ((column % f.binsX) + f.binsX) % f.binsX;
            const auto bin = static_cast<std::size_t>(row) * static_cast<std::size_t>(f.binsX) +
                             static_cast<std::size_t>(dataColumn);
            const double west = static_cast<double>(column) * size;
            const int first = f.binFirstSegment[bin];
            for (int s = first; s < first + f.binSegments[bin]; ++s) {
                const auto seg = static_cast<std::size_t>(s);
                Shoreline line;
                if (f.segmentPoints[seg] < 2 || !drawn(kind, f.segmentLevel[seg], line.kind)) {
                    continue;
                }
                line.points.reserve(static_cast<std::size_t>(f.segmentPoints[seg]));
                const auto p0 = static_cast<std::size_t>(f.segmentFirstPoint[seg]);
                for (std::size_t p = p0; p < p0 + static_cast<std::size_t>(f.segmentPoints[seg]); ++p) {
                    line.points.push_back(
                        {west + f.dx[p] * size / 65535.0, south + f.dy[p] * size / 65535.0});
                }
                out.push_back(std::move(line));
            }
        }
    }
}

} // namespace

Resolution resolutionFor(double degreesPerPixel) {
    // GSHHG's resolutions keep detail down to ~25, 5, 1, 0.2 and 0.04 km; one degree is ~111 km.
    const double km = degreesPerPixel * 111.0;
    if (km >= 25.0) {
        return Resolution::Crude;
    }
    if (km >= 5.0) {
        return Resolution::Low;
    }
    if (km >= 1.0) {
        return Resolution::Intermediate;
    }
    return km >= 0.2 ? Resolution::High : Resolution::Full;
}

char resolutionLetter(Resolution resolution) {
    switch (resolution) {
    case Resolution::Crude:
        return 'c';
    case Resolution::Low:
        return 'l';
    case Resolution::Intermediate:
        return 'i';
    case Resolution::High:
        return 'h';
    case Resolution::Full:
        return 'f';
    }
    return 'c';
}

const char* resolutionPackage(Resolution resolution) {
    return resolution <= Resolution::Intermediate ? "gmt-gshhg-low" : "gmt-gshhg-high";
}

std::filesystem::path gshhgDirectory() {
    const char* dir = std::getenv("ISOBAR_GSHHG_DIR"); // NOLINT(concurrency-mt-unsafe): read, never set
    return dir != nullptr && *dir != '\0' ? std::filesystem::path(dir) : "/usr/share/gmt-gshhg";
}

Shorelines shorelines(const Box& box, Resolution wanted) {
    Shorelines result;
    // The wanted resolution, else coarser ones, else finer ones: whatever is installed.
    std::vector<Resolution> order;
    for (int r = static_cast<int>(wanted); r >= 0; --r) {
        order.push_back(static_cast<Resolution>(r));
    }
    for (int r = static_cast<int>(wanted) + 1; r <= static_cast<int>(Resolution::Full); ++r) {
        order.push_back(static_cast<Resolution>(r));
    }
    std::optional<Resolution> found;
    std::error_code ec;
    for (const Resolution r : order) {
        if (std::filesystem::is_regular_file(fileOf(FileKind::Shores, r), ec)) {
            found = r;
            break;
        }
    }
    if (!found) {
        result.missing = std::string("coastlines need the Debian package ") +
                         resolutionPackage(Resolution::Crude) + " (not installed: no " +
                         fileOf(FileKind::Shores, Resolution::Crude).string() + ")";
        return result;
    }
    result.resolution = *found;
    if (!(box.north > box.south) || !(box.east > box.west)) {
        return result;
    }
    collect(cached(FileKind::Shores, *found), FileKind::Shores, box, result.lines);
    // Borders come in the same package; a missing border file costs the borders only.
    if (std::filesystem::is_regular_file(fileOf(FileKind::Borders, *found), ec)) {
        collect(cached(FileKind::Borders, *found), FileKind::Borders, box, result.lines);
    }
    return result;
}

} // namespace isobar::geo
