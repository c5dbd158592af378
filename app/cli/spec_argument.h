#pragma once
// A spec named on the command line with its --set overrides applied and validated: what
// `run` and `simulate` start from. Errors name the file and the override.

#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::cli {

engine::Result<spec::PipelineSpec> LoadSpecArgument(const std::string& path,
                                                    const std::vector<std::string>& overrides);

}  // namespace pipescope::cli
