// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace isobar {

// Helpers for libpq connection strings ("key=value ..." or postgresql:// URIs).

// Quotes one value for a key=value connection string (libpq's rules: single quotes, backslash
// escapes), only when it needs quoting.
std::string quoteConnValue(std::string_view value);

// Builds "k1=v1 k2=v2" from pairs, quoting values as needed.
std::string buildConnInfo(const std::vector<std::pair<std::string, std::string>>& pairs);

// The connection target without any secret, for messages, logs and reports:
// "host=/run/x port=5432 dbname=isobar user=me". A string libpq cannot parse is replaced by a
// placeholder rather than echoed, since it may contain a password.
std::string redactConnInfo(const std::string& conninfo);

// The connection string with every setting it makes except the secrets (password,
// sslpassword), to remember a user's choice; nullopt when libpq cannot parse it.
std::optional<std::string> connInfoWithoutSecrets(const std::string& conninfo);

} // namespace isobar
