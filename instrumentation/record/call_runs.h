#pragma once
// Runs of cheap calls: a source's consecutive calls on one thread, folded into one event
// standing for n calls (TraceEvent::calls, FORMAT.md "run"), as the simulator records them,
// by the thread that makes them. A batch taking a thousand 100 ns records from a source is
// then a few events, not a thousand, and most of the calls read no clock at all: on the
// fastest pipelines two clock reads per call cost a seventh of the throughput.
//
// What joins a run: the same source's next element on the same thread, each call and each
// gap between two under kRunCallNs, the run no longer than kRunSpanNs. A source's first
// kRunEstablishCalls cheap calls on a thread are all timed; after that only one call in
// every kRunTimedEveryNs of its pace is (also in its next runs, until another source's
// call), and each untimed call counts the mean own time of the source's recent timed calls.
// Its caller is told the same, so the caller's own time and the run's add up to the
// caller's span. On overhead.pbtxt this puts the source's and batch's busy shares at 1.2
// to 1.5 to 1, where a profile of the unrecorded run (perf, inclusive samples) has 1.5;
// timing every call made it 3 to 1. (Giving an untimed stretch its measured length less
// the caller's gaps at their mean was tried and made it 1 to 1: gaps measured between two
// timed calls hold the recording's own work.)
// A timed call also checks the untimed ones before it: when they took kRunCallNs more
// than the run's pace, something among them stood out, and they become a run of their own
// spanning exactly that stretch, so a stall is never hidden inside a longer run. A run that
// ends between timed calls (its caller recorded something, another op's call came, an
// untimed call ended the sequence) ends where its pace puts its last call, never later
// than the moment it was closed.

#include <algorithm>
#include <cstdint>

#include "instrumentation/record/event.h"

namespace pipescope::record {

// Counting instructions under valgrind (scripts/bench-instructions) runs every call some
// 75 times slower; that build scales the time limits, so that runs form there as they
// do natively.
#ifndef PIPESCOPE_RUN_LIMITS_SCALE
#define PIPESCOPE_RUN_LIMITS_SCALE 1
#endif
inline constexpr int64_t kRunLimitsScale = PIPESCOPE_RUN_LIMITS_SCALE;
inline constexpr int64_t kRunCallNs = 2'000 * kRunLimitsScale;
inline constexpr int64_t kRunSpanNs = 50'000 * kRunLimitsScale;
inline constexpr int64_t kRunTimedEveryNs = 4'000 * kRunLimitsScale;
inline constexpr uint32_t kMaxRunCalls = 4096;
inline constexpr uint32_t kRunEstablishCalls = 8;
inline constexpr uint32_t kMaxUntimedCalls = 63;

// The limits above in ticks of the recording clock.
struct RunLimits {
  uint64_t call_ticks = 0;
  uint64_t span_ticks = 0;
  uint64_t timed_every_ticks = 0;
};

// One thread's run in progress. Plain data (it lives in a constant-initialised
// thread_local); events leave through `push(const Event&)`: a run of n > 1 calls is a
// kRunCalls event carrying n followed by its kCall event.
class SourceCallRun {
 public:
  bool open() const { return calls_ != 0; }
  // Whether closing the run needs the time: calls after its last timed one end at its pace,
  // but no later than then.
  bool has_untimed_tail() const { return calls_ != timed_through_; }

  // Whether `owner`'s next call may skip the clock: it would continue this run.
  bool NextUntimed(const void* owner) const { return owner == owner_ && untimed_left_ != 0; }

  // After an untimed call that produced `element` (flags 0): counts it and sets `self` to
  // the own time it is credited with. False when it does not continue the run (the run was
  // closed meanwhile, or element ids jumped): EndBrokenUntimed then.
  bool CountUntimed(uint64_t element, uint64_t& self) {
    if (untimed_left_ == 0 || element != first_ + calls_) return false;
    ++calls_;
    --untimed_left_;
    self_ += mean_self_;
    self = mean_self_;
    return true;
  }

