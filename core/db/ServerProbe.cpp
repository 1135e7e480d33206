#include "db/ServerProbe.h"

namespace isobar {

const ServerSetting* ServerInfo::find(const std::string& name) const {
    for (const auto& s : settings) {
        if (s.name == name) {
            return &s;
        }
    }
    return nullptr;
}

ServerInfo probeServer(Connection& conn) {
    ServerInfo info;
    info.version = conn.query("SELECT version()").text(0, 0);
    info.versionNumber = conn.serverVersion();
    const Result r = conn.query(
        "SELECT name, current_setting(name), source, coalesce(sourcefile, '') FROM pg_settings WHERE name = "
        "ANY ($1) "
        "ORDER BY name",
        {"{fsync,full_page_writes,synchronous_commit,wal_level,max_wal_size,min_wal_size,checkpoint_timeout,"
         "checkpoint_completion_target,shared_buffers,wal_buffers,wal_compression,maintenance_work_mem,"
         "max_connections,superuser_reserved_connections,autovacuum,shared_preload_libraries,archive_mode,"
         "data_checksums,work_mem,effective_io_concurrency,max_worker_processes}"});
    for (int i = 0; i < r.rows(); ++i) {
        info.settings.push_back(ServerSetting{r.text(i, 0), r.text(i, 1), r.text(i, 2), r.text(i, 3)});
    }
    const Result ext = conn.query(
        "SELECT name, coalesce(installed_version, default_version), installed_version IS NOT NULL FROM "
        "pg_available_extensions WHERE name IN ('timescaledb', 'citus') OR installed_version IS NOT NULL "
        "ORDER BY name");
    for (int i = 0; i < ext.rows(); ++i) {
        info.extensions.push_back(ext.text(i, 0) + " " + ext.text(i, 1) +
                                  (ext.text(i, 2) == "t" ? " (installed)" : " (available)"));
    }
    return info;
}

} // namespace isobar
