#pragma once
// How the consumer's waits for input fall over its steps. A DataLoader's workers each make a
// whole batch, and with equal batches they finish together: N batches come at once, then
// none until the workers' next ones, so the step waits long before every N-th batch and not
// at all before the others (vision#81: "when number of workers are N, every N-th batch
// takes 10 or more seconds"). A wait spread evenly over the steps is another pipeline's.

#include <cstdint>

#include "instrumentation/trace/model.h"

namespace pipescope::trace {

struct WaitPattern {
  int64_t waits = 0;       // the consumer's waits in the range that got an element
  int64_t long_waits = 0;  // those of at least half the longest's time
  // The median of the long waits, and their share of all the time waited.
  int64_t long_wait_ns = 0;
  double long_share = 0;
};

// Of the consumer's waits that start in [t0, t1).
WaitPattern WaitPatternOf(const Model& model, int64_t t0, int64_t t1);

// Every how many waits a long one comes, where nearly all the waiting (kLongWaitsShare) is
// in the long ones and they come at a steady count of waits apart: 0 where not.
inline constexpr double kLongWaitsShare = 0.8;
int64_t LongWaitEvery(const WaitPattern& p);

}  // namespace pipescope::trace
