#pragma once

#include "db/Connection.h"
#include "ingest/Loader.h"
#include "report/RunReport.h"

#include <chrono>

namespace isobar {

// Records a run for its report while passing every event on to another sink (the CLI's printer,
// the GUI adapter). finish() completes the report after the run: the server's settings and the
// verification the request asks for (the units' own counts; count(*) against the ledger for a small
// table or on request), both best effort (a report is written even when the server is gone).
class ReportRecorder final : public LoadSink {
public:
    ReportRecorder(LoadSink& inner, const LoadRequest& request);

    void settingsChecked(const ServerInfo& server, const std::vector<SettingWarning>& warnings) override;
    void started(const LoadStart& s) override;
    void warning(const std::string& message) override;
    void note(const std::string& message) override;
    void rateSampled(const RateSample& s) override;
    void serverSampled(const ServerSample& s) override;
    void unitCommitted(const UnitEvent& e) override;
    void finished(const LoadSummary& s) override;
    void failed(const LoadError& e) override;

    RunReport finish(const LoadSummary& summary);

private:
    // The verification's summary line; sets `counted` when the table was counted.
    std::string verifyTable(Connection& conn, const LoadSummary& summary, std::uint64_t ledgerRows,
                            std::optional<std::uint64_t>& counted) const;

    LoadSink& inner_;
    const LoadRequest& request_;
    RunReport report_;
    std::size_t stride_ = 1; // keep one sample in `stride_` once the series is long
    std::size_t skipped_ = 0;
    double pendingPeak_ = 0;
};

// "2024-05-01T12:34:56Z"
std::string utcNow();

} // namespace isobar
