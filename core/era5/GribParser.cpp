// SPDX-License-Identifier: GPL-3.0-or-later

// Era5File::open for GRIB (see GribParser.h): a GRIB file is a sequence of messages, one per
// (parameter, date/time, step, level). They become the same picture a NetCDF file gives - variables
// on one grid, valid times, pressure levels - plus a table of which message holds what.

#include "era5/GribParser.h"

#include "era5/FileConventions.h"
#include "era5/GridFit.h"
#include "util/Error.h"
#include "util/Format.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace isobar {

using namespace conventions;

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

bool near(double a, double b, double tolerance) {
    return std::fabs(a - b) <= tolerance;
}

// Longitudes compared as points on the globe: -160.04 (GRIB1) is 199.96 (GRIB2).
bool sameLongitude(double a, double b) {
    const double d = std::fabs(normalizeLongitude(a) - normalizeLongitude(b));
    return std::min(d, 360.0 - d) <= 2e-3;
}

std::string gridText(const GribMessage& m) {
    return std::to_string(m.ni) + " x " + std::to_string(m.nj) + " points from (" +
           formatCoordinate(m.latitudeOfFirst) + ", " + formatCoordinate(m.longitudeOfFirst) + ") to (" +
           formatCoordinate(m.latitudeOfLast) + ", " + formatCoordinate(m.longitudeOfLast) + ")" +
           (m.iIncrement ? ", " + formatCoordinate(*m.iIncrement) + " x " +
                               formatCoordinate(m.jIncrement.value_or(0)) + " deg"
                         : std::string());
}

} // namespace

