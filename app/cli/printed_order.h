#pragma once
// What --print's order leaves out. A DataLoader's shuffle=True is kept in the spec (so that
// code written from it keeps it) but neither clock applies it: the sampler's permutation of
// in-memory indices costs nothing either counts, so both read the indices in order
// (DataLoaderOp.shuffle). Said beside the elements printed, so that nobody takes the order
// printed for the loader's.
#include <string>
#include <vector>

#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::cli {

// One note for each op whose order --print does not show; none where the order is the run's.
std::vector<std::string> OrderNotPrinted(const spec::PipelineSpec& spec);

}  // namespace pipescope::cli
