#pragma once
// Fits the simulator's cost model to a recorded run: `pipescope-cli calibrate TRACE --out
// MODEL`. From the trace of a run of the spec in its header it takes, per op, the time per
// element (self time of synchronous calls, the function's spans of asynchronous maps) with
// its spread, the CPU part of it (each worker thread's CPU time, so that time-slicing on a
// busy machine is not counted as work), filter ratios, the device's step time and the
// cores. The steady part only: the first quarter (buffers filling) is left out; worker
// processes' start-ups, which come at epochs' starts, over the whole run. Last, the maps that
// ran unsliced are matched against a simulation of the fit, and Python's share under the
// interpreter lock is fitted to the recorded waits for it (simulated_fit.h).

#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/sim/cost_model.h"
#include "engine/spec/pipeline_spec.pb.h"
#include "instrumentation/trace/model.h"

namespace pipescope::session {

struct Calibration {
  spec::PipelineSpec spec;  // from the trace's header
  sim::CostModel model;
  std::vector<std::string> notes;  // ops left at the spec's defaults, and why
};

// Errors: the trace has no spec in its header (an imported trace), or it cannot be parsed.
engine::Result<Calibration> Calibrate(const trace::Model& trace, const std::string& origin);

}  // namespace pipescope::session
