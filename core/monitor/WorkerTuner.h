// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include "monitor/RateReading.h"

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
    // A worker's transaction sends rows for up to 10 s, then waits for the COPY's end and the
    // commit; a window shorter than two such cycles flatters one worker (it may see no commit at
    // all), and one checkpoint in a short window decides it. Measured on a 2-core machine: 5 s
    // windows kept 1 worker where 2 loaded 100 M rows 24 % faster.
    struct Timing {
        double settleSeconds = 3.0;  // not measured after a change
        double windowSeconds = 20.0; // the rate is measured over this long
        double minGain = 0.05;       // a worker more must add this much (5 %) to stay
        double holdSeconds = 300.0;  // between two rounds of probing
    };
    struct Options {
        int start = 1; // the count the load starts with
        int max = 1;   // never more (what max_connections leaves, or the user's bound)
        Timing timing;
    };

    explicit WorkerTuner(Options options);

    // One rate sample: seconds since the load started, the rows sent so far (all workers) and
    // about how long the load has to go (-1: unknown). Returns the change to make now, if any (its
    // reason says what was measured). A new count is tried only while the load has at least three
    // steps of measuring to go: a probe that cannot pay for itself before the end is not made.
    std::optional<WorkerChange> observe(double elapsed, std::uint64_t rowsSent, double secondsLeft = -1);

    int workers() const noexcept { return current_; }

private:
    enum class Phase : std::uint8_t { Baseline, Up, Down, Hold };

    // A change to `to` (the rates measured so far say why), starting a new measurement.
    WorkerChange change(double elapsed, int to, std::string reason);
    // What the rate just measured at the current count decides.
    std::optional<WorkerChange> decide(double elapsed, double rate);
    bool timeToProbe() const;

    Options options_;
    int current_;
    Phase phase_ = Phase::Baseline;
    // Rates measured in this round of probing, by count.
    std::map<int, double> rates_;
    double changedAt_ = 0.0;  // elapsed at the last change (or the start)
    double windowStart_ = -1; // elapsed where the current window began (-1: still settling)
    std::uint64_t windowRows_ = 0;
    double holdUntil_ = 0.0;
    double secondsLeft_ = -1;
};

} // namespace isobar
