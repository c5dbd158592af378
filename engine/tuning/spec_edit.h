#pragma once
// A change to a pipeline as it can be made again on another spec with the same ops: what
// the advisor needs to apply two pieces of advice together (a prefetch added at the end and
// a map moved after its batch, seed 001's two answers), where each was tried alone on the
// spec as given. Ops are found by name, so a change made before keeps this one's meaning.

#include <optional>
#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

struct SpecEdit {
  std::vector<std::string> settings;  // --set assignments ("decode.num_parallel_calls=2")
  // Op `move` placed right before op `before` (a filter earlier, a batch before a map).
  std::string move, before;
  // Op `add` placed right after op `after` (the source's name: first), else right before op
  // `add_before` (the repeat of epochs at the end, whatever other edits put before it), else
  // at the end.
  std::optional<spec::Op> add;
  std::string after, add_before;
  // Ops given anew by name, the rest of the change made (a Python map after batch costs
  // per batch what it cost per row times the rows).
  std::vector<spec::Op> replace;
  // False for a change no edit says (a source rewritten into files and an interleave):
  // it is made on the spec as given only.
  bool reapplicable = true;
};

// `edit` made on `spec`. Errors: an op it names is not there, a setting does not apply, the
// op it adds is there already (made before), or the edit is not reapplicable.
Result<spec::PipelineSpec> ApplyEdit(spec::PipelineSpec spec, const SpecEdit& edit);

// An edit of settings alone.
SpecEdit SettingsEdit(std::vector<std::string> settings);

}  // namespace pipescope::engine
