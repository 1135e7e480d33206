// SPDX-License-Identifier: GPL-3.0-or-later

// The synthetic file as GRIB, written through ecCodes as the CDS delivers ERA5 by default.

#include "era5/Grib.h"
#include "synth/SyntheticParts.h"
#include "util/Error.h"

#include <cmath>
#include <cstdio>
#include <eccodes.h>
#include <memory>
#include <mutex>
#include <string>

namespace isobar::synth {

namespace {

struct HandleDeleter {
    void operator()(codes_handle* h) const { codes_handle_delete(h); }
};

void check(int err, const std::filesystem::path& path, const char* what) {
    if (err != CODES_SUCCESS) {
        throw Error(path.string() + ": cannot write the GRIB " + std::string(what) + ": " +
                    codes_get_error_message(err));
    }
}

// The forecast an hour's value comes from in ERA5: the last 06 or 18 UTC run before it, at step
// 1..12.
long forecastStep(std::int64_t hour1900) {
    const std::int64_t h = ((hour1900 % 24) + 24) % 24;
    return static_cast<long>(((h - 6) % 12 + 12 + 11) % 12 + 1);
}

// YYYYMMDD and HHMM of an hour since 1900.
std::pair<long, long> dateAndTime(std::int64_t hour1900) {
    const std::string t = yyyymmddhh(hour1900);
    return {std::stol(t.substr(0, 8)), std::stol(t.substr(8, 2)) * 100};
}

} // namespace

void writeGrib(const std::filesystem::path& path, const Job& job, int edition, bool padded) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::fopen(path.c_str(), "wb"), &std::fclose);
    if (!out) {
        throw Error(path.string() + ": cannot create: " + systemErrorText(errno));
    }
    const bool pressure = !job.levels.empty();
    const std::string sampleName =
        std::string(pressure ? "regular_ll_pl_grib" : "regular_ll_sfc_grib") + std::to_string(edition);
    const auto& lats = job.grid.latitudes;
    const auto& lons = job.grid.longitudes;
    const auto lonKey = [&](double lon) {
        // GRIB2 counts longitudes 0..360; GRIB1 keeps them as the box is written.
        return edition == 2 && lon < 0.0 ? lon + 360.0 : lon;
    };
    std::vector<std::vector<double>> values;
    for (int h = 0; h < job.hours; ++h) {
        const std::int64_t hour = job.firstHour1900 + h;
        for (const std::optional<double> level : levelsOf(job)) {
            forEachVariable(
                job, job.variables, hour, level, values, [&](std::size_t i, const std::vector<double>& v) {
                    const VariableSpec& s = spec(job.variables[i]);
                    const std::string stepType(stepTypeOf(s));
                    const bool forecast = stepType != "instant";
                    const long step = forecast ? forecastStep(hour) : 0;
                    const auto [date, time] = dateAndTime(hour - step);
                    std::lock_guard lock(gribMutex());
                    std::unique_ptr<codes_handle, HandleDeleter> g(
                        codes_grib_handle_new_from_samples(nullptr, sampleName.c_str()));
                    if (!g) {
                        throw Error("ecCodes has no GRIB sample " + sampleName +
                                    " (is the libeccodes-data package installed?)");
                    }
                    codes_handle* hd = g.get();
                    std::size_t len = 0;
                    const auto text = [&](const char* key, const std::string& value) {
                        len = value.size();
                        check(codes_set_string(hd, key, value.c_str(), &len), path, key);
                    };
                    const auto number = [&](const char* key, long value) {
                        check(codes_set_long(hd, key, value), path, key);
                    };
                    const auto real = [&](const char* key, double value) {
                        check(codes_set_double(hd, key, value), path, key);
                    };
                    if (edition == 2) {
                        number("setLocalDefinition", 1);
                        number("localDefinitionNumber", 1);
                    }
                    text("class", "ea");
                    text("stream", "oper");
                    text("type", forecast ? "fc" : "an");
                    text("expver", "0001");
                    // GRIB2 defines accumulations by their statistical process: the step type goes first.
                    text("stepType", stepType);
                    number("paramId", s.paramId);
                    if (pressure) {
                        text("typeOfLevel", "isobaricInhPa");
                        number("level", std::lround(*level));
                    }
                    number("dataDate", date);
                    number("dataTime", time);
                    text("stepType", stepType);
                    text("stepRange", forecast ? std::to_string(step - 1) + "-" + std::to_string(step) : "0");
                    number("Ni", static_cast<long>(lons.size()));
                    number("Nj", static_cast<long>(lats.size()));
                    number("iScansNegatively", 0);
                    number("jScansPositively", 0);
                    real("latitudeOfFirstGridPointInDegrees", lats.front());
                    real("latitudeOfLastGridPointInDegrees", lats.back());
                    real("longitudeOfFirstGridPointInDegrees", lonKey(lons.front()));
                    real("longitudeOfLastGridPointInDegrees", lonKey(lons.back()));
                    real("iDirectionIncrementInDegrees",
                         lons.size() > 1 ? std::fabs(lons[1] - lons[0]) : 0.25);
                    real("jDirectionIncrementInDegrees",
                         lats.size() > 1 ? std::fabs(lats[0] - lats[1]) : 0.25);
                    number("bitsPerValue", 16);
                    // Missing points (sea surface temperature over land, say) go in a bitmap.
                    constexpr double kMissing = 9999.0;
                    std::vector<double> coded(v);
                    bool missing = false;
                    for (double& x : coded) {
                        if (std::isnan(x)) {
                            x = kMissing;
                            missing = true;
                        }
                    }
                    if (missing) {
                        real("missingValue", kMissing);
                        number("bitmapPresent", 1);
                    }
                    check(codes_set_double_array(hd, "values", coded.data(), coded.size()), path, "values");
                    const void* bytes = nullptr;
                    std::size_t size = 0;
                    check(codes_get_message(hd, &bytes, &size), path, "message");
                    std::size_t total = size;
                    if (padded) {
                        total = (size + 119) / 120 * 120;
                    }
                    static const std::vector<char> zeros(120, '\0');
                    if (std::fwrite(bytes, 1, size, out.get()) != size ||
                        std::fwrite(zeros.data(), 1, total - size, out.get()) != total - size) {
                        throw Error(path.string() +
                                    ": cannot write (is the disk full?): " + systemErrorText(errno));
                    }
                });
        }
    }
    if (std::fflush(out.get()) != 0) {
        throw Error(path.string() + ": cannot write (is the disk full?): " + systemErrorText(errno));
    }
}

} // namespace isobar::synth
