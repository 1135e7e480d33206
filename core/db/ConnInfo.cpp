// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/ConnInfo.h"

#include <libpq-fe.h>

#include <memory>

namespace isobar {

std::string quoteConnValue(std::string_view value) {
    const bool needsQuotes = value.empty() || value.find_first_of(" \t\n\r\\'") != std::string_view::npos;
    if (!needsQuotes) {
        return std::string(value);
    }
    std::string out = "'";
    for (const char c : value) {
        if (c == '\'' || c == '\\') {
            out += '\\';
        }
        out += c;
    }
    out += '\'';
    return out;
}

std::string buildConnInfo(const std::vector<std::pair<std::string, std::string>>& pairs) {
    std::string out;
    for (const auto& [key, value] : pairs) {
        if (!out.empty()) {
            out += ' ';
        }
        out += key + "=" + quoteConnValue(value);
    }
    return out;
}

namespace {

using ParsedConnInfo = std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)>;

// libpq expands a dbname that is itself a connection string or URI (which may hold secrets).
bool isExpandedDbname(std::string_view key, std::string_view value) {
    return key == "dbname" &&
           (value.find('=') != std::string_view::npos || value.find("://") != std::string_view::npos);
}

ParsedConnInfo parseConnInfo(const std::string& conninfo) {
    char* error = nullptr;
    ParsedConnInfo options(PQconninfoParse(conninfo.c_str(), &error), &PQconninfoFree);
    if (error != nullptr) {
        PQfreemem(error);
    }
    return options;
}

} // namespace

std::optional<std::string> connInfoWithoutSecrets(const std::string& conninfo) {
    const ParsedConnInfo options = parseConnInfo(conninfo);
    if (!options) {
        return std::nullopt;
    }
    std::vector<std::pair<std::string, std::string>> kept;
    for (PQconninfoOption* opt = options.get(); opt->keyword != nullptr; ++opt) {
        const std::string_view key(opt->keyword);
        if (key == "password" || key == "sslpassword" || opt->val == nullptr || *opt->val == '\0') {
            continue;
        }
        if (isExpandedDbname(key, opt->val)) {
            const auto inner = connInfoWithoutSecrets(opt->val);
            if (!inner) {
                return std::nullopt;
            }
            kept.emplace_back(opt->keyword, *inner);
            continue;
        }
        kept.emplace_back(opt->keyword, opt->val);
    }
    return buildConnInfo(kept);
}

std::string redactConnInfo(const std::string& conninfo) {
    const ParsedConnInfo options = parseConnInfo(conninfo);
    if (!options) {
        return "(an unparsable connection string)";
    }
    // Only the keys that say where and as whom; everything else (password, sslkey paths, ...) is
    // left out on purpose.
    static constexpr const char* shown[] = {"host", "hostaddr", "port", "dbname", "user", "sslmode"};
    std::vector<std::pair<std::string, std::string>> kept;
    for (const char* key : shown) {
        for (PQconninfoOption* opt = options.get(); opt->keyword != nullptr; ++opt) {
            if (std::string_view(opt->keyword) == key && opt->val != nullptr && *opt->val != '\0') {
                kept.emplace_back(key, isExpandedDbname(key, opt->val) ? redactConnInfo(opt->val) : opt->val);
            }
        }
    }
    if (kept.empty()) {
        return "(libpq defaults)";
    }
    return buildConnInfo(kept);
}

} // namespace isobar
