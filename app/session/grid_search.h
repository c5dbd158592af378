#pragma once
// A grid of knob values measured point by point: the spec run at every combination (real
// runs, recorded and analysed without their start-up, as Compare measures), each point's
// steps/s with its 95% interval, the best, and the points within the noise of it. The
// reference the autotuners are measured against; `pipescope-cli grid` prints it, the GUI's
// Tune > Grid of Knobs draws it (grid_chart.h).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/session/grid_chart.h"
#include "engine/core/status.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::session {

struct GridAxis {
  std::string knob;  // "op.knob"
  std::vector<int64_t> values;
};

struct GridPlan {
  spec::PipelineSpec spec;  // as given, a sequential map asked for made parallel at 1
  std::vector<GridAxis> axes;
  std::vector<std::string> notes;  // what was changed to make the grid possible
  size_t points() const;
};

// The axes over `wanted` knobs ("op.knob"), or over every parallelism and buffer-size
// knob when none are named (knobs that change the output only when named). A map written
// without num_parallel_calls has no such knob; named, it is made one at 1 (tf.data's
// sequential map). An unknown knob or a spec without knobs is an error naming `source`.
engine::Result<GridPlan> PlanGrid(const spec::PipelineSpec& spec,
                                  const std::vector<std::string>& wanted,
                                  const std::string& source);

// The values tried for a knob: powers of two from its minimum (parallelism up to twice the
// cores; buffers up to 16; anything else up to four times its current value), within
// [min, max].
std::vector<int64_t> GridValues(const std::string& knob, int64_t value, int64_t min, int64_t max,
                                int cores);

struct GridPoint {
  std::vector<int64_t> values;  // one per axis
  double steps_per_s = 0;
  double half_width = 0;                                       // of its 95% interval
  std::string Label(const std::vector<GridAxis>& axes) const;  // "op.knob=2 op2.knob=4"
};

struct GridResult {
  std::vector<GridAxis> axes;
  std::vector<GridPoint> points;
  size_t best = 0;
  std::vector<size_t> ties;  // points within the noise of the best's rate
};

// Measures every point for `seconds` each, the last axis fastest. `measured` hears each
// point as it is done (point index, points in all); false from it cancels (kCancelled).
engine::Result<GridResult> RunGrid(
    const GridPlan& plan, double seconds,
    const std::function<bool(size_t, size_t, const GridPoint&)>& measured = {});

// The chart of a result: steps/s against the first knob, a line per combination of the
// others.
GridChart ChartOf(const GridResult& result, const std::string& title);

}  // namespace pipescope::session
