// SPDX-License-Identifier: GPL-3.0-or-later

#include "domain/ParameterDatabase.h"

#include "util/Error.h"
#include "util/Format.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <eccodes.h>
#include <fstream>

namespace isobar {

namespace {

// One entry of a concept file: its value, and its conditions as a hash of their characters but
// whitespace (the same conditions in two files hash alike, however they are laid out).
struct ConceptEntry {
    std::string value;
    std::uint64_t conditions = 0;
    bool accumulation = false; // typeOfStatisticalProcessing = 1
};

std::string readWhole(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return {};
    }
    in.seekg(0, std::ios::end);
    std::string text(static_cast<std::size_t>(std::max<std::streamoff>(in.tellg(), 0)), '\0');
    in.seekg(0);
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    return text;
}

// The entries of a concept file: `'value' = { key = value ; ... }`, with # comments between them.
std::vector<ConceptEntry> readConcepts(const std::filesystem::path& path) {
    const std::string text = readWhole(path);
    constexpr std::string_view kAccumulation = "typeOfStatisticalProcessing=1;";
    std::vector<ConceptEntry> out;
    std::size_t i = 0;
    while (i < text.size()) {
        if (text[i] != '\'') {
            const std::size_t lineEnd = text.find('\n', i);
            i = lineEnd == std::string::npos ? text.size() : lineEnd + 1;
            continue;
        }
        const std::size_t close = text.find('\'', i + 1);
        const std::size_t open = close == std::string::npos ? close : text.find('{', close);
        const std::size_t end = open == std::string::npos ? open : text.find('}', open);
        if (end == std::string::npos) {
            break;
        }
        ConceptEntry e{text.substr(i + 1, close - i - 1), 1469598103934665603ULL, false};
        std::size_t matched = 0; // of kAccumulation, in the characters but whitespace
        for (std::size_t k = open + 1; k < end; ++k) {
            const char c = text[k];
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                continue;
            }
            e.conditions = (e.conditions ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
            matched = c == kAccumulation[matched] ? matched + 1 : (c == kAccumulation[0] ? 1 : 0);
            if (matched == kAccumulation.size()) {
                e.accumulation = true;
                matched = 0;
            }
        }
        out.push_back(std::move(e));
        i = end + 1;
    }
    return out;
}

// The concept files of one directory, joined on their conditions.
void readDirectory(const std::filesystem::path& dir, bool edition2, std::vector<EcmwfParameter>& out,
                   std::unordered_map<long, std::size_t>& byId) {
    const auto ids = readConcepts(dir / "paramId.def");
    if (ids.empty()) {
        return;
    }
    const auto valuesOf = [&](const char* file) {
        std::unordered_map<std::uint64_t, std::string> m;
        for (ConceptEntry& e : readConcepts(dir / file)) {
            m.emplace(e.conditions, std::move(e.value));
        }
        return m;
    };
    const auto shortNames = valuesOf("shortName.def");
    const auto names = valuesOf("name.def");
    const auto units = valuesOf("units.def");
    const auto cfVarNames = valuesOf("cfVarName.def");
    const auto cfNames = valuesOf("cfName.def");
    const auto take = [](const std::unordered_map<std::uint64_t, std::string>& m, std::uint64_t conditions,
                         std::string& field) {
        if (field.empty()) {
            if (const auto it = m.find(conditions); it != m.end()) {
                field = it->second;
            }
        }
    };
    for (const ConceptEntry& e : ids) {
        char* endp = nullptr;
        const long id = std::strtol(e.value.c_str(), &endp, 10);
        if (endp == e.value.c_str() || *endp != '\0' || id <= 0) {
            continue;
        }
        auto [it, fresh] = byId.emplace(id, out.size());
        if (fresh) {
            out.push_back(EcmwfParameter{});
            out.back().paramId = id;
        }
        EcmwfParameter& p = out[it->second];
        take(shortNames, e.conditions, p.shortName);
        take(names, e.conditions, p.name);
        take(units, e.conditions, p.units);
        take(cfVarNames, e.conditions, p.cfVarName);
        take(cfNames, e.conditions, p.cfName);
        p.accumulated = p.accumulated || (edition2 && e.accumulation);
    }
}

template <typename Map>
std::vector<const EcmwfParameter*> lookup(const Map& index, const std::vector<EcmwfParameter>& all,
                                          const std::string& key) {
    std::vector<const EcmwfParameter*> out;
    const auto [from, to] = index.equal_range(key);
    for (auto it = from; it != to; ++it) {
        out.push_back(&all[it->second]);
    }
    std::sort(out.begin(), out.end(),
              [](const EcmwfParameter* a, const EcmwfParameter* b) { return a->paramId < b->paramId; });
    return out;
}

} // namespace

