// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "monitor/RateReading.h"
#include "report/RunReport.h"

#include <string>

namespace isobar {

// The sentences a run report says of the workers, the disk, the standbys and the archiver, the same
// in the HTML report (ReportFormats) and the desktop's PDF and History summaries.

// "4" or "auto, up to 4: 2 at the end, 3 change(s)"
std::string workersText(const RunReport& r);
// "workers 1 → 2 at 7.00s: rate 1.21M rows/s at 2, 1.02M at 1: +19 %"
std::string workerChangeText(const WorkerChange& c);
// "requested (WAL reached max_wal_size, or a CHECKPOINT was run): 740k rows/s in the 10 s before,
// 510k after (-31 %)"
std::string checkpointText(const RunReport::Checkpoint& c);
// "streaming, replay lag up to 1.50s, up to 12.0 MiB behind"
std::string standbyLagText(const RunReport::Standby& s);
// "up to 3 WAL segment(s) waiting, 2 failed archive_command run(s)"; empty when the run saw no
// archiver (archive_mode off, or a role that may not look).
std::string archiverText(const RunReport& r);
bool archiverFailed(const RunReport& r);
// Whether the run saw anything of the server's disk (free space, pg_wal, the table's size).
bool seesTheDisk(const RunReport& r);

} // namespace isobar
