// SPDX-License-Identifier: GPL-3.0-or-later

// Era5File::open for GRIB, continued (see GribParser.h): what Isobar refuses to load - grids
// other than regular latitude/longitude, ensembles, model levels, single and pressure levels in
// one file - and how messages are named in messages.

#include "era5/GribParser.h"
#include "util/Format.h"

#include <cmath>
#include <limits>

namespace isobar {

namespace {

// Level types of ERA5's single-level parameters (2 m, 10 m, the surface, the whole column, soil
// layers, the sea, ...): one value per time and point.
bool singleLevelType(const std::string& t) {
    return t != "isobaricInhPa" && t != "isobaricInPa" && t != "hybrid" && t != "hybridLevel" &&
           t != "theta" && t != "potentialVorticity" && t != "generalVertical" && t != "generalVerticalLayer";
}

// A date and time (dataDate YYYYMMDD, dataTime HHMM) and a step (hours) that make a time: any
// other would overflow the microseconds they are turned into (ecCodes gives what the message
// says, 3.7e12 for a dataDate as well). Steps up to a century of hours.
bool plausibleTime(const GribMessage& m) {
    const long month = m.dataDate / 100 % 100;
    const long day = m.dataDate % 100;
    return m.dataDate >= 10000101 && m.dataDate <= 99991231 && month >= 1 && month <= 12 && day >= 1 &&
           day <= 31 && m.dataTime >= 0 && m.dataTime % 100 < 60 && m.dataTime / 100 < 24 && m.endStep >= 0 &&
           m.endStep <= 100L * 366 * 24;
}

} // namespace

std::string GribParser::describe(std::size_t message) const {
    const GribMessage& m = grib_->messages[message];
    // "2024-01-01 06:00 UTC", or what the message says when that is not a time.
    const std::string when = plausibleTime(m) ? formatTimestamp(baseTime(m)).substr(0, 16) + " UTC"
                                              : "dataDate " + std::to_string(m.dataDate) + " dataTime " +
                                                    std::to_string(m.dataTime);
    return "message " + std::to_string(message + 1) + " (" + m.shortName + ", paramId " +
           std::to_string(m.paramId) + ", " + when + " + " + m.stepRange + " h" +
           (singleLevelType(m.typeOfLevel) ? std::string()
                                           : ", " + m.typeOfLevel + " " + formatCoordinate(m.level)) +
           ")";
}

void GribParser::checkMessages() {
    const auto& messages = grib_->messages;
    messageLevel_.assign(messages.size(), std::numeric_limits<double>::quiet_NaN());
    std::optional<std::size_t> surface;
    std::optional<std::size_t> pressure;
    for (std::size_t k = 0; k < messages.size(); ++k) {
        const GribMessage& m = messages[k];
        const std::string what = describe(k);
        if (!plausibleTime(m)) {
            fail(what + " has no valid date and time (dataDate " + std::to_string(m.dataDate) +
                 ", dataTime " + std::to_string(m.dataTime) + ", step " + m.stepRange + ")");
        }
        if (!m.stepsInHours) {
            fail(what + " counts its steps in a unit that is not a whole number of hours (stepRange " +
                 m.stepRange + "); ERA5 steps are hours");
        }
        if (m.alternativeRowScanning) {
            fail(what + " scans rows in alternating directions (alternativeRowScanning), which Isobar does "
                        "not read; request the data on a regular grid (e.g. grid 0.25/0.25)");
        }
        if (m.gridType == "reduced_gg" || m.gridType == "regular_gg" || m.gridType == "reduced_rotated_gg") {
            fail(what + " is on a Gaussian grid (" + m.gridType +
                 ", ERA5's native grid): Isobar loads regular latitude/longitude grids; request the data "
                 "interpolated to one (in the CDS API, e.g. \"grid\": [0.25, 0.25])");
        }
        if (m.gridType == "sh") {
            fail(what +
                 " holds spherical harmonics (a spectral field, ERA5's native model output): Isobar "
                 "loads regular latitude/longitude grids; request the data on one (e.g. grid 0.25/0.25)");
        }
        if (m.gridType == "rotated_ll" || m.gridType == "rotated_gg") {
            fail(what + " is on a rotated grid (" + m.gridType +
                 "): Isobar loads regular latitude/longitude grids; request the data on one (e.g. grid "
                 "0.25/0.25)");
        }
        if (m.gridType != "regular_ll") {
            fail(what + " is on a grid of type '" + m.gridType +
                 "': Isobar loads regular latitude/longitude grids (regular_ll); request the data on one "
                 "(e.g. grid 0.25/0.25)");
        }
        if (m.dataType == "pf" || m.dataType == "cf" || m.dataType == "em" || m.dataType == "es" ||
            m.stream == "enda" || m.stream == "edmm" || m.stream == "edmo" || m.stream == "ewda" ||
            m.number > 0) {
            const std::string kind = m.dataType == "em"   ? "the ensemble mean"
                                     : m.dataType == "es" ? "the ensemble spread"
                                                          : "ensemble member " + std::to_string(m.number);
            fail(what + " is " + kind + " of ERA5's ensemble (EDA; stream " + m.stream + ", type " +
                 m.dataType +
                 "): Isobar loads the deterministic reanalysis, one value per time and point; download the "
                 "reanalysis product (product_type reanalysis)");
        }
        if (m.typeOfLevel == "hybrid" || m.typeOfLevel == "hybridLevel") {
            fail(what + " is on model levels (" + m.typeOfLevel +
                 "): model-level files are not loaded; Isobar loads single-level and pressure-level data");
        }
        if (m.typeOfLevel == "theta" || m.typeOfLevel == "potentialVorticity" ||
            m.typeOfLevel == "generalVertical" || m.typeOfLevel == "generalVerticalLayer") {
            fail(what + " is on " + m.typeOfLevel +
                 " levels, which are not pressure levels; Isobar loads single-level and pressure-level data");
        }
        if (m.typeOfLevel == "isobaricInhPa" || m.typeOfLevel == "isobaricInPa") {
            const double hpa = m.typeOfLevel == "isobaricInPa" ? m.level / 100.0 : m.level;
            if (!(hpa > 0.0 && hpa <= 1100.0)) {
                fail(what + " is at pressure level " + formatCoordinate(hpa) +
                     " hPa, which is not a level of the atmosphere (0 - 1100 hPa)");
            }
            messageLevel_[k] = hpa;
            pressure = pressure.value_or(k);
        } else {
            surface = surface.value_or(k);
        }
    }
    if (surface && pressure) {
        fail("the file mixes single-level and pressure-level parameters (" + describe(*surface) + " and " +
             describe(*pressure) +
             "); a table is one or the other: split the file (e.g. grib_copy -w typeOfLevel=isobaricInhPa) "
             "and load the parts into different tables");
    }
}

} // namespace isobar
