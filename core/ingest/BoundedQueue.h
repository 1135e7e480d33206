// SPDX-License-Identifier: GPL-3.0-or-later

#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <stop_token>

namespace isobar {

// The hand-over between the reader stage and the COPY workers. Bounded, and push() blocks while it
// is full: a slow server back-pressures the reader, so memory stays flat whatever the file size.
// close() ends the stream (pop() returns nullopt once it is empty); a stop request wakes everyone.
template <typename T>
class BoundedQueue {
public:
    explicit BoundedQueue(std::size_t capacity)
        : capacity_(capacity == 0 ? 1 : capacity) {}

    // False when stopped or closed before the item could be queued.
    bool push(T item, const std::stop_token& stop) {
        std::unique_lock lock(mutex_);
        if (!notFull_.wait(lock, stop, [&] { return closed_ || items_.size() < capacity_; }) || closed_) {
            return false;
        }
        items_.push_back(std::move(item));
        notEmpty_.notify_one();
        return true;
    }

    std::optional<T> pop(const std::stop_token& stop) {
        std::unique_lock lock(mutex_);
        if (!notEmpty_.wait(lock, stop, [&] { return closed_ || !items_.empty(); }) || items_.empty()) {
            return std::nullopt;
        }
        T item = std::move(items_.front());
        items_.pop_front();
        notFull_.notify_one();
        return item;
    }

    // The next item, waiting at most `timeout` for one; nullopt when none came in that time, or
    // the queue is closed and empty, or `stop` is requested.
    template <typename Rep, typename Period>
    std::optional<T> popFor(std::chrono::duration<Rep, Period> timeout, const std::stop_token& stop) {
        std::unique_lock lock(mutex_);
        if (!notEmpty_.wait_for(lock, stop, timeout, [&] { return closed_ || !items_.empty(); }) ||
            items_.empty()) {
            return std::nullopt;
        }
        T item = std::move(items_.front());
        items_.pop_front();
        notFull_.notify_one();
        return item;
    }

    void close() {
        std::lock_guard lock(mutex_);
        closed_ = true;
        notEmpty_.notify_all();
        notFull_.notify_all();
    }

    std::size_t size() const {
        std::lock_guard lock(mutex_);
        return items_.size();
    }
    std::size_t capacity() const noexcept { return capacity_; }

private:
    const std::size_t capacity_;
    mutable std::mutex mutex_;
    std::condition_variable_any notEmpty_;
    std::condition_variable_any notFull_;
    std::deque<T> items_;
    bool closed_ = false;
};

} // namespace isobar
