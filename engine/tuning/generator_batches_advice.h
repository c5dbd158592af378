#pragma once
// A Python generator read by Dataset.from_generator and batched after it: tf.data pays its
// own work around every next() (the py_func call, the conversion to tensors), which
// dominates where a yield's Python is small (tensorflow#13101: "the (constant) overhead of
// tf.data runtime" per element). The change worth trying is a generator that yields whole
// batches, the batch after it taken out (kind batch_at_source): that work is then paid
// once a batch. The generator's own Python is counted as it is, row by row (NumPy over a
// whole batch at once saves more, which the spec cannot know); the user's code changes.

#include <optional>
#include <string>

#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

struct GeneratorBatchesChange {
  std::string change;  // the change in a few words
  std::string action;  // for people
  spec::PipelineSpec spec;
};

// Where the source is a from_generator of one row a yield and the first op batches it.
std::optional<GeneratorBatchesChange> GeneratorBatches(const spec::PipelineSpec& spec);

}  // namespace pipescope::engine
