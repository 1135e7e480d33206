// SPDX-License-Identifier: GPL-3.0-or-later

#include "ingest/WorkerPool.h"

#include <algorithm>

namespace isobar {

WorkerPool::WorkerPool(EngineShared& shared, int slots, TransportFactory makeMethod)
    : shared_(shared)
    , makeMethod_(std::move(makeMethod)) {
    for (int s = 0; s < std::max(1, slots); ++s) {
        counters_.push_back(std::make_unique<WorkerCounters>());
        slots_.push_back(std::make_unique<Slot>());
    }
}

WorkerPool::~WorkerPool() {
    join();
}

void WorkerPool::start(std::size_t slot) {
    Slot& s = *slots_[slot];
    if (s.thread.joinable()) {
        s.thread.join(); // it has ended: returns at once
    }
    const int id = static_cast<int>(slot + 1);
    s.worker.reset(); // the previous worker's connection is closed already (CopyWorker::run)
    s.worker = std::make_unique<CopyWorker>(id, shared_, *counters_[slot], makeMethod_(id));
    s.leave = std::stop_source();
    s.running = true;
    s.ended = false;
    used_ = std::max(used_, id);
    s.thread = std::jthread([this, &s] {
        s.worker->run(shared_.stop.get_token(), s.leave.get_token());
        s.ended = true;
    });
}

void WorkerPool::settleLocked() {
    if (closed_ || shared_.stop.stop_requested()) {
        return;
    }
    int running = 0;
    for (const auto& s : slots_) {
        running += s->running ? 1 : 0;
    }
    // Fewer: the highest numbers leave first, so the low numbers are the long-lived workers.
    for (std::size_t i = slots_.size(); i-- > 0 && running > wanted_;) {
        if (slots_[i]->running) {
            slots_[i]->running = false;
            slots_[i]->leave.request_stop();
            --running;
        }
    }
    // More: the lowest slots whose last worker has ended.
    for (std::size_t i = 0; i < slots_.size() && running < wanted_; ++i) {
        if (!slots_[i]->running && slots_[i]->ended) {
            start(i);
            ++running;
        }
    }
}

void WorkerPool::resize(int workers) {
    const std::lock_guard lock(mutex_);
    wanted_ = std::clamp(workers, 1, static_cast<int>(slots_.size()));
    settleLocked();
}

void WorkerPool::settle() {
    const std::lock_guard lock(mutex_);
    settleLocked();
}

int WorkerPool::running() const {
    const std::lock_guard lock(mutex_);
    return static_cast<int>(
        std::count_if(slots_.begin(), slots_.end(), [](const auto& s) { return s->running && !s->ended; }));
}

int WorkerPool::used() const {
    const std::lock_guard lock(mutex_);
    return used_;
}

void WorkerPool::join() {
    {
        const std::lock_guard lock(mutex_);
        closed_ = true;
    }
    // Started only under the lock, and never after closed_: the threads are all known now.
    for (auto& s : slots_) {
        if (s->thread.joinable()) {
            s->thread.join();
        }
    }
    const std::lock_guard lock(mutex_);
    for (auto& s : slots_) {
        s->running = false;
    }
}

} // namespace isobar
