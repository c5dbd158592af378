#pragma once
// Order advice: reorders that keep a pipeline's output (move_rules.h) and are likely to
// make it faster, each with the reason: a filter moved ahead of the work it would
// otherwise waste (filter, take, skip, shard earlier), a map with a batched form moved
// after batch (vectorised), a prefetch added at the end. The gain is measured by whoever
// runs the advised spec (`pipescope-cli autotune` does, and shows it).

#include <string>
#include <vector>

#include "engine/spec/pipeline_spec.pb.h"
#include "engine/tuning/spec_edit.h"
#include "instrumentation/trace/analysis.h"

namespace pipescope::engine {

struct OrderAdvice {
  std::string kind;         // advice.h's: move_filter, shard_earlier, vectorise or prefetch
  std::string op;           // the op moved or added
  std::string change;       // "move filter 'keep' before 'decode'"
  std::string why;          // one sentence with the measured figure behind it
  spec::PipelineSpec spec;  // the advised spec
  SpecEdit edit;            // the change, as it can be made on another spec
};

// `analysis`: a measurement of `spec` (self times decide what is worth moving).
std::vector<OrderAdvice> AdviseOrder(const spec::PipelineSpec& spec,
                                     const trace::RangeAnalysis& analysis);

}  // namespace pipescope::engine
