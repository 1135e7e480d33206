// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <string>
#include <string_view>

namespace isobar {

// Whether the same unit may well succeed on a new connection after this failure: the connection
// broke, the server shut down or restarted, a serialization conflict; on a Citus coordinator, a
// worker node was lost or is restarting (the coordinator wraps that in errors of its own: 58030
// "failed to COPY to shard ...", connection and 2PC failures). `message` is the error's whole text;
// it tells a lost node from a disk that failed (58030 too), which is never retried, and neither is
// a full disk (53100) or anything the rows did.
bool isTransient(const std::string& sqlState, std::string_view message = {});

} // namespace isobar
