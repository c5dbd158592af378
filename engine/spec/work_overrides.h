#pragma once
// `--set` on what an op's function does, beside the fields of its kind: the figures a spec
// read from code stands in for until the user gives them (import-code's notes name them).
//   NAME.cost, NAME.wait        a map's function, a DataLoader's or Keras fit's __getitem__,
//                               a Python generator's next() (cost is its duration)
//   NAME.first_wait             a Python generator's first next()
//   NAME.collate_cost           a DataLoader's collate_fn, per batch
//   NAME.sample_bytes           what a Python __getitem__ returns
//   NAME.fraction               the share of elements a filter keeps
//   NAME.gil_share, read_bytes  a Python function's share under the interpreter lock, and
//                               the file each call loads from the spec's disk
//   NAME.read_files             how many files those bytes are in (each an access)
// The same names on a spec file as on the code it came from: one rule, two entries
// (ApplyOverride and import-code's SetCodeKnob).

#include <optional>
#include <string>

#include "engine/core/status.h"
#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

// Applies NAME.KNOB=VALUE where KNOB is one of the above; nullopt where it is not (the kind's
// own fields are ApplyOverride's).
std::optional<Status> ApplyWorkOverride(spec::PipelineSpec& spec, const std::string& name,
                                        const std::string& knob, const std::string& value);

// "; for its function: cost, wait": the knobs above that `op` takes, appended to an error
// that lists its kind's; "" for an op with none (or null).
std::string WorkKnobsOf(const spec::Op* op);

}  // namespace pipescope::engine
