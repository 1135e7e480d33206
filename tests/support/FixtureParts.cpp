// SPDX-License-Identifier: GPL-3.0-or-later

// Building blocks for fixtures: synthetic values, variables, time axes, a stored ZIP writer.

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

double synthValue(int column, std::size_t s, std::size_t r, std::size_t c, double salt) {
    const auto S = static_cast<double>(s);
    const auto R = static_cast<double>(r);
    const auto C = static_cast<double>(c);
    switch (column) {
    case 0:
        return 255.0 + 1.7 * S + 0.93 * R - 0.41 * C + salt;
    case 1:
        return -6.0 + 0.77 * S + 0.31 * R + 0.23 * C + salt;
    case 2:
        return 4.0 - 0.59 * S + 0.17 * R - 0.29 * C + salt;
    case 3:
        return std::fmod(0.07 * S + 0.11 * R + 0.13 * C + std::fabs(salt), 1.0);
    case 4:
        return 0.00013 * static_cast<double>((s * 7 + r * 3 + c) % 11) + salt * 1e-3;
    default:
        return 0.00007 * static_cast<double>((s + 2 * r + c) % 5) + salt * 1e-4;
    }
}

ValueFn withHoles(int column, double salt) {
    return [column, salt](std::size_t s, std::size_t, std::size_t r, std::size_t c) {
        return (s * 7 + r * 3 + c * 5 + static_cast<std::size_t>(column)) % 11 == 0
                   ? std::numeric_limits<double>::quiet_NaN()
                   : synthValue(column, s, r, c, salt);
    };
}

namespace {
const char* const kShortNames[] = {"t2m", "u10", "v10", "tcc", "tp", "sf"};
const char* const kUnits[] = {"K", "m s**-1", "m s**-1", "(0 - 1)", "m", "m of water equivalent"};
const char* const kLongNames[] = {"2 metre temperature",       "10 metre U wind component",
                                  "10 metre V wind component", "Total cloud cover",
                                  "Total precipitation",       "Snowfall"};
} // namespace

FixtureVariable floatVariable(int column, ValueFn value, const std::string& name) {
    const auto k = static_cast<std::size_t>(column);
    FixtureVariable v;
    v.name = name.empty() ? kShortNames[k] : name;
    v.type = NC_FLOAT;
    v.fillValue = std::numeric_limits<double>::quiet_NaN();
    v.units = kUnits[k];
    v.longName = kLongNames[k];
    v.text["GRIB_stepType"] = column >= 4 ? "accum" : "instant";
    v.value = std::move(value);
    return v;
}

FixtureVariable packedVariable(int column, const ValueFn& physical) {
    static const double scale[] = {0.0017, 0.00061, 0.00058, 1.6e-05, 2.1e-07, 9.5e-08};
    static const double offset[] = {268.5, -1.25, 0.75, 0.5, 0.0068, 0.0031};
    const auto k = static_cast<std::size_t>(column);
    FixtureVariable v;
    v.name = kShortNames[k];
    v.type = NC_SHORT;
    v.scaleFactor = scale[k];
    v.addOffset = offset[k];
    v.fillValue = -32767;
    v.missingValue = -32767;
    v.units = kUnits[k];
    v.longName = kLongNames[k];
    v.value = [physical, k](std::size_t s, std::size_t e, std::size_t r, std::size_t c) {
        const double x = physical(s, e, r, c);
        return std::isnan(x) ? -32767.0 : std::round((x - offset[k]) / scale[k]);
    };
    return v;
}

std::vector<long long> timesSince(const std::vector<qint64>& micros, qint64 epoch, qint64 unit) {
    std::vector<long long> out;
    out.reserve(micros.size());
    for (qint64 m : micros) {
        out.push_back((m - epoch) / unit);
    }
    return out;
}

std::vector<qint64> hourly(qint64 first, int count) {
    std::vector<qint64> out;
    out.reserve(static_cast<std::size_t>(count));
    for (int h = 0; h < count; ++h) {
        out.push_back(first + h * kMicrosPerHour);
    }
    return out;
}

