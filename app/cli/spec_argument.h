#pragma once
// What `run`, `simulate`, `autotune` and `grid` share on the command line: the spec with its --set
// overrides applied and validated (errors name the file and the override), and how long to run.

#include <iosfwd>
#include <string>
#include <vector>

#include "app/code/code_import.h"
#include "engine/core/status.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::cli {

// A .py as import-code reads it (`import`: which of its pipelines, --pipeline), with
// `overrides` set and validated: for a command that writes the user's file back
// (autotune --emit, simulate --advice-code).
engine::Result<code::ImportedCode> LoadCodeArgument(const std::string& path,
                                                    const std::vector<std::string>& overrides,
                                                    std::ostream* notes = nullptr,
                                                    const code::ImportOptions& import = {});

// A spec file, or a .py file read as import-code reads it (its --set may name what
// import-code leaves as a parameter: `parse.cost=40us`), with `overrides` applied and
// validated and a .py's notes written to `notes` when given.
engine::Result<spec::PipelineSpec> LoadSpecArgument(const std::string& path,
                                                    const std::vector<std::string>& overrides,
                                                    std::ostream* notes = nullptr,
                                                    const code::ImportOptions& import = {});

// Seconds to run: --duration when given, else none when --steps is (the steps end the
// run), else 5.
double SecondsToRun(double duration_s, int64_t steps);

}  // namespace pipescope::cli
