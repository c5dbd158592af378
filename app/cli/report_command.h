#pragma once
// `pipescope-cli report FILE [--json] [--range T0:T1]`: the summary and verdict of a saved
// trace, for the whole run or a range of it (seconds from the start, either end optional).
// A PyTorch or TensorFlow profiler trace (.json, .json.gz) is imported and reported in its
// framework's terms: steps, DataLoader / tf.data wait, device busy, a verdict, and its
// spans by name (total and own time), with the heaviest device kernels. Several
// files: one report per host and which host waits most.

#include <iosfwd>
#include <string>
#include <vector>

namespace pipescope::cli {

struct ReportCommandOptions {
  std::string trace_path;
  // More traces of the same job (one per host): all are reported, host by host, aligned
  // on their clocks, with the host that waits most for input named.
  std::vector<std::string> more_paths;
  bool json = false;
  bool advice = true;  // --no-advice: no changes tried in the simulator
  std::string range;   // "T0:T1", ":T1", "T0:", or empty for everything
  int top = 15;        // imported traces: names listed by total time
  // The machine the advice is for, in cores (the one that trains, where the trace was
  // recorded on another); 0: the recording's budget, or this machine's for an import.
  double cores = 0;
};

int ReportCommand(const ReportCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pipescope::cli
