#pragma once
// `pipescope-cli calibrate TRACE --out MODEL [--json]`: fits the simulator's cost model to a
// recorded run (.pstrace of `pipescope-cli run --trace`) and writes it as JSON, for
// `simulate --model MODEL`. Prints each op's fitted cost beside the spec's.

#include <iosfwd>
#include <string>

namespace pipescope::cli {

struct CalibrateCommandOptions {
  std::string trace_path;
  std::string out_path;
  bool json = false;
};

int CalibrateCommand(const CalibrateCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pipescope::cli
