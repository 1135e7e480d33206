// SPDX-License-Identifier: GPL-3.0-or-later

#include "CommandLine.h"

#include <algorithm>

namespace isobar::cli {

ParsedArgs::ParsedArgs(const std::string& command, const std::vector<OptionSpec>& specs,
                       const std::vector<std::string>& args)
    : command_(command) {
    bool onlyPositional = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (onlyPositional || arg.size() < 2 || arg[0] != '-' || arg == "-") {
            positional_.push_back(arg);
            continue;
        }
        if (arg == "--") {
            onlyPositional = true;
            continue;
        }
        std::string name = arg.substr(arg.rfind("--", 0) == 0 ? 2 : 1);
        std::optional<std::string> inlineValue;
        if (const auto eq = name.find('='); eq != std::string::npos) {
            inlineValue = name.substr(eq + 1);
            name.resize(eq);
        }
        const auto spec =
            std::find_if(specs.begin(), specs.end(), [&](const OptionSpec& s) { return s.name == name; });
        if (spec == specs.end()) {
            throw UsageError{"unknown option '" + arg + "' for '" + command_ + "'"};
        }
        if (spec->valueName.empty()) {
            if (inlineValue) {
                throw UsageError{"option --" + name + " takes no value"};
            }
            values_[name] = "";
            continue;
        }
        if (inlineValue) {
            values_[name] = *inlineValue;
        } else if (spec->optionalValue) {
            values_[name] = "";
        } else if (i + 1 < args.size()) {
            values_[name] = args[++i];
        } else {
            throw UsageError{"option --" + name + " needs a value (" + spec->valueName + ")"};
        }
    }
}

std::optional<std::string> ParsedArgs::value(const std::string& name) const {
    const auto it = values_.find(name);
    if (it == values_.end()) {
        return std::nullopt;
    }
    return it->second;
}

std::string ParsedArgs::value(const std::string& name, const std::string& fallback) const {
    return value(name).value_or(fallback);
}

long long ParsedArgs::integer(const std::string& name, long long fallback, long long min,
                              long long max) const {
    const auto text = value(name);
    if (!text) {
        return fallback;
    }
    try {
        std::size_t used = 0;
        const long long v = std::stoll(*text, &used);
        if (used == text->size() && v >= min && v <= max) {
            return v;
        }
    } catch (const std::exception&) {
    }
    throw UsageError{"--" + name + " must be a whole number from " + std::to_string(min) + " to " +
                     std::to_string(max) + ", not '" + *text + "'"};
}

std::string describeOptions(const std::vector<OptionSpec>& specs) {
    std::string out;
    for (const auto& s : specs) {
        std::string left = "  --" + s.name +
                           (s.valueName.empty() ? ""
                            : s.optionalValue   ? "[=" + s.valueName + "]"
                                                : " " + s.valueName);
        if (left.size() < 28) {
            left.resize(28, ' ');
        } else {
            left += "\n" + std::string(28, ' ');
        }
        out += left + s.help + "\n";
    }
    return out;
}

} // namespace isobar::cli