  // An untimed call that did not continue the run ended at `now`: the run ends at its
  // pace, the call is an event of its own from there. Returns the call's own ticks.
  template <typename Push>
  uint64_t EndBrokenUntimed(uint16_t op, uint64_t now, uint64_t element, uint8_t flags,
                            Push&& push) {
    const uint64_t start = std::min(Close(now, push), now);
    push(SingleCall(op, start, now, element, flags));
    return now - start;
  }

  // A timed call of `owner` from t0 to t1. Returns its own ticks.
  template <typename Push>
  uint64_t Timed(const RunLimits& limits, const void* owner, uint16_t op, uint64_t t0, uint64_t t1,
                 uint64_t element, uint8_t flags, Push&& push) {
    const uint64_t ticks = t1 - t0;
    const bool cheap = flags == 0 && ticks < limits.call_ticks;
    if (open()) {
      if (owner == owner_ && cheap && element == first_ + calls_ && calls_ < kMaxRunCalls &&
          t1 - start_ <= limits.span_ticks) {
        const uint64_t untimed = calls_ - timed_through_;
        const uint64_t since_timed = t0 > timed_end_ ? t0 - timed_end_ : 0;
        if (since_timed < untimed * pace_ + limits.call_ticks) {
          Extend(limits, t1, ticks);
          return ticks;
        }
        if (untimed != 0) {
          SplitOffUntimedTail(t0, push);
          Begin(owner, op, t0, t1, element, ticks);
          return ticks;
        }
      }
      Close(t0, push);
    }
    if (cheap) {
      Begin(owner, op, t0, t1, element, ticks);
    } else {
      push(SingleCall(op, t0, t1, element, flags));
    }
    return ticks;
  }

  // Ends the run (no-op when none is open) and returns where it ends: its last call's end,
  // or for untimed calls after the last timed one, where the run's pace puts them, but no
  // later than `now`.
  template <typename Push>
  uint64_t Close(uint64_t now, Push&& push) {
    if (!open()) return now;
    uint64_t end = timed_end_;
    if (const uint64_t untimed = calls_ - timed_through_; untimed != 0) {
      end = std::max(timed_end_, std::min(timed_end_ + untimed * pace_, now));
    }
    Emit(start_, end, first_, calls_, self_, push);
    Reset();
    return end;
  }

 private:
  static Event SingleCall(uint16_t op, uint64_t start, uint64_t end, uint64_t element,
                          uint8_t flags) {
    const bool got = flags == 0;
    uint8_t event_flags = flags;
    const uint32_t self = EncodeSelf(end - start, event_flags);
    return Event{start,      end, got ? element : 0,
                 self,       op,  got ? EventKind::kCall : EventKind::kCallEnd,
                 event_flags};
  }

  template <typename Push>
  void Emit(uint64_t start, uint64_t end, uint64_t first, uint32_t calls, uint64_t self,
            Push&& push) const {
    if (calls > 1) push(Event{start, start, 0, calls, op_, EventKind::kRunCalls, 0});
    uint8_t flags = 0;
    const uint32_t value = EncodeSelf(self, flags);
    push(Event{start, end, first, value, op_, EventKind::kCall, flags});
  }

  void Begin(const void* owner, uint16_t op, uint64_t t0, uint64_t t1, uint64_t element,
             uint64_t ticks) {
    // A source this thread has not timed lately (an iterator at a freed one's address may
    // be another op's): learn it afresh.
    if (owner != known_owner_ || op != known_op_) {
      known_owner_ = owner;
      known_op_ = op;
      timed_self_ = 0;
      timed_calls_ = 0;
      pace_ = std::max<uint64_t>(1, ticks);
    }
    owner_ = owner;
    op_ = op;
    start_ = t0;
    first_ = element;
    calls_ = 1;
    timed_through_ = 1;
    timed_end_ = t1;
    first_end_ = t1;
    self_ = ticks;
    self_at_timed_ = ticks;
    AddTimed(ticks);
    // Untimed calls are planned from the run's second call on: a source called once per
    // call of its caller (a map over it) makes runs of one call, which then cost no
    // division.
    untimed_left_ = 0;
  }

