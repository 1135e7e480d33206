#pragma once

#include <algorithm>
#include <cctype>
#include <string>

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

} // namespace isobar