ParameterDatabase ParameterDatabase::read(const std::filesystem::path& root) {
    ParameterDatabase db;
    db.root_ = root;
    // As ecCodes names an ECMWF message of GRIB 2 (the CDS's edition today): ECMWF's local concepts
    // before the WMO's; then GRIB 1's for what only GRIB 1 defines. Where the editions' files name
    // a parameter differently (paramId 3062 is cfVarName p3062 in GRIB 2, lsp in GRIB 1), GRIB 2's
    // name is kept.
    readDirectory(root / "grib2" / "localConcepts" / "ecmf", true, db.parameters_, db.byId_);
    readDirectory(root / "grib2", true, db.parameters_, db.byId_);
    readDirectory(root / "grib1" / "localConcepts" / "ecmf", false, db.parameters_, db.byId_);
    readDirectory(root / "grib1", false, db.parameters_, db.byId_);
    if (db.parameters_.empty()) {
        throw Error("no ECMWF parameter in ecCodes' definitions at " + root.string() +
                    " (grib2/paramId.def); install libeccodes-data, or set ECCODES_DEFINITION_PATH to "
                    "ecCodes' definitions directory");
    }
    for (std::size_t i = 0; i < db.parameters_.size(); ++i) {
        const EcmwfParameter& p = db.parameters_[i];
        if (!p.cfVarName.empty()) {
            db.byVariableName_.emplace(p.cfVarName, i);
        }
        if (!p.shortName.empty() && p.shortName != p.cfVarName && p.shortName != "~") {
            db.byVariableName_.emplace(p.shortName, i);
        }
        if (!p.name.empty()) {
            db.byName_.emplace(lowerCase(p.name), i);
        }
        if (!p.cfName.empty() && p.cfName != "unknown") {
            db.byCfName_.emplace(p.cfName, i);
        }
    }
    return db;
}

const EcmwfParameter* ParameterDatabase::byParamId(long paramId) const {
    const auto it = byId_.find(paramId);
    return it == byId_.end() ? nullptr : &parameters_[it->second];
}

std::vector<const EcmwfParameter*> ParameterDatabase::byVariableName(std::string_view name) const {
    return lookup(byVariableName_, parameters_, std::string(name));
}

std::vector<const EcmwfParameter*> ParameterDatabase::byName(std::string_view name) const {
    return lookup(byName_, parameters_, lowerCase(name));
}

std::vector<const EcmwfParameter*> ParameterDatabase::byCfName(std::string_view cfName) const {
    return lookup(byCfName_, parameters_, std::string(cfName));
}

std::filesystem::path ecCodesDefinitions() {
    // The context's own string (not the caller's to free).
    const char* path = codes_definition_path(nullptr);
    const std::string list = path != nullptr ? std::string(path) : std::string();
    std::filesystem::path first;
    std::size_t from = 0;
    while (from <= list.size()) {
        const std::size_t colon = std::min(list.find(':', from), list.size());
        std::filesystem::path dir = list.substr(from, colon - from);
        if (!dir.empty()) {
            first = first.empty() ? dir : first;
            std::error_code ec;
            if (std::filesystem::exists(dir / "grib2" / "paramId.def", ec)) {
                return dir;
            }
        }
        from = colon + 1;
    }
    return first;
}

const ParameterDatabase& ecmwfParameters() {
    static const ParameterDatabase db = ParameterDatabase::read(ecCodesDefinitions());
    return db;
}

} // namespace isobar
