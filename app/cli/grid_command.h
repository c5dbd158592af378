#pragma once
// `pipescope-cli grid SPEC [--knobs a.b,c.d] [--duration S] [--json] [--plot F.png]`: runs the spec
// at every point of a grid of knob values and reports steps/s at each, and the best point: the
// reference the autotuners are measured against. By default the grid covers every parallelism and
// buffer-size knob of the spec (knobs that change the output, such as batch_size or cycle_length,
// only when named).

#include <iosfwd>
#include <string>
#include <vector>

namespace pipescope::cli {

struct GridCommandOptions {
  std::string spec_path;
  std::vector<std::string> overrides;  // --set OP.KNOB=VALUE, applied before the grid
  std::string pipeline;     // --pipeline: which of a .py's pipelines to read (import-code's)
  std::string knobs;        // "decode.num_parallel_calls,prefetch.buffer_size"; empty: default
  double duration_s = 1.0;  // per point
  bool json = false;
  std::string plot_path;  // --plot FILE.png: the chart of steps/s against the first knob
};

// The grid itself is session::PlanGrid and RunGrid (app/session/grid_search.h).
int GridCommand(const GridCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pipescope::cli
