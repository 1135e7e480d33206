// SPDX-License-Identifier: GPL-3.0-or-later

#include "TargetCheck.h"

#include "db/EmbeddedDefaults.h"

namespace isobar::ui {

TargetCheck checkTarget(const ConnectionChoice& choice, const std::string& table, int workers,
                        std::optional<TableType> newTableType) {
    try {
        ServerCheckRequest request;
        request.conninfo = choice.embedded ? startEmbeddedCluster() : choice.conninfo;
        if (!table.empty()) {
            request.table = TableName::parse(table);
        }
        request.workers = workers;
        request.newTableType = newTableType;
        return TargetCheck{checkServer(request), std::nullopt};
    } catch (const std::exception& e) {
        TargetCheck failed;
        failed.error = e.what();
        return failed;
    }
}

} // namespace isobar::ui
