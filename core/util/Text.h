// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace isobar {

// Without leading and trailing white space.
inline std::string trim(std::string s) {
    const auto notSpace = [](unsigned char c) {
        return !std::isspace(c);
    };
    s.erase(s.begin(), std::find_if(s.begin(), s.end(), notSpace));
    s.erase(std::find_if(s.rbegin(), s.rend(), notSpace).base(), s.end());
    return s;
}

// "a, b, c" (with the given separator); `none` when there is nothing.
inline std::string join(const std::vector<std::string>& parts, const std::string& separator,
                        const std::string& none = {}) {
    std::string out;
    for (const auto& p : parts) {
        out += (out.empty() ? "" : separator) + p;
    }
    return out.empty() ? none : out;
}

// 'value' with single quotes doubled: an SQL string literal (standard_conforming_strings) or a
// postgresql.conf string value.
inline std::string singleQuoted(const std::string& value) {
    std::string out = "'";
    for (char c : value) {
        out += c;
        if (c == '\'') {
            out += '\'';
        }
    }
    return out + "'";
}

} // namespace isobar
