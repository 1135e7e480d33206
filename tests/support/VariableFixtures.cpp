// SPDX-License-Identifier: GPL-3.0-or-later

// The fixtures of many variables and of pressure levels, and their rows by column name
// (VariableFixtures.h).

#include "VariableFixtures.h"

#include "TestCluster.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <utility>

namespace isobar::test {

namespace {

// Packs a variable into int16 over [lo, hi] as grib_to_netcdf does; the formula is the physical
// value, the stored one is its packed integer.
void pack(FixtureVariable& v, double lo, double hi) {
    const double scale = (hi - lo) / 65532.0;
    const double offset = lo + 32766.0 * scale;
    v.type = NC_SHORT;
    v.scaleFactor = scale;
    v.addOffset = offset;
    v.fillValue = -32767;
    v.missingValue = -32767;
    auto physical = v.value;
    v.value = [physical, scale, offset](std::size_t t, std::size_t l, std::size_t r, std::size_t c) {
        return std::round((physical(t, l, r, c) - offset) / scale);
    };
}

} // namespace

double kelvinToCelsius(double k) {
    return k - 273.15;
}

double metresToMillimetres(double m) {
    return m * 1000.0;
}

FixtureVariable
fixtureVariable(const std::string& name, const std::string& units, const std::string& longName,
                std::function<double(std::size_t, std::size_t, std::size_t, std::size_t)> value) {
    FixtureVariable v;
    v.name = name;
    v.units = units;
    v.longName = longName;
    v.value = std::move(value);
    return v;
}

ColumnRows expectedColumnRows(const FixtureSpec& spec, const std::vector<qint64>& stepMicros,
                              const std::map<std::string, ColumnExpectation>& expect) {
    ColumnRows rows;
    const std::size_t levels = std::max<std::size_t>(spec.levels.size(), 1);
    for (std::size_t t = 0; t < stepMicros.size(); ++t) {
        for (std::size_t l = 0; l < levels; ++l) {
            for (std::size_t r = 0; r < spec.latitudes.size(); ++r) {
                for (std::size_t c = 0; c < spec.longitudes.size(); ++c) {
                    const qint64 level = spec.levels.empty() ? -1 : std::llround(spec.levels[l] * 1000.0);
                    ColumnRow& row =
                        rows[{stepMicros[t], level, gridLocationId(spec.latitudes[r], spec.longitudes[c])}];
                    row["latitude"] = tableLatitude(spec, spec.latitudes[r]);
                    row["longitude"] = tableLongitude(spec, spec.longitudes[c]);
                    for (const FixtureVariable& v : spec.variables) {
                        const ColumnExpectation& e = expect.at(v.name);
                        const double stored = storedAs(v.type, v.value(t, l, r, c));
                        if (std::isnan(stored) || (v.fillValue && stored == *v.fillValue)) {
                            row[e.column] = std::nullopt;
                            continue;
                        }
                        const double unpacked =
                            stored * v.scaleFactor.value_or(1.0) + v.addOffset.value_or(0.0);
                        row[e.column] = static_cast<float>(e.convert(unpacked));
                    }
                }
            }
        }
    }
    return rows;
}

ColumnRows readColumnRows(Connection& conn, const std::string& table) {
    const Result cols =
        conn.query("SELECT attname FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 "
                   "AND NOT attisdropped ORDER BY attnum",
                   {table});
    std::vector<std::string> values;
    bool levels = false;
    for (int i = 0; i < cols.rows(); ++i) {
        const std::string name = cols.text(i, 0);
        levels = levels || name == "pressure_level";
        if (name != "time" && name != "location_id" && name != "pressure_level") {
            values.push_back(name);
        }
    }
    std::string sql = "SELECT (extract(epoch FROM time - '2000-01-01 00:00:00+00') * 1000000)::bigint, " +
                      std::string(levels ? "(pressure_level * 1000)::bigint" : "-1") + ", location_id";
    for (const auto& v : values) {
        sql += ", " + v;
    }
    const Result r = conn.query(sql + " FROM " + table);
    ColumnRows rows;
    for (int i = 0; i < r.rows(); ++i) {
        const ColumnKey key{std::stoll(r.text(i, 0)), std::stoll(r.text(i, 1)), std::stoi(r.text(i, 2))};
        if (rows.count(key) > 0) {
            throw std::runtime_error(table + " holds two rows for one (time, level, location)");
        }
        ColumnRow& row = rows[key];
        for (std::size_t v = 0; v < values.size(); ++v) {
            const int c = static_cast<int>(3 + v);
            row[values[v]] = r.isNull(i, c)
                                 ? std::nullopt
                                 : std::optional<float>(std::strtof(r.text(i, c).c_str(), nullptr));
        }
    }
    return rows;
}

QString compareColumnRows(const ColumnRows& actual, const ColumnRows& expected) {
    QString out;
    int shown = 0;
    if (actual.size() != expected.size()) {
        out += QString("%1 rows, expected %2\n").arg(actual.size()).arg(expected.size());
    }
    for (const auto& [key, row] : expected) {
        const auto it = actual.find(key);
        const auto [micros, level, id] = key;
        const QString where = QString("time %1 level %2 id %3").arg(micros).arg(level).arg(id);
        if (it == actual.end()) {
            out += where + ": missing\n";
        } else if (it->second != row) {
            for (const auto& [column, value] : row) {
                const auto a = it->second.find(column);
                if (a == it->second.end() || a->second != value) {
                    out += where + " " + QString::fromStdString(column) + ": " +
                           (a == it->second.end() ? QString("no such column")
                            : a->second           ? QString::number(*a->second, 'g', 9)
                                                  : QString("NULL")) +
                           ", expected " + (value ? QString::number(*value, 'g', 9) : QString("NULL")) + "\n";
                }
            }
            if (it->second.size() != row.size()) {
                out += where + QString(": %1 columns, expected %2\n").arg(it->second.size()).arg(row.size());
            }
        }
        if (!out.isEmpty() && ++shown > 8) {
            break;
        }
    }
    return out;
}

std::string columnNamesOf(Connection& conn, const std::string& table) {
    return scalar(conn,
                  "SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_attribute WHERE attrelid = '" +
                      table + "'::regclass AND attnum > 0 AND NOT attisdropped")
        .toStdString();
}

FixtureSpec twelveVariableFile(bool packed) {
    const std::vector<qint64> micros{pgMicros(2024, 3, 1, 6), pgMicros(2024, 3, 1, 7)};
    FixtureSpec spec = cds2024Fixture(range(50.0, 49.25, 0.25), range(5.0, 6.0, 0.25), micros);
    if (packed) {
        spec = FixtureSpec{};
        spec.latitudes = range(50.0, 49.25, 0.25);
        spec.longitudes = range(5.0, 6.0, 0.25);
        spec.times = timesSince(micros, pgMicros(1900, 1, 1), kMicrosPerHour);
    }
    const auto f = [](double base, double amp) {
        return [base, amp](std::size_t t, std::size_t, std::size_t r, std::size_t c) {
            return base + amp * (0.3 * static_cast<double>(t) + 0.17 * static_cast<double>(r) -
                                 0.11 * static_cast<double>(c) + 0.05 * static_cast<double>(r * c % 3));
        };
    };
    spec.variables = {
        fixtureVariable("t2m", "K", "2 metre temperature", f(280.0, 3.0)),
        fixtureVariable("u10", "m s**-1", "10 metre U wind component", f(-2.0, 4.0)),
        fixtureVariable("d2m", "K", "2 metre dewpoint temperature", f(275.0, 2.0)),
        fixtureVariable("sp", "Pa", "Surface pressure", f(98000.0, 300.0)),
        fixtureVariable("msl", "Pa", "Mean sea level pressure", f(101300.0, 250.0)),
        fixtureVariable("ssrd", "J m**-2", "Surface solar radiation downwards", f(900000.0, 200000.0)),
        fixtureVariable("u100", "m s**-1", "100 metre U wind component", f(3.0, 5.0)),
        fixtureVariable("swvl1", "m**3 m**-3", "Volumetric soil water layer 1", f(0.3, 0.05)),
        fixtureVariable("e", "m of water equivalent", "Evaporation", f(-0.0002, 0.0001)),
        fixtureVariable("blh", "m", "Boundary layer height", f(800.0, 150.0)),
        fixtureVariable("tcwv", "kg m**-2", "Total column water vapour", f(15.0, 3.0)),
        fixtureVariable("wind_power_index", "1", "Local wind power index (a user's own field)", f(0.5, 0.1)),
    };
    const std::map<std::string, std::pair<double, double>> ranges{
        {"t2m", {220, 330}},      {"u10", {-40, 40}},  {"d2m", {220, 320}}, {"sp", {50000, 105000}},
        {"msl", {94000, 106000}}, {"ssrd", {0, 4e6}},  {"u100", {-50, 50}}, {"swvl1", {0, 0.8}},
        {"e", {-0.002, 0.001}},   {"blh", {10, 5000}}, {"tcwv", {0, 80}},   {"wind_power_index", {0, 1}},
    };
    for (auto& v : spec.variables) {
        if (packed) {
            pack(v, ranges.at(v.name).first, ranges.at(v.name).second);
        } else {
            v.type = NC_FLOAT;
            v.fillValue = std::nan("");
        }
    }
    return spec;
}

FixtureSpec pressureLevelFile(bool legacy, const std::vector<qint64>& micros) {
    FixtureSpec spec = cds2024Fixture(range(45.0, 44.5, 0.25), {-1.0, -0.75, -0.5}, micros);
    if (legacy) {
        spec = FixtureSpec{};
        spec.latitudes = range(45.0, 44.5, 0.25);
        spec.longitudes = {-1.0, -0.75, -0.5};
        spec.levels = {500, 850, 1000};
        spec.levelName = "level";
        spec.levelType = NC_INT;
        spec.levelText = {{"units", "millibars"}, {"long_name", "pressure_level"}};
        spec.times = timesSince(micros, pgMicros(1900, 1, 1), kMicrosPerHour);
    } else {
        spec.levels = {1000, 850, 500};
        spec.levelName = "pressure_level";
        spec.levelType = NC_DOUBLE;
        spec.levelText = {{"units", "hPa"}, {"long_name", "pressure"}, {"standard_name", "air_pressure"}};
    }
    spec.dimOrder = {"time", "level", "lat", "lon"};
    const auto byLevel = [&spec](double surface, double perHpa, double amp) {
        const std::vector<double> levels = spec.levels;
        return [=](std::size_t t, std::size_t l, std::size_t r, std::size_t c) {
            return surface - perHpa * (1000.0 - levels[l]) +
                   amp * (0.2 * static_cast<double>(t) + 0.3 * static_cast<double>(r) -
                          0.1 * static_cast<double>(c));
        };
    };
    spec.variables = {
        fixtureVariable("t", "K", "Temperature", byLevel(288.0, 0.13, 1.0)),
        fixtureVariable("z", "m**2 s**-2", "Geopotential", byLevel(1000.0, -110.0, 20.0)),
        fixtureVariable("q", "kg kg**-1", "Specific humidity", byLevel(0.008, 0.000012, 0.0003)),
        fixtureVariable("r", "%", "Relative humidity", byLevel(80.0, 0.05, 2.0)),
    };
    const std::map<std::string, std::pair<double, double>> ranges{
        {"t", {180, 320}}, {"z", {-5000, 500000}}, {"q", {0, 0.03}}, {"r", {0, 110}}};
    for (auto& v : spec.variables) {
        if (legacy) {
            pack(v, ranges.at(v.name).first, ranges.at(v.name).second);
        } else {
            v.type = NC_FLOAT;
            v.fillValue = std::nan("");
        }
    }
    return spec;
}

} // namespace isobar::test
