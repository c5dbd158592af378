#pragma once
// Turns a PipelineSpec into the simulator's datasets through the plan the engine's builder
// takes (pipeline_plan.h: validated, every knob resolved, batched-ness worked out once),
// registering its stages in the order and with the names, kinds, depths and traits the
// engine's builder gives them (so the trace's stage list is the one a real run records).

#include "engine/core/status.h"
#include "engine/sim/sim_iterator.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::sim {

struct SimBuild {
  SimDatasetPtr root;
  std::vector<record::StageDef> stages;  // pipeline order, ids = positions in ctx.stages
  bool batched = false;                  // the consumer gets batches
};

engine::Result<SimBuild> BuildSimPipeline(const spec::PipelineSpec& spec, SimContext& ctx);

}  // namespace pipescope::sim
