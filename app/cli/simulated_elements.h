#pragma once
// What reached the training step in a simulation, as `run --print` prints a real run's
// elements: one JSON line per element. The simulator carries no data; where values can be
// known without a run (sources of numbers or strings, interleaves over them), they are made
// as the engine makes them (engine/sim/sim_values.h), in run --print's form. Sources of
// file records print the record each element is ({"record": i, "pass": p}, a batch as
// "records").
#include <cstdint>
#include <string>
#include <vector>

#include "engine/spec/pipeline_spec.pb.h"
#include "instrumentation/trace/model.h"

namespace pipescope::cli {

std::vector<std::string> SimulatedElementLines(const spec::PipelineSpec& spec,
                                               const trace::Model& model, int64_t limit);

}  // namespace pipescope::cli
