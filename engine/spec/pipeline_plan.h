#pragma once
// A spec walked once, for both clocks: each op with its kind's description, its depth,
// whether the elements it takes and gives are batches, and every knob resolved (its
// written value and where it starts, AUTOTUNE at the CPU budget or its kind's start). The
// engine's builder and the simulator's take a plan, so what the spec means is worked out
// in one place and a spec the validator refuses is refused by both before any run.

#include <optional>
#include <string_view>
#include <vector>

#include "engine/core/status.h"
#include "engine/spec/op_kinds.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

struct PlannedKnob {
  const KnobDescription* description = nullptr;
  int64_t written = 0;    // as the spec means it (op_values.h)
  int64_t start = 0;      // where the run starts it
  bool autotune() const;  // written as AUTOTUNE, for a knob that takes it
};

struct PlannedOp {
  const spec::Op* op = nullptr;  // in the planned spec, which must outlive the plan
  const OpKindDescription* kind = nullptr;
  int depth = 0;                   // 1: inside an interleave's sub-pipeline
  bool input_batched = false;      // the elements it takes are batches
  bool output_batched = false;     // the elements it gives are batches
  std::vector<PlannedKnob> knobs;  // one per knob of its kind, in the kind's order
  std::vector<PlannedOp> sub;      // an interleave's or flat_map's ops over each element's dataset
  // The training step runs on an accelerator (train_step.device gpu or simulated), not on
  // the host's CPU: what pinned memory needs.
  bool accelerator = true;
  // The elements its input gives in a pass, where the spec says (engine/spec/cardinality.h;
  // ops of the pipeline's top level only).
  std::optional<int64_t> input_elements;
  // tf.data fuses a reshuffling shuffle and the repeat right after it (shuffle_and_repeat
  // fusion, on by default): one op whose buffer fills across epochs' ends (ShuffleBuffer in
  // engine/runtime/shuffle_rules.h). On the shuffle, the repeat's count (-1 forever): the
  // passes it makes over its input itself. The training loop's epochs are not fused: each
  // iterates the pipeline afresh.
  std::optional<int64_t> shuffle_passes;
  // On that repeat: its input already makes every pass, so it passes it through once.
  bool repeat_fused_into_shuffle = false;

  // The knob `name` of its kind (every kind's knobs are planned; asking for another is a
  // programming mistake, asserted).
  const PlannedKnob& Knob(std::string_view name) const;
};

struct PipelinePlan {
  const spec::PipelineSpec* spec = nullptr;
  int cpu_cores = 1;  // the CPU budget AUTOTUNE knobs start from
  std::vector<PlannedOp> ops;
  bool output_batched = false;  // the training step receives batches
};

// Whether tf.data runs `shuffle` and the op right after it as one (shuffle_and_repeat
// fusion, on by default): a shuffle that reshuffles each iteration followed by a repeat of
// the dataset, not the training loop's epochs.
bool ShuffleFusesWithRepeat(const spec::Op& shuffle, const spec::Op& next);

// Validates `spec` (ValidateSpec, named by its own name), checks that the files its source
// lists are there, and plans it for `cpu_cores` (at least 1).
Result<PipelinePlan> PlanPipeline(const spec::PipelineSpec& spec, int cpu_cores);

}  // namespace pipescope::engine
