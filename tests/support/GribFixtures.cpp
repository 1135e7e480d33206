// SPDX-License-Identifier: GPL-3.0-or-later

#include "GribFixtures.h"

#include "Fixtures.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <eccodes.h>
#include <memory>
#include <stdexcept>

namespace isobar::test {

namespace {

void checkCodes(int err, const std::string& what) {
    if (err != CODES_SUCCESS) {
        throw std::runtime_error("ecCodes: cannot set " + what + ": " + codes_get_error_message(err));
    }
}

} // namespace

double gribExact(double base, std::size_t step, std::size_t row, std::size_t col, int salt) {
    return base +
           static_cast<double>((step * 7 + row * 13 + col * 5 + static_cast<std::size_t>(salt) * 3) % 97) /
               8.0;
}

void writeGribFixture(const QString& path, const std::vector<GribField>& fields, int padTo, bool append) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(
        std::fopen(path.toLocal8Bit().constData(), append ? "ab" : "wb"), &std::fclose);
    if (!out) {
        throw std::runtime_error("cannot create " + path.toStdString());
    }
    for (const GribField& f : fields) {
        const bool gaussian = f.grid.gridType == "reduced_gg";
        const bool pressure = f.typeOfLevel == "isobaricInhPa";
        const std::string sample =
            std::string(gaussian ? "reduced_gg_pl_32_grib"
                                 : (pressure ? "regular_ll_pl_grib" : "regular_ll_sfc_grib")) +
            std::to_string(f.edition);
        std::unique_ptr<codes_handle, void (*)(codes_handle*)> handle(
            codes_grib_handle_new_from_samples(nullptr, sample.c_str()),
            [](codes_handle* h) { codes_handle_delete(h); });
        if (!handle) {
            throw std::runtime_error("ecCodes has no sample " + sample);
        }
        codes_handle* h = handle.get();
        const auto text = [&](const char* key, const std::string& value) {
            std::size_t len = value.size();
            checkCodes(codes_set_string(h, key, value.c_str(), &len), key);
        };
        const auto number = [&](const char* key, long value) {
            checkCodes(codes_set_long(h, key, value), key);
        };
        const auto real = [&](const char* key, double value) {
            checkCodes(codes_set_double(h, key, value), key);
        };
        if (f.edition == 2) {
            number("setLocalDefinition", 1);
            number("localDefinitionNumber", 1);
        }
        text("class", f.marsClass);
        text("stream", f.stream);
        text("type", f.type);
        text("expver", f.expver);
        // GRIB2 defines accumulations by their statistical process: the step type goes first.
        text("stepType", f.stepType);
        if (f.undefinedParameter > 0 && f.edition == 1) {
            number("table2Version", 199);
            number("indicatorOfParameter", f.undefinedParameter);
        } else {
            number("paramId", f.paramId);
        }
        if (!f.typeOfLevel.empty()) {
            text("typeOfLevel", f.typeOfLevel);
            number("level", f.level);
        }
        number("dataDate", f.dataDate);
        number("dataTime", f.dataTime);
        text("stepType", f.stepType);
        if (f.stepType == "instant") {
            number("step", f.endStep);
        } else {
            text("stepRange", std::to_string(f.startStep) + "-" + std::to_string(f.endStep));
        }
        if (f.number >= 0) {
            number("number", f.number);
        }
        std::vector<double> values(f.values);
        if (!gaussian) {
            const GribGrid& g = f.grid;
            number("Ni", g.ni);
            number("Nj", g.nj);
            number("iScansNegatively", g.iScansNegatively ? 1 : 0);
            number("jScansPositively", g.jScansPositively ? 1 : 0);
            real("latitudeOfFirstGridPointInDegrees", g.latitudeOfFirst);
            real("latitudeOfLastGridPointInDegrees", g.latitudeOfLast);
            real("longitudeOfFirstGridPointInDegrees", g.longitudeOfFirst);
            real("longitudeOfLastGridPointInDegrees", g.longitudeOfLast);
            real("iDirectionIncrementInDegrees", g.iIncrement);
            real("jDirectionIncrementInDegrees", g.jIncrement);
        } else {
            long points = 0;
            codes_get_long(h, "numberOfDataPoints", &points);
            values.assign(static_cast<std::size_t>(points), 280.0);
        }
        number("bitsPerValue", f.bitsPerValue);
        bool missing = false;
        for (double& v : values) {
            if (std::isnan(v)) {
                v = 9999.0;
                missing = true;
            }
        }
        if (missing) {
            real("missingValue", 9999.0);
            number("bitmapPresent", 1);
        }
        checkCodes(codes_set_double_array(h, "values", values.data(), values.size()), "values");
        const void* bytes = nullptr;
        std::size_t size = 0;
        checkCodes(codes_get_message(h, &bytes, &size), "message");
        std::size_t total = size;
        if (padTo > 0) {
            total = (size + static_cast<std::size_t>(padTo) - 1) / static_cast<std::size_t>(padTo) *
                    static_cast<std::size_t>(padTo);
        }
        const std::vector<char> zeros(total - size + 1, '\0'); // never empty: data() is not null
        if (std::fwrite(bytes, 1, size, out.get()) != size ||
            std::fwrite(zeros.data(), 1, total - size, out.get()) != total - size) {
            throw std::runtime_error("cannot write " + path.toStdString());
        }
    }
}

