#pragma once
// Pipeline-wide cancellation. Blocking sleeps in work functions and sources (io_wait,
// storage latency) go through SleepFor so that stopping a pipeline never waits for them.
// Thread-safe.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace pipescope::engine {

class CancellationToken {
 public:
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }

  void Cancel() {
    {
      std::lock_guard lock(mu_);
      cancelled_.store(true, std::memory_order_release);
    }
    cv_.notify_all();
  }

  // Sleeps `ns` nanoseconds; returns false (early) when cancelled.
  bool SleepFor(int64_t ns) {
    if (ns <= 0) return !cancelled();
    std::unique_lock lock(mu_);
    return !cv_.wait_for(lock, std::chrono::nanoseconds(ns), [&] { return cancelled(); });
  }

 private:
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  std::condition_variable cv_;
};

}  // namespace pipescope::engine
