#pragma once
// A training loop that takes a tf.data dataset's elements one at a time in eager Python
// (train_step.loop_python): every next() is the loop's own Python, the iterator's op
// dispatched and a tensor made for Python per component, whatever the element holds. Where
// elements are small it is the limit (tensorflow#40502: records of 10 bytes read slower
// than pure Python reads them). The change worth trying is the dataset batched before the
// loop (kind batch_for_the_loop): next() then paid once a batch. The step's own work stays
// per element (a batch's step takes its rows' steps; vectorising it over the batch saves
// more, which the spec cannot know), so the gain is the iterator's alone. The loop's code
// changes to take batches: advice only.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/spec/pipeline_plan.h"

namespace pipescope::engine {

struct LoopBatchChange {
  int64_t rows = 0;    // the batch's size: each step of `spec` is this many of the given's
  std::string change;  // the change in a few words
  std::string action;  // for people
  spec::PipelineSpec spec;
};

// Batch sizes tried, smallest first (the advisor keeps the smallest within the noise of
// the best).
inline constexpr int64_t kLoopBatchSizes[] = {64, 256, 1024};
// The full batches a size must make of the elements the loop takes, where the spec says how
// many: the last one, partly filled, costs a full batch's step (1/16 more at most).
inline constexpr int64_t kLeastFullBatches = 16;

// One change per batch size, where the loop pays Python per element and takes elements
// unbatched; none otherwise.
std::vector<LoopBatchChange> BatchesForTheLoop(const PipelinePlan& plan);

}  // namespace pipescope::engine