bool anyLineContains(const std::vector<std::string>& lines, const QStringList& parts) {
    for (const auto& line : lines) {
        const QString l = QString::fromStdString(line);
        if (std::all_of(parts.begin(), parts.end(), [&](const QString& p) { return l.contains(p); })) {
            return true;
        }
    }
    return false;
}

QString joinLines(const std::vector<std::string>& lines) {
    QStringList out;
    for (const auto& l : lines) {
        out << QString::fromStdString(l);
    }
    return out.join(" | ");
}

namespace {
void putLe(QByteArray& out, std::uint32_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) {
        out.append(static_cast<char>((value >> (8 * i)) & 0xffu));
    }
}
} // namespace

void writeStoredZip(const QString& path, const std::vector<std::pair<std::string, QString>>& members) {
    QByteArray archive;
    QByteArray central;
    constexpr std::uint32_t kDosDate = (0u << 9) | (1u << 5) | 1u; // 1980-01-01
    for (const auto& [name, file] : members) {
        QFile in(file);
        if (!in.open(QIODevice::ReadOnly)) {
            throw std::runtime_error("zip: cannot read " + file.toStdString());
        }
        const QByteArray data = in.readAll();
        const auto crc = static_cast<std::uint32_t>(
            crc32(0L, reinterpret_cast<const Bytef*>(data.constData()), static_cast<uInt>(data.size())));
        const auto size = static_cast<std::uint32_t>(data.size());
        const auto nameLength = static_cast<std::uint32_t>(name.size());
        const auto offset = static_cast<std::uint32_t>(archive.size());
        // Local file header, then the data as is.
        putLe(archive, 0x04034b50u, 4);
        putLe(archive, 20, 2); // version needed: 2.0
        putLe(archive, 0, 2);  // flags
        putLe(archive, 0, 2);  // method: stored
        putLe(archive, 0, 2);  // time
        putLe(archive, kDosDate, 2);
        putLe(archive, crc, 4);
        putLe(archive, size, 4); // compressed
        putLe(archive, size, 4); // uncompressed
        putLe(archive, nameLength, 2);
        putLe(archive, 0, 2); // extra field length
        archive.append(name.data(), static_cast<qsizetype>(name.size()));
        archive.append(data);
        // Its central directory entry.
        putLe(central, 0x02014b50u, 4);
        putLe(central, 0x031e, 2); // made by: Unix, 3.0
        putLe(central, 20, 2);
        putLe(central, 0, 2);
        putLe(central, 0, 2);
        putLe(central, 0, 2);
        putLe(central, kDosDate, 2);
        putLe(central, crc, 4);
        putLe(central, size, 4);
        putLe(central, size, 4);
        putLe(central, nameLength, 2);
        putLe(central, 0, 2);              // extra
        putLe(central, 0, 2);              // comment
        putLe(central, 0, 2);              // disk
        putLe(central, 0, 2);              // internal attributes
        putLe(central, 0100644u << 16, 4); // external: a regular file, rw-r--r--
        putLe(central, offset, 4);
        central.append(name.data(), static_cast<qsizetype>(name.size()));
    }
    const auto centralOffset = static_cast<std::uint32_t>(archive.size());
    archive.append(central);
    const auto count = static_cast<std::uint32_t>(members.size());
    putLe(archive, 0x06054b50u, 4);
    putLe(archive, 0, 2);
    putLe(archive, 0, 2);
    putLe(archive, count, 2);
    putLe(archive, count, 2);
    putLe(archive, static_cast<std::uint32_t>(central.size()), 4);
    putLe(archive, centralOffset, 4);
    putLe(archive, 0, 2); // comment length
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) || out.write(archive) != archive.size()) {
        throw std::runtime_error("zip: cannot write " + path.toStdString());
    }
}

} // namespace isobar::test
