// SPDX-License-Identifier: GPL-3.0-or-later

#include "era5/Dataset.h"

#include "era5/BandReader.h"
#include "era5/FileConventions.h"
#include "era5/TimeUnits.h"
#include "era5/ZipArchive.h"
#include "util/Error.h"
#include "util/Format.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <set>
#include <sys/stat.h>
#include <tuple>
#include <utility>

namespace isobar {

namespace {

bool sameValues(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) {
            return false;
        }
    }
    return true;
}

std::filesystem::path makePrivateTempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/isobar-unzip-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
        throw Error("cannot create a temporary directory to unpack a ZIP archive in " + pattern + ": " +
                    systemErrorText(errno));
    }
    return pattern;
}

} // namespace

std::vector<std::filesystem::path> expandInputs(const std::vector<std::filesystem::path>& paths) {
    std::vector<std::filesystem::path> out;
    for (const auto& path : paths) {
        std::error_code ec;
        if (!std::filesystem::is_directory(path, ec)) {
            out.push_back(path);
            continue;
        }
        std::vector<std::filesystem::path> found;
        for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
            std::string ext = entry.path().extension().string();
            std::transform(ext.begin(), ext.end(), ext.begin(),
                           [](unsigned char c) { return std::tolower(c); });
            if (entry.is_regular_file(ec) &&
                (ext == ".nc" || ext == ".nc4" || ext == ".netcdf" || ext == ".zip" || ext == ".grib" ||
                 ext == ".grb" || ext == ".grib1" || ext == ".grib2" || ext == ".grb2" || ext == ".csv")) {
                found.push_back(entry.path());
            }
        }
        if (ec) {
            throw Error(path.string() + ": cannot list the directory: " + ec.message());
        }
        if (found.empty()) {
            throw Error(path.string() + ": a directory without NetCDF or GRIB files (*.nc, *.nc4, *.netcdf, "
                                        "*.zip, *.grib, *.grb, *.grib2, *.grb2)");
        }
        std::sort(found.begin(), found.end());
        out.insert(out.end(), found.begin(), found.end());
    }
    return out;
}

Dataset::Dataset(Dataset&& other) noexcept {
    *this = std::move(other);
}

Dataset& Dataset::operator=(Dataset&& other) noexcept {
    if (this != &other) {
        files_.clear();
        if (!extractedDir_.empty()) {
            std::error_code ec;
            std::filesystem::remove_all(extractedDir_, ec);
        }
        files_ = std::move(other.files_);
        steps_ = std::move(other.steps_);
        geometries_ = std::move(other.geometries_);
        grid_ = other.grid_;
        era5Land_ = other.era5Land_;
        monthly_ = other.monthly_;
        timeRule_ = std::move(other.timeRule_);
        rows_ = other.rows_;
        vertical_ = other.vertical_;
        levels_ = std::move(other.levels_);
        variables_ = std::move(other.variables_);
        columns_ = std::move(other.columns_);
        columnVariable_ = std::move(other.columnVariable_);
        selection_ = std::move(other.selection_);
        notes_ = std::move(other.notes_);
        extractedDir_ = std::exchange(other.extractedDir_, {});
    }
    return *this;
}

Dataset::~Dataset() {
    files_.clear(); // close before the extracted members are removed
    if (!extractedDir_.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(extractedDir_, ec);
    }
}

std::string Dataset::productName() const {
    return std::string(era5Land_ ? "ERA5-Land" : "ERA5") + (monthly_ ? " monthly means" : " hourly");
}

std::string Dataset::timeRule() const {
    return timeRule_;
}

class Dataset::Builder {
public:
    Builder(Dataset& d, const OpenOptions& options)
        : d_(d)
        , options_(options) {}

