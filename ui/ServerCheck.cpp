#include "ServerCheck.h"

#include "db/EmbeddedDefaults.h"
#include "db/LocalCluster.h"

#include <algorithm>

namespace isobar::ui {

ServerCheck checkServer(const ConnectionChoice& choice, const std::string& table, int workers,
                        std::optional<TableType> newTableType) {
    ServerCheck check;
    try {
        if (choice.embedded) {
            LocalCluster cluster(embeddedClusterOptions());
            cluster.start();
            check.conninfo = cluster.connectionString();
        } else {
            check.conninfo = choice.conninfo;
        }
        Connection conn = Connection::open(check.conninfo);
        conn.exec("SET application_name = 'isobar'");
        const TableName name = TableName::parse(table.empty() ? "weather" : table);
        check.info = probeServer(conn, &name);
        LoadIntent intent;
        intent.workers = std::max(1, workers);
        if (!check.info.table) {
            intent.newTableType = newTableType.value_or(TableType::Regular);
        }
        check.warnings = adviseSettings(check.info, intent);
        check.timescaledb = timescaledbStatus(conn);
        check.citus = citusStatus(conn);
        if (const auto slots = connectionSlots(check.info)) {
            check.maxWorkers = std::clamp(slots->available() - intent.extraConnections, 1, 64);
        }
        for (auto& j : abandonedJournals()) {
            if (j.systemIdentifier == check.info.systemIdentifier) {
                check.pendingRestores.push_back(std::move(j));
            }
        }
    } catch (const std::exception& e) {
        check.error = e.what();
    }
    return check;
}

} // namespace isobar::ui
