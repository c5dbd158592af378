#pragma once
// `pipescope-cli convert IN OUT`: writes a saved trace in another format, chosen by OUT's
// extension: .perfetto-trace / .pftrace (Perfetto, opens in ui.perfetto.dev), .json /
// .json.gz (Chrome trace JSON), .pstrace (Pipescope's own). IN is a .pstrace, or a PyTorch
// or TensorFlow profiler trace (.json, .json.gz), imported.

#include <iosfwd>
#include <string>

namespace pipescope::cli {

struct ConvertCommandOptions {
  std::string in_path;
  std::string out_path;
};

int ConvertCommand(const ConvertCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pipescope::cli
