#pragma once
// A window of a run cut to whole epochs. A pipeline whose epochs each start with a wait
// (a shuffle buffer filled again, DataLoader workers started again) runs in cycles: a fill,
// then a burst of steps. Graded on a window that ends mid-cycle, its rate is that of the
// part it holds: a burst alone reads fast, a fill alone slow (a 10 s simulation of one such
// pipeline gave 51.9 steps/s, a 9 s one 66.8). Between two ends of the same epoch's pass
// the window holds whole cycles, and the rate is the pipeline's.
//
// An epoch ends where the outermost repeat's input says its pass is over: that op's
// end-of-sequence call (kCallEnd), which every Pipescope trace, recorded or simulated, has.

#include <cstdint>
#include <vector>

#include "instrumentation/trace/model.h"

namespace pipescope::trace {

// When each pass over the input of the top-level repeat nearest the consumer ended, in time
// order; empty when the pipeline has no such repeat (or the trace no calls).
std::vector<int64_t> EpochEndsNs(const Model& model);
// Whether the pipeline has such a repeat, whether or not an epoch ended in the trace.
bool HasEpochs(const Model& model);

struct EpochWindow {
  int64_t t0 = 0;
  int64_t t1 = 0;
  int64_t epochs = 0;  // whole epochs in [t0, t1); 0: the range as given (fewer than one)
};

// [t0, t1) cut to the epochs that lie whole in it: from the first epoch end in it to the
// last; the range as given where fewer than two ends lie in it.
EpochWindow WholeEpochsIn(const std::vector<int64_t>& epoch_ends, int64_t t0, int64_t t1);

}  // namespace pipescope::trace