    void openAll(const std::vector<std::filesystem::path>& paths) {
        if (paths.empty()) {
            throw Error("no input files given");
        }
        std::set<std::pair<dev_t, ino_t>> seen;
        for (const auto& path : paths) {
            struct stat st {};
            if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
                if (!seen.insert({st.st_dev, st.st_ino}).second) {
                    d_.notes_.push_back(path.string() + " was given more than once; read once");
                    continue;
                }
            }
            if (looksLikeZip(path)) {
                openArchive(path);
            } else {
                d_.files_.push_back(Era5File::open(path, options_));
            }
        }
    }

    void merge() {
        checkAgreement();
        collectVariables();
        collectSteps();
        if (std::any_of(d_.files_.begin(), d_.files_.end(),
                        [](const Era5File& f) { return f.accumulatesSinceMidnight(); })) {
            linkPreviousHours(); // (not for a series: a map of its every step, 10 % of opening one)
        }
        describeGaps();
    }

private:
    void openArchive(const std::filesystem::path& archive) {
        const auto members = listZipMembers(archive);
        if (d_.extractedDir_.empty()) {
            d_.extractedDir_ = makePrivateTempDir();
        }
        std::vector<std::string> without;
        std::size_t opened = 0;
        for (std::size_t i = 0; i < members.size(); ++i) {
            const ZipMember& m = members[i];
            const std::string display = archive.string() + "!" + m.name;
            std::string leaf = std::filesystem::path(m.name).filename().string();
            std::replace_if(
                leaf.begin(), leaf.end(), [](char c) { return c == '/' || c == '\\'; }, '_');
            const auto out =
                d_.extractedDir_ / (std::to_string(d_.files_.size()) + "-" + std::to_string(i) + "-" + leaf);
            extractZipMember(archive, m, out);
            try {
                d_.files_.push_back(Era5File::open(out, options_, display));
                ++opened;
            } catch (const NoTargetVariables& e) {
                std::string vars;
                for (const auto& n : e.found()) {
                    vars += (vars.empty() ? "" : ", ") + n;
                }
                without.push_back(m.name + " (" + (vars.empty() ? "no data variables" : vars) + ")");
            }
        }
        if (opened == 0) {
            std::string list;
            for (const auto& w : without) {
                list += (list.empty() ? "" : "; ") + w;
            }
            throw Error(archive.string() + ": a ZIP archive (as the CDS sends for mixed requests) whose " +
                        std::to_string(members.size()) +
                        " member(s) hold no variable on a latitude/longitude grid: " + list);
        }
        d_.notes_.push_back(
            archive.string() + " is a ZIP archive: read its " + std::to_string(opened) + " member(s)" +
            (without.empty() ? std::string()
                             : "; skipped " + std::to_string(without.size()) + " without gridded variables"));
    }

    void checkAgreement() {
        const Era5File& first = d_.files_.front();
        const auto series = std::find_if(d_.files_.begin(), d_.files_.end(),
                                         [](const Era5File& f) { return f.pointSeries(); });
        const auto gridded = std::find_if(d_.files_.begin(), d_.files_.end(),
                                          [](const Era5File& f) { return !f.pointSeries(); });
        if (series != d_.files_.end() && gridded != d_.files_.end()) {
            throw Error(series->name() + " is a point series of the CDS time-series datasets and " +
                        gridded->name() +
                        " a gridded file: load them in separate runs (into one table if you like: the rows "
                        "they share are checked against each other)");
        }
        d_.grid_ = first.grid();
        d_.era5Land_ = first.era5Land();
        d_.monthly_ = first.monthlyMeans();
        // The files' rules, each once: "hourly: GRIB_stepType instant (sst) / hourly: ... accum (ssr)".
        std::vector<std::string> rules;
        for (const Era5File& f : d_.files_) {
            if (std::find(rules.begin(), rules.end(), f.timeRule()) == rules.end()) {
                rules.push_back(f.timeRule());
            }
        }
        d_.timeRule_.clear();
        for (std::size_t i = 0; i < rules.size() && i < 3; ++i) {
            d_.timeRule_ += (i == 0 ? "" : " / ") + rules[i];
        }
        if (rules.size() > 3) {
            d_.timeRule_ += " / and " + std::to_string(rules.size() - 3) + " more";
        }
        for (const Era5File& f : d_.files_) {
            if (!(f.grid() == d_.grid_)) {
                throw Error("the files are on different grids: " + first.name() + " is on the " +
                            d_.grid_.describe() + ", " + f.name() + " on the " + f.grid().describe() +
                            "; load them into different tables");
            }
            if (f.era5Land() != d_.era5Land_ || f.monthlyMeans() != d_.monthly_) {
                throw Error("the files hold different products: " + first.name() + " (" + first.layout() +
                            ") and " + f.name() + " (" + f.layout() + "); load them into different tables");
            }
            if (f.vertical() != first.vertical()) {
                const Era5File& levels = f.vertical() == Vertical::PressureLevels ? f : first;
                const Era5File& surface = f.vertical() == Vertical::PressureLevels ? first : f;
                throw Error("the files hold different levels: " + surface.name() +
                            " is single-level (surface) data, " + levels.name() + " is on pressure levels (" +
                            std::to_string(levels.levels().size()) +
                            " level(s)); a table is one or the other: load them into different tables");
            }
        }
        d_.vertical_ = first.vertical();
    }

    // The union of the files' variables, by column key; two files that describe one column
    // differently (an unknown variable in other units) are refused.
    void collectVariables() {
        std::map<std::string, std::string> describedBy;
        for (const Era5File& f : d_.files_) {
            for (const FileVariable& v : f.variables()) {
                const auto known = d_.variableIndex(v.column.key);
                if (!known) {
                    d_.variables_.push_back(v.column);
                    describedBy[v.column.key] = f.name();
                } else if (d_.variables_[*known].units != v.column.units) {
                    const ValueColumn& c = d_.variables_[*known];
                    throw Error("column " + c.column + " would get " + v.name + " of " + f.name() + " in '" +
                                v.column.units + "' and the variable of " + describedBy[v.column.key] +
                                " in '" + c.units +
                                "': Isobar does not know this variable, so it cannot convert; load "
                                "them into different tables");
                }
            }
        }
        std::sort(d_.variables_.begin(), d_.variables_.end(), [](const ValueColumn& a, const ValueColumn& b) {
            const std::size_t ia = a.variable ? a.variable->index() : variableCount();
            const std::size_t ib = b.variable ? b.variable->index() : variableCount();
            return ia != ib ? ia < ib : a.key < b.key;
        });
    }

    // Positions compared as points on the globe: 190 and -170 are one longitude, and a float32
    // 13.3 is the double 13.3 of another file.
    static bool samePositions(const std::vector<double>& a, const std::vector<double>& b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (std::fabs(a[i] - b[i]) > 1e-5) {
                return false;
            }
        }
        return true;
    }

    // The geometry of a file's box, found once per file (it is asked per step and variable).
    std::uint32_t geometryFor(std::uint32_t fileIndex) {
        if (fileGeometry_.size() < d_.files_.size()) {
            fileGeometry_.resize(d_.files_.size());
        }
        if (const auto known = fileGeometry_[fileIndex]) {
            return *known;
        }
        const Era5File& f = d_.files_[fileIndex];
        DatasetGeometry g{f.box(), f.boxLatitudes(), f.boxLongitudes()};
        for (double& lon : g.longitudes) {
            lon = normalizeLongitude(lon);
        }
        for (std::uint32_t i = 0; i < d_.geometries_.size(); ++i) {
            const DatasetGeometry& o = d_.geometries_[i];
            if (o.box == g.box && samePositions(o.latitudes, g.latitudes) &&
                samePositions(o.longitudes, g.longitudes)) {
                fileGeometry_[fileIndex] = i;
                return i;
            }
        }
        d_.geometries_.push_back(std::move(g));
        geometryFile_.push_back(fileIndex);
        fileGeometry_[fileIndex] = static_cast<std::uint32_t>(d_.geometries_.size() - 1);
        return *fileGeometry_[fileIndex];
    }

    // Picks one of several sources of the same (variable, time): final ERA5 over ERA5T, else they
    // must hold identical values.
    SourceRef resolve(const ValueColumn& variable, const std::string& when,
                      const std::vector<SourceRef>& candidates) {
        std::vector<SourceRef> era5;
        bool allLabelled = true;
        for (const auto& c : candidates) {
            if (conventions::isFinalEra5(d_.stepOf(c).expver)) {
                era5.push_back(c);
            }
            allLabelled = allLabelled && !d_.stepOf(c).expver.empty();
        }
        const std::string& var = variable.key;
        // Final ERA5 over ERA5T; a copy without a label is neither, so its values must agree.
        if (era5.size() == 1 && allLabelled) {
            ++replacedEra5t_[var];
            return era5.front();
        }
        if (!reader_) {
            reader_ = std::make_unique<BandReader>(d_);
        }
        const auto reference = reader_->readSource(candidates.front());
        for (std::size_t i = 1; i < candidates.size(); ++i) {
            const Era5File& a = d_.files_[candidates.front().file];
            const Era5File& b = d_.files_[candidates[i].file];
            if (!(a.box() == b.box()) || !sameValues(reference, reader_->readSource(candidates[i]))) {
                if (era5.size() == 1) {
                    // One copy says it is final ERA5, the others say nothing: that one.
                    ++preferredLabelled_[var];
                    return era5.front();
                }
                throw Error(var + " at " + when + " is in both " + a.name() + " and " + b.name() +
                            " with different values; remove one of them (Isobar will not choose)");
            }
        }
        ++identicalDuplicates_;
        return candidates.front();
    }

    // "2024-01-01 06:00:00+00", or "2024-01-01 06:00:00+00, 500 hPa" on pressure levels.
    static std::string describeStep(PgTimestamp time, std::optional<double> level) {
        return formatTimestamp(time) + (level ? ", " + formatCoordinate(*level) + " hPa" : std::string());
    }

    void collectSteps() {
        // Every file step at every level keyed (time, level, point), stably sorted: the file steps
        // of a dataset step are neighbours, in file order (a flat vector: 1,000 sites' years have
        // 8.8 million). Levels in thousandths of a hPa (1000 from one file is 1000.0 of another);
        // the point is a point series' geometry (a row per point and hour), -1 for gridded files.
        using StepKey = std::tuple<std::int64_t, std::int64_t, std::int64_t>;
        const std::size_t nvars = d_.variables_.size();
        struct FileLevelStep {
            StepKey key;
            std::uint32_t file = 0, step = 0, level = 0;
        };
        std::vector<FileLevelStep> fileSteps;
        std::vector<std::vector<std::size_t>> columnOf(d_.files_.size()); // per file variable
        std::set<std::int64_t> levels;
        for (std::uint32_t f = 0; f < d_.files_.size(); ++f) {
            const Era5File& file = d_.files_[f];
            for (const auto& variable : file.variables()) {
                columnOf[f].push_back(d_.variableIndex(variable.column.key).value_or(nvars));
            }
            const std::size_t nlevels = std::max<std::size_t>(file.levels().size(), 1);
            const std::int64_t point = file.pointSeries() ? std::int64_t{geometryFor(f)} : -1;
            for (std::uint32_t s = 0; s < file.steps().size(); ++s) {
                for (std::uint32_t l = 0; l < nlevels; ++l) {
                    const std::int64_t level =
                        file.levels().empty() ? std::int64_t{-1} : std::llround(file.levels()[l] * 1000.0);
                    fileSteps.push_back(
                        FileLevelStep{StepKey{file.steps()[s].time.micros, level, point}, f, s, l});
                    levels.insert(level);
                }
            }
        }
        std::stable_sort(fileSteps.begin(), fileSteps.end(),
                         [](const FileLevelStep& a, const FileLevelStep& b) { return a.key < b.key; });
        std::transform(levels.upper_bound(-1), levels.end(), std::back_inserter(d_.levels_), // not -1
                       [](std::int64_t l) { return static_cast<double>(l) / 1000.0; });
        std::vector<std::vector<SourceRef>> slots(nvars); // per variable, the file steps with it
        for (std::size_t first = 0, end = 0; first < fileSteps.size(); first = end) {
            std::for_each(slots.begin(), slots.end(), [](std::vector<SourceRef>& slot) { slot.clear(); });
            std::optional<double> stepLevel;
            for (end = first; end < fileSteps.size() && fileSteps[end].key == fileSteps[first].key; ++end) {
                const FileLevelStep& e = fileSteps[end];
                const Era5File& file = d_.files_[e.file];
                stepLevel =
                    file.levels().empty() ? std::nullopt : std::optional<double>(file.levels()[e.level]);
                for (std::uint32_t v = 0; v < file.variables().size(); ++v) { // a GRIB file may lack one
                    if (columnOf[e.file][v] < nvars && file.provides(v, e.step, e.level)) {
                        slots[columnOf[e.file][v]].push_back(SourceRef{e.file, v, e.step, e.level});
                    }
                }
            }
            if (std::all_of(slots.begin(), slots.end(), [](const auto& c) { return c.empty(); })) {
                continue; // a (time, level) of a GRIB file none of its loaded messages holds
            }
            DatasetStep step;
            step.time = PgTimestamp{std::get<0>(fileSteps[first].key)};
            step.level = stepLevel;
            step.sources.resize(nvars);
            step.previous.resize(nvars);
            std::optional<std::uint32_t> geometry;
            std::uint32_t geometrySource = 0;
            for (std::size_t v = 0; v < nvars; ++v) {
                const auto& candidates = slots[v];
                if (candidates.empty()) {
                    continue;
                }
                const SourceRef chosen =
                    candidates.size() == 1
                        ? candidates.front()
                        : resolve(d_.variables_[v], describeStep(step.time, step.level), candidates);
                const std::uint32_t g = geometryFor(chosen.file);
                if (geometry && *geometry != g) {
                    const Era5File& a = d_.files_[geometrySource];
                    const Era5File& b = d_.files_[chosen.file];
                    throw Error("the files cover different points at " + describeStep(step.time, step.level) +
                                ": " + a.name() + " has " + a.box().describe(d_.grid_) + ", " + b.name() +
                                " has " + b.box().describe(d_.grid_) +
                                "; files that share time steps must share the grid box");
                }
                geometry = g;
                geometrySource = chosen.file;
                step.sources[v] = chosen;
            }
            step.geometry = *geometry;
            d_.rows_ += static_cast<std::uint64_t>(d_.geometries_[step.geometry].box.rows) *
                        d_.geometries_[step.geometry].box.cols;
            d_.steps_.push_back(std::move(step));
        }
        d_.columns_ = d_.variables_;
        for (std::size_t v = 0; v < nvars; ++v) {
            d_.columnVariable_.emplace_back(v);
        }
        for (const auto& [var, count] : replacedEra5t_) {
            d_.notes_.push_back(
                var + ": " + std::to_string(count) +
                " step(s) given as both ERA5T and final ERA5: the final ERA5 values are loaded");
        }
        for (const auto& [var, count] : preferredLabelled_) {
            d_.notes_.push_back(var + ": " + std::to_string(count) +
                                " step(s) given with different values by a file labelled final ERA5 (expver "
                                "0001) and a file without expver: the labelled values are loaded");
        }
        if (identicalDuplicates_ > 0) {
            d_.notes_.push_back(
                std::to_string(identicalDuplicates_) +
                " (variable, time) pair(s) appear in more than one file with identical values; loaded once");
        }
    }

    void linkPreviousHours() {
        std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> stepAt;
        const auto levelKey = [](const DatasetStep& s) {
            return s.level ? std::llround(*s.level * 1000.0) : std::int64_t{-1};
        };
        for (std::size_t i = 0; i < d_.steps_.size(); ++i) {
            stepAt[{d_.steps_[i].time.micros, levelKey(d_.steps_[i])}] = i;
        }
        std::vector<std::size_t> gaps(d_.variables_.size(), 0);
        for (DatasetStep& step : d_.steps_) {
            for (std::size_t v = 0; v < d_.variables_.size(); ++v) {
                if (!step.sources[v] || !d_.variableOf(*step.sources[v]).accumulatedSinceMidnight ||
                    !needsPreviousHour(step.time)) {
                    continue;
                }
                const auto it = stepAt.find({step.time.micros - kMicrosPerHour, levelKey(step)});
                if (it != stepAt.end() && d_.steps_[it->second].sources[v] &&
                    d_.steps_[it->second].geometry == step.geometry) {
                    step.previous[v] = d_.steps_[it->second].sources[v];
                } else {
                    ++gaps[v];
                }
            }
        }
        for (std::size_t v = 0; v < d_.variables_.size(); ++v) {
            if (gaps[v] > 0) {
                d_.notes_.push_back(
                    d_.variables_[v].key + ": " + std::to_string(gaps[v]) +
                    " hour(s) cannot be turned into hourly amounts because the hour before is not "
                    "in the files; loaded as NULL");
            }
        }
    }

    void describeGaps() {
        for (std::size_t v = 0; v < d_.variables_.size(); ++v) {
            std::size_t missing = 0;
            const DatasetStep* first = nullptr;
            for (const DatasetStep& s : d_.steps_) {
                if (!s.sources[v]) {
                    ++missing;
                    first = first != nullptr ? first : &s;
                }
            }
            if (missing > 0) {
                d_.notes_.push_back(
                    d_.variables_[v].key + " is missing for " + std::to_string(missing) + " of " +
                    std::to_string(d_.steps_.size()) +
                    (d_.vertical_ == Vertical::PressureLevels ? " (time, level) steps" : " time steps") +
                    " (first " + describeStep(first->time, first->level) + "): NULL in those rows");
            }
        }
    }

    Dataset& d_;
    const OpenOptions& options_;
    std::vector<std::uint32_t> geometryFile_;
    std::vector<std::optional<std::uint32_t>> fileGeometry_;
    std::unique_ptr<BandReader> reader_;
    std::map<std::string, std::size_t> replacedEra5t_;
    std::map<std::string, std::size_t> preferredLabelled_;
    std::size_t identicalDuplicates_ = 0;
};

