#pragma once
// What reached the training step in a simulation, as `run --print` prints a real run's
// elements: one JSON line per element. The simulator carries no data, only where each
// element came from (the trace's lineage), so values are known for a range source
// ({"value": start + index * step}, a batch as a list, a batch of batches as a list of
// lists) where no map makes values of its own; other sources, and pipelines with such a
// map, print the record each element is ({"record": i, "pass": p}, a batch as "records").

#include <cstdint>
#include <string>
#include <vector>

#include "engine/spec/pipeline_spec.pb.h"
#include "instrumentation/trace/model.h"

namespace pipescope::cli {

std::vector<std::string> SimulatedElementLines(const spec::PipelineSpec& spec,
                                               const trace::Model& model, int64_t limit);

}  // namespace pipescope::cli
