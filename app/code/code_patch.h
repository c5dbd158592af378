#pragma once
// The user's own file with tuned knobs written in: each knob the tuned spec changes is
// replaced where the code passes it, or added as a keyword argument where the call leaves
// it out, so a diff against the file shows only the knobs that changed. Changes no argument
// can express (an op added, moved or removed) are named in the notes, for `--emit` to give
// the whole pipeline as code.

#include "app/code/code_emit.h"
#include "app/code/code_import.h"

namespace pipescope::code {

engine::Result<EmittedCode> PatchCode(const ImportedCode& original,
                                      const spec::PipelineSpec& tuned);

}  // namespace pipescope::code
