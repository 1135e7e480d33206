// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace isobar::cli {

// Thrown for a command line that cannot be understood; main prints it with a pointer to --help
// and exits with status 2.
struct UsageError {
    std::string message;
};

struct OptionSpec {
    std::string name;      // without dashes: "table"
    std::string valueName; // empty: a flag without value
    std::string help;
    // The value may be left out ("--compress"), and is then only given as "--compress=VALUE": the
    // next argument stays a positional one.
    bool optionalValue = false;
};

// A subcommand's options and positional arguments, parsed strictly: an unknown option is an error,
// never ignored. Accepts "--name value" and "--name=value".
class ParsedArgs {
public:
    ParsedArgs(const std::string& command, const std::vector<OptionSpec>& specs,
               const std::vector<std::string>& args);

    bool flag(const std::string& name) const { return values_.count(name) > 0; }
    std::optional<std::string> value(const std::string& name) const;
    std::string value(const std::string& name, const std::string& fallback) const;
    // The value as a whole number in [min, max], or a UsageError naming the option.
    long long integer(const std::string& name, long long fallback, long long min, long long max) const;
    const std::vector<std::string>& positional() const noexcept { return positional_; }

private:
    std::string command_;
    std::map<std::string, std::string> values_;
    std::vector<std::string> positional_;
};

// "  --table NAME        table to load into" lines for help texts.
std::string describeOptions(const std::vector<OptionSpec>& specs);

} // namespace isobar::cli
