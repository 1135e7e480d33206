// SPDX-License-Identifier: GPL-3.0-or-later

// The expected-row model: what the table must hold for a fixture, worked out independently of
// Isobar's own decoding; and the comparison of rows.

#include "Fixtures.h"
#include "era5/BandReader.h"
#include "era5/Dataset.h"

#include <QDateTime>
#include <QDir>
#include <QFile>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <zlib.h>

namespace isobar::test {

qint64 pgMicros(int year, int month, int day, int hour, int minute, int second) {
    static const QDateTime epoch(QDate(2000, 1, 1), QTime(0, 0), Qt::UTC);
    const QDateTime t(QDate(year, month, day), QTime(hour, minute, second), Qt::UTC);
    return epoch.msecsTo(t) * 1000;
}

double seedLongitude(double lon) {
    if (lon > 180.0) {
        return lon - 360.0;
    }
    if (lon <= -180.0) {
        return lon + 360.0;
    }
    return lon;
}

int gridLocationId(double lat, double lon, double step) {
    const long columns = std::lround(360.0 / step);
    const long latIndex = std::lround((lat + 90.0) / step);
    // Columns wrap: west of -180 + step / 2 the nearest grid point is 180 (an off-grid point).
    const long lonIndex = (std::lround((seedLongitude(lon) + 180.0 - step) / step) + columns) % columns;
    return static_cast<int>(latIndex * columns + lonIndex + 1);
}

int columnOf(const std::string& variableName) {
    std::string n = variableName;
    for (char& ch : n) {
        ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    const std::map<std::string, int> columns = {{"t2m", 0}, {"var_2t", 0},  {"u10", 1}, {"var_10u", 1},
                                                {"v10", 2}, {"var_10v", 2}, {"tcc", 3}, {"var_tcc", 3},
                                                {"tp", 4},  {"var_tp", 4},  {"sf", 5},  {"var_sf", 5}};
    const auto it = columns.find(n);
    return it == columns.end() ? -1 : it->second;
}

double storedAs(nc_type type, double value) {
    if (std::isnan(value)) {
        return value;
    }
    switch (type) {
    case NC_FLOAT:
        return static_cast<double>(static_cast<float>(value));
    case NC_SHORT:
        return static_cast<double>(static_cast<short>(value));
    case NC_INT:
        return static_cast<double>(static_cast<int>(value));
    default:
        return value;
    }
}

std::optional<float> tableValue(const FixtureVariable& v, double value, int column) {
    const double stored = storedAs(v.type, value);
    if (std::isnan(stored)) {
        return std::nullopt;
    }
    for (const auto& marker : {v.fillValue, v.missingValue}) {
        if (marker && !std::isnan(*marker) && stored == storedAs(v.type, *marker)) {
            return std::nullopt;
        }
    }
    double x = stored;
    if (v.scaleFactor || v.addOffset) {
        x = stored * v.scaleFactor.value_or(1.0) + v.addOffset.value_or(0.0);
    }
    if (column == 0) {
        x -= 273.15;
    } else if (column == 4 || column == 5) {
        x *= 1000.0;
    }
    return static_cast<float>(x);
}

float tableLatitude(const FixtureSpec& spec, double lat) {
    return static_cast<float>(spec.coordType == NC_DOUBLE ? lat : storedAs(NC_FLOAT, lat));
}

float tableLongitude(const FixtureSpec& spec, double lon) {
    return static_cast<float>(seedLongitude(spec.coordType == NC_DOUBLE ? lon : storedAs(NC_FLOAT, lon)));
}

WeatherRows expectedRows(const FixtureSpec& spec, const std::vector<qint64>& stepMicros, double step) {
    WeatherRows rows;
    for (size_t s = 0; s < stepMicros.size(); ++s) {
        for (size_t r = 0; r < spec.latitudes.size(); ++r) {
            for (size_t c = 0; c < spec.longitudes.size(); ++c) {
                WeatherRow row;
                row.micros = stepMicros[s];
                row.locationId = gridLocationId(spec.latitudes[r], spec.longitudes[c], step);
                row.latitude = tableLatitude(spec, spec.latitudes[r]);
                row.longitude = tableLongitude(spec, spec.longitudes[c]);
                for (const auto& v : spec.variables) {
                    const int column = columnOf(v.name);
                    if (column >= 0) {
                        row.values[static_cast<size_t>(column)] = tableValue(v, v.value(s, 0, r, c), column);
                    }
                }
                if (!rows.emplace(RowKey{row.micros, row.locationId}, row).second) {
                    throw std::runtime_error("fixture: two expected rows share a (time, location_id)");
                }
            }
        }
    }
    return rows;
}

WeatherRows decodedRows(const isobar::Dataset& dataset, double step, std::size_t bandRows) {
    WeatherRows rows;
    const isobar::BandReader reader(dataset);
    isobar::RawUnit raw;
    isobar::DecodedBand band;
    for (size_t i = 0; i < dataset.steps().size(); ++i) {
        const auto& geometry = dataset.geometries()[dataset.steps()[i].geometry];
        const size_t cols = geometry.longitudes.size();
        for (size_t row0 = 0; row0 < geometry.latitudes.size(); row0 += bandRows) {
            const size_t count = std::min(bandRows, geometry.latitudes.size() - row0);
            reader.fetch(i, row0, count, raw);
            reader.decode(raw, band);
            for (size_t r = 0; r < count; ++r) {
                for (size_t c = 0; c < cols; ++c) {
                    WeatherRow row;
                    row.micros = dataset.steps()[i].time.micros;
                    const double lat = geometry.latitudes[row0 + r];
                    const double lon = geometry.longitudes[c];
                    row.locationId = gridLocationId(lat, lon, step);
                    row.latitude = static_cast<float>(lat);
                    row.longitude = static_cast<float>(seedLongitude(lon));
                    // The seed's six, wherever the dataset's columns put them.
                    for (size_t k = 0; k < band.values.size(); ++k) {
                        const auto& variable = dataset.columns()[k].variable;
                        const float* values = band.values[k];
                        if (variable && variable->index() < 6 && values != nullptr &&
                            !std::isnan(values[r * cols + c])) {
                            row.values[variable->index()] = values[r * cols + c];
                        }
                    }
                    if (!rows.emplace(RowKey{row.micros, row.locationId}, row).second) {
                        throw std::runtime_error("decoded two rows for time " + std::to_string(row.micros) +
                                                 ", location_id " + std::to_string(row.locationId));
                    }
                }
            }
        }
    }
    return rows;
}

namespace {
QString describeRow(const WeatherRow& r) {
    QString out = QString("time %1 id %2 lat %3 lon %4 |")
                      .arg(r.micros)
                      .arg(r.locationId)
                      .arg(static_cast<double>(r.latitude), 0, 'g', 9)
                      .arg(static_cast<double>(r.longitude), 0, 'g', 9);
    for (const auto& v : r.values) {
        out += v ? QString(" %1").arg(static_cast<double>(*v), 0, 'g', 9) : QString(" NULL");
    }
    return out;
}

bool sameValue(const std::optional<float>& a, const std::optional<float>& b) {
    return a.has_value() == b.has_value() && (!a || *a == *b);
}
} // namespace

QString compareRows(const WeatherRows& actual, const WeatherRows& expected) {
    QStringList problems;
    size_t differing = 0;
    for (const auto& [key, want] : expected) {
        const auto it = actual.find(key);
        bool same = it != actual.end();
        if (same) {
            const WeatherRow& got = it->second;
            same = got.latitude == want.latitude && got.longitude == want.longitude &&
                   got.locationId == want.locationId;
            for (size_t v = 0; v < 6 && same; ++v) {
                same = sameValue(got.values[v], want.values[v]);
            }
        }
        if (!same) {
            ++differing;
            if (problems.size() < 6) {
                problems << "expected " + describeRow(want);
                problems << (it == actual.end() ? QString("     got no such row")
                                                : "     got " + describeRow(it->second));
            }
        }
    }
    size_t extra = 0;
    for (const auto& [key, got] : actual) {
        if (expected.count(key) == 0) {
            if (++extra <= 2) {
                problems << "unexpected " + describeRow(got);
            }
        }
    }
    if (differing == 0 && extra == 0) {
        return {};
    }
    return QString("%1 of %2 expected rows differ or are missing, %3 unexpected rows (of %4):\n")
               .arg(differing)
               .arg(expected.size())
               .arg(extra)
               .arg(actual.size()) +
           problems.join('\n');
}

} // namespace isobar::test
