#pragma once
// Semantic checks of a parsed PipelineSpec: knob ranges, required fields, names, and
// combinations the engine cannot run (a map after batch whose function has no batched
// form). With parse locations, each error names the line of the offending field.

#include <google/protobuf/text_format.h>

#include <string>

#include "engine/core/status.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

// Gives unnamed ops a name from their kind: "map", then "map_2", "map_3"...
void AssignDefaultOpNames(spec::PipelineSpec& spec);

// All problems are reported at once, one per line. `locations` may be null (specs built
// in code, e.g. after a reorder), in which case errors name the op instead of a line.
Status ValidateSpec(const spec::PipelineSpec& spec, const std::string& source_name,
                    const google::protobuf::TextFormat::ParseInfoTree* locations = nullptr);

// The op kind as written in specs: "map", "prefetch", ...
std::string OpKindName(const spec::Op& op);

}  // namespace pipescope::engine
