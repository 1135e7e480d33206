// SPDX-License-Identifier: GPL-3.0-or-later

// The durability journal: its file format, where it lives, and whether its owner still runs.
// DurabilitySession writes it before the first change; restoreAbandoned() reads what a killed run
// left.

#include "db/Durability.h"
#include "util/Error.h"
#include "util/Files.h"
#include "util/Json.h"
#include "util/Process.h"
#include "util/Text.h"

#include <algorithm>

namespace fs = std::filesystem;

namespace isobar {

fs::path DurabilityJournal::pathFor(const std::string& systemIdentifier) {
    return DurabilityJournal::directory() / ("server-" + systemIdentifier + ".json");
}

// "fsync=off (was on), full_page_writes=off (was on)"
std::string describeSettingChanges(const std::vector<SettingChange>& changes) {
    std::vector<std::string> parts;
    parts.reserve(changes.size());
    for (const auto& c : changes) {
        parts.push_back(c.name + "=" + c.applied + " (was " + c.original + ")");
    }
    return join(parts, ", ");
}

fs::path DurabilityJournal::directory() {
    return stateDirectory() / "durability";
}

std::string DurabilityJournal::render() const {
    JsonWriter j;
    j.beginObject();
    j.field("kind", "isobar durability journal");
    j.field("version", 1);
    j.field("systemIdentifier", systemIdentifier);
    j.field("dataDirectory", dataDirectory);
    j.field("target", target);
    j.field("host", host);
    j.field("pid", static_cast<std::int64_t>(pid));
    j.field("processStart", static_cast<std::uint64_t>(processStart));
    j.field("startedAt", startedAt);
    j.key("changes").beginArray();
    for (const auto& c : changes) {
        j.beginObject();
        j.field("name", c.name);
        j.field("original", c.original);
        j.field("originalSource", c.originalSource);
        j.field("originalFile", c.originalFile);
        j.key("autoConfValue");
        if (c.autoConfValue) {
            j.value(*c.autoConfValue);
        } else {
            j.null();
        }
        j.field("applied", c.applied);
        j.endObject();
    }
    j.endArray();
    j.endObject();
    return j.str() + "\n";
}

DurabilityJournal DurabilityJournal::read(const fs::path& path) {
    const std::string text = readWholeFile(path);
    DurabilityJournal j;
    try {
        const JsonValue doc = JsonValue::parse(text);
        if (doc["kind"].string() != "isobar durability journal") {
            throw Error("not a durability journal");
        }
        j.systemIdentifier = doc["systemIdentifier"].string();
        j.dataDirectory = doc["dataDirectory"].string();
        j.target = doc["target"].string();
        j.host = doc["host"].string();
        j.pid = static_cast<long long>(doc["pid"].number());
        j.processStart = static_cast<unsigned long long>(doc["processStart"].number());
        j.startedAt = doc["startedAt"].string();
        for (const auto& c : doc["changes"].array()) {
            SettingChange change{
                c["name"].string(),         c["original"].string(), c["originalSource"].string(),
                c["originalFile"].string(), std::nullopt,           c["applied"].string()};
            if (!c["autoConfValue"].isNull()) {
                change.autoConfValue = c["autoConfValue"].string();
            }
            j.changes.push_back(change);
        }
    } catch (const Error& e) {
        throw Error(path.string() + ": unreadable durability journal: " + e.what());
    }
    if (j.systemIdentifier.empty() || j.changes.empty()) {
        throw Error(path.string() + ": unreadable durability journal: no server or no changes");
    }
    j.path = path;
    return j;
}

bool DurabilityJournal::isJournalFile(const fs::path& path) {
    return path.extension() == ".json" && path.filename().string().rfind("server-", 0) == 0;
}

std::vector<DurabilityJournal> DurabilityJournal::list(std::vector<std::string>* problems) {
    std::vector<DurabilityJournal> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(directory(), ec)) {
        const fs::path& p = entry.path();
        if (!isJournalFile(p)) {
            continue;
        }
        try {
            out.push_back(read(p));
        } catch (const Error& e) {
            if (problems != nullptr) {
                problems->emplace_back(e.what());
            }
        }
    }
    std::sort(out.begin(), out.end(),
              [](const DurabilityJournal& a, const DurabilityJournal& b) { return a.path < b.path; });
    return out;
}

bool DurabilityJournal::ownerAlive() const {
    if (host != hostName()) {
        return true; // written on another machine sharing this directory: cannot tell, assume alive
    }
    if (pid <= 0 || !processExists(static_cast<pid_t>(pid))) {
        return false;
    }
    const auto stamp = readProcessStamp(static_cast<pid_t>(pid));
    return stamp && isAlive(*stamp) && stamp->startTicks == processStart;
}

std::string DurabilityJournal::describeChanges() const {
    return describeSettingChanges(changes);
}

std::string journalConnInfo(const DurabilityJournal& journal) {
    return journal.target.empty() || journal.target.front() == '(' ? std::string() : journal.target;
}

std::vector<DurabilityJournal> abandonedJournals() {
    std::vector<DurabilityJournal> out;
    for (auto& j : DurabilityJournal::list()) {
        if (!j.ownerAlive()) {
            out.push_back(std::move(j));
        }
    }
    return out;
}

} // namespace isobar
