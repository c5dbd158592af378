#pragma once
// A cache() in memory hands out, from the second epoch on, what it kept in the first: the
// work before it is not done again. A simulated window shows the first epoch, the later ones,
// or some of each, as the epoch's length falls (tensorflow#30646's 1,265,800 lines, 6 min an
// epoch: the first only, and a cache's gain never). So the two are simulated apart, the
// first without the cache (which only keeps what passes), the later ones from the cached
// elements as a source that costs only their handing out, and the rate is weighed over the
// epochs the program runs.
#include <cstdint>
#include <optional>

#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

struct CachedEpochs {
  spec::PipelineSpec first;  // the first epoch's pipeline: the spec without its cache
  // The pipeline from its second epoch on: a source of the cache's elements (an epoch's
  // count, each of the bytes the spec says reach it), then the ops after the cache.
  spec::PipelineSpec replay;
  int64_t epoch_steps = 0;  // the steps an epoch gives
  // The epochs the program runs (its repeat's count), nullopt where they never end.
  std::optional<int64_t> epochs;
};

// For a spec with a top-level cache() whose epoch's size the spec says: its later epochs;
// nullopt where it has none, or the elements reaching it are not counted by the spec.
std::optional<CachedEpochs> LaterEpochsOfACache(const spec::PipelineSpec& spec);

// Steps/s over `epochs` epochs of equal steps, the first at `first` and the rest at `later`;
// `later` where they never end (the steady rate, the first epoch long past).
double RateOverEpochs(double first, double later, std::optional<int64_t> epochs);

}  // namespace pipescope::engine
