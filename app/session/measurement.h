#pragma once
// One steady-state measurement of a spec on this machine: a recorded run of `seconds`,
// analysed without its first quarter (buffers filling, workers starting), with the knob
// values it ran with. What the autotuners' verification runs and `compare` use.

#include <string>
#include <vector>

#include "engine/runtime/pipeline.h"
#include "instrumentation/trace/analysis.h"

namespace pipescope::session {

struct SpecMeasurement {
  trace::RangeAnalysis analysis;  // of the steady part
  std::vector<engine::KnobInfo> knobs;
  int64_t cores_used = 0;         // workers of parallel maps and interleaves
  int64_t buffered_elements = 0;  // capacity of prefetch buffers, in elements
};

engine::Result<SpecMeasurement> MeasureSpec(const spec::PipelineSpec& spec, double seconds);

}  // namespace pipescope::session
