// SPDX-License-Identifier: GPL-3.0-or-later

// What a column holds is what the file holds, for that parameter, at that time. The oracles here are
// ecCodes' own API (a paramId set on a message of its sample, read back as shortName, name and units;
// the GRIB fixture decoded message by message) and the values the tests write themselves, never
// Isobar's catalog or its reading of ECMWF's parameter database:
// - the catalog and the database agree with ecCodes for every catalog entry and a thousand more;
// - which parameter a variable is, by paramId, then name, then long_name / standard_name, and the
//   clashes refused;
// - a GRIB file with both leaf area indices and the lake temperatures loads each into its own column,
//   every value as ecCodes decodes it, the temperatures in degC;
// - hourly data sampled monthly keeps its times; monthly means only where the file says so.

#include "Fixtures.h"
#include "GribFixtures.h"
#include "TestCluster.h"
#include "TestUtil.h"
#include "db/Connection.h"
#include "domain/Columns.h"
#include "domain/ParameterDatabase.h"
#include "domain/Variable.h"
#include "era5/Dataset.h"
#include "era5/Era5File.h"
#include "era5/FileConventions.h"
#include "era5/Inspection.h"
#include "ingest/Loader.h"

#include <QFile>
#include <QtTest>

#include <cmath>
#include <eccodes.h>
#include <map>
#include <memory>
#include <set>

using namespace isobar;
using test::GribField;
using test::GribGrid;

namespace {

// A message for QVERIFY2 from a std::string (alive to the end of the statement).
const char* said(const std::string& text) {
    return text.c_str();
}

// A value of a message as ecCodes decodes it, where it lies and when.
struct Decoded {
    long paramId = 0;
    qint64 micros = 0;
    int locationId = 0;
    double value = 0.0;
};

// Every value of every message of `path`, by ecCodes' API alone.
std::vector<Decoded> decodeWithEcCodes(const QString& path) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(path.toLocal8Bit().constData(), "rb"),
                                                       &std::fclose);
    std::vector<Decoded> out;
    int err = 0;
    while (codes_handle* h = codes_handle_new_from_file(nullptr, in.get(), PRODUCT_GRIB, &err)) {
        long paramId = 0;
        long date = 0;
        long time = 0;
        long missingBitmap = 0;
        double missing = 0.0;
        codes_get_long(h, "paramId", &paramId);
        codes_get_long(h, "validityDate", &date);
        codes_get_long(h, "validityTime", &time);
        codes_get_long(h, "bitmapPresent", &missingBitmap);
        codes_get_double(h, "missingValue", &missing);
        std::size_t n = 0;
        codes_get_size(h, "values", &n);
        std::vector<double> values(n);
        std::vector<double> lats(n);
        std::vector<double> lons(n);
        codes_get_double_array(h, "values", values.data(), &n);
        codes_get_double_array(h, "latitudes", lats.data(), &n);
        codes_get_double_array(h, "longitudes", lons.data(), &n);
        const qint64 micros =
            test::pgMicros(static_cast<int>(date / 10000), static_cast<int>(date / 100 % 100),
                           static_cast<int>(date % 100), static_cast<int>(time / 100));
        for (std::size_t i = 0; i < n; ++i) {
            if (missingBitmap != 0 && values[i] == missing) {
                continue;
            }
            out.push_back({paramId, micros, test::gridLocationId(lats[i], lons[i]), values[i]});
        }
        codes_handle_delete(h);
    }
    return out;
}

} // namespace

