#pragma once
// What `run` and `simulate` share on the command line: the spec with its --set overrides
// applied and validated (errors name the file and the override), and how long to run.

#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::cli {

engine::Result<spec::PipelineSpec> LoadSpecArgument(const std::string& path,
                                                    const std::vector<std::string>& overrides);

// Seconds to run: --duration when given, else none when --steps is (the steps end the
// run), else 5.
double SecondsToRun(double duration_s, int64_t steps);

}  // namespace pipescope::cli
