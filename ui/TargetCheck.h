// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/ServerCheck.h"

#include <optional>
#include <string>

namespace isobar::ui {

// Where the desktop app loads to: the embedded cluster (started when needed) or a server the
// user describes. The password lives only in memory; ~/.pgpass works as for psql.
struct ConnectionChoice {
    bool embedded = true;
    std::string conninfo; // when not embedded
};

// A server check as the window shows it: what core's checkServer() found, or why it could not look.
struct TargetCheck : ServerCheck {
    std::optional<std::string> error; // worded for the user; the rest is empty then
};

// Starts the embedded cluster when it is the choice, then checks the server for a load of
// `workers` into `table` (a new one of `newTableType`). Never throws: a failure is in `error`.
// Blocking: call it off the GUI thread.
TargetCheck checkTarget(const ConnectionChoice& choice, const std::string& table, int workers,
                        std::optional<TableType> newTableType);

} // namespace isobar::ui
