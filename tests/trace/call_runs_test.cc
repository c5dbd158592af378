// Runs of a source's cheap calls, folded by the calling thread (call_runs.h), on timelines
// written out tick by tick: which calls read the clock, what a run says, and that nothing
// a person could see at the finest zoom disappears into one.
#include "instrumentation/record/call_runs.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace pipescope::record {
namespace {

// One tick per nanosecond, so the limits are call_runs.h's own.
constexpr RunLimits kLimits{kRunCallNs, kRunSpanNs, kRunTimedEveryNs};
constexpr uint16_t kOp = 3;

// A call as it happened: when, and what it returned.
struct Call {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t element = 0;
  uint8_t flags = 0;
};

// A run as the collector would hand it on.
struct Span {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t element = 0;
  uint64_t self = 0;
  uint32_t calls = 1;
  EventKind kind = EventKind::kCall;
  uint8_t flags = 0;
};

// Drives one thread's run through `calls` of one source as Iterator::GetNext does: a call
// the run says may go untimed reads no clock; the others are timed. `closed_at` closes
// the run as the caller's next event would.
struct Driver {
  SourceCallRun run;
  std::vector<Span> spans;
  uint32_t pending_calls = 0;
  int timed = 0;
  uint64_t told_self = 0;  // what the caller was told, summed

