#pragma once
// `pipescope-cli import-code FILE.py [--out SPEC] [--set OP.KNOB=VALUE]... [--pipeline VAR]
// [--emit FRAMEWORK] [--apply TUNED.pbtxt] [--calibrate TRACE] [--json]`: the input pipeline a
// Python file builds, as a spec (app/code/code_import.h). Notes go to stderr as FILE:LINE:COLUMN:
// lines; exit 2 when the file cannot be read or builds no pipeline import-code reads, 1 when a
// --set or the spec is wrong.

#include <iosfwd>
#include <string>
#include <vector>

namespace pipescope::cli {

struct ImportCodeCommandOptions {
  std::string code_path;
  std::string out_path;
  std::vector<std::string> sets;
  std::string pipeline;
  std::string emit;   // tfdata, pytorch, keras or auto: print the spec as code instead
  std::string apply;  // a tuned spec: print the file with its knobs written in
  // A PyTorch profiler trace of the job: a DataLoader's __getitem__ cost and the training
  // loop's step fitted to it (what-if's fit) instead of the stand-ins.
  std::string calibrate;
  bool json = false;
};

int ImportCodeCommand(const ImportCodeCommandOptions& options, std::ostream& out,
                      std::ostream& err);

}  // namespace pipescope::cli