  void Extend(const RunLimits& limits, uint64_t t1, uint64_t ticks) {
    ++calls_;
    timed_through_ = calls_;
    timed_end_ = t1;
    self_ += ticks;
    self_at_timed_ = self_;
    AddTimed(ticks);
    // Call end to call end: what one more call adds to the run.
    pace_ = std::max<uint64_t>(1, (t1 - first_end_) / (calls_ - 1));
    PlanUntimed(limits, t1);
  }

  // The mean own time of the source's timed calls, following its recent ones: past 64,
  // the older ones weigh half.
  void AddTimed(uint64_t ticks) {
    if (timed_calls_ >= 64) {
      timed_self_ /= 2;
      timed_calls_ /= 2;
    }
    timed_self_ += ticks;
    ++timed_calls_;
  }

  // Untimed calls until the next timed one: once the source's calls are known, one
  // pace-worth of kRunTimedEveryNs, and no more than the run's limits leave room for.
  void PlanUntimed(const RunLimits& limits, uint64_t t1) {
    untimed_left_ = 0;
    if (timed_calls_ < kRunEstablishCalls) return;
    mean_self_ = timed_self_ / timed_calls_;
    const uint64_t spanned = t1 - start_;
    const uint64_t span_left = limits.span_ticks > spanned ? limits.span_ticks - spanned : 0;
    const uint64_t n = limits.timed_every_ticks / pace_;
    untimed_left_ = static_cast<uint32_t>(std::min<uint64_t>(
        {n > 0 ? n - 1 : 0, kMaxUntimedCalls, span_left / pace_, kMaxRunCalls - 1 - calls_}));
  }

  // The untimed calls since the last timed one took longer than the run's pace: the run
  // ends at its last timed call and they become a run of their own, up to `t0`.
  template <typename Push>
  void SplitOffUntimedTail(uint64_t t0, Push&& push) {
    Emit(start_, timed_end_, first_, timed_through_, self_at_timed_, push);
    Emit(timed_end_, t0, first_ + timed_through_, calls_ - timed_through_, self_ - self_at_timed_,
         push);
    Reset();
  }

  void Reset() {
    owner_ = nullptr;
    calls_ = 0;
    timed_through_ = 0;
    first_ = 0;
    untimed_left_ = 0;
  }

  const void* owner_ = nullptr;  // the iterator whose calls these are
  // The source whose calls the statistics below describe: a new run of its calls starts
  // skipping the clock at once.
  const void* known_owner_ = nullptr;
  uint64_t start_ = 0;          // ticks: the first call's start
  uint64_t timed_end_ = 0;      // ticks: the last timed call's end
  uint64_t first_end_ = 0;      // ticks: the first call's end
  uint64_t first_ = 0;          // the first call's element
  uint64_t self_ = 0;           // own ticks of all calls (untimed ones at the mean)
  uint64_t self_at_timed_ = 0;  // ... up to the last timed call
  uint64_t timed_self_ = 0;     // own ticks of the timed calls
  uint64_t mean_self_ = 0;      // timed_self_ / timed_calls_
  uint64_t pace_ = 1;           // ticks per call, the gap before it included (last run's
                                // until this one has two timed calls)
  uint32_t calls_ = 0;          // 0: no run is open
  uint32_t timed_through_ = 0;  // calls up to and including the last timed one
  uint32_t timed_calls_ = 0;
  uint32_t untimed_left_ = 0;  // calls that may still skip the clock
  uint16_t op_ = 0;
  uint16_t known_op_ = 0;
};

}  // namespace pipescope::record
