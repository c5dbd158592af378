#pragma once
// `pipescope-cli run SPEC [--duration S | --steps N] [--set OP.KNOB=VALUE]... [--print N]
// [--json] [--trace FILE | --no-trace] [--workers N]`: runs a pipeline into its training step,
// records it, and prints the summary and verdict from the trace's analysis.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace pipescope::cli {

struct RunCommandOptions {
  std::string spec_path;
  double duration_s = 0;  // 0 with steps == 0: the default duration
  int64_t steps = 0;
  std::vector<std::string> overrides;
  std::string pipeline;  // --pipeline: which of a .py's pipelines to read (import-code's)
  int64_t print = 0;
  bool json = false;
  bool record = true;        // --no-trace: no recording (measures the bare engine)
  bool gpu_activity = true;  // --no-gpu-activity: no CUPTI on GPU runs
  std::string trace_path;    // --trace FILE
  bool advice = true;        // --no-advice: no changes tried in the simulator
  int workers = 1;           // --workers N: data-parallel workers on this host
};

// Returns the process exit code: 0 on success, 1 for a pipeline error, 2 for bad usage
// or a bad spec. Messages go to `err`, results to `out`.
int RunCommand(const RunCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pipescope::cli
