#pragma once
// One thread's buffer of events: a single-producer, single-consumer ring. The owning
// thread pushes without a lock or a syscall; the collector drains concurrently. When the
// collector falls behind and the ring is full, the event is counted as dropped instead of
// making the producer wait: recording never slows the pipeline down.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "instrumentation/record/event.h"
#include "instrumentation/record/populate_pages.h"

namespace pipescope::record {

class EventRing {
 public:
  // 4 MiB: 50 ms of a thread recording 2.5 M events/s, so a collector kept off a busy
  // machine's cores for a few scheduler slices loses nothing.
  static constexpr size_t kCapacity = size_t{1} << 17;
  // Past this fill the producer asks the collector to drain now (see Push).
  static constexpr size_t kUrgentFill = kCapacity / 2;
  // How far ahead of the producer the ring's pages are present at least (PopulateAhead):
  // 512 KiB. A thread that wrote more than half that since the previous drain gets twice
  // what it wrote, so that a busy one (2.5 M events/s writes 125 K events in the
  // collector's 50 ms) seldom meets a page fault, while a quiet one costs little memory.
  static constexpr size_t kPopulateAhead = size_t{1} << 14;

  // The ring's pages are not written here: most threads record far fewer events than the
  // ring holds, and faulting in all of it at the thread's first event cost 12 ms a thread
  // on a VM (1024 pages at 12 us each), 3% of a two-second run of a ten-thread pipeline.
  // The first pages come in together now; the collector brings in the next ones in bulk
  // as the producer nears them.
  EventRing()
      : memory_(MapPages(kCapacity * sizeof(Event))), events_(static_cast<Event*>(memory_.get())) {
    PopulateAhead();
  }

  // Producer thread only. Returns true when the ring has filled past kUrgentFill: the
  // caller then wakes the collector instead of waiting for its period. The shared tail is
  // read only at check points, never more often than every kCapacity / 16 pushes, and
  // always before the ring could be full.
  bool Push(const Event& e) {
    const uint64_t head = head_.load(std::memory_order_relaxed);
    bool urgent = false;
    if (head >= check_at_) [[unlikely]] {
      const uint64_t tail = tail_.load(std::memory_order_acquire);
      const uint64_t fill = head - tail;
      if (fill >= kCapacity) {
        // Only this thread writes dropped_: a plain store, no read-modify-write.
        dropped_.store(dropped_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        check_at_ = head;  // look again at the next push
        return false;
      }
      urgent = fill >= kUrgentFill;
      check_at_ =
          urgent ? head + std::min<uint64_t>(kCapacity / 16, kCapacity - fill) : tail + kUrgentFill;
    }
    events_[head & (kCapacity - 1)] = e;
    head_.store(head + 1, std::memory_order_release);
    return urgent;
  }

  // Collector only: calls fn(const Event&) for every event pushed so far; returns how many.
  template <typename Fn>
  size_t Drain(Fn&& fn) {
    const uint64_t tail = tail_.load(std::memory_order_relaxed);
    const uint64_t head = head_.load(std::memory_order_acquire);
    for (uint64_t i = tail; i != head; ++i) fn(events_[i & (kCapacity - 1)]);
    tail_.store(head, std::memory_order_release);
    last_drained_ = static_cast<size_t>(head - tail);
    return last_drained_;
  }

  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

  // Collector only (and the constructor): makes the pages of the next kPopulateAhead events
  // after the producer's head present, in one system call, so that the producer seldom
  // meets a page fault. Once the whole ring is present, does nothing.
  void PopulateAhead() {
    if (populated_ == kCapacity) return;
    const uint64_t head = head_.load(std::memory_order_relaxed);
    const size_t ahead = std::max(kPopulateAhead, 2 * last_drained_);
    const size_t want = static_cast<size_t>(std::min<uint64_t>(kCapacity, head + ahead));
    if (want <= populated_) return;
    PopulatePagesForWrite(events_ + populated_, (want - populated_) * sizeof(Event));
    populated_ = want;
  }
  // Events whose pages PopulateAhead made present (tests).
  size_t populated() const { return populated_; }

 private:
  alignas(64) std::atomic<uint64_t> head_{0};
  uint64_t check_at_ = kUrgentFill;  // producer: head at which to look at tail_ again
  std::atomic<uint64_t> dropped_{0};
  alignas(64) std::atomic<uint64_t> tail_{0};
  size_t populated_ = 0;     // collector: events from the start whose pages are present
  size_t last_drained_ = 0;  // collector: events the previous Drain took
  MappedPages memory_;
  Event* const events_;
};

}  // namespace pipescope::record
