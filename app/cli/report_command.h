#pragma once
// `pipescope-cli report FILE [--json] [--range T0:T1]`: the summary and verdict of a saved
// trace, for the whole run or a range of it (seconds from the start, either end optional).
// A PyTorch or TensorFlow profiler trace (.json, .json.gz) is imported and reported in its
// framework's terms: steps, DataLoader / tf.data wait, device busy, a verdict.

#include <iosfwd>
#include <string>

namespace pipescope::cli {

struct ReportCommandOptions {
  std::string trace_path;
  bool json = false;
  std::string range;  // "T0:T1", ":T1", "T0:", or empty for everything
};

int ReportCommand(const ReportCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pipescope::cli
