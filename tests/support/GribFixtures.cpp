#include "GribFixtures.h"

#include <cstdio>
#include <eccodes.h>
#include <memory>
#include <stdexcept>

namespace isobar::test {

namespace {

void check(int err, const std::string& what) {
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
            check(codes_set_string(h, key, value.c_str(), &len), key);
        };
        const auto number = [&](const char* key, long value) {
            check(codes_set_long(h, key, value), key);
        };
        const auto real = [&](const char* key, double value) {
            check(codes_set_double(h, key, value), key);
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
        number("paramId", f.paramId);
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
        check(codes_set_double_array(h, "values", values.data(), values.size()), "values");
        const void* bytes = nullptr;
        std::size_t size = 0;
        check(codes_get_message(h, &bytes, &size), "message");
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

} // namespace isobar::test
