#pragma once
// `pipescope-cli lesson list | show NAME | check NAME [--solution | --spec FILE] [--real]
// [--json]`: the workshop lessons. `check` runs the lesson's pipeline (its start, its
// solution, or a learner's spec) in the simulator, or for real with --real, and checks the
// goals on the trace: exit code 0 when every goal is met, 1 when one is not.

#include <iosfwd>
#include <string>

namespace pipescope::cli {

struct LessonCommandOptions {
  std::string action;  // list, show, check
  std::string name;
  bool solution = false;
  std::string spec_path;  // --spec: check this spec instead of the start
  bool real = false;
  bool json = false;
};

int LessonCommand(const LessonCommandOptions& options, std::ostream& out, std::ostream& err);

}  // namespace pipescope::cli
