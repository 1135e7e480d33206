// SPDX-License-Identifier: GPL-3.0-or-later

#include "db/TransientError.h"

#include <algorithm>
#include <initializer_list>

namespace isobar {

bool isTransient(const std::string& sqlState, std::string_view message) {
    if (sqlState.rfind("08", 0) == 0 || sqlState == "57P01" || sqlState == "57P02" || sqlState == "57P03" ||
        sqlState == "40001" || sqlState == "40P01") {
        return true; // Citus's own connection failures to a node are 08006 too (ReportConnectionError)
    }
    const auto says = [message](std::initializer_list<std::string_view> texts) {
        return std::any_of(texts.begin(), texts.end(), [message](std::string_view t) {
            return message.find(t) != std::string_view::npos;
        });
    };
    if (sqlState == "58030") {
        // The coordinator could not send a shard's rows, or end its COPY, over the connection to a
        // node (Citus commands/multi_copy.c). A worker's own I/O error comes through with its own
        // message ("could not write to file ...") and is not retried.
        return says({"failed to COPY to shard ", "failed to complete COPY on "});
    }
    if (sqlState == "XX000") {
        // Citus raises these without an SQLSTATE of their own: a connection it holds to a node
        // broke before the commit (transaction/remote_transaction.c), or a node's COPY ended with
        // the node shutting down, relayed without the node's SQLSTATE (ReportCopyError). The
        // coordinator itself never says these with XX000.
        return says({"failure on connection marked as essential: ", "failed to prepare transaction '",
                     "terminating connection due to administrator command",
                     "terminating connection due to immediate shutdown command",
                     "terminating connection because of crash of another server process",
                     "server closed the connection unexpectedly", "the database system is shutting down",
                     "the database system is starting up", "the database system is in recovery mode"});
    }
    return false;
}

} // namespace isobar
