// SPDX-License-Identifier: GPL-3.0-or-later

#include "era5/NetcdfParser.h"
#include "era5/TimeUnits.h"
#include "util/Error.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <utility>

namespace isobar {

using namespace conventions;

// Steps from a CF "since" axis, a date-number axis, or forecast init + hour.
std::vector<PgTimestamp> NetcdfParser::readTimes(int dim) const {
    const std::string& name = dims_[static_cast<size_t>(dim)].name;
    const int varid = coordinateOf(dim, "time");
    if (varid < 0) {
        fail("the time dimension '" + name + "' has no coordinate variable, so its times are unknown");
    }
    nc_type type = NC_NAT;
    {
        std::lock_guard lock(netcdfMutex());
        ncCheck(nc_inq_vartype(ncid_, varid, &type), f_.name_, "cannot read the " + name + " coordinate");
    }
    const size_t n = dims_[static_cast<size_t>(dim)].length;
    const std::string units = text(varid, "units").value_or("");
    const std::string calendar = text(varid, "calendar").value_or("standard");
    std::vector<PgTimestamp> times;
    times.reserve(n);
    const bool integral = type != NC_FLOAT && type != NC_DOUBLE;
    std::vector<long long> ints(integral ? n : 0);
    std::vector<double> reals(n);
    {
        std::lock_guard lock(netcdfMutex());
        if (integral) {
            ncCheck(nc_get_var_longlong(ncid_, varid, ints.data()), f_.name_,
                    "cannot read the " + name + " coordinate");
            std::transform(ints.begin(), ints.end(), reals.begin(),
                           [](long long v) { return static_cast<double>(v); });
        } else {
            ncCheck(nc_get_var_double(ncid_, varid, reals.data()), f_.name_,
                    "cannot read the " + name + " coordinate");
        }
    }
    if (contains(lower(units), " since ")) {
        TimeUnits tu;
        try {
            tu = TimeUnits::parse(units, calendar);
        } catch (const Error& e) {
            fail("time coordinate '" + name + "': " + e.what());
        }
        for (size_t i = 0; i < n; ++i) {
            if (!std::isfinite(reals[i])) {
                fail("the time coordinate '" + name + "' holds a missing value at position " +
                     std::to_string(i));
            }
            const auto t = integral ? tu.fromInteger(ints[i]) : tu.fromDouble(reals[i]);
            if (!t) {
                fail("the time coordinate '" + name + "' holds " +
                     (integral ? std::to_string(ints[i]) : formatCoordinate(reals[i])) + " " + units +
                     " at position " + std::to_string(i) + ", which is not a time of the years 1 to 9999");
            }
            times.push_back(*t);
        }
        return times;
    }
    // Not CF: dates written as numbers (YYYYMMDD, YYYYMMDDHH, CDO's "day as %Y%m%d.%f").
    for (size_t i = 0; i < n; ++i) {
        const auto t = timestampFromDateNumber(reals[i]);
        if (!t) {
            fail("the time coordinate '" + name + "' has units '" + units + "' and value " +
                 formatCoordinate(reals[i]) +
                 ", which Isobar cannot read as a time (expected '<unit> since <date>' or dates like "
                 "20240131)");
        }
        times.push_back(*t);
    }
    notes_once("the time axis '" + name + "' holds dates as numbers (" + formatCoordinate(reals.front()) +
               ", ...), not CF units; read as UTC");
    return times;
}

void NetcdfParser::readTimeAxis() {
    const FileVariable& first = f_.variables_.front();
    int timeDim = -1;
    int initDim = -1;
    int hourDim = -1;
    for (size_t d = 0; d < first.dims.size(); ++d) {
        const int id = dimIds_[first.name][d];
        if (first.dims[d] == DimRole::Time) {
            if (timeDim >= 0) {
                fail("variable " + first.name + " has two time dimensions");
            }
            timeDim = id;
        } else if (first.dims[d] == DimRole::ForecastInit) {
            initDim = id;
        } else if (first.dims[d] == DimRole::ForecastHour) {
            hourDim = id;
        }
    }
    if (hourDim >= 0 && initDim < 0 && timeDim >= 0) {
        initDim = std::exchange(timeDim, -1); // cfgrib's (time, step): time is the forecast start
    }
    if (initDim >= 0 || hourDim >= 0) {
        if (initDim < 0 || hourDim < 0) {
            fail("a forecast file needs both a forecast start (forecast_initial_time) and a lead time "
                 "(forecast_hour) dimension");
        }
        const auto inits = readTimes(initDim);
        const std::string& hourName = dims_[static_cast<size_t>(hourDim)].name;
        const int hourVar = coordinateOf(hourDim, "forecast hour");
        std::vector<double> hours(dims_[static_cast<size_t>(hourDim)].length);
        std::int64_t unit = 3'600'000'000LL;
        if (hourVar >= 0) {
            std::lock_guard lock(netcdfMutex());
            ncCheck(nc_get_var_double(ncid_, hourVar, hours.data()), f_.name_, "cannot read " + hourName);
        } else {
            for (size_t h = 0; h < hours.size(); ++h) {
                hours[h] = static_cast<double>(h + 1);
            }
        }
        if (hourVar >= 0) {
            if (const auto u = text(hourVar, "units")) {
                if (const std::int64_t micros = durationUnitMicros(*u)) {
                    unit = micros;
                }
            }
        }
        for (size_t i = 0; i < inits.size(); ++i) {
            for (size_t h = 0; h < hours.size(); ++h) {
                const double leadMicros = hours[h] * static_cast<double>(unit);
                // Past 2^62 microseconds (146,000 years) the sum below would overflow.
                if (!std::isfinite(leadMicros) || std::fabs(leadMicros) > 0x1p62) {
                    fail("the forecast hour '" + hourName + "' holds " + formatCoordinate(hours[h]) +
                         " at position " + std::to_string(h) + ", which is not a lead time");
                }
                const auto lead = static_cast<std::int64_t>(std::llround(leadMicros));
                f_.steps_.push_back(FileStep{PgTimestamp{inits[i].micros + lead}, i, h, {}});
            }
        }
        f_.notes_.push_back("forecast layout: each value's valid time is " +
                            dims_[static_cast<size_t>(initDim)].name + " + " + hourName +
                            "; ERA5 forecast accumulations are amounts over the hour ending "
                            "at that time");
    } else if (timeDim >= 0) {
        const auto times = readTimes(timeDim);
        if (times.empty()) {
            fail("the time dimension '" + dims_[static_cast<size_t>(timeDim)].name +
                 "' is empty: the file has no time steps");
        }
        for (size_t i = 0; i < times.size(); ++i) {
            f_.steps_.push_back(FileStep{times[i], i, 0, {}});
        }
    } else {
        // No time dimension: a single field with a scalar time coordinate.
        for (const char* candidate : {"time", "valid_time"}) {
            const int varid = varidOf(candidate);
            if (varid < 0) {
                continue;
            }
            // One value, which nc_get_var_double below reads: a scalar, or along dimensions of one.
            for (const int id : dimensionsOf(varid)) {
                if (id < 0 || static_cast<size_t>(id) >= dims_.size() ||
                    dims_[static_cast<size_t>(id)].length != 1) {
                    fail(std::string("the time coordinate '") + candidate +
                         "' is not a single time, but the file has no time dimension; dimensions: " +
                         dimList());
                }
            }
            const auto units = text(varid, "units");
            double value = 0;
            {
                std::lock_guard lock(netcdfMutex());
                if (!units || nc_get_var_double(ncid_, varid, &value) != NC_NOERR) {
                    continue;
                }
            }
            std::optional<PgTimestamp> t;
            try {
                t = TimeUnits::parse(*units, text(varid, "calendar").value_or("standard")).fromDouble(value);
            } catch (const Error& e) {
                fail(std::string("time coordinate '") + candidate + "': " + e.what());
            }
            if (!t) {
                fail(std::string("the time coordinate '") + candidate + "' holds " + formatCoordinate(value) +
                     " " + *units + ", which is not a time of the years 1 to 9999");
            }
            f_.steps_.push_back(FileStep{*t, 0, 0, {}});
            break;
        }
        if (f_.steps_.empty()) {
            fail("no time dimension (time, valid_time, date or forecast_initial_time) and no time "
                 "coordinate; "
                 "dimensions: " +
                 dimList());
        }
    }
    // One value per time and point: a time that appears twice is a broken axis.
    std::vector<PgTimestamp> sorted;
    for (const auto& s : f_.steps_) {
        sorted.push_back(s.time);
    }
    std::sort(sorted.begin(), sorted.end());
    if (const auto dup = std::adjacent_find(sorted.begin(), sorted.end()); dup != sorted.end()) {
        fail("the time " + formatTimestamp(*dup) + " appears twice in the time axis");
    }
    f_.notes_.insert(f_.notes_.end(), pendingNotes_.begin(), pendingNotes_.end());
}

// expver: a dimension (ERA5 and ERA5T side by side), or a label per step (CDS 2024).
void NetcdfParser::readExpver() {
    const auto labelOf = [](const std::string& s) {
        std::string t = s;
        t.erase(
            std::remove_if(t.begin(), t.end(), [](unsigned char c) { return std::isspace(c) || c == '\0'; }),
            t.end());
        return t;
    };
    const auto numberOf = [](const std::string& label) {
        try {
            return std::stoi(label);
        } catch (const std::exception&) {
            return 9999;
        }
    };
    const int varid = varidOf("expver");
    std::vector<std::string> labels;
    int expverDims = 0;
    if (varid >= 0) {
        nc_type type = NC_NAT;
        size_t total = 1;
        {
            std::lock_guard lock(netcdfMutex());
            std::array<int, NC_MAX_VAR_DIMS> ids{};
            nc_inq_var(ncid_, varid, nullptr, &type, &expverDims, ids.data(), nullptr);
            for (int d = 0; d < expverDims; ++d) {
                total *= dims_[static_cast<size_t>(ids[static_cast<size_t>(d)])].length;
            }
            if (type == NC_STRING) {
                std::vector<char*> values(total, nullptr);
                if (nc_get_var_string(ncid_, varid, values.data()) == NC_NOERR) {
                    for (char* v : values) {
                        labels.push_back(labelOf(v != nullptr ? v : ""));
                    }
                    nc_free_string(total, values.data());
                }
            } else if (type == NC_CHAR) {
                std::string chars(total, '\0');
                if (nc_get_var_text(ncid_, varid, chars.data()) == NC_NOERR) {
                    const size_t width =
                        expverDims >= 1
                            ? dims_[static_cast<size_t>(ids[static_cast<size_t>(expverDims - 1)])].length
                            : total;
                    // A label dimension of length 0 (an empty unlimited one) holds no label.
                    for (size_t i = 0; width > 0 && i + width <= chars.size(); i += width) {
                        labels.push_back(labelOf(chars.substr(i, width)));
                    }
                    expverDims = std::max(0, expverDims - 1);
                }
            } else {
                std::vector<long long> values(total);
                if (nc_get_var_longlong(ncid_, varid, values.data()) == NC_NOERR) {
                    for (long long v : values) {
                        char buf[8];
                        std::snprintf(buf, sizeof buf, "%04lld", v);
                        labels.push_back(buf);
                    }
                }
            }
        }
    }
    bool hasExpverDim = false;
    for (auto& var : f_.variables_) {
        for (size_t d = 0; d < var.dims.size(); ++d) {
            if (var.dims[d] != DimRole::Expver) {
                continue;
            }
            hasExpverDim = true;
            const size_t n = dims_[static_cast<size_t>(dimIds_[var.name][d])].length;
            std::vector<std::pair<int, size_t>> order;
            for (size_t k = 0; k < n; ++k) {
                // Without a coordinate the CDS order is [1, 5]: ERA5 first, then ERA5T.
                const int num = k < labels.size() ? numberOf(labels[k]) : static_cast<int>(k == 0 ? 1 : 5);
                order.emplace_back(num, k);
            }
            std::sort(order.begin(), order.end());
            var.expverOrder.clear();
            for (const auto& [num, k] : order) {
                var.expverOrder.push_back(k);
            }
        }
    }
    if (hasExpverDim) {
        std::string list;
        for (const auto& l : labels) {
            list += (list.empty() ? "" : ", ") + l;
        }
        f_.notes_.push_back(
            "expver dimension (" + (list.empty() ? std::string("no labels: assumed 1, 5") : list) +
            "): each value is taken from final ERA5 (expver 1) where present, else from ERA5T");
        return;
    }
    if (labels.empty()) {
        return;
    }
    // A label per step, or one for the whole file.
    size_t era5t = 0;
    for (size_t i = 0; i < f_.steps_.size(); ++i) {
        const std::string& label = labels.size() == f_.steps_.size() ? labels[i] : labels.front();
        f_.steps_[i].expver = label;
        era5t += numberOf(label) != 1 ? 1U : 0U;
    }
    if (era5t > 0) {
        f_.notes_.push_back(era5tNote(era5t, f_.steps_.size(), labels.front()));
    }
}

std::string NetcdfParser::provenance() const {
    std::string out;
    for (const char* attr : {"history", "title", "source", "DATA_SOURCE", "GRIB_centreDescription"}) {
        out += lower(text(NC_GLOBAL, attr).value_or("")) + " ";
    }
    return out;
}

bool NetcdfParser::namedEra5Land() const {
    const std::string p = provenance();
    return contains(p, "era5-land") || contains(p, "era5_land") || contains(p, "era5land");
}

void NetcdfParser::decideProduct() {
    if (pointSeries_) {
        return; // decided with its point (SeriesParser::placePoint)
    }
    const bool landByName = namedEra5Land();
    switch (options_.product) {
    case ProductOverride::Era5:
        f_.era5Land_ = false;
        break;
    case ProductOverride::Era5Land:
        f_.era5Land_ = true;
        break;
    case ProductOverride::Auto:
        f_.era5Land_ = landByName || std::fabs(f_.grid_.spacing() - 0.1) < 1e-9;
        break;
    }
    // Monthly means where the user or the file says so (the step types of its variables, the
    // dataset its history names), never because its steps are a month apart: hourly data sampled
    // monthly keeps its times.
    std::vector<TimeClue> clues;
    for (const auto& var : f_.variables_) {
        if (!var.stepType.empty()) {
            clues.push_back({"GRIB_stepType", var.stepType, var.name});
        }
    }
    for (const char* attr : {"history", "title", "source"}) {
        const std::string said = lower(text(NC_GLOBAL, attr).value_or(""));
        if (contains(said, "monthly-means") || contains(said, "monthly_means")) {
            clues.push_back({attr,
                             contains(said, "monthly-means") ? "names the monthly-means dataset"
                                                             : "names the monthly_means dataset",
                             {}});
        }
    }
    const TimeMeaning meaning = decideTimeMeaning(options_.means, clues, f_.name_);
    const bool monthly = meaning.monthly;
    f_.monthly_ = monthly;
    f_.timeRule_ = meaning.rule;
    std::vector<PgTimestamp> times;
    for (const auto& s : f_.steps_) {
        times.push_back(s.time);
    }
    std::sort(times.begin(), times.end());
    if (monthly) {
        // Several steps in one month: monthly means by hour of day, one row per month and hour.
        bool byHour = false;
        for (size_t i = 1; i < times.size(); ++i) {
            byHour = byHour || monthStart(times[i]) == monthStart(times[i - 1]);
        }
        std::map<std::int64_t, PgTimestamp> stampedAs;
        for (auto& step : f_.steps_) {
            const PgTimestamp row = monthlyRowTime(step.time, byHour);
            if (const auto [it, fresh] = stampedAs.emplace(row.micros, step.time); !fresh) {
                fail("the monthly means stamped " + formatTimestamp(it->second) + " and " +
                     formatTimestamp(step.time) + " are the same month" +
                     (byHour ? " and hour of day" : std::string()) + " (" + formatTimestamp(row) + ")");
            }
            step.time = row;
        }
    } else if (clues.empty() && times.size() >= 2) {
        bool monthApart = true;
        for (size_t i = 1; i < times.size(); ++i) {
            const double days = static_cast<double>(times[i].micros - times[i - 1].micros) / 86400e6;
            monthApart = monthApart && days >= 28.0 && days <= 31.0;
        }
        if (monthApart) {
            f_.notes_.push_back("its steps are a calendar month apart, but it does not say it holds monthly "
                                "means: loaded at its own times; if they are monthly means, load it with "
                                "--product monthly");
        }
    }
    if (monthly) {
        f_.notes_.push_back(monthlyMeansNote());
    }
    if (f_.era5Land_ && !monthly) {
        markSinceMidnight(f_.variables_, f_.notes_);
    }
}

void NetcdfParser::decideLayout() {
    if (pointSeries_) {
        f_.layout_ =
            std::string("CDS time series (netCDF)") + (f_.era5Land_ ? ", ERA5-Land" : "") + ", single point";
        return;
    }
    const bool forecast = std::any_of(f_.variables_.front().dims.begin(), f_.variables_.front().dims.end(),
                                      [](DimRole r) { return r == DimRole::ForecastHour; });
    const bool expverDim = !f_.variables_.front().expverOrder.empty();
    const bool ncar = varidOf("utc_date") >= 0 || lower(f_.variables_.front().name).rfind("var_", 0) == 0 ||
                      text(NC_GLOBAL, "NCAR_RDA_DATASET").has_value() ||
                      contains(lower(text(NC_GLOBAL, "NETCDF_CONVERSION").value_or("")), "rda");
    const std::string history = lower(text(NC_GLOBAL, "history").value_or(""));
    const bool cfgrib =
        contains(history, "cfgrib") || contains(lower(text(NC_GLOBAL, "GRIB_centre").value_or("")), "ecmf");
    const bool classic = contains(f_.format_, "netCDF3");
    std::string layout;
    if (forecast) {
        layout = ncar ? "NCAR RDA ds633.0 forecast (forecast_initial_time x forecast_hour)"
                      : "forecast (start time x lead time)";
    } else if (ncar) {
        layout = "NCAR RDA ds633.0 analysis";
    } else if (expverDim) {
        layout = "CDS with expver dimension (ERA5 + ERA5T)";
    } else if (cfgrib || !f_.variables_.front().stepType.empty()) {
        layout = "CDS 2024 (cfgrib)";
    } else if (classic && contains(history, "grib_to_netcdf")) {
        layout = "CDS legacy (grib_to_netcdf)";
    } else if (classic) {
        layout = "CDS legacy layout (netCDF3)";
    } else {
        layout = "CF NetCDF";
    }
    if (f_.era5Land_) {
        layout += ", ERA5-Land";
    }
    if (f_.monthly_) {
        layout += ", monthly means";
    }
    if (f_.box_.rows == 1 && f_.box_.cols == 1) {
        layout += ", single point";
    }
    f_.layout_ = layout;
}

// netCDF4/HDF5 decompress whole chunks; make the per-variable chunk cache big enough to hold
// the chunks of one time step so each chunk is decompressed once, not once per band.
void NetcdfParser::tuneChunkCache() {
    if (!contains(f_.format_, "netCDF4")) {
        return;
    }
    std::lock_guard lock(netcdfMutex());
    for (const auto& var : f_.variables_) {
        int storage = 0;
        std::array<size_t, NC_MAX_VAR_DIMS> chunks{};
        if (nc_inq_var_chunking(ncid_, var.varid, &storage, chunks.data()) != NC_NOERR ||
            storage != NC_CHUNKED) {
            continue;
        }
        double perStep = 1.0;
        double chunkCount = 1.0;
        size_t typeSize = 4;
        nc_inq_type(ncid_, var.type, nullptr, &typeSize);
        for (size_t d = 0; d < var.dims.size(); ++d) {
            const double c = static_cast<double>(std::max<size_t>(chunks[d], 1));
            const double len = static_cast<double>(dims_[static_cast<size_t>(dimIds_[var.name][d])].length);
            if (var.dims[d] == DimRole::Latitude || var.dims[d] == DimRole::Longitude) {
                perStep *= std::ceil(len / c) * c;
                chunkCount *= std::ceil(len / c);
            } else {
                perStep *= c;
            }
        }
        const double bytes = perStep * static_cast<double>(typeSize) * 1.25 + (1 << 20);
        const auto size = static_cast<size_t>(std::clamp(bytes, 16.0 * (1 << 20), 512.0 * (1 << 20)));
        const auto slots = static_cast<size_t>(std::max(1009.0, chunkCount * 4 + 1));
        f_.chunkCaches_.push_back(Era5File::ChunkCache{var.varid, size, slots});
    }
}
} // namespace isobar
