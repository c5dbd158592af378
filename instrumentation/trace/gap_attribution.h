#pragma once
// Gap attribution: which op made the consumer wait. For an interval in which the consumer
// waited for input, walk upstream from the op it pulls from: an op whose own work fills
// its capacity in that interval (all workers busy, or a synchronous op mostly in its own
// code, or its worker processes starting) caused the wait; an op mostly waiting on its input
// passes the blame upstream.

#include <cstdint>
#include <map>
#include <string>

#include "instrumentation/trace/model.h"

namespace pipescope::trace {

struct GapCause {
  int op = -1;         // stage id; -1 when the trace has no stages
  std::string reason;  // e.g. "busy 97% of 1 worker"
};

// The op that caused the consumer to wait in [start, end).
GapCause AttributeGap(const Model& model, int64_t start, int64_t end);

// Nanoseconds of consumer wait in [t0, t1) caused by each op (by stage id). Long gaps are
// attributed one by one; runs of short ones (a fast pipeline waits a little before every
// element) are pooled into windows of about `window_ns` and attributed together, which
// keeps the cost proportional to the range's length, not to its events.
std::map<int, int64_t> AttributeWaiting(const Model& model, int64_t t0, int64_t t1,
                                        int64_t window_ns = 1'000'000);

}  // namespace pipescope::trace