EcmwfOracle ecmwfOracle(long paramId) {
    // ecCodes logs every paramId its GRIB 2 sample cannot take before the GRIB 1 one is tried.
    static const bool quiet = [] {
        codes_context_set_logging_proc(codes_context_get_default(),
                                       [](const codes_context*, int, const char*) {});
        return true;
    }();
    (void)quiet;
    for (const long edition : {2L, 1L}) {
        const std::string sample = "regular_ll_sfc_grib" + std::to_string(edition);
        std::unique_ptr<codes_handle, void (*)(codes_handle*)> handle(
            codes_grib_handle_new_from_samples(nullptr, sample.c_str()),
            [](codes_handle* h) { codes_handle_delete(h); });
        codes_handle* h = handle.get();
        if (h == nullptr) {
            continue;
        }
        if (edition == 2) {
            codes_set_long(h, "setLocalDefinition", 1);
            codes_set_long(h, "localDefinitionNumber", 1);
        }
        long back = 0;
        if (codes_set_long(h, "paramId", paramId) != CODES_SUCCESS ||
            codes_get_long(h, "paramId", &back) != 0 || back != paramId) {
            continue;
        }
        const auto text = [&](const char* key) {
            std::array<char, 512> buf{};
            std::size_t len = buf.size();
            return codes_get_string(h, key, buf.data(), &len) == CODES_SUCCESS ? std::string(buf.data())
                                                                               : std::string();
        };
        return EcmwfOracle{text("shortName"), text("name"), text("units"), text("cfVarName"), edition};
    }
    return {};
}

namespace {

// The seed's six as ERA5 GRIB identifies them, in column order.
constexpr long kSeedParams[] = {167, 165, 166, 164, 228, 144};

} // namespace

// A box of nj rows and ni columns from (first latitude, first longitude), `step` apart.
GribGrid box(double lat1, double lon1, long nj, long ni, double step, bool southNorth) {
    GribGrid g;
    g.ni = ni;
    g.nj = nj;
    g.latitudeOfFirst = lat1;
    g.longitudeOfFirst = lon1;
    g.latitudeOfLast = lat1 + static_cast<double>(nj - 1) * step * (southNorth ? 1.0 : -1.0);
    g.longitudeOfLast = lon1 + static_cast<double>(ni - 1) * step;
    g.iIncrement = step;
    g.jIncrement = step;
    g.jScansPositively = southNorth;
    return g;
}

