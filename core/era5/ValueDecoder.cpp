// SPDX-License-Identifier: GPL-3.0-or-later

#include "era5/ValueDecoder.h"

#include <cmath>
#include <limits>

namespace isobar {

float decodeStored(const FileVariable& var, double stored) {
    if (std::isnan(stored)) {
        return std::numeric_limits<float>::quiet_NaN();
    }
    for (double m : var.missingValues) {
        if (stored == m) {
            return std::numeric_limits<float>::quiet_NaN();
        }
    }
    const double unpacked = var.packed ? stored * var.scale + var.offset : stored;
    return static_cast<float>(convert(var.conversion, unpacked));
}

namespace {

// Unpacking and conversion for non-int16 data, with the branches chosen once per run of values
// rather than per value; the arithmetic is exactly decodeStored's.
template <Conversion C, bool Packed, typename T>
void decodeRun(const T* in, float* out, std::size_t n, const FileVariable& var,
               const std::vector<double>& missing) {
    const double scale = var.scale;
    const double offset = var.offset;
    for (std::size_t k = 0; k < n; ++k) {
        const auto stored = static_cast<double>(in[k]);
        bool isMissing = std::isnan(stored);
        for (double m : missing) {
            isMissing = isMissing || stored == m;
        }
        if (isMissing) {
            out[k] = std::numeric_limits<float>::quiet_NaN();
            continue;
        }
        const double unpacked = Packed ? stored * scale + offset : stored;
        out[k] = static_cast<float>(convert(C, unpacked));
    }
}

template <typename T>
void decodeRunDispatch(const T* in, float* out, std::size_t n, const FileVariable& var,
                       const std::vector<double>& missing) {
    const auto go = [&]<Conversion C>() {
        if (var.packed) {
            decodeRun<C, true>(in, out, n, var, missing);
        } else {
            decodeRun<C, false>(in, out, n, var, missing);
        }
    };
    switch (var.conversion) {
    case Conversion::KelvinToCelsius:
        go.template operator()<Conversion::KelvinToCelsius>();
        break;
    case Conversion::MetresToMillimetres:
        go.template operator()<Conversion::MetresToMillimetres>();
        break;
    case Conversion::PercentToFraction:
        go.template operator()<Conversion::PercentToFraction>();
        break;
    case Conversion::None:
        go.template operator()<Conversion::None>();
        break;
    }
}

} // namespace

ValueDecoder::ValueDecoder(const FileVariable& var)
    : var_(&var) {
    for (double m : var.missingValues) {
        if (!std::isnan(m)) {
            missing_.push_back(m);
        }
    }
    if (var.type == NC_SHORT) {
        shortTable_.resize(65536);
        for (std::int32_t raw = -32768; raw <= 32767; ++raw) {
            shortTable_[static_cast<std::uint16_t>(raw)] = decodeStored(var, raw);
        }
    }
}

float ValueDecoder::decodeOne(double stored) const {
    return decodeStored(*var_, stored);
}

template <typename T>
void ValueDecoder::decodeTyped(const T* in, const RawBand& raw, bool latAscending,
                               const std::vector<ColumnRun>& runs, std::size_t boxCols, float* out) const {
    const auto decode = [this](T v) {
        if constexpr (std::is_same_v<T, std::int16_t>) {
            return value(v);
        } else {
            return decodeStored(*var_, static_cast<double>(v));
        }
    };
    for (std::size_t s = 0; s < raw.rows; ++s) {
        // Raw row s is box row s of the band when the file runs north to south, else mirrored.
        float* row = out + (latAscending ? raw.rows - 1 - s : s) * boxCols;
        for (const ColumnRun& run : runs) {
            if (raw.latMajor && run.step > 0) {
                const T* src = in + s * raw.cols + run.fileCol;
                float* dst = row + run.boxCol;
                if constexpr (std::is_same_v<T, std::int16_t>) {
                    for (std::size_t k = 0; k < run.length; ++k) {
                        dst[k] = decode(src[k]);
                    }
                } else {
                    decodeRunDispatch(src, dst, run.length, *var_, missing_);
                }
                continue;
            }
            for (std::size_t k = 0; k < run.length; ++k) {
                const std::size_t fileCol = run.step > 0 ? run.fileCol + k : run.fileCol + run.length - 1 - k;
                const std::size_t index = raw.latMajor ? s * raw.cols + fileCol : fileCol * raw.rows + s;
                row[run.boxCol + k] = decode(in[index]);
            }
        }
    }
}

void ValueDecoder::decodeInto(const RawBand& raw, bool latAscending, const std::vector<ColumnRun>& runs,
                              std::size_t boxCols, float* out) const {
    switch (raw.type) {
    case NC_SHORT:
        decodeTyped(raw.shorts.data(), raw, latAscending, runs, boxCols, out);
        break;
    case NC_INT:
        decodeTyped(raw.ints.data(), raw, latAscending, runs, boxCols, out);
        break;
    case NC_FLOAT:
        decodeTyped(raw.floats.data(), raw, latAscending, runs, boxCols, out);
        break;
    default:
        decodeTyped(raw.doubles.data(), raw, latAscending, runs, boxCols, out);
        break;
    }
}

} // namespace isobar