// dataDate (YYYYMMDD) and dataTime (HHMM) as a timestamp.
PgTimestamp GribParser::baseTime(const GribMessage& m) {
    const long y = m.dataDate / 10000;
    const auto mo = static_cast<unsigned>(m.dataDate / 100 % 100);
    const auto d = static_cast<unsigned>(m.dataDate % 100);
    const std::int64_t days = daysFromCivil(y, mo, d);
    const std::int64_t minutes = (m.dataTime / 100) * 60 + m.dataTime % 100;
    return pgTimestampFromUnixMicros(days * 86'400LL * kMicrosPerSecond + minutes * 60 * kMicrosPerSecond);
}

void GribParser::parse() {
    GribScan scan = scanGrib(f_.path_, f_.name_);
    f_.grib_ = std::make_shared<GribContent>();
    grib_ = f_.grib_.get();
    grib_->messages = std::move(scan.messages);
    grib_->paddingBytes = scan.paddingBytes;
    checkMessages();
    decideProduct();
    readGrid();
    findVariables();
    placeMessages();
    describeFile();
}

void GribParser::decideProduct() {
    const auto& messages = grib_->messages;
    bool landClass = false;
    bool byHour = false;
    // Monthly means by the messages' stream (moda, mnth) or step type (avgua, avgad, ...).
    std::vector<TimeClue> clues;
    std::set<std::string> seen;
    for (const GribMessage& m : messages) {
        landClass = landClass || m.marsClass == "l5";
        byHour = byHour || m.stream == "mnth";
        if (seen.insert("s" + m.stream).second) {
            clues.push_back({"GRIB stream", m.stream, {}});
        }
        if (seen.insert("t" + m.stepType + " " + m.shortName).second) {
            clues.push_back({"GRIB_stepType", m.stepType, m.shortName});
        }
    }
    const TimeMeaning meaning = decideTimeMeaning(options_.means, clues, f_.name_);
    f_.monthly_ = meaning.monthly;
    f_.timeRule_ = meaning.rule;
    monthlyByHour_ = byHour;
    // ERA5-Land by its MARS class; its 0.1 deg grid is told in readGrid() (GridFit's clue).
    f_.era5Land_ = options_.product == ProductOverride::Era5Land ||
                   (options_.product == ProductOverride::Auto && landClass);
}

void GribParser::readGrid() {
    const auto& messages = grib_->messages;
    // The coordinates of the most precise edition (GRIB1 stores millidegrees, GRIB2 microdegrees).
    std::size_t ref = 0;
    for (std::size_t k = 1; k < messages.size(); ++k) {
        if (messages[k].edition > messages[ref].edition) {
            ref = k;
        }
    }
    const GribMessage& g = messages[ref];
    for (std::size_t k = 0; k < messages.size(); ++k) {
        const GribMessage& m = messages[k];
        const bool same =
            m.ni == g.ni && m.nj == g.nj && near(m.latitudeOfFirst, g.latitudeOfFirst, 2e-3) &&
            sameLongitude(m.longitudeOfFirst, g.longitudeOfFirst) &&
            near(m.latitudeOfLast, g.latitudeOfLast, 2e-3) &&
            sameLongitude(m.longitudeOfLast, g.longitudeOfLast) && m.iScansNegatively == g.iScansNegatively &&
            m.jScansPositively == g.jScansPositively && m.jPointsAreConsecutive == g.jPointsAreConsecutive;
        if (!same) {
            fail("the grid changes within the file: " + describe(ref) + " has " + gridText(g) + ", " +
                 describe(k) + " has " + gridText(m) +
                 "; Isobar loads one grid per file: split it (e.g. with grib_copy) and load the parts into "
                 "different tables");
        }
    }
    // Ni and Nj are 32-bit in GRIB2: their product is compared by division, as it may not fit a long.
    if (g.ni <= 0 || g.nj <= 0 || g.values % g.ni != 0 || g.values / g.ni != g.nj) {
        fail(describe(ref) + " has " + std::to_string(g.values) + " values on a " + std::to_string(g.ni) +
             " x " + std::to_string(g.nj) + " grid: not a complete regular latitude/longitude grid");
    }
    // Coordinates from the first point and the increment: the last point of a GRIB1 message is
    // rounded to millidegrees (38.949 where 36.95 + 8 x 0.25 = 38.95).
    const auto axis = [](double first, double last, long n, std::optional<double> increment, bool negative,
                         bool wraps) {
        double span = negative ? first - last : last - first;
        if (wraps) {
            span = std::fmod(span + 720.0, 360.0);
        }
        const double spanStep = n > 1 ? std::fabs(span) / static_cast<double>(n - 1) : 0.0;
        double step = spanStep;
        // The increment, unless it disagrees with the span by more than the last point's rounding:
        // GRIB1 rounds an increment such as 0.28125 to 0.281, which drifts along a row.
        if (increment && *increment > 0.0 &&
            (n < 2 || std::fabs(*increment * static_cast<double>(n - 1) - std::fabs(span)) <= 2e-3)) {
            step = *increment;
        }
        // A step that divides 360 within what millidegree rounding of the end points allows is
        // that step (359.719 / 1279 is 360 / 1280).
        if (step > 0.0 && n > 1) {
            const double parts = std::round(360.0 / step);
            if (parts >= 1.0 && std::fabs(360.0 / parts - step) * static_cast<double>(n - 1) <= 1.5e-3) {
                step = 360.0 / parts;
            }
        }
        std::vector<double> out(static_cast<std::size_t>(n));
        for (long i = 0; i < n; ++i) {
            double v = first + static_cast<double>(i) * step * (negative ? -1.0 : 1.0);
            v = std::round(v * 1e6) / 1e6;
            if (wraps) {
                v = v >= 360.0 ? v - 360.0 : (v < -180.0 ? v + 360.0 : v);
            }
            out[static_cast<std::size_t>(i)] = v;
        }
        return out;
    };
    f_.latitudes_ = axis(g.latitudeOfFirst, g.latitudeOfLast, g.nj, g.jIncrement, !g.jScansPositively, false);
    f_.longitudes_ =
        axis(g.longitudeOfFirst, g.longitudeOfLast, g.ni, g.iIncrement, g.iScansNegatively, true);
    GridClues clues;
    clues.declaredIncrement = g.iIncrement;
    clues.namedEra5Land = f_.era5Land_;
    GridFit(f_, options_, clues).place();
    if (options_.product == ProductOverride::Auto && std::fabs(f_.grid_.spacing() - 0.1) < 1e-9) {
        f_.era5Land_ = true;
    }
}

void GribParser::findVariables() {
    const auto& messages = grib_->messages;
    messageVariable_.assign(messages.size(), kNone);
    std::vector<std::string> found;
    std::set<std::string> ignored;
    bool anyKnown = false;
    for (std::size_t k = 0; k < messages.size(); ++k) {
        const GribMessage& m = messages[k];
        const std::string key = m.paramId > 0 ? std::to_string(m.paramId) : m.shortName;
        if (const auto it = variableOf_.find(key); it != variableOf_.end()) {
            messageVariable_[k] = it->second;
            continue;
        }
        const std::string listed =
            m.shortName + " (paramId " + std::to_string(m.paramId) + ", " + m.name + ", " + m.units + ")";
        if (ignored.count(key) != 0) {
            continue;
        }
        found.push_back(listed);
        FileVariable fv;
        fv.name = m.shortName;
        fv.longName = m.name;
        fv.standardName = m.cfName == "unknown" ? std::string() : m.cfName;
        if (m.paramId > 0) {
            fv.paramId = m.paramId;
        }
        fv.units = m.units;
        fv.type = NC_FLOAT;
        fv.latBeforeLon = !m.jPointsAreConsecutive;
        fv.stepType = m.stepType;
        fv.gribStorage = "GRIB" + std::to_string(m.edition) + " " + m.packing + ", " +
                         std::to_string(m.bitsPerValue) + " bits";
        // Whole, not a Level inserted after: GCC 12 at -O1 (the tsan preset) warns of a null
        // dereference inside vector::insert here.
        if (std::isnan(messageLevel_[k])) {
            fv.dims = {DimRole::Time, DimRole::Latitude, DimRole::Longitude};
        } else {
            fv.dims = {DimRole::Time, DimRole::Level, DimRole::Latitude, DimRole::Longitude};
        }
        if (auto column = columnOfParameter(fv, f_.name_)) {
            anyKnown = anyKnown || column->variable.has_value() || column->paramId != 0;
            fv.column = std::move(*column);
        } else {
            // A parameter ECMWF's database does not define loads into a column of its own, named
            // as cfgrib names its NetCDF variable, so the two routes fill the same column.
            if (m.shortName.empty() || m.shortName == "unknown") {
                f_.ignored_.push_back("paramId " + std::to_string(m.paramId) + " (ecCodes does not know it)");
                ignored.insert(key);
                continue;
            }
            fv.column = ValueColumn::unknown(m.shortName, m.name, m.units);
            const bool taken =
                isKeyColumn(fv.column.column) ||
                std::any_of(variableCatalog().begin(), variableCatalog().end(),
                            [&](const VariableSpec& s) { return s.column == fv.column.column; });
            if (taken) {
                f_.ignored_.push_back(listed + ": its column " + fv.column.column + " is taken");
                ignored.insert(key);
                continue;
            }
        }
        for (const FileVariable& existing : f_.variables_) {
            if (existing.column.column == fv.column.column) {
                fail("both " + existing.name + " (paramId " + std::to_string(existing.paramId.value_or(0)) +
                     ") and " + m.shortName + " (paramId " + std::to_string(m.paramId) +
                     ") would load into column " + fv.column.column + "; refusing to choose");
            }
        }
        variableOf_[key] = f_.variables_.size();
        messageVariable_[k] = f_.variables_.size();
        f_.variables_.push_back(std::move(fv));
    }
    if (!anyKnown) {
        std::string has;
        for (const auto& n : found) {
            has += (has.empty() ? "" : ", ") + n;
        }
        throw NoTargetVariables(f_.name_ + ": no ERA5 " +
                                    (std::isnan(messageLevel_[0]) ? "single-level" : "pressure-level") +
                                    " parameter ECMWF's parameter database defines; the file has: " + has,
                                found);
    }
    // Catalog variables in the catalog's order, then the others by name (as NetCDF files).
    const std::vector<std::size_t> order = catalogOrder(f_.variables_);
    std::vector<std::size_t> newIndex(order.size());
    std::vector<FileVariable> sorted;
    sorted.reserve(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        newIndex[order[i]] = i;
        sorted.push_back(std::move(f_.variables_[order[i]]));
    }
    f_.variables_ = std::move(sorted);
    for (auto& v : messageVariable_) {
        v = v == kNone ? kNone : newIndex[v];
    }
}

PgTimestamp GribParser::validTime(const GribMessage& m) const {
    const PgTimestamp base = baseTime(m);
    const PgTimestamp valid{base.micros + static_cast<std::int64_t>(m.endStep) * kMicrosPerHour};
    if (!f_.monthly_) {
        return valid;
    }
    // The month: the forecast start moved on half a day (accumulated means start the previous day
    // at 18 UTC, the 19-23 UTC ones end on that day); the hour of day (mnth): the valid time's.
    const PgTimestamp month = monthStart(PgTimestamp{base.micros + 12 * kMicrosPerHour});
    return monthlyByHour_ ? PgTimestamp{month.micros + hourOfDay(valid) * kMicrosPerHour} : month;
}

void GribParser::placeMessages() {
    const auto& messages = grib_->messages;
    std::set<std::int64_t> times;
    std::set<std::int64_t> levels; // thousandths of a hPa
    for (std::size_t k = 0; k < messages.size(); ++k) {
        if (messageVariable_[k] == kNone) {
            continue;
        }
        times.insert(validTime(messages[k]).micros);
        if (!std::isnan(messageLevel_[k])) {
            levels.insert(std::llround(messageLevel_[k] * 1000.0));
        }
    }
    std::map<std::int64_t, std::size_t> stepOf;
    for (const std::int64_t t : times) {
        stepOf[t] = f_.steps_.size();
        f_.steps_.push_back(FileStep{PgTimestamp{t}, f_.steps_.size(), 0, {}});
    }
    std::map<std::int64_t, std::size_t> levelOf;
    for (auto it = levels.rbegin(); it != levels.rend(); ++it) { // top of the atmosphere first, as the CDS
        levelOf[*it] = f_.levels_.size();
        f_.levels_.push_back(static_cast<double>(*it) / 1000.0);
    }
    // The cache holds a time step's messages and the hour before (ERA5-Land's de-accumulation):
    // the other bands of the step find them decoded.
    const std::size_t stepBytes = f_.variables_.size() * f_.latLength_ * f_.lonLength_ * sizeof(float);
    {
        std::lock_guard lock(gribMutex());
        gribValueCache().reserve(2 * stepBytes + stepBytes / 2);
    }
    grib_->steps = f_.steps_.size();
    grib_->levels = std::max<std::size_t>(f_.levels_.size(), 1);
    grib_->table.assign(f_.variables_.size() * grib_->steps * grib_->levels, -1);
    for (std::size_t k = 0; k < messages.size(); ++k) {
        if (messageVariable_[k] == kNone) {
            continue;
        }
        const std::size_t step = stepOf.at(validTime(messages[k]).micros);
        const std::size_t level =
            std::isnan(messageLevel_[k]) ? 0 : levelOf.at(std::llround(messageLevel_[k] * 1000.0));
        std::int32_t& slot = grib_->at(messageVariable_[k], step, level);
        if (slot < 0) {
            slot = static_cast<std::int32_t>(k);
        } else {
            resolveDuplicate(slot, k);
        }
    }
    // Each step's expver, when its messages agree (else none: another file's copy of the step must
    // then hold the same values, as for an unlabelled NetCDF file).
    std::set<std::pair<std::size_t, std::size_t>> covered;
    std::vector<std::set<std::string>> labels(grib_->steps);
    for (std::size_t v = 0; v < f_.variables_.size(); ++v) {
        for (std::size_t s = 0; s < grib_->steps; ++s) {
            for (std::size_t l = 0; l < grib_->levels; ++l) {
                const std::int32_t k = grib_->at(v, s, l);
                if (k < 0) {
                    continue;
                }
                covered.insert({s, l});
                const std::string& e = messages[static_cast<std::size_t>(k)].expver;
                labels[s].insert(e);
            }
        }
    }
    for (std::size_t st = 0; st < grib_->steps; ++st) {
        if (labels[st].size() == 1) {
            f_.steps_[st].expver = *labels[st].begin();
        }
    }
    f_.stepLevels_ = covered.size();
    describeTiming();
    if (replacedEra5t_ > 0) {
        f_.notes_.push_back(
            std::to_string(replacedEra5t_) +
            " message(s) given as both ERA5T and final ERA5: the final ERA5 values are loaded");
    }
    if (identical_ > 0) {
        f_.notes_.push_back(std::to_string(identical_) +
                            " message(s) repeat another with identical values; loaded once");
    }
    std::size_t era5t = 0;
    std::string label;
    for (const FileStep& s : f_.steps_) {
        if (!s.expver.empty() && !isFinalEra5(s.expver)) {
            ++era5t;
            label = s.expver;
        }
    }
    if (era5t > 0) {
        f_.notes_.push_back(era5tNote(era5t, f_.steps_.size(), label));
    }
}

void GribParser::describeTiming() {
    const auto& messages = grib_->messages;
    for (std::size_t v = 0; v < f_.variables_.size(); ++v) {
        std::set<long> starts;
        long minStep = std::numeric_limits<long>::max();
        long maxStep = std::numeric_limits<long>::min();
        for (std::size_t k = 0; k < messages.size(); ++k) {
            if (messageVariable_[k] != v) {
                continue;
            }
            starts.insert(messages[k].dataTime);
            minStep = std::min(minStep, messages[k].endStep);
            maxStep = std::max(maxStep, messages[k].endStep);
        }
        if (starts.empty()) {
            continue;
        }
        if (maxStep == 0) {
            f_.variables_[v].gribTiming = "analyses (step 0)";
            continue;
        }
        std::string hours;
        for (const long t : starts) {
            const long hour = t / 100; // dataTime HHMM, 0-23 hours (checked)
            hours += (hours.empty() ? "" : ", ") + std::string(hour < 10 ? "0" : "") + std::to_string(hour);
        }
        f_.variables_[v].gribTiming = "forecasts from " + hours + " UTC at steps " + std::to_string(minStep) +
                                      (minStep == maxStep ? "" : "-" + std::to_string(maxStep)) + " h";
    }
}

void GribParser::resolveDuplicate(std::int32_t& slot, std::size_t message) {
    const auto& messages = grib_->messages;
    const auto kept = static_cast<std::size_t>(slot);
    const bool keptEra5 = isFinalEra5(messages[kept].expver);
    const bool newEra5 = isFinalEra5(messages[message].expver);
    const bool labelled = !messages[kept].expver.empty() && !messages[message].expver.empty();
    if (labelled && keptEra5 != newEra5) {
        ++replacedEra5t_;
        if (newEra5) {
            slot = static_cast<std::int32_t>(message);
        }
        return;
    }
    std::vector<float> a;
    std::vector<float> b;
    {
        std::lock_guard lock(gribMutex());
        decodeGribValues(f_.path_, f_.name_, messages[kept], a);
        decodeGribValues(f_.path_, f_.name_, messages[message], b);
    }
    const bool same = a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](float x, float y) {
                          return x == y || (std::isnan(x) && std::isnan(y));
                      });
    if (!same) {
        const FileVariable& var = f_.variables_[messageVariable_[message]];
        const double level = messageLevel_[message];
        fail("two GRIB messages hold " + var.name + " at " + formatTimestamp(validTime(messages[message])) +
             (std::isnan(level) ? std::string() : ", " + formatCoordinate(level) + " hPa") +
             " with different values: " + describe(kept) + " at byte " +
             std::to_string(messages[kept].offset) + " and " + describe(message) + " at byte " +
             std::to_string(messages[message].offset) + "; remove one of them (Isobar will not choose)");
    }
    ++identical_;
}

