#pragma once
// The values a simulated run's elements hold. The simulator's elements carry no data; their
// values are made as the engine makes them, by replaying each op's value rule
// (engine/runtime/value_rules.h: a map's function, padding) over the run's lineage
// (instrumentation/trace/lineage.h: which record each element is, which rows each batch
// holds, which row each unbatched element is). So `simulate --print` shows what `run
// --print` shows, from one definition of each op's values.

#include <vector>

#include "engine/core/element.h"
#include "engine/spec/pipeline_spec.pb.h"
#include "instrumentation/trace/model.h"

namespace pipescope::sim {

// The first `limit` elements the consumer received in a simulated run of `spec`, with the
// values the engine gives them (ids are the simulator's). Fails, saying why, where the
// values cannot be known without a run: a source of file or synthetic records, an
// interleave whose sub-pipelines make values of their own.
engine::Result<std::vector<engine::Element>> ConsumedValues(const spec::PipelineSpec& spec,
                                                            const trace::Model& model,
                                                            int64_t limit);

}  // namespace pipescope::sim
