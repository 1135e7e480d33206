#pragma once

#include "monitor/RateSample.h"

#include <cstdint>
#include <map>
#include <optional>

namespace isobar {

// Finds the number of COPY workers at which a load runs fastest (--workers auto), from nothing
// but the rate rows go to the server: the server's disks, its checkpoints, the other work on it and
// the client's cores all show there, and nowhere else all together.
//
// It measures the rate at the current count over a window (after a settling time, so a new
// worker's connection and first unit do not count), then tries one more worker. It keeps climbing
// while each one adds at least `minGain`; when one does not, it goes back. When the very first step
// up did not pay, it tries one fewer, and keeps the smaller count while it is nearly as fast (fewer
// connections, less of the server's CPU for the same rows). Then it holds, and probes again after
// a while, because the best count changes as the table grows and checkpoints come and go.
//
// Pure: no clock, no threads. The loader feeds it each rate sample and applies what it returns.
class WorkerTuner {
public:
    struct Timing {
        double settleSeconds = 2.0; // not measured after a change
        double windowSeconds = 5.0; // the rate is measured over this long
        double minGain = 0.05;      // a worker more must add this much (5 %) to stay
        double holdSeconds = 60.0;  // between two rounds of probing
    };
    struct Options {
        int start = 1; // the count the load starts with
        int max = 1;   // never more (what max_connections leaves, or the user's bound)
        Timing timing;
    };

    explicit WorkerTuner(Options options);

    // One rate sample: seconds since the load started and the rows sent so far (all workers).
    // Returns the change to make now, if any (its reason says what was measured).
    std::optional<WorkerChange> observe(double elapsed, std::uint64_t rowsSent);

    int workers() const noexcept { return current_; }

private:
    enum class Phase : std::uint8_t { Baseline, Up, Down, Hold };

    // A change to `to` (the rates measured so far say why), starting a new measurement.
    WorkerChange change(double elapsed, int to, std::string reason);
    // What the rate just measured at the current count decides.
    std::optional<WorkerChange> decide(double elapsed, double rate);

    Options options_;
    int current_;
    Phase phase_ = Phase::Baseline;
    // Rates measured in this round of probing, by count.
    std::map<int, double> rates_;
    double changedAt_ = 0.0;  // elapsed at the last change (or the start)
    double windowStart_ = -1; // elapsed where the current window began (-1: still settling)
    std::uint64_t windowRows_ = 0;
    double holdUntil_ = 0.0;
};

} // namespace isobar
