#pragma once
// `--set OP.KNOB=VALUE`: changes one field of a named op in a spec before it runs, so a
// person can try configurations without editing files. KNOB is the field name of the op's
// kind (tf.data's argument names: num_parallel_calls, buffer_size, cycle_length, ...);
// VALUE is a number, AUTOTUNE, true/false, or text for string fields.

#include <optional>
#include <string>

#include "engine/core/status.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

// The source named `name`: the pipeline's, or the second pipeline's of a zip; null if none.
spec::Source* FindSourceNamed(spec::PipelineSpec& spec, const std::string& name);

// The op named `name`, at any depth (an interleave's, a zip's second pipeline's); null if
// none.
spec::Op* FindOpNamed(spec::PipelineSpec& spec, const std::string& name);

// Applies "decode.num_parallel_calls=4". The spec must be re-validated afterwards.
Status ApplyOverride(spec::PipelineSpec& spec, const std::string& assignment);

// The integer knob `knob` of the op named `op` (top-level or inside an interleave), as the
// spec says it (kAutotune for AUTOTUNE); nullopt when there is no such op or integer field.
std::optional<int64_t> ReadIntKnob(const spec::PipelineSpec& spec, const std::string& op,
                                   const std::string& knob);

}  // namespace pipescope::engine