  void Push(const Event& e) {
    if (e.kind == EventKind::kRunCalls) {
      pending_calls = e.value;
      return;
    }
    spans.push_back(
        {e.start, e.end, e.element, e.value, pending_calls ? pending_calls : 1, e.kind, e.flags});
    pending_calls = 0;
  }
  void Feed(const std::vector<Call>& calls, const void* owner = nullptr) {
    static const int kSource = 0;
    if (owner == nullptr) owner = &kSource;
    auto push = [this](const Event& e) { Push(e); };
    for (const Call& c : calls) {
      uint64_t self = 0;
      if (run.NextUntimed(owner)) {
        if (c.flags != 0 || !run.CountUntimed(c.element, self)) {
          self = run.EndBrokenUntimed(kOp, c.end, c.element, c.flags, push);
        }
      } else {
        ++timed;
        self = run.Timed(kLimits, owner, kOp, c.start, c.end, c.element, c.flags, push);
      }
      told_self += self;
    }
  }
  void Close(uint64_t now) {
    run.Close(now, [this](const Event& e) { Push(e); });
  }
  uint64_t CallsRecorded() const {
    uint64_t n = 0;
    for (const Span& s : spans) n += s.calls;
    return n;
  }
  uint64_t SelfRecorded() const {
    uint64_t n = 0;
    for (const Span& s : spans) n += s.self;
    return n;
  }
};

// `n` calls of `duration` ticks, `gap` ticks apart, on elements first, first + 1, ...
std::vector<Call> Steady(int n, uint64_t start, uint64_t duration, uint64_t gap,
                         uint64_t first = 1) {
  std::vector<Call> calls;
  for (int i = 0; i < n; ++i) {
    const uint64_t t = start + static_cast<uint64_t>(i) * (duration + gap);
    calls.push_back({t, t + duration, first + static_cast<uint64_t>(i)});
  }
  return calls;
}

TEST(SourceCallRunTest, CheapCallsBackToBackAreOneRunAndMostSkipTheClock) {
  Driver d;
  d.Feed(Steady(100, 1000, 200, 100));
  d.Close(1'000'000);
  ASSERT_EQ(d.spans.size(), 1u);
  const Span& run = d.spans[0];
  EXPECT_EQ(run.calls, 100u);
  EXPECT_EQ(run.element, 1u);
  EXPECT_EQ(run.start, 1000u);
  EXPECT_EQ(run.end, 1000u + 99 * 300 + 200) << "the last call's end, from the run's pace";
  EXPECT_EQ(run.self, 100u * 200) << "untimed calls count the timed ones' mean";
  EXPECT_EQ(d.told_self, run.self) << "the caller was told what the run says";
  // The first kRunEstablishCalls are timed, then one call in every 4 us of pace.
  EXPECT_LT(d.timed, 20);
  EXPECT_GE(d.timed, static_cast<int>(kRunEstablishCalls));
}

TEST(SourceCallRunTest, ARunEndsAtItsPaceButNeverAfterItWasClosed) {
  Driver d;
  d.Feed(Steady(20, 0, 200, 100));  // 8 timed, then untimed ones
  d.Close(20 * 300 - 100 - 1000);   // closed before the pace says the last call ended
  ASSERT_EQ(d.spans.size(), 1u);
  EXPECT_EQ(d.spans[0].end, 20u * 300 - 100 - 1000);
  EXPECT_EQ(d.spans[0].calls, 20u);
}

TEST(SourceCallRunTest, AStallAmongUntimedCallsBecomesARunOfItsOwnSpanningIt) {
  std::vector<Call> calls = Steady(60, 0, 200, 100);
  // The 30th call stalls for 20 us; everything after it moves.
  for (size_t i = 29; i < calls.size(); ++i) {
    calls[i].end += 20'000;
    if (i > 29) calls[i].start += 20'000;
  }
  Driver d;
  d.Feed(calls);
  d.Close(10'000'000);
  EXPECT_EQ(d.CallsRecorded(), 60u);
  EXPECT_EQ(d.SelfRecorded(), d.told_self);
  // Some event covers the stall, and it holds only the calls between two timed ones.
  const Span* stall = nullptr;
  for (const Span& s : d.spans) {
    if (s.start <= calls[29].start && s.end >= calls[29].end) stall = &s;
  }
  ASSERT_NE(stall, nullptr);
  // 300 ns a call: 12 untimed calls between two timed ones.
  EXPECT_LE(stall->calls, 12u);
  EXPECT_GT(stall->end - stall->start, 20'000u);
  // Runs follow each other in time and never overlap.
  for (size_t i = 1; i < d.spans.size(); ++i) EXPECT_GE(d.spans[i].start, d.spans[i - 1].end);
}

TEST(SourceCallRunTest, SlowCallsAndLongGapsAreEventsOfTheirOwn) {
  Driver d;
  std::vector<Call> calls = Steady(3, 0, 200, 100);
  calls.push_back({1000, 1000 + kRunCallNs, 4});               // a call of 2 us
  calls.push_back({4000, 4200, 5});                            // cheap again: a new run
  calls.push_back({4300 + kRunCallNs, 4500 + kRunCallNs, 6});  // after a gap of 2 us
  d.Feed(calls);
  d.Close(100'000);
  ASSERT_EQ(d.spans.size(), 4u);
  EXPECT_EQ(d.spans[0].calls, 3u);
  EXPECT_EQ(d.spans[1].calls, 1u);
  EXPECT_EQ(d.spans[1].self, static_cast<uint64_t>(kRunCallNs));
  EXPECT_EQ(d.spans[2].calls, 1u);
  EXPECT_EQ(d.spans[2].element, 5u);
  EXPECT_EQ(d.spans[3].element, 6u);
}

TEST(SourceCallRunTest, TheEndOfTheSequenceOnAnUntimedCallEndsTheRunBeforeIt) {
  // 8 timed calls, then 12 that may skip the clock: the 20th call is one of them.
  std::vector<Call> calls = Steady(19, 0, 200, 100);
  calls.push_back({calls.back().end + 100, calls.back().end + 250, 0, kFlagEndOfSequence});
  Driver d;
  d.Feed(calls);
  EXPECT_EQ(d.timed, static_cast<int>(kRunEstablishCalls));
  ASSERT_EQ(d.spans.size(), 2u);
  EXPECT_EQ(d.spans[0].calls, 19u);
  const Span& end = d.spans[1];
  EXPECT_EQ(end.kind, EventKind::kCallEnd);
  EXPECT_EQ(end.flags, kFlagEndOfSequence);
  EXPECT_EQ(end.end, calls.back().end);
  EXPECT_EQ(end.start, d.spans[0].end);
  EXPECT_FALSE(d.run.open());
}

TEST(SourceCallRunTest, AJumpInElementIdsStartsAnotherEvent) {
  std::vector<Call> calls = Steady(20, 0, 200, 100);
  std::vector<Call> more = Steady(20, 6000, 200, 100, 500);
  calls.insert(calls.end(), more.begin(), more.end());
  Driver d;
  d.Feed(calls);
  d.Close(1'000'000);
  EXPECT_EQ(d.CallsRecorded(), 40u);
  EXPECT_EQ(d.spans[0].element, 1u);
  EXPECT_EQ(d.spans[0].calls, 20u);
  bool found = false;
  for (const Span& s : d.spans) found |= s.element == 500;
  EXPECT_TRUE(found) << "the calls after the jump name their own first element";
}

TEST(SourceCallRunTest, RunsStayWithinTheirSpanAndCallLimits) {
  Driver d;
  d.Feed(Steady(10'000, 0, 20, 0));  // 20 ns calls back to back: 2,500 in 50 us
  d.Close(100'000'000);
  EXPECT_EQ(d.CallsRecorded(), 10'000u);
  for (const Span& s : d.spans) {
    EXPECT_LE(s.end - s.start, static_cast<uint64_t>(kRunSpanNs));
    EXPECT_LE(s.calls, kMaxRunCalls);
  }
  EXPECT_LT(d.spans.size(), 10u);
}

// The next run of a source the thread already knows skips the clock from its third call:
// a batch's thousand records are several runs, and only the first needs to learn, even
// when a slow call (the batch's own work before its first pull) stood between them.
TEST(SourceCallRunTest, ALaterRunOfAKnownSourceSkipsTheClockAtOnce) {
  Driver d;
  d.Feed(Steady(20, 0, 200, 100));
  d.Close(1'000'000);          // the caller recorded its own call
  d.Feed({{7000, 9000, 21}});  // a slow call
  const int first_timed = d.timed;
  d.Feed(Steady(20, 10'000, 200, 100, 22));
  d.Close(1'000'000);
  EXPECT_EQ(d.CallsRecorded(), 41u);
  EXPECT_LE(d.timed - first_timed, 3) << "the first two calls, and one 4 us later";
  EXPECT_EQ(d.SelfRecorded(), 40u * 200 + 2000);
  // Another source's call makes it learn the source afresh.
  static const int kOther = 0;
  d.Feed({{20'000, 20'200, 41}}, &kOther);
  const int before = d.timed;
  d.Feed(Steady(20, 30'000, 200, 100, 42));
  EXPECT_GE(d.timed - before, static_cast<int>(kRunEstablishCalls));
}

TEST(SourceCallRunTest, AnotherSourcesCallEndsTheRun) {
  Driver d;
  static const int kOther = 0;
  d.Feed(Steady(10, 0, 200, 100));
  d.Feed(Steady(1, 3000, 200, 100, 11), &kOther);
  d.Close(1'000'000);
  ASSERT_EQ(d.spans.size(), 2u);
  EXPECT_EQ(d.spans[0].calls, 10u);
  EXPECT_EQ(d.spans[1].element, 11u);
}

}  // namespace
}  // namespace pipescope::record
