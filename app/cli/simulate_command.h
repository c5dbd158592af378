#pragma once
// `pipescope-cli simulate SPEC [--model MODEL] [--duration S | --steps N] [--set OP.KNOB=V]...
// [--seed N] [--print N] [--json] [--trace FILE]`: runs the spec in the simulator (virtual
// time, the cost model of the spec or of MODEL) and prints the same summary and verdict as
// `run`, from the simulated trace's analysis, and how much faster than real time it ran.
// --print N first prints the first N elements that reached the training step, as `run
// --print` does (simulated_elements.h).

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace pipescope::cli {

struct SimulateCommandOptions {
  std::string spec_path;
  std::string model_path;  // --model: a cost model (calibrate --out); else the spec's
  double duration_s = 0;   // 0 with steps == 0: the default duration
  int64_t steps = 0;
  std::vector<std::string> overrides;
  std::string pipeline;  // --pipeline: which of a .py's pipelines to read (import-code's)
  uint64_t seed = 1;
  bool json = false;
  bool advice = true;  // --no-advice: no changes tried in the simulator
  std::string trace_path;
  int64_t print = 0;
  int workers = 1;  // --workers N: data-parallel workers sharing the cost model's cores
  std::string advice_code_path;  // --advice-code OUT.py: the advice written into the .py
  int advice_piece = 0;          // --advice-piece N: the N-th piece written (0: the default's)
};

// Exit code: 0 on success, 1 when the simulation fails, 2 for bad usage, spec or model.
int SimulateCommand(const SimulateCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pipescope::cli
