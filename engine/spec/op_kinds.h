#pragma once
// One description per op kind: its knobs (ranges, whether AUTOTUNE is allowed and where it
// starts), whether it keeps the order of its input, how many elements it gives per element
// it takes, whether it is random, what its threads do, whether it replays, and which fields
// may be omitted. Both builders, the validator, --set, the move rules and the GUI's op
// editor read it, and every stage of a trace carries what it says as record::StageTrait
// bits (engine/runtime/stage_traits.h), which the analyses read instead of kind names; what
// an op does with its elements is its policy (engine/runtime/*_rules.h), whichever clock
// runs it.
//
// Adding an op kind: a field in pipeline_spec.proto's Op, one entry in op_kinds.cc, its
// policy, and its dataset on each clock.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

struct KnobDescription {
  std::string_view name;  // the field of the op's message: tf.data's argument name
  int64_t min = 0;        // the smallest value a spec may write
  int64_t max = 0;
  // The smallest a tuner or the GUI sets, where it differs from `min` (a written 0 makes an
  // op synchronous, which no tuner turns it into).
  int64_t tune_min = INT64_MIN;
  bool autotune = false;  // AUTOTUNE may be written
  // Where an AUTOTUNE knob starts: the CPU budget, or `autotune_start`.
  bool starts_at_cpu_budget = false;
  int64_t autotune_start = 1;
  std::string_view fixed_because;  // why AUTOTUNE is refused, for the validator's message
  // The value's meaning where a tuner must not change it (it decides the output).
  bool decides_output = false;
};

enum class ElementOrder {
  kKept,                 // what comes out is in the order it came in
  kKeptIfDeterministic,  // parallel ops: unless deterministic is false
  kRandom,               // shuffle
};

// Elements out per element in.
enum class OutputRatio {
  kOne,             // map, prefetch, cache (after its first pass)
  kAtMostOne,       // filter: the predicate decides
  kOneOverBatch,    // batch: one per batch_size
  kRowsPerElement,  // unbatch: one per row
  kCounted,         // take, skip, shard: a count or a share of the input
  kTimesCount,      // repeat: the input, count times
  kPerSubDataset,   // interleave: the elements of each sub-dataset it opens
};

// What an op's threads do when it runs asynchronously.
enum class ParallelWork {
  kNone,          // it has no threads of its own
  kFunction,      // they run its function on elements (map's num_parallel_calls)
  kSubPipelines,  // they read the datasets it opens per element (interleave)
  kOneProducer,   // one thread fills its buffer (prefetch)
};

struct OpKindDescription {
  std::string_view kind;  // the Op oneof's field name: "map", "batch", ...
  spec::Op::KindCase kind_case = spec::Op::KIND_NOT_SET;
  std::span<const KnobDescription> knobs;
  ElementOrder order = ElementOrder::kKept;
  OutputRatio ratio = OutputRatio::kOne;
  bool random = false;  // its output depends on a seed
  ParallelWork parallel_work = ParallelWork::kNone;
  bool replays = false;  // after one complete pass it hands out what it kept (cache)
  // Fields that may be left out, and what leaving them out means (op_values.h reads them).
  std::string_view omissible;
  // The GUI's op editor: the knob a new op of this kind asks for and its proposal; an
  // empty knob and `addable` true: added without asking; `addable` false: only from a spec
  // (it needs a function or a sub-pipeline).
  bool addable = false;
  std::string_view new_op_knob;
  int64_t new_op_value = 0;
};

// Every op kind, in the proto's order.
std::span<const OpKindDescription> AllOpKinds();

// The description of `kind` ("map"), or nullptr.
const OpKindDescription* DescribeOpKind(std::string_view kind);
const OpKindDescription* DescribeOp(const spec::Op& op);

// The knob `name` of `kind`, or nullptr.
const KnobDescription* DescribeKnob(std::string_view kind, std::string_view name);

// Where a knob's value starts: `value` itself, or where AUTOTUNE starts for it.
int64_t KnobStart(const KnobDescription& knob, int64_t value, int64_t cpu_budget);

// The range a tuner or the GUI moves a knob in.
inline int64_t TuneMin(const KnobDescription& knob) {
  return knob.tune_min > knob.min ? knob.tune_min : knob.min;
}

// Whether an op of `kind` gives batches: a batch does, an unbatch does not, an interleave
// gives what its sub-pipeline gives (`sub_batched`), and every other op gives what it takes.
// The one rule the validator and the plan (so both clocks) follow.
bool OutputBatched(const OpKindDescription& kind, bool input_batched, bool sub_batched);

// "map keeps order (unless deterministic: false); one element per element in".
std::string DescribeForPeople(const OpKindDescription& d);

}  // namespace pipescope::engine
