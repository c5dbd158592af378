#pragma once
// `pipescope-cli compare A B [--duration S] [--json]`: runs two specs for the same time,
// one after the other, and sets their figures side by side (steps/s, input wait, device
// busy, cores used, buffered elements, buffer memory), the knobs that differ, and a one-line
// verdict
// ("B is 1.52x faster than A: decode.num_parallel_calls 1 -> 2").

#include <iosfwd>
#include <string>

namespace pipescope::cli {

struct CompareCommandOptions {
  std::string a_path;
  std::string b_path;
  double duration_s = 3;
  bool json = false;
};

int CompareCommand(const CompareCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pipescope::cli
