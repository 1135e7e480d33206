// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "db/Connection.h"
#include "ingest/Loader.h"
#include "report/RunReport.h"

#include <chrono>
#include <optional>

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
    void rateMeasured(const RateReading& s) override;
    void serverMeasured(const ServerReading& s) override;
    void workersChanged(const WorkerChange& c) override;
    void unitCommitted(const UnitEvent& e) override;
    void finished(const LoadSummary& s) override;
    void failed(const LoadError& e) override;

    RunReport finish(const LoadSummary& summary);

private:
    // A series of at most RunReport::kMaxSamples for runs of any length: past the budget it keeps
    // one sample in `stride_` (and halves what it has), each one left out merged into the next
    // kept by `merge`, which keeps what must stay visible (the peak rate, the least free space).
    template <typename T>
    class Bounded {
    public:
        using Merge = T (*)(const T& earlier, const T& later);
        explicit Bounded(Merge merge)
            : merge_(merge) {}
        void add(std::vector<T>& series, const T& sample) {
            pending_ = pending_ ? merge_(*pending_, sample) : sample;
            if (++skipped_ < stride_) {
                return;
            }
            series.push_back(*pending_);
            pending_.reset();
            skipped_ = 0;
            if (series.size() >= RunReport::kMaxSamples) {
                std::vector<T> thinned;
                for (std::size_t i = 1; i < series.size(); i += 2) {
                    thinned.push_back(merge_(series[i - 1], series[i]));
                }
                series = std::move(thinned);
                stride_ *= 2;
            }
        }
        // Samples merged while waiting for their turn (nullopt when none).
        const std::optional<T>& pending() const { return pending_; }

    private:
        Merge merge_;
        std::size_t stride_ = 1;
        std::size_t skipped_ = 0;
        std::optional<T> pending_;
    };

    LoadSink& inner_;
    const LoadRequest& request_;
    RunReport report_;
    Bounded<RunReport::Sample> samples_{&RunReport::Sample::merged};
    Bounded<RunReport::Server> server_{&RunReport::Server::merged};
};

// "2024-05-01T12:34:56Z"
std::string utcNow();

} // namespace isobar
