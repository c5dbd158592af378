#pragma once
// How many elements a pass of a pipeline gives where its spec says so (tf.data's
// cardinality): a source's count, carried through the ops whose fields say what they make
// of it. Not known (nullopt) where a source reads files, a filter decides, a repeat is
// endless or an interleave opens datasets of its own.

#include <cstdint>
#include <optional>

#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

// The elements `source` gives in a pass, where its fields say.
std::optional<int64_t> SourceElements(const spec::Source& source);

// The elements `op` gives for `in` elements of its input, as its kind says
// (OpKindDescription::elements_out, else its ratio).
std::optional<int64_t> ElementsOut(const spec::Op& op, int64_t in);

// The steps an epoch of `spec` gives: its elements up to the last repeat (the epochs), then
// through the ops after it, a take of all epochs' steps (Keras fit's) apart. nullopt where
// no repeat makes epochs, or their size is not known or stands in for one the code knows.
std::optional<int64_t> StepsOfAnEpoch(const spec::PipelineSpec& spec);

}  // namespace pipescope::engine
