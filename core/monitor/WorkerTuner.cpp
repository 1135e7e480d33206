// SPDX-License-Identifier: GPL-3.0-or-later

#include "monitor/WorkerTuner.h"

#include "util/Format.h"

#include <algorithm>
#include <cmath>

namespace isobar {

namespace {

std::string rateText(double rate) {
    return formatCompact(rate) + " rows/s";
}

// "+19 %", "-3 %"
std::string gainText(double gain) {
    if (!std::isfinite(gain)) {
        return "from nothing";
    }
    const long percent = std::lround(gain * 100.0);
    return (percent >= 0 ? "+" : "") + std::to_string(percent) + " %";
}

} // namespace

WorkerTuner::WorkerTuner(Options options)
    : options_(options)
    , current_(std::clamp(options.start, 1, std::max(1, options.max))) {
    options_.max = std::max(1, options_.max);
}

WorkerChange WorkerTuner::change(double elapsed, int to, std::string reason) {
    WorkerChange c{elapsed, current_, to, std::move(reason)};
    current_ = to;
    changedAt_ = elapsed;
    windowStart_ = -1;
    return c;
}

bool WorkerTuner::timeToProbe() const {
    return secondsLeft_ < 0 ||
           secondsLeft_ >= 3 * (options_.timing.settleSeconds + options_.timing.windowSeconds);
}

std::optional<WorkerChange> WorkerTuner::observe(double elapsed, std::uint64_t rowsSent, double secondsLeft) {
    secondsLeft_ = secondsLeft;
    if (phase_ == Phase::Hold) {
        if (elapsed < holdUntil_) {
            return std::nullopt;
        }
        // A new round: the current count measured afresh, then probed from.
        phase_ = Phase::Baseline;
        rates_.clear();
        changedAt_ = elapsed - options_.timing.settleSeconds;
        windowStart_ = -1;
    }
    if (windowStart_ < 0) {
        if (elapsed - changedAt_ >= options_.timing.settleSeconds) {
            windowStart_ = elapsed;
            windowRows_ = rowsSent;
        }
        return std::nullopt;
    }
    if (elapsed - windowStart_ < options_.timing.windowSeconds) {
        return std::nullopt;
    }
    const double rate =
        static_cast<double>(rowsSent - std::min(rowsSent, windowRows_)) / (elapsed - windowStart_);
    windowStart_ = elapsed; // the next window follows on, unless the decision changes the count
    windowRows_ = rowsSent;
    return decide(elapsed, rate);
}

std::optional<WorkerChange> WorkerTuner::decide(double elapsed, double rate) {
    const int n = current_;
    // Until the next round of probing (after a change made with it, too).
    const auto holdFromNow = [&] {
        phase_ = Phase::Hold;
        holdUntil_ = elapsed + options_.timing.holdSeconds;
    };
    const auto hold = [&]() -> std::optional<WorkerChange> {
        holdFromNow();
        return std::nullopt;
    };
    const auto compared = [&](int other) {
        return rateText(rate) + " at " + std::to_string(n) + ", " + rateText(rates_[other]) + " at " +
               std::to_string(other);
    };
    switch (phase_) {
    case Phase::Baseline:
        if (rate <= 0) {
            return std::nullopt; // nothing moved (the reader, a stall): measured again
        }
        rates_[n] = rate;
        if (!timeToProbe()) {
            return std::nullopt; // measured again; the load ends before a probe could pay
        }
        if (n < options_.max && rates_.count(n + 1) == 0) {
            phase_ = Phase::Up;
            return change(elapsed, n + 1, rateText(rate) + " at " + std::to_string(n) + "; trying one more");
        }
        if (n > 1 && rates_.count(n - 1) == 0) {
            phase_ = Phase::Down;
            return change(elapsed, n - 1, rateText(rate) + " at " + std::to_string(n) + "; trying one fewer");
        }
        return hold();
    case Phase::Up: {
        const double gain = rate / rates_[n - 1] - 1.0;
        rates_[n] = rate;
        if (gain >= options_.timing.minGain) {
            if (n < options_.max && timeToProbe()) {
                return change(elapsed, n + 1, compared(n - 1) + ": " + gainText(gain) + "; trying one more");
            }
            return hold();
        }
        const bool climbed =
            rates_.count(n - 2) > 0 && rates_[n - 1] >= rates_[n - 2] * (1 + options_.timing.minGain);
        // Back to the count before; when no step up paid at all, that count is measured again and
        // one fewer is tried from there.
        if (climbed || n - 1 <= 1) {
            holdFromNow();
        } else {
            phase_ = Phase::Baseline;
        }
        return change(elapsed, n - 1, compared(n - 1) + ": " + gainText(gain) + ", not worth a worker");
    }
    case Phase::Down: {
        const double more = rates_[n + 1];
        rates_[n] = rate;
        if (rate > 0 &&
            more < rate * (1 + options_.timing.minGain)) { // the worker more added less than minGain
            const std::string why =
                compared(n + 1) + ": " + gainText(more / rate - 1.0) + " for the worker more, not worth it";
            if (n > 1 && rates_.count(n - 1) == 0 && timeToProbe()) {
                return change(elapsed, n - 1, why + "; trying one fewer");
            }
            // Stays at n: said as a change of nothing would be noise, so the log has the last step.
            return hold();
        }
        holdFromNow();
        return change(elapsed, n + 1,
                      compared(n + 1) + ": " + gainText(more / rate - 1.0) + " with one more");
    }
    case Phase::Hold:
        break;
    }
    return std::nullopt;
}

} // namespace isobar