class TestParameters : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { cluster_ = std::make_unique<test::TestCluster>(); }
    void cleanupTestCase() { cluster_.reset(); }

    // Every entry of the catalog says of its paramId what ecCodes says: the CDS's name is ecCodes'
    // cfVarName, the GRIB name its shortName, the name and units its own; what the entry says the
    // parameter measures fits ECMWF's units; its other names are not another parameter's.
    void catalogAgreesWithEcCodes() {
        std::set<int> ids;
        std::set<std::string_view> columns;
        for (const VariableSpec& s : variableCatalog()) {
            const std::string who = std::string(s.shortName) + " (paramId " + std::to_string(s.paramId) + ")";
            QVERIFY2(ids.insert(s.paramId).second, said("two entries for " + who));
            QVERIFY2(columns.insert(s.column).second, said("two entries with the column of " + who));
            const test::EcmwfOracle ec = test::ecmwfOracle(s.paramId);
            QVERIFY2(!ec.shortName.empty(), said("ecCodes cannot encode " + who));
            QCOMPARE(QString::fromStdString(std::string(s.shortName)), QString::fromStdString(ec.cfVarName));
            QCOMPARE(QString::fromStdString(s.gribName), QString::fromStdString(ec.shortName));
            QCOMPARE(QString::fromStdString(s.longName), QString::fromStdString(ec.name));
            QCOMPARE(QString::fromStdString(s.fileUnits), QString::fromStdString(ec.units));
            switch (s.quantity) {
            case Quantity::Temperature:
                QVERIFY2(ec.units == "K", said(who + " is in " + ec.units));
                QCOMPARE(QString::fromStdString(s.tableUnits), QString("degC"));
                break;
            case Quantity::WaterDepth:
                QVERIFY2(ec.units == "m" || ec.units == "m of water equivalent",
                         said(who + " is in " + ec.units));
                QCOMPARE(QString::fromStdString(s.tableUnits), QString("mm"));
                break;
            case Quantity::Speed:
                QVERIFY2(ec.units == "m s**-1", said(who + " is in " + ec.units));
                break;
            case Quantity::Fraction:
                QVERIFY2(ec.units == "(0 - 1)", said(who + " is in " + ec.units));
                break;
            case Quantity::AsStored:
                QCOMPARE(QString::fromStdString(s.tableUnits), QString::fromStdString(ec.units));
                break;
            }
            // The rule a parameter without an entry is stored by gives the entry's quantity, but for
            // water in plain metres (total precipitation, runoff), which only the entry knows.
            const EcmwfParameter* p = ecmwfParameters().byParamId(s.paramId);
            QVERIFY(p != nullptr);
            if (!(s.quantity == Quantity::WaterDepth && ec.units == "m")) {
                QVERIFY2(quantityOf(*p) == s.quantity, said(who + ": the units rule says otherwise"));
            }
            for (std::string_view alias : s.aliases) {
                for (const EcmwfParameter* other : ecmwfParameters().byVariableName(alias)) {
                    QVERIFY2(other->paramId == s.paramId,
                             said(who + "'s alias " + std::string(alias) + " is ECMWF's name of paramId " +
                                  std::to_string(other->paramId)));
                }
            }
        }
        // The two the hand-written catalog had wrong, by ecCodes.
        QCOMPARE(QString::fromStdString(test::ecmwfOracle(66).cfVarName), QString("lai_lv"));
        QCOMPARE(QString::fromStdString(test::ecmwfOracle(67).cfVarName), QString("lai_hv"));
        QCOMPARE(spec(*findVariable("lai_hv")).paramId, 67);
        QCOMPARE(spec(*findVariable("lai_lv")).paramId, 66);
        QCOMPARE(spec(*findVariable("mror")).paramId, 235048);
        QVERIFY(!findParamId(235020)); // the mean surface runoff rate: not the catalog's mror
    }

    // The database Isobar reads is the installed ecCodes' own: its definitions directory, and for a
    // thousand parameters (ERA5's tables) what the API says of each.
    void databaseIsEcCodes() {
        const ParameterDatabase& db = ecmwfParameters();
        QVERIFY2(db.size() > 4000, qPrintable(QString::number(db.size())));
        const std::string path = codes_definition_path(nullptr);
        QVERIFY2(path.find(db.root().string()) != std::string::npos, path.c_str());
        int compared = 0;
        for (long id = 1; id < 261000; ++id) {
            const bool era5Tables = id < 1000 || (id >= 3000 && id < 4000) || (id >= 200000 && id < 201000) ||
                                    (id >= 228000 && id < 229000) || (id >= 235000 && id < 236000) ||
                                    id >= 260000;
            const EcmwfParameter* p = era5Tables ? db.byParamId(id) : nullptr;
            if (p == nullptr) {
                continue;
            }
            const test::EcmwfOracle ec = test::ecmwfOracle(id);
            if (ec.shortName.empty()) {
                continue; // ecCodes cannot encode it on its samples (a WMO template it lacks)
            }
            ++compared;
            const std::string who = "paramId " + std::to_string(id);
            QVERIFY2(p->shortName == ec.shortName, said(who + ": " + p->shortName + " / " + ec.shortName));
            QVERIFY2(p->name == ec.name, said(who + ": " + p->name + " / " + ec.name));
            QVERIFY2(p->units == ec.units, said(who + ": " + p->units + " / " + ec.units));
            // ecCodes' API answers "p3062" where two of its concept files give one name to two parameters
            // (lsp: 142 and 3062); Isobar keeps the files' name.
            if (ec.cfVarName != "p" + std::to_string(id)) {
                QVERIFY2(p->cfVarName == ec.cfVarName,
                         said(who + ": " + p->cfVarName + " / " + ec.cfVarName));
            }
        }
        QVERIFY2(compared > 1000, qPrintable(QString::number(compared)));
        // Without definitions, a message that names the directory and the package.
        VERIFY_MESSAGE(test::errorOf([] { (void)ParameterDatabase::read("/nonexistent/definitions"); }),
                       "/nonexistent/definitions", "libeccodes-data", "ECCODES_DEFINITION_PATH");
    }

    // Most certain first: the paramId; then the name; then a long_name or standard_name that only
    // one parameter has (a loose match). A paramId and a name of two parameters are refused.
    void matching() {
        const auto match = [](VariableClues c) {
            return matchParameter(c);
        };
        // The paramId decides, whatever the long_name.
        auto m = match({"var_x", "Leaf area index, low vegetation", {}, 67L, {}});
        QVERIFY(m && m->paramId() == 67 && !m->loose);
        QCOMPARE(QString::fromStdString(m->rule), QString("GRIB_paramId 67"));
        QCOMPARE(QString::fromStdString(std::string(spec(*m->variable).shortName)), QString("lai_hv"));
        // A file whose name says lai_hv and whose paramId says 66 (lai_lv): refused, naming both.
        VERIFY_MESSAGE(test::errorOf([&] {
                           (void)match({"lai_hv", {}, {}, 66L, {}});
                       }),
                       "lai_hv", "lai_lv", "paramId 66", "paramId 67", "refusing to choose");
        // By name: the catalog's, then ECMWF's (lblt has no catalog entry).
        m = match({"lblt", {}, {}, std::nullopt, "K"});
        QVERIFY(m && m->paramId() == 228010 && !m->variable && !m->loose);
        QCOMPARE(QString::fromStdString(m->rule), QString("name lblt"));
        // A paramId ECMWF does not define: the name decides.
        m = match({"t2m", {}, {}, 999999L, {}});
        QVERIFY(m && m->paramId() == 167);
        // Only the long_name: loose.
        m = match({"lake_bottom", "Lake bottom temperature", {}, std::nullopt, "K"});
        QVERIFY(m && m->paramId() == 228010 && m->loose);
        QVERIFY(m->rule.find("long_name") != std::string::npos);
        // Two parameters called "Snow depth" (sd in m of water equivalent, sde in m): the units tell.
        m = match({"snow", "Snow depth", {}, std::nullopt, "m of water equivalent"});
        QVERIFY(m && m->paramId() == 141 && m->loose);
        m = match({"snow", "Snow depth", {}, std::nullopt, "m"});
        QVERIFY(m && m->paramId() == 3066);
        QVERIFY(!match({"snow", "Snow depth", {}, std::nullopt, {}}));
        // A standard_name only one parameter of ECMWF's has (air_temperature: t, on pressure levels):
        // loose, and inspect says so.
        m = match({"x", {}, "air_temperature", std::nullopt, "K"});
        QVERIFY(m && m->paramId() == 130 && m->loose);
        QVERIFY(m->rule.find("standard_name") != std::string::npos);
        QVERIFY(!match({"nothing_ecmwf_knows", "Local wind power index", {}, std::nullopt, "1"}));
        // Units in another spelling than ecCodes' are not a reason to refuse (ptype: ecCodes 2.28 says
        // "code table (4.201)", the files of older ones "(Code table 4.201)").
        const auto ptype = matchParameter({"ptype", {}, {}, 260015L, {}});
        QVERIFY(ptype && ptype->variable);
        for (const char* spelling : {"(Code table 4.201)", "code table (4.201)", "~", ""}) {
            QCOMPARE(
                conventions::conversionFor(conventions::expectedUnits(*ptype), spelling, "f.nc", "ptype"),
                Conversion::None);
        }
        VERIFY_MESSAGE(test::errorOf([&] {
                           (void)conventions::conversionFor(conventions::expectedUnits(*ptype), "K", "f.nc",
                                                            "ptype");
                       }),
                       "f.nc", "ptype", "refusing to guess");
    }

    // A parameter ECMWF defines and the catalog has no entry for gets ECMWF's name and is stored by
    // its units: every temperature in degC, every depth of water equivalent in mm; differences of
    // temperatures (anomalies, indices) stay in K.
    void unitsFollowTheParameter() {
        const ParameterDatabase& db = ecmwfParameters();
        for (long id : {228008L, 228010L, 228011L, 228013L}) {
            const ValueColumn c = ValueColumn::ofParameter(*db.byParamId(id), false);
            QCOMPARE(QString::fromStdString(c.units), QString("degC"));
            QCOMPARE(c.conversion, Conversion::KelvinToCelsius);
            QCOMPARE(QString::fromStdString(c.longName), QString::fromStdString(test::ecmwfOracle(id).name));
            QCOMPARE(QString::fromStdString(c.column),
                     QString::fromStdString(test::ecmwfOracle(id).cfVarName));
        }
        QVERIFY(!findParamId(228101 + 1000)); // (a paramId the catalog does not hold)
        for (long id : {260121L /* K index */, 200167L /* 2 metre temperature difference */}) {
            const EcmwfParameter* p = db.byParamId(id);
            QVERIFY(p != nullptr);
            QCOMPARE(QString::fromStdString(p->units), QString("K"));
            QCOMPARE(ValueColumn::ofParameter(*p, false).conversion, Conversion::None);
        }
        // Every parameter in m of water equivalent is a depth of water: mm.
        int water = 0;
        for (long id = 1; id < 300000; ++id) {
            const EcmwfParameter* p = db.byParamId(id);
            if (p != nullptr && p->units == "m of water equivalent") {
                ++water;
                QCOMPARE(ValueColumn::ofParameter(*p, false).conversion, Conversion::MetresToMillimetres);
            }
        }
        QVERIFY(water > 10);
    }

    // Both leaf area indices and four lake temperatures in one GRIB file: each in its own column,
    // every value of every row as ecCodes decodes the file, converted by arithmetic here (K - 273.15
    // where ecCodes says the parameter is in K); no column of the table in K.
    void lakesAndLeavesLoadAsEcCodesDecodes() {
        const GribGrid grid = test::box(50.0, 10.0, 3, 4);
        const std::vector<long> params{67, 66, 228010, 228008, 228011, 228013, 235};
        std::vector<GribField> fields;
        for (long hour : {0L, 1L}) {
            for (std::size_t k = 0; k < params.size(); ++k) {
                GribField f;
                f.paramId = params[k];
                f.dataDate = 20240601;
                f.dataTime = hour * 100;
                f.grid = grid;
                const bool temperature = test::ecmwfOracle(params[k]).units == "K";
                for (std::size_t i = 0; i < 12; ++i) {
                    f.values.push_back(temperature
                                           ? 270.0 + static_cast<double>(k) * 3.0 +
                                                 static_cast<double>(i) * 0.5 + static_cast<double>(hour)
                                           : 0.25 * static_cast<double>(k + i) + static_cast<double>(hour));
                }
                if (k == 2) {
                    f.values[5] = test::kGribMissing; // a lake bottom where there is no lake
                }
                fields.push_back(f);
            }
        }
        const QString path = file("lakes-and-leaves.grib");
        test::writeGribFixture(path, fields);

        test::RecordingSink sink;
        const LoadSummary s = test::loadFiles(*cluster_, {path}, "lakes", {}, &sink);
        QVERIFY2(s.status == LoadStatus::Completed, s.error ? s.error->message.c_str() : "");
        Connection conn = cluster_->connect();
        // Every decoded value, where ecCodes puts it, in the column ecCodes names.
        std::map<std::tuple<qint64, int, std::string>, double> expected;
        for (const Decoded& d : decodeWithEcCodes(path)) {
            const test::EcmwfOracle ec = test::ecmwfOracle(d.paramId);
            expected[{d.micros, d.locationId, ec.cfVarName}] = ec.units == "K" ? d.value - 273.15 : d.value;
        }
        QCOMPARE(expected.size(), std::size_t{2 * 7 * 12 - 2});
        std::set<std::string> columns;
        for (const auto& [key, value] : expected) {
            columns.insert(std::get<2>(key));
        }
        QVERIFY(columns.count("lai_hv") == 1 && columns.count("lai_lv") == 1 && columns.count("lblt") == 1);
        std::size_t compared = 0;
        for (const std::string& column : columns) {
            const Result r =
                conn.query("SELECT (extract(epoch FROM time - '2000-01-01 00:00:00+00') * 1000000)::bigint, "
                           "location_id, " +
                           column + " FROM lakes WHERE " + column + " IS NOT NULL");
            for (int i = 0; i < r.rows(); ++i) {
                const auto key = std::make_tuple(std::stoll(r.text(i, 0)), std::stoi(r.text(i, 1)), column);
                const auto it = expected.find(key);
                QVERIFY2(it != expected.end(),
                         qPrintable(QString::fromStdString(column + " has a row ecCodes has not")));
                QCOMPARE(std::strtof(r.text(i, 2).c_str(), nullptr), static_cast<float>(it->second));
                ++compared;
            }
        }
        QCOMPARE(compared, expected.size());
        QCOMPARE(test::scalar(conn, "SELECT count(*) FROM lakes"), QString("24"));
        // What each column is, from ECMWF: names and units, and no K anywhere.
        QCOMPARE(test::scalar(conn,
                              "SELECT count(*) FROM isobar.table_columns WHERE relid = 'lakes'::regclass "
                              "AND units = 'K'"),
                 QString("0"));
        QCOMPARE(test::scalar(
                     conn, "SELECT string_agg(column_name || ' ' || units, ', ' ORDER BY column_name) FROM "
                           "isobar.table_columns WHERE relid = 'lakes'::regclass AND param_id IN "
                           "(228008, 228010, 228011, 228013, 235)"),
                 QString("lblt degC, lict degC, lmlt degC, ltlt degC, skt degC"));
        const QString lbltComment = test::scalar(
            conn, "SELECT col_description('lakes'::regclass, (SELECT attnum FROM pg_attribute WHERE "
                  "attrelid = 'lakes'::regclass AND attname = 'lblt'))");
        VERIFY_MESSAGE(lbltComment, QString::fromStdString(test::ecmwfOracle(228010).name), "paramId 228010",
                       "degC", "K -> degC");

        // inspect says ECMWF's name and units of each, and what found it.
        const Inspection in = inspect({path.toStdString()}, {}, false);
        QVERIFY(!in.files.front().error);
        for (const VariableInspection& v : in.files.front().variables) {
            const test::EcmwfOracle ec = test::ecmwfOracle(v.column.paramId);
            QCOMPARE(QString::fromStdString(v.ecmwfName), QString::fromStdString(ec.name));
            QCOMPARE(QString::fromStdString(v.ecmwfUnits), QString::fromStdString(ec.units));
            QCOMPARE(QString::fromStdString(v.matchedBy),
                     "GRIB_paramId " + QString::number(v.column.paramId));
        }
    }

    // A table an earlier Isobar filled with a lake temperature in K keeps getting K (said so): a
    // column never holds two units.
    void anOlderTableKeepsItsUnits() {
        GribField f;
        f.paramId = 228010;
        f.dataDate = 20240601;
        f.grid = test::box(50.0, 10.0, 2, 2);
        f.values = {280.0, 281.0, 282.0, 283.0};
        const QString first = file("lblt-00.grib");
        test::writeGribFixture(first, {f});
        QVERIFY(test::loadFiles(*cluster_, {first}, "old_lakes").status == LoadStatus::Completed);
        // As an earlier Isobar recorded it: a column not in its catalog, loaded as stored, in K.
        Connection conn = cluster_->connect();
        conn.exec("UPDATE old_lakes SET lblt = lblt + 273.15; UPDATE isobar.table_columns SET units = 'K', "
                  "param_id = NULL, conversion = 'none' WHERE relid = 'old_lakes'::regclass");
        f.dataTime = 100;
        const QString second = file("lblt-01.grib");
        test::writeGribFixture(second, {f});
        test::RecordingSink sink;
        const LoadSummary s = test::loadFiles(*cluster_, {second}, "old_lakes", {}, &sink);
        QVERIFY2(s.status == LoadStatus::Completed, s.error ? s.error->message.c_str() : "");
        QVERIFY2(test::anyLineContains(sink.notes, {"column lblt", "'K'", "never mixes units"}),
                 qPrintable(test::joinLines(sink.notes)));
        QCOMPARE(test::scalar(conn, "SELECT string_agg(round(lblt::numeric, 2)::text, ' ' ORDER BY time, "
                                    "location_id) FROM old_lakes"),
                 QString("282.00 283.00 280.00 281.00 282.00 283.00 280.00 281.00"));
    }

    // Hourly data of the new CDS sampled on the 1st of each month at 12 UTC (GRIB_stepType instant
    // and accum) loads at those times, precipitation as the hourly totals they are; beside it, true
    // monthly means (avgua, avgad) at 00 UTC of their months.
    void sampledMonthlyIsNotMonthlyMeans() {
        std::vector<qint64> noons;
        for (int m = 1; m <= 12; ++m) {
            noons.push_back(test::pgMicros(2023, m, 1, 12));
        }
        test::FixtureSpec hourly = test::cds2024Fixture({10.0, 9.75}, {100.0, 100.25}, noons);
        hourly.variables.push_back(test::floatVariable(0, test::withHoles(0)));
        hourly.variables.push_back(test::floatVariable(4, test::withHoles(4)));
        const QString hourlyPath = file("noon-on-the-first.nc");
        test::writeFixture(hourlyPath, hourly);
        const Era5File h = Era5File::open(hourlyPath.toStdString());
        QVERIFY(!h.monthlyMeans());
        VERIFY_MESSAGE(QString::fromStdString(h.timeRule()), "hourly", "GRIB_stepType instant (t2m)",
                       "accum (tp)");
        CHECK_EVERY_ROW({hourlyPath}, "sampled", test::expectedRows(hourly, noons));

        std::vector<qint64> firsts;
        for (int m = 1; m <= 12; ++m) {
            firsts.push_back(test::pgMicros(2023, m, 1));
        }
        // The new CDS stamps accumulated means 06 UTC on the 1st.
        std::vector<qint64> stamped = firsts;
        test::FixtureSpec means = test::cds2024Fixture({10.0, 9.75}, {100.0, 100.25}, stamped);
        means.variables.push_back(test::floatVariable(0, test::withHoles(0)));
        means.variables.back().text["GRIB_stepType"] = "avgua";
        means.variables.push_back(test::floatVariable(4, test::withHoles(4)));
        means.variables.back().text["GRIB_stepType"] = "avgad";
        const QString meansPath = file("monthly-means.nc");
        test::writeFixture(meansPath, means);
        const Era5File mm = Era5File::open(meansPath.toStdString());
        QVERIFY(mm.monthlyMeans());
        VERIFY_MESSAGE(QString::fromStdString(mm.timeRule()), "monthly means", "avgua (t2m)", "avgad (tp)");
        CHECK_EVERY_ROW({meansPath}, "means", test::expectedRows(means, firsts));
        Connection conn = cluster_->connect();
        QCOMPARE(test::scalar(conn,
                              "SELECT count(DISTINCT time) FROM sampled WHERE extract(hour FROM time AT "
                              "TIME ZONE 'UTC') = 12 AND extract(day FROM time AT TIME ZONE 'UTC') = 1"),
                 QString("12"));
        // A file that says both is refused, naming both.
        test::FixtureSpec both = means;
        both.variables.back().text["GRIB_stepType"] = "accum";
        const QString bothPath = file("both.nc");
        test::writeFixture(bothPath, both);
        VERIFY_MESSAGE(test::errorOf([&] { (void)Era5File::open(bothPath.toStdString()); }), "both.nc",
                       "avgua (t2m)", "monthly means", "accum (tp)", "hourly");
    }

    // A file that says nothing (a legacy CDS NetCDF without GRIB attributes) keeps its times, even a
    // month apart on the 1st, and says how to load it as monthly means; --product monthly does.
    void silentFilesKeepTheirTimes() {
        std::vector<qint64> firsts;
        for (int m = 1; m <= 6; ++m) {
            firsts.push_back(test::pgMicros(2022, m, 1, 6));
        }
        test::FixtureSpec legacy = test::classicFixture({10.0, 9.75}, {100.0, 100.25}, 6, 0);
        legacy.times = test::timesSince(firsts, test::pgMicros(1900, 1, 1), test::kMicrosPerHour);
        const QString path = file("legacy-monthly-spaced.nc");
        test::writeFixture(path, legacy);
        const Era5File kept = Era5File::open(path.toStdString());
        QVERIFY(!kept.monthlyMeans());
        VERIFY_MESSAGE(QString::fromStdString(kept.timeRule()), "times as stored", "does not say");
        QVERIFY2(test::anyLineContains(kept.notes(), {"a calendar month apart", "--product monthly"}),
                 qPrintable(test::joinLines(kept.notes())));
        for (std::size_t i = 0; i < firsts.size(); ++i) {
            QCOMPARE(kept.steps()[i].time.micros, firsts[i]);
        }
        OpenOptions monthly;
        monthly.means = MeansOverride::Monthly;
        const Era5File told = Era5File::open(path.toStdString(), monthly);
        QVERIFY(told.monthlyMeans());
        VERIFY_MESSAGE(QString::fromStdString(told.timeRule()), "monthly means", "--product");
        QCOMPARE(told.steps().front().time.micros, test::pgMicros(2022, 1, 1));
        // A table of monthly means refuses the file loaded as it says nothing, and says how to load it.
        QVERIFY(test::loadFiles(*cluster_, {path}, "months", monthly).status == LoadStatus::Completed);
        const LoadSummary refused = test::loadFiles(*cluster_, {path}, "months");
        QVERIFY(refused.status == LoadStatus::Failed && refused.error);
        VERIFY_MESSAGE(QString::fromStdString(refused.error->message), "holds ERA5 monthly means",
                       "these files are ERA5 hourly", "--product monthly");
        // --product hourly holds a file that says monthly means to its times.
        QVERIFY(parseProduct("era5-land-monthly") &&
                parseProduct("era5-land-monthly")->means == MeansOverride::Monthly);
        QVERIFY(!parseProduct("monthly-means"));

        // GRIB hourly analyses (stream oper) a month apart keep their times too.
        std::vector<GribField> fields;
        for (int m = 1; m <= 3; ++m) {
            GribField f;
            f.dataDate = 20220001 + m * 100;
            f.dataTime = 1200;
            f.grid = test::box(10.0, 100.0, 2, 2);
            f.values = {280.0, 281.0, 282.0, 283.0};
            fields.push_back(f);
        }
        const QString grib = file("oper-monthly-spaced.grib");
        test::writeGribFixture(grib, fields);
        const Era5File g = Era5File::open(grib.toStdString());
        QVERIFY(!g.monthlyMeans());
        VERIFY_MESSAGE(QString::fromStdString(g.timeRule()), "hourly", "GRIB stream oper", "instant (2t)");
        QCOMPARE(g.steps().back().time.micros, test::pgMicros(2022, 3, 1, 12));
    }

private:
    QString file(const QString& name) const { return dir_.filePath(name); }

    QTemporaryDir dir_;
    std::unique_ptr<test::TestCluster> cluster_;
};

QTEST_GUILESS_MAIN(TestParameters)
#include "tst_parameters.moc"
