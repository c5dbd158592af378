#pragma once
// Runs of cheap calls: the collector folds consecutive kCall events of one source on one
// thread into one event standing for n calls (TraceEvent::calls, FORMAT.md "run"), as the simulator
// records them. A source handing a batch a thousand 100 ns records is then one event, not a
// thousand: the model, the file and every analysis handle a thousandth of the events, and
// the collector takes that much less CPU from the pipeline it measures.
//
// Only calls too short to tell apart on the timeline at the zoom people read op work at
// are folded: each call and each gap between two under kRunCallNs, and a run no longer than
// kRunSpanNs, so zoomed to a few microseconds a run shows as one block where its calls
// would have been dozens of slivers, and any span of 2 us or more keeps its own event.

#include <cstdint>

#include "instrumentation/record/trace_sink.h"

namespace pipescope::record {

inline constexpr int64_t kRunCallNs = 2'000;
inline constexpr int64_t kRunSpanNs = 50'000;
inline constexpr uint32_t kMaxRunCalls = 4096;

// Folds `next` into `run` and returns true when `next` continues it: the same op's next
// element, a successful kCall, right after it, both cheap. `run` and `next` come one after
// the other from one thread's ring.
inline bool ExtendRun(TraceEvent& run, const TraceEvent& next) {
  if (next.kind != EventKind::kCall || run.kind != EventKind::kCall || next.op != run.op ||
      next.flags != 0 || run.flags != 0 || next.thread != run.thread) {
    return false;
  }
  if (next.element != run.element + run.calls || run.calls >= kMaxRunCalls) return false;
  const int64_t gap = next.start_ns - run.end_ns;
  const int64_t duration = next.end_ns - next.start_ns;
  if (gap < 0 || gap >= kRunCallNs || duration >= kRunCallNs) return false;
  // The run's first call: cheap as well (later ones were checked as they joined).
  if (run.calls == 1 && run.end_ns - run.start_ns >= kRunCallNs) return false;
  if (next.end_ns - run.start_ns > kRunSpanNs) return false;
  run.end_ns = next.end_ns;
  run.value = SaturateU32(static_cast<uint64_t>(run.value) + next.value);
  ++run.calls;
  return true;
}

}  // namespace pipescope::record
