#include "app/cli/spec_argument.h"

#include <ostream>

#include "app/code/code_import.h"
#include "engine/spec/spec_loader.h"
#include "engine/spec/spec_overrides.h"
#include "engine/spec/spec_validator.h"

namespace pipescope::cli {

engine::Result<code::ImportedCode> LoadCodeArgument(const std::string& path,
                                                    const std::vector<std::string>& overrides,
                                                    std::ostream* notes,
                                                    const code::ImportOptions& import) {
  ASSIGN_OR_RETURN(code::ImportedCode imported, code::ImportCodeFile(path, import));
  for (const auto& assignment : overrides) {
    RETURN_IF_ERROR(code::SetCodeKnob(imported, assignment).WithContext("--set " + assignment));
  }
  if (notes) {
    for (const code::CodeNote& n : imported.notes) *notes << code::FormatNote(path, n) << "\n";
  }
  // An error a --set brought in says so, as a spec file's does (the code itself may be fine).
  RETURN_IF_ERROR(
      engine::ValidateSpec(imported.spec, overrides.empty() ? path : path + " (with --set)"));
  return imported;
}

engine::Result<spec::PipelineSpec> LoadSpecArgument(const std::string& path,
                                                    const std::vector<std::string>& overrides,
                                                    std::ostream* notes,
                                                    const code::ImportOptions& import) {
  if (path.ends_with(".py")) {
    ASSIGN_OR_RETURN(code::ImportedCode imported, LoadCodeArgument(path, overrides, notes, import));
    return std::move(imported.spec);
  }
  ASSIGN_OR_RETURN(spec::PipelineSpec spec, engine::LoadSpecFile(path));
  for (const auto& assignment : overrides) RETURN_IF_ERROR(engine::ApplyOverride(spec, assignment));
  if (!overrides.empty()) RETURN_IF_ERROR(engine::ValidateSpec(spec, path + " (with --set)"));
  return spec;
}

double SecondsToRun(double duration_s, int64_t steps) {
  constexpr double kDefaultSeconds = 5.0;
  if (duration_s > 0) return duration_s;
  return steps > 0 ? 0 : kDefaultSeconds;
}

}  // namespace pipescope::cli