Dataset Dataset::open(const std::vector<std::filesystem::path>& paths, const OpenOptions& options) {
    Dataset d;
    Builder builder(d, options);
    builder.openAll(expandInputs(paths));
    builder.merge();
    return d;
}

std::vector<PgTimestamp> Dataset::validTimes() const {
    std::vector<PgTimestamp> times;
    times.reserve(steps_.size());
    for (const DatasetStep& step : steps_) {
        times.push_back(step.time);
    }
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    return times;
}

LoadedExtent Dataset::extent() const {
    LoadedExtent extent;
    extent.gridSpacing = grid().spacing();
    extent.levels = levels_;
    extent.times = timeRuns(validTimes());
    bool first = true;
    for (const DatasetGeometry& g : geometries_) {
        if (g.latitudes.empty() || g.longitudes.empty()) {
            continue;
        }
        const auto [south, north] = std::minmax_element(g.latitudes.begin(), g.latitudes.end());
        const double west = normalizeLongitude(g.longitudes.front());
        const double east = normalizeLongitude(g.longitudes.back());
        if (first) {
            extent.bounds = GeoBounds{*south, *north, west, east};
            first = false;
            continue;
        }
        GeoBounds& b = extent.bounds;
        b.south = std::min(b.south, *south);
        b.north = std::max(b.north, *north);
        if (b.west <= b.east && west <= east) {
            b.west = std::min(b.west, west);
            b.east = std::max(b.east, east);
        } else {
            // Boxes across the date line: the whole circle rather than a guess at their union.
            b.west = -180.0;
            b.east = 180.0;
        }
    }
    return extent;
}

} // namespace isobar
