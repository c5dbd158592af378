#pragma once
// A spec as Python in the framework it came from: tf.data method chains, a DataLoader's
// keyword arguments, Keras's fit arguments (`autotune --emit`, `import-code --emit`). What
// the code cannot say (a stage's cost, a stand-in's size) rides along as `# pipescope:`
// comments, so import-code reads the emitted file back to the same spec. The user's
// functions appear by their names, with stand-ins below the pipeline that make the file run
// on its own; delete those where the real ones are defined.

#include <string>
#include <vector>

#include "engine/core/status.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::code {

// "tfdata", "pytorch", "keras", or "auto": the framework the spec's ops belong to (a
// dataloader op: pytorch; keras_fit: keras; otherwise tfdata).
std::string FrameworkOf(const spec::PipelineSpec& spec);

struct EmittedCode {
  std::string text;
  std::vector<std::string> notes;  // what the code cannot express and leaves out
  // PatchCode's: the knobs it wrote a value for, as OP.KNOB ("parse.num_parallel_calls").
  std::vector<std::string> knobs_written;
};

// One op as tf.data code, `.prefetch(2)`; empty when tf.data has no spelling for it.
std::string TfDataMethod(const spec::Op& op);

// Errors: a framework other than the three, or a spec whose ops that framework has none of
// (a DataLoader as Keras code).
engine::Result<EmittedCode> EmitCode(const spec::PipelineSpec& spec, const std::string& framework);

}  // namespace pipescope::code