double latitudeOf(const GribGrid& g, std::size_t row) {
    return g.latitudeOfFirst + static_cast<double>(row) * g.jIncrement * (g.jScansPositively ? 1.0 : -1.0);
}
double longitudeOf(const GribGrid& g, std::size_t col) {
    return g.longitudeOfFirst + static_cast<double>(col) * g.iIncrement;
}

// The stored value of column `column` at step s, point (row, col), in ERA5's units; NaN for a hole.
double seedValue(int column, std::size_t s, std::size_t row, std::size_t col) {
    if (column == 0 && (row + col + s) % 7 == 3) {
        return kGribMissing; // bitmap holes in t2m
    }
    switch (column) {
    case 0:
        return gribExact(250.0, s, row, col);
    case 1:
    case 2:
        return gribExact(-6.0, s, row, col, column);
    case 3:
        return static_cast<double>((s + row + col) % 9) / 8.0;
    default:
        return static_cast<double>((s * 3 + row + col * 2) % 5) / 1024.0; // m, exact in binary
    }
}

// What a stored value becomes in the table, worked out as the NetCDF fixtures' are.
std::optional<float> tableOf(int column, double stored) {
    FixtureVariable v;
    v.type = NC_FLOAT;
    return tableValue(v, stored, column);
}

// The seed's six at each hour: instant ones as analyses, tp and sf as forecasts.
std::vector<GribField> seedFields(int edition, const GribGrid& grid, const std::vector<SeedHour>& hours) {
    std::vector<GribField> out;
    for (std::size_t s = 0; s < hours.size(); ++s) {
        for (int column = 0; column < 6; ++column) {
            GribField f;
            f.edition = edition;
            f.paramId = kSeedParams[column];
            f.grid = grid;
            const bool accum = column >= 4;
            f.stepType = accum ? "accum" : "instant";
            f.type = accum ? "fc" : "an";
            f.dataDate = accum ? hours[s].forecastDate : hours[s].dataDate;
            f.dataTime = accum ? hours[s].forecastTime : hours[s].dataTime;
            f.startStep = accum ? hours[s].step - 1 : 0;
            f.endStep = accum ? hours[s].step : 0;
            for (long r = 0; r < grid.nj; ++r) {
                for (long c = 0; c < grid.ni; ++c) {
                    f.values.push_back(
                        seedValue(column, s, static_cast<std::size_t>(r), static_cast<std::size_t>(c)));
                }
            }
            out.push_back(std::move(f));
        }
    }
    return out;
}

WeatherRows expectedSeed(const GribGrid& grid, const std::vector<SeedHour>& hours, double step) {
    WeatherRows rows;
    for (std::size_t s = 0; s < hours.size(); ++s) {
        for (long r = 0; r < grid.nj; ++r) {
            for (long c = 0; c < grid.ni; ++c) {
                const double lat = latitudeOf(grid, static_cast<std::size_t>(r));
                const double lon = longitudeOf(grid, static_cast<std::size_t>(c));
                WeatherRow row;
                row.micros = hours[s].validMicros;
                row.locationId = gridLocationId(lat, seedLongitude(lon), step);
                row.latitude = static_cast<float>(lat);
                row.longitude = static_cast<float>(seedLongitude(lon));
                for (int column = 0; column < 6; ++column) {
                    row.values[static_cast<std::size_t>(column)] =
                        tableOf(column, seedValue(column, s, static_cast<std::size_t>(r),
                                                  static_cast<std::size_t>(c)));
                }
                rows[{row.micros, row.locationId}] = row;
            }
        }
    }
    return rows;
}

// Hours of 2024-03-01: analyses at hh UTC, accumulations from the 18 UTC forecast of 29 February.
std::vector<SeedHour> marchHours(int count) {
    std::vector<SeedHour> out;
    out.reserve(static_cast<std::size_t>(std::max(count, 0)));
    for (int h = 0; h < count; ++h) {
        out.push_back(SeedHour{pgMicros(2024, 3, 1, h), 20240301, h * 100L, 20240229, 1800, 6L + h});
    }
    return out;
}

} // namespace isobar::test
