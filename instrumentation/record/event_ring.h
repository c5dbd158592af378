#pragma once
// One thread's buffer of events: a single-producer, single-consumer ring. The owning
// thread pushes without a lock or a syscall; the collector drains concurrently. When the
// collector falls behind and the ring is full, the event is counted as dropped instead of
// making the producer wait: recording never slows the pipeline down.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "instrumentation/record/event.h"

namespace pipescope::record {

class EventRing {
 public:
  // 2 MiB: 32 ms of a thread recording 2 M events/s, so a collector kept off the CPU for
  // a few scheduler slices loses nothing.
  static constexpr size_t kCapacity = size_t{1} << 16;

  EventRing() : events_(std::make_unique<Event[]>(kCapacity)) {}

  // Producer thread only.
  void Push(const Event& e) {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    if (head - cached_tail_ >= kCapacity) {
      cached_tail_ = tail_.load(std::memory_order_acquire);
      if (head - cached_tail_ >= kCapacity) {
        // Only this thread writes dropped_: a plain store, no read-modify-write.
        dropped_.store(dropped_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        return;
      }
    }
    events_[head & (kCapacity - 1)] = e;
    head_.store(head + 1, std::memory_order_release);
  }

  // Collector only: calls fn(const Event&) for every event pushed so far; returns how many.
  template <typename Fn>
  size_t Drain(Fn&& fn) {
    const uint64_t tail = tail_.load(std::memory_order_relaxed);
    const uint64_t head = head_.load(std::memory_order_acquire);
    for (uint64_t i = tail; i != head; ++i) fn(events_[i & (kCapacity - 1)]);
    tail_.store(head, std::memory_order_release);
    return static_cast<size_t>(head - tail);
  }

  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  alignas(64) std::atomic<uint64_t> head_{0};
  uint64_t cached_tail_ = 0;  // producer's last view of tail_
  std::atomic<uint64_t> dropped_{0};
  alignas(64) std::atomic<uint64_t> tail_{0};
  std::unique_ptr<Event[]> events_;
};

}  // namespace pipescope::record
