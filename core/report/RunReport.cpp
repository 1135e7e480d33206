// SPDX-License-Identifier: GPL-3.0-or-later

#include "report/RunReport.h"

#include "util/Error.h"
#include "util/Json.h"

#include <algorithm>

namespace isobar {

void RunReport::computeSustainedRates() {
    medianSustainedRate = 0;
    minSustainedRate = 0;
    if (samples.size() < 2 || seconds <= 0) {
        return;
    }
    // Windows of at least a second, within the middle 90% of the run (start-up and the last
    // unit's tail are not what the load sustains).
    const double from = seconds * 0.05;
    const double to = seconds * 0.95;
    std::vector<double> rates;
    std::size_t start = 0;
    for (std::size_t i = 1; i < samples.size(); ++i) {
        const double span = samples[i].elapsed - samples[start].elapsed;
        if (span >= 1.0) {
            if (samples[start].elapsed >= from && samples[i].elapsed <= to) {
                rates.push_back(static_cast<double>(samples[i].rows - samples[start].rows) / span);
            }
            start = i;
        }
    }
    if (rates.empty()) {
        return;
    }
    std::sort(rates.begin(), rates.end());
    medianSustainedRate = rates[rates.size() / 2];
    minSustainedRate = rates.front();
}

namespace {

// The lower of two figures where -1 means not seen: a known one wins over an unknown one.
double lowerKnown(double a, double b) {
    if (a < 0) {
        return b;
    }
    return b < 0 ? a : std::min(a, b);
}

} // namespace

RunReport::Server RunReport::Server::of(const ServerReading& s) {
    Server out;
    out.elapsed = s.elapsed;
    out.checkpointsTimed = s.checkpointsTimed;
    out.checkpointsRequested = s.checkpointsRequested;
    out.walBytes = s.walBytes;
    out.tableBytes = s.tableBytes;
    out.bytesPerRow = s.bytesPerRow;
    out.freeBytes = s.freeBytes;
    out.walFreeBytes = s.walFreeBytes;
    out.walDirBytes = s.walDirBytes;
    out.secondsToFull = s.secondsToFull;
    out.archiveBacklog = s.archiveBacklog;
    out.archiveFailures = s.archiveFailures;
    out.workers = s.workers;
    for (const auto& standby : s.standbys) {
        out.standbyReplayLag = std::max(out.standbyReplayLag, standby.replayLag);
        out.standbyReplayBytes = std::max(out.standbyReplayBytes, standby.replayBytes);
    }
    return out;
}

RunReport::Sample RunReport::Sample::merged(const Sample& earlier, const Sample& later) {
    Sample out = later;
    out.intervalRate = std::max(earlier.intervalRate, later.intervalRate);
    return out;
}

RunReport::Server RunReport::Server::merged(const Server& earlier, const Server& later) {
    Server out = later;
    out.freeBytes = lowerKnown(earlier.freeBytes, later.freeBytes);
    out.walFreeBytes = lowerKnown(earlier.walFreeBytes, later.walFreeBytes);
    out.secondsToFull = lowerKnown(earlier.secondsToFull, later.secondsToFull);
    out.walDirBytes = std::max(earlier.walDirBytes, later.walDirBytes);
    out.archiveBacklog = std::max(earlier.archiveBacklog, later.archiveBacklog);
    out.standbyReplayLag = std::max(earlier.standbyReplayLag, later.standbyReplayLag);
    out.standbyReplayBytes = std::max(earlier.standbyReplayBytes, later.standbyReplayBytes);
    return out;
}

RunReport::StorageFigures RunReport::storageFigures() const {
    StorageFigures f;
    for (const Server& s : server) {
        f.peakWalDirBytes = std::max(f.peakWalDirBytes, s.walDirBytes);
        f.lowestFreeBytes = lowerKnown(f.lowestFreeBytes, lowerKnown(s.freeBytes, s.walFreeBytes));
        if (s.bytesPerRow >= 0) {
            f.finalBytesPerRow = s.bytesPerRow;
        }
        if (s.tableBytes >= 0) {
            f.finalTableBytes = s.tableBytes;
        }
    }
    return f;
}

std::vector<RunReport::Checkpoint> RunReport::checkpointEffects(double window) const {
    // Rows sent per second over [from, to] of the rate series; -1 for less than a second of it.
    const auto rateOver = [this](double from, double to) {
        const Sample* first = nullptr;
        const Sample* last = nullptr;
        for (const Sample& s : samples) {
            if (s.elapsed >= from && s.elapsed <= to) {
                first = first != nullptr ? first : &s;
                last = &s;
            }
        }
        if (first == nullptr || last->elapsed - first->elapsed < 1.0) {
            return -1.0;
        }
        return static_cast<double>(last->rows - first->rows) / (last->elapsed - first->elapsed);
    };
    std::vector<Checkpoint> out;
    std::uint64_t timed = 0;
    std::uint64_t requested = 0; // the monitor counts from the start of the run
    for (const Server& s : server) {
        if (s.checkpointsTimed + s.checkpointsRequested > timed + requested) {
            Checkpoint c;
            c.elapsed = s.elapsed;
            c.requested = s.checkpointsRequested > requested;
            // It began within the second before the sample that saw it.
            c.rateBefore = rateOver(s.elapsed - 1.0 - window, s.elapsed - 1.0);
            c.rateAfter = rateOver(s.elapsed, s.elapsed + window);
            out.push_back(c);
        }
        timed = std::max(timed, s.checkpointsTimed);
        requested = std::max(requested, s.checkpointsRequested);
    }
    return out;
}

namespace {

void writeServerSample(JsonWriter& j, const RunReport::Server& s) {
    j.beginObject().field("t", s.elapsed).field("checkpointsTimed", s.checkpointsTimed);
    j.field("checkpointsRequested", s.checkpointsRequested).field("walBytes", s.walBytes);
    j.field("workers", s.workers);
    // What was not seen is left out (and read back as -1): a remote server's series stays short.
    const std::pair<const char*, double> figures[] = {{"tableBytes", s.tableBytes},
                                                      {"bytesPerRow", s.bytesPerRow},
                                                      {"freeBytes", s.freeBytes},
                                                      {"walFreeBytes", s.walFreeBytes},
                                                      {"walDirBytes", s.walDirBytes},
                                                      {"secondsToFull", s.secondsToFull},
                                                      {"standbyReplayLag", s.standbyReplayLag},
                                                      {"standbyReplayBytes", s.standbyReplayBytes}};
    for (const auto& [name, value] : figures) {
        if (value >= 0) {
            j.field(name, value);
        }
    }
    if (s.archiveBacklog >= 0) {
        j.field("archiveBacklog", s.archiveBacklog).field("archiveFailures", s.archiveFailures);
    }
    j.endObject();
}

RunReport::Server readServerSample(const JsonValue& s) {
    RunReport::Server out;
    out.elapsed = s["t"].number();
    out.checkpointsTimed = s["checkpointsTimed"].unsignedInteger();
    out.checkpointsRequested = s["checkpointsRequested"].unsignedInteger();
    out.walBytes = s["walBytes"].unsignedInteger();
    out.workers = static_cast<int>(s["workers"].integer());
    out.tableBytes = s["tableBytes"].number(-1);
    out.bytesPerRow = s["bytesPerRow"].number(-1);
    out.freeBytes = s["freeBytes"].number(-1);
    out.walFreeBytes = s["walFreeBytes"].number(-1);
    out.walDirBytes = s["walDirBytes"].number(-1);
    out.secondsToFull = s["secondsToFull"].number(-1);
    out.standbyReplayLag = s["standbyReplayLag"].number(-1);
    out.standbyReplayBytes = s["standbyReplayBytes"].number(-1);
    out.archiveBacklog = s["archiveBacklog"].integer(-1);
    out.archiveFailures = s["archiveFailures"].unsignedInteger();
    return out;
}

} // namespace

std::string renderReportJson(const RunReport& r) {
    JsonWriter j;
    j.beginObject();
    j.field("tool", r.tool)
        .field("startedAt", r.startedAt)
        .field("finishedAt", r.finishedAt)
        .field("status", r.status);
    j.key("files").beginArray();
    for (const auto& f : r.files) {
        j.beginObject().field("name", f.name).field("layout", f.layout).field("format", f.format).endObject();
    }
    j.endArray();
    j.key("variables").beginArray();
    for (const auto& v : r.variables) {
        j.value(v);
    }
    j.endArray();
    j.field("product", r.product).field("timeRule", r.timeRule).field("grid", r.grid);
    if (!r.extent.empty()) {
        const LoadedExtent& e = r.extent;
        j.key("extent").beginObject().field("gridStep", e.gridSpacing);
        j.field("south", e.bounds.south).field("north", e.bounds.north);
        j.field("west", e.bounds.west).field("east", e.bounds.east);
        j.key("times").beginArray();
        for (const TimeRun& run : e.times) {
            j.beginObject()
                .field("first", formatTimestamp(run.first))
                .field("stepSeconds", run.stepMicros / kMicrosPerSecond)
                .field("count", static_cast<std::uint64_t>(run.count))
                .endObject();
        }
        j.endArray();
        j.key("levels").beginArray();
        for (const double level : e.levels) {
            j.value(level);
        }
        j.endArray().endObject();
    }
    j.field("target", r.target)
        .field("table", r.table)
        .field("tableType", r.tableType)
        .field("workers", r.workers);
    j.field("autoWorkers", r.autoWorkers).field("maxWorkers", r.maxWorkers);
    j.key("forecast").beginArray();
    for (const auto& line : r.forecast) {
        j.value(line);
    }
    j.endArray();
    j.key("server").beginObject();
    j.field("version", r.serverVersion);
    j.key("settings").beginArray();
    for (const auto& s : r.settings) {
        j.beginObject()
            .field("name", s.name)
            .field("value", s.value)
            .field("source", s.source)
            .field("file", s.file);
        j.endObject();
    }
    j.endArray();
    j.key("extensions").beginArray();
    for (const auto& e : r.extensions) {
        j.value(e);
    }
    j.endArray();
    j.key("warnings").beginArray();
    for (const auto& w : r.settingWarnings) {
        j.beginObject()
            .field("severity", severityName(w.severity))
            .field("subject", w.subject)
            .field("message", w.message)
            .field("fix", w.fix)
            .endObject();
    }
    j.endArray();
    j.endObject();
    j.key("durability").beginObject();
    j.field("requested", r.durabilityRequested).field("session", r.durability.sessionSettings);
    j.key("changes").beginArray();
    for (const auto& c : r.durability.changes) {
        j.beginObject()
            .field("name", c.name)
            .field("original", c.original)
            .field("originalSource", c.originalSource)
            .field("applied", c.applied)
            .endObject();
    }
    j.endArray();
    j.field("restored", r.durability.restored)
        .field("checkpointed", r.durability.checkpointed)
        .field("synced", r.durability.synced)
        .field("problem", r.durability.problem);
    j.endObject();
    j.key("result").beginObject();
    j.field("plannedRows", r.plannedRows).field("rows", r.rows).field("resumedRows", r.resumedRows);
    j.field("skippedRows", r.skippedRows).field("bytes", r.bytes);
    j.field("units", static_cast<std::uint64_t>(r.units))
        .field("unitsCommitted", static_cast<std::uint64_t>(r.unitsCommitted));
    j.field("unitsResumed", static_cast<std::uint64_t>(r.unitsResumed))
        .field("retries", static_cast<std::uint64_t>(r.retries));
    j.key("overlap").beginObject();
    j.field("sameRows", r.overlap.sameRows)
        .field("sameUnits", static_cast<std::uint64_t>(r.overlap.sameUnits));
    j.field("keptRows", r.overlap.keptRows)
        .field("keptUnits", static_cast<std::uint64_t>(r.overlap.keptUnits));
    j.field("era5tReplacedUnits", static_cast<std::uint64_t>(r.overlap.era5tReplacedUnits))
        .field("era5tReplacedHours", r.overlap.era5tReplacedHours);
    j.field("overlapReplacedUnits", static_cast<std::uint64_t>(r.overlap.overlapReplacedUnits))
        .field("replacedRows", r.overlap.replacedRows);
    j.key("decisions").beginArray();
    for (const std::string& d : r.overlap.decisions) {
        j.value(d);
    }
    j.endArray();
    j.endObject();
    j.field("seconds", r.seconds)
        .field("meanRate", r.meanRate)
        .field("medianSustainedRate", r.medianSustainedRate);
    j.field("minSustainedRate", r.minSustainedRate);
    j.field("checkpoints", r.checkpoints).field("walBytes", r.walBytes);
    j.key("workerRows").beginArray();
    for (auto w : r.workerRows) {
        j.value(w);
    }
    j.endArray();
    if (r.error) {
        j.key("error").beginObject().field("message", *r.error).field("sqlState", r.errorSqlState);
        j.field("unit", r.errorUnit).endObject();
    }
    j.key("verification").beginObject();
    if (r.countedRows) {
        j.field("countedRows", *r.countedRows);
    }
    if (r.ledgerRows) {
        j.field("ledgerRows", *r.ledgerRows);
    }
    j.field("summary", r.verification).endObject();
    if (const auto& c = r.compression) {
        j.key("compression").beginObject();
        j.field("segmentBy", c->settings.segmentBy)
            .field("orderBy", c->settings.orderBy)
            .field("why", c->settings.why);
        j.field("direct", c->direct).field("path", c->path).field("beforeEstimated", c->beforeEstimated);
        j.field("chunks", static_cast<std::uint64_t>(c->chunks))
            .field("chunksLeft", static_cast<std::uint64_t>(c->chunksLeft));
        j.field("bytesBefore", static_cast<std::int64_t>(c->bytesBefore))
            .field("bytesAfter", static_cast<std::int64_t>(c->bytesAfter));
        j.field("seconds", c->seconds).endObject();
    }
    j.key("phases").beginObject();
    for (const auto& [name, list] :
         {std::pair{"run", &r.phases.run}, std::pair{"workers", &r.phases.workers}}) {
        j.key(name).beginArray();
        for (const auto& p : *list) {
            j.beginObject().field("name", p.name).field("seconds", p.seconds).endObject();
        }
        j.endArray();
    }
    j.field("transactions", static_cast<std::uint64_t>(r.phases.transactions)).endObject();
    j.endObject();
    for (const auto& [name, list] : {std::pair{"warnings", &r.warnings}, std::pair{"notes", &r.notes}}) {
        j.key(name).beginArray();
        for (const auto& s : *list) {
            j.value(s);
        }
        j.endArray();
    }
    j.key("workerChanges").beginArray();
    for (const auto& c : r.workerChanges) {
        j.beginObject().field("t", c.elapsed).field("from", c.from).field("to", c.to);
        j.field("reason", c.reason).endObject();
    }
    j.endArray();
    j.key("standbys").beginArray();
    for (const auto& s : r.standbys) {
        j.beginObject().field("name", s.name).field("state", s.state);
        j.field("maxReplayLag", s.maxReplayLag).field("maxReplayBytes", s.maxReplayBytes).endObject();
    }
    j.endArray();
    j.key("samples").beginArray();
    for (const auto& s : r.samples) {
        j.beginObject().field("t", s.elapsed).field("rows", s.rows).field("committed", s.committedRows);
        j.field("rate", s.intervalRate)
            .field("overall", s.overallRate)
            .field("queue", static_cast<std::uint64_t>(s.queueDepth));
        j.key("workers").beginArray();
        for (auto w : s.workerRows) {
            j.value(w);
        }
        j.endArray().endObject();
    }
    j.endArray();
    j.key("serverSamples").beginArray();
    for (const auto& s : r.server) {
        writeServerSample(j, s);
    }
    j.endArray();
    j.endObject();
    return j.str();
}

RunReport parseReportJson(const std::string& json) {
    const JsonValue doc = JsonValue::parse(json);
    if (!doc.isObject() || doc["tool"].string().rfind("isobar", 0) != 0) {
        throw Error("not an Isobar run report (no \"tool\": \"isobar ...\")");
    }
    const auto u64 = [](const JsonValue& v) {
        return v.unsignedInteger();
    };
    RunReport r;
    r.tool = doc["tool"].string();
    r.startedAt = doc["startedAt"].string();
    r.finishedAt = doc["finishedAt"].string();
    r.status = doc["status"].string();
    for (const auto& f : doc["files"].array()) {
        r.files.push_back({f["name"].string(), f["layout"].string(), f["format"].string()});
    }
    for (const auto& v : doc["variables"].array()) {
        r.variables.push_back(v.string());
    }
    r.product = doc["product"].string();
    r.timeRule = doc["timeRule"].string();
    r.grid = doc["grid"].string();
    if (const JsonValue e = doc["extent"]; e.isObject()) {
        r.extent.gridSpacing = e["gridStep"].number();
        r.extent.bounds = GeoBounds{e["south"].number(-90), e["north"].number(90), e["west"].number(-180),
                                    e["east"].number(180)};
        for (const JsonValue& run : e["times"].array()) {
            const auto first = parseTimestamp(run["first"].string());
            if (!first) {
                throw Error("the report's extent has a time that is not one: '" + run["first"].string() +
                            "'");
            }
            r.extent.times.push_back(TimeRun{*first, run["stepSeconds"].integer() * kMicrosPerSecond,
                                             static_cast<std::size_t>(run["count"].unsignedInteger(1))});
        }
        for (const JsonValue& level : e["levels"].array()) {
            r.extent.levels.push_back(level.number());
        }
    }
    r.target = doc["target"].string();
    r.table = doc["table"].string();
    r.tableType = doc["tableType"].string();
    r.workers = static_cast<int>(doc["workers"].number());
    // Reports from before --workers auto ran the count they started with.
    r.autoWorkers = doc["autoWorkers"].boolean();
    r.maxWorkers = static_cast<int>(doc["maxWorkers"].integer(r.workers));
    for (const auto& line : doc["forecast"].array()) {
        r.forecast.push_back(line.string());
    }
    const JsonValue& server = doc["server"];
    r.serverVersion = server["version"].string();
    for (const auto& s : server["settings"].array()) {
        r.settings.push_back(
            {s["name"].string(), s["value"].string(), s["source"].string(), s["file"].string()});
    }
    for (const auto& e : server["extensions"].array()) {
        r.extensions.push_back(e.string());
    }
    for (const auto& w : server["warnings"].array()) {
        r.settingWarnings.push_back(
            SettingWarning{parseSeverity(w["severity"].string()).value_or(Severity::Info),
                           w["subject"].string(), w["message"].string(), w["fix"].string()});
    }
    const JsonValue& durability = doc["durability"];
    r.durabilityRequested = durability["requested"].string();
    r.durability.sessionSettings = durability["session"].string();
    for (const auto& c : durability["changes"].array()) {
        r.durability.changes.push_back(SettingChange{c["name"].string(),
                                                     c["original"].string(),
                                                     c["originalSource"].string(),
                                                     {},
                                                     std::nullopt,
                                                     c["applied"].string()});
    }
    r.durability.restored = durability["restored"].boolean();
    r.durability.checkpointed = durability["checkpointed"].boolean();
    r.durability.synced = durability["synced"].boolean();
    r.durability.problem = durability["problem"].string();
    const JsonValue& res = doc["result"];
    r.plannedRows = u64(res["plannedRows"]);
    r.rows = u64(res["rows"]);
    r.resumedRows = u64(res["resumedRows"]);
    r.skippedRows = u64(res["skippedRows"]);
    r.bytes = u64(res["bytes"]);
    r.units = static_cast<std::size_t>(res["units"].number());
    r.unitsCommitted = static_cast<std::size_t>(res["unitsCommitted"].number());
    r.unitsResumed = static_cast<std::size_t>(res["unitsResumed"].number());
    r.retries = static_cast<std::size_t>(res["retries"].number());
    if (const JsonValue& o = res["overlap"]; !o.isNull()) { // reports of earlier versions have none
        r.overlap.sameRows = u64(o["sameRows"]);
        r.overlap.sameUnits = static_cast<std::size_t>(o["sameUnits"].number());
        r.overlap.keptRows = u64(o["keptRows"]);
        r.overlap.keptUnits = static_cast<std::size_t>(o["keptUnits"].number());
        r.overlap.era5tReplacedUnits = static_cast<std::size_t>(o["era5tReplacedUnits"].number());
        r.overlap.era5tReplacedHours = u64(o["era5tReplacedHours"]);
        r.overlap.overlapReplacedUnits = static_cast<std::size_t>(o["overlapReplacedUnits"].number());
        r.overlap.replacedRows = u64(o["replacedRows"]);
        for (const auto& d : o["decisions"].array()) {
            r.overlap.decisions.push_back(d.string());
        }
    }
    r.seconds = res["seconds"].number();
    r.meanRate = res["meanRate"].number();
    r.medianSustainedRate = res["medianSustainedRate"].number();
    r.minSustainedRate = res["minSustainedRate"].number();
    r.checkpoints = u64(res["checkpoints"]);
    r.walBytes = u64(res["walBytes"]);
    for (const auto& w : res["workerRows"].array()) {
        r.workerRows.push_back(u64(w));
    }
    if (!res["error"].isNull()) {
        r.error = res["error"]["message"].string();
        r.errorSqlState = res["error"]["sqlState"].string();
        r.errorUnit = res["error"]["unit"].string();
    }
    const JsonValue& ver = res["verification"];
    if (!ver["countedRows"].isNull()) {
        r.countedRows = u64(ver["countedRows"]);
    }
    if (!ver["ledgerRows"].isNull()) {
        r.ledgerRows = u64(ver["ledgerRows"]);
    }
    r.verification = ver["summary"].string();
    if (const JsonValue& c = res["compression"]; !c.isNull()) {
        CompressionOutcome& o = r.compression.emplace();
        o.settings = CompressionChoice{c["segmentBy"].string(), c["orderBy"].string(), c["why"].string()};
        o.direct = c["direct"].boolean();
        o.path = c["path"].string();
        o.beforeEstimated = c["beforeEstimated"].boolean();
        o.chunks = static_cast<std::size_t>(c["chunks"].unsignedInteger());
        o.chunksLeft = static_cast<std::size_t>(c["chunksLeft"].unsignedInteger());
        o.bytesBefore = c["bytesBefore"].integer(-1);
        o.bytesAfter = c["bytesAfter"].integer(-1);
        o.seconds = c["seconds"].number();
    }
    const JsonValue& phases = res["phases"];
    for (const auto& [name, list] :
         {std::pair{"run", &r.phases.run}, std::pair{"workers", &r.phases.workers}}) {
        for (const auto& p : phases[name].array()) {
            list->push_back({p["name"].string(), p["seconds"].number()});
        }
    }
    r.phases.transactions = static_cast<std::size_t>(phases["transactions"].number());
    for (const auto& w : doc["warnings"].array()) {
        r.warnings.push_back(w.string());
    }
    for (const auto& n : doc["notes"].array()) {
        r.notes.push_back(n.string());
    }
    for (const auto& s : doc["samples"].array()) {
        RunReport::Sample sample{s["t"].number(),
                                 u64(s["rows"]),
                                 u64(s["committed"]),
                                 s["rate"].number(),
                                 s["overall"].number(),
                                 static_cast<std::size_t>(s["queue"].number()),
                                 {}};
        for (const auto& w : s["workers"].array()) {
            sample.workerRows.push_back(u64(w));
        }
        r.samples.push_back(std::move(sample));
    }
    for (const auto& s : doc["serverSamples"].array()) {
        r.server.push_back(readServerSample(s));
    }
    for (const auto& c : doc["workerChanges"].array()) {
        r.workerChanges.push_back({c["t"].number(), static_cast<int>(c["from"].integer()),
                                   static_cast<int>(c["to"].integer()), c["reason"].string()});
    }
    for (const auto& s : doc["standbys"].array()) {
        r.standbys.push_back({s["name"].string(), s["state"].string(), s["maxReplayLag"].number(-1),
                              s["maxReplayBytes"].number(-1)});
    }
    return r;
}

} // namespace isobar