void GribParser::describeFile() {
    const auto& messages = grib_->messages;
    std::set<long> editions;
    for (const GribMessage& m : messages) {
        editions.insert(m.edition);
    }
    f_.format_ =
        editions.size() == 1 ? "GRIB edition " + std::to_string(*editions.begin()) : "GRIB editions 1 and 2";
    f_.layout_ = std::string(grib_->paddingBytes > 0 ? "CDS legacy GRIB" : "CDS GRIB") + " (" +
                 std::to_string(messages.size()) + " messages)";
    if (editions.size() > 1) {
        f_.notes_.push_back(
            "the file mixes GRIB1 and GRIB2 messages; they describe the same grid and are read "
            "alike");
    }
    if (grib_->paddingBytes > 0) {
        f_.notes_.push_back("its messages are padded with NULs (" + std::to_string(grib_->paddingBytes) +
                            " bytes in all), as the legacy CDS writes them");
    }
    // Forecast messages: say how their valid time is found.
    bool forecast = false;
    for (const GribMessage& m : messages) {
        forecast = forecast || m.endStep > 0;
    }
    if (forecast && !f_.monthly_) {
        f_.notes_.push_back(
            "forecast messages (dataDate/dataTime + step): each value is loaded at its valid time; "
            "ERA5's accumulations are amounts over the hour ending then");
    }
    if (f_.monthly_) {
        f_.notes_.push_back(monthlyMeansNote());
    }
    if (f_.era5Land_ && !f_.monthly_) {
        markSinceMidnight(f_.variables_, f_.notes_);
    }
    if (f_.era5Land_) {
        f_.layout_ += ", ERA5-Land";
    }
    if (f_.monthly_) {
        f_.layout_ += monthlyByHour_ ? ", monthly means by hour of day" : ", monthly means";
    }
    if (f_.box_.rows == 1 && f_.box_.cols == 1) {
        f_.layout_ += ", single point";
    }
}

} // namespace isobar
