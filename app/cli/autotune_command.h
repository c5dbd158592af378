#pragma once
// `pipescope-cli autotune SPEC [--algorithm pipescope|tfdata] [--budget-s S] [--cores N]
// [--measure-s S] [--out TUNED.pbtxt] [--emit FRAMEWORK] [--json]`: tunes the spec's parallelism
// and prefetch buffer on this machine (each measurement a short recorded run) and prints the knobs
// it chose with steps/s before and after. With --simulate [--model MODEL] every measurement is a
// simulation instead (what-if tuning: the cost model of a calibrated run, seconds instead of
// minutes, for a machine or a change not at hand). --explain prints, with
// --algorithm tfdata, each step of AUTOTUNE's hill climb with its model's output time and
// the bound it stopped on. SPEC may be a .py file, read as import-code reads it.

#include <iosfwd>
#include <string>
#include <vector>

namespace pipescope::cli {

struct AutotuneCommandOptions {
  std::string spec_path;
  // --set OP.KNOB=VALUE: the starting point, and for a .py the costs import-code leaves as
  // parameters (`parse.cost=40us`).
  std::vector<std::string> overrides;
  std::string pipeline;  // --pipeline: which of a .py's pipelines to read (import-code's)
  std::string algorithm = "pipescope";
  double budget_s = 20;
  int cores = 0;
  double measure_s = 1.5;  // length of each measuring run
  std::string out_path;
  bool json = false;
  bool simulate = false;   // --simulate: measure candidates in the simulator
  std::string model_path;  // --model: the simulator's cost model (calibrate --out)
  bool explain = false;    // --explain: tfdata's hill climb step by step, and why it stopped
  // --emit tfdata|pytorch|keras|auto: the tuned configuration as code as well, beside --out
  // (TUNED.py) or, without --out, printed after the result.
  std::string emit;
};

int AutotuneCommand(const AutotuneCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pipescope::cli
