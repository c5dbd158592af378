#pragma once
// What every part of Pipescope knows of an op kind: its knobs (ranges, whether AUTOTUNE is
// allowed and where it starts), whether it keeps the order of its input, how many elements
// it gives per element it takes, whether it is random, what its threads do, whether it
// replays, which fields may be omitted and its own field checks. The validator, the plan,
// --set, the move rules, the tuners and the GUI's op editor read it, and every stage of a
// trace carries what it says as record::StageTrait bits (engine/runtime/stage_traits.h),
// which the analyses read instead of kind names.
//
// A new op kind is three files:
//   1. its message in pipeline_spec.proto's Op;
//   2. engine/kinds/<kind>.cc: this description, its field checks, its rules, its dataset
//      on both clocks and, if it makes values of its own, its value rule (which the
//      simulator replays: engine/runtime/value_rules.h), registered by one
//      PIPESCOPE_REGISTER_OP_KIND (engine/kinds/op_kind_registration.h);
//   3. its cases in the conformance suite (tests/sim/engine_sim_conformance_test.cc), run on
//      both clocks.
// Nothing else names a kind: both builders, the validator and the plan find it here.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

// The most threads a parallel op's knob may ask for.
inline constexpr int64_t kMaxParallelism = 256;

struct KnobDescription {
  std::string_view name{};  // the field of the op's message: tf.data's argument name
  int64_t min = 0;          // the smallest value a spec may write
  int64_t max = 0;
  // The smallest a tuner or the GUI sets, where it differs from `min` (a written 0 makes an
  // op synchronous, which no tuner turns it into).
  int64_t tune_min = INT64_MIN;
  bool autotune = false;  // AUTOTUNE may be written
  // Where an AUTOTUNE knob starts: the CPU budget, or `autotune_start`.
  bool starts_at_cpu_budget = false;
  int64_t autotune_start = 1;
  std::string_view fixed_because{};  // why AUTOTUNE is refused, for the validator's message
  // The value's meaning where a tuner must not change it (it decides the output).
  bool decides_output = false;
  // Another knob of the op that this one may not exceed (an interleave's num_parallel_calls
  // and its cycle_length): an AUTOTUNE start stops there, and a written value above a written
  // one is refused, as tf.data refuses it.
  std::string_view at_most{};
  // A value other than 0 runs the op on threads (or worker processes) of its own, which
  // fetch ahead of its consumer: a map's or an interleave's num_parallel_calls, a
  // DataLoader's num_workers, Keras's workers (0: the consumer's own thread does the work).
  bool runs_ahead_unless_zero = false;
};

enum class ElementOrder {
  kKept,                 // what comes out is in the order it came in
  kKeptIfDeterministic,  // parallel ops: unless deterministic is false
  kRandom,               // shuffle
};

// num_parallel_calls of the ops whose threads run work (map, interleave): 0 is synchronous,
// AUTOTUNE starts at the CPU budget.
inline constexpr KnobDescription kNumParallelCallsKnob{.name = "num_parallel_calls",
                                                       .min = 0,
                                                       .max = kMaxParallelism,
                                                       .tune_min = 1,
                                                       .autotune = true,
                                                       .starts_at_cpu_budget = true,
                                                       .runs_ahead_unless_zero = true};

// batch_size of the ops that group elements (batch, padded_batch).
inline constexpr KnobDescription kBatchSizeKnob{
    .name = "batch_size",
    .min = 1,
    .max = 1 << 20,
    .fixed_because = "the batch size is part of the output",
    .decides_output = true};

// Elements out per element in.
enum class OutputRatio {
  kOne,             // map, prefetch, cache (after its first pass)
  kAtMostOne,       // filter: the predicate decides
  kOneOverBatch,    // batch: one per batch_size
  kRowsPerElement,  // unbatch: one per row
  kCounted,         // take, skip, shard: a count or a share of the input
  kTimesCount,      // repeat: the input, count times
  kPerSubDataset,   // interleave: the elements of each sub-dataset it opens
  kPaired,          // zip: one per element in, paired with the second pipeline's, until it ends
};

// What an op's threads do when it runs asynchronously.
enum class ParallelWork {
  kNone,          // it has no threads of its own
  kFunction,      // they run its function on elements (map's num_parallel_calls)
  kSubPipelines,  // they read the datasets it opens per element (interleave)
  kOneProducer,   // one thread fills its buffer (prefetch)
  // They are worker processes (each its own interpreter lock) that run its functions on
  // batches (a DataLoader's num_workers).
  kWorkerProcesses,
  // They fetch elements ahead by index (Keras's enqueuer's `workers`): threads of the
  // process that started them, taking turns under its interpreter lock, or with
  // use_multiprocessing processes of their own, started each epoch.
  kEnqueuerWorkers,
};

struct OpFieldCheck;

struct OpKindDescription {
  std::string_view kind;  // the Op oneof's field name: "map", "batch", ...
  spec::Op::KindCase kind_case = spec::Op::KIND_NOT_SET;
  std::span<const KnobDescription> knobs{};
  ElementOrder order = ElementOrder::kKept;
  OutputRatio ratio = OutputRatio::kOne;
  bool random = false;  // its output depends on a seed
  ParallelWork parallel_work = ParallelWork::kNone;
  bool replays = false;  // after one complete pass it hands out what it kept (cache)
  // Each of several workers takes its own share of the input (shard's index of
  // num_shards): what a shuffle or a reorder before it changes is which worker sees what.
  bool splits_among_workers = false;
  // Fields that may be left out, and what leaving them out means (op_values.h reads them).
  std::string_view omissible{};
  // The GUI's op editor: the knob a new op of this kind asks for and its proposal; an
  // empty knob and `addable` true: added without asking; `addable` false: only from a spec
  // (it needs a function or a sub-pipeline).
  bool addable = false;
  std::string_view new_op_knob{};
  int64_t new_op_value = 0;
  // What only this kind can say of its fields (a shard's index below num_shards, a map's
  // function after a batch); null where its knobs' ranges say it all. Knob ranges and a
  // sub-pipeline (a message with per_element and ops) are checked for every kind.
  void (*check_fields)(OpFieldCheck& check) = nullptr;
  // Whether an op of this kind may give elements of other values or shapes than it takes
  // (a map whose function makes new ones); null: it hands on what it takes, as the ratio
  // says. The validator stops assuming what it knew of the elements after such an op.
  bool (*changes_values)(const spec::Op& op) = nullptr;
  // An op that opens a dataset per input element (interleave, flat_map): its message's
  // per_element source and the ops applied to each such dataset; null for other kinds.
  const spec::ElementSource* (*per_element)(const spec::Op& op) = nullptr;
  const google::protobuf::RepeatedPtrField<spec::Op>* (*sub_pipeline)(const spec::Op& op) = nullptr;
  google::protobuf::RepeatedPtrField<spec::Op>* (*mutable_sub_pipeline)(spec::Op& op) = nullptr;
  // An op that reads a second pipeline beside its input (zip): that pipeline's source; its
  // ops are `sub_pipeline`. Null for other kinds.
  const spec::Source* (*second_source)(const spec::Op& op) = nullptr;
  // An op whose threads run a function on each element (map): its function; null for
  // other kinds.
  const spec::WorkFunction* (*function)(const spec::Op& op) = nullptr;
  // What an op's own fields add to its stage's record::StageTrait bits (a Keras enqueuer's
  // threads running Python hold the interpreter lock; its processes each hold their own);
  // null: its kind's description says it all.
  uint32_t (*traits_of_fields)(const spec::Op& op) = nullptr;
  // How many elements an op of this kind gives for `in` elements of its input in a pass,
  // where its fields say (take's count, a batch's size); nullopt: not known (a repeat
  // forever). Null: as its ratio says (kOne: `in`; any other ratio: not known).
  std::optional<int64_t> (*elements_out)(const spec::Op& op, int64_t in) = nullptr;
};

// Adds `kind` to the kinds every part knows (engine/kinds/op_kind_registration.h calls it
// once per kind at start-up; `kind` lives as long as the program).
void RegisterOpKindDescription(const OpKindDescription& kind);

// Every registered op kind, in the order of pipeline_spec.proto's Op. Aborts, saying so,
// where the program was linked without the kinds (pipescope_op_kinds, whole).
const std::vector<const OpKindDescription*>& AllOpKinds();

// The description of `kind` ("map"), or nullptr.
const OpKindDescription* DescribeOpKind(std::string_view kind);
const OpKindDescription* DescribeOp(const spec::Op& op);
// Whether a knob of that name is some kind's threads or workers (runs_ahead_unless_zero):
// num_parallel_calls, num_workers, workers.
bool IsRunsAheadKnob(std::string_view knob);

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

// The message of the op's kind (the MapOp of a map), whose fields are its knobs; null for
// an op without a kind.
const google::protobuf::Message* KindMessageOf(const spec::Op& op);

// Where an op that opens a dataset per input element gets it, and the ops over it
// (OpKindDescription::per_element, sub_pipeline); null for every other op.
const spec::ElementSource* PerElementSourceOf(const spec::Op& op);
const google::protobuf::RepeatedPtrField<spec::Op>* SubPipelineOf(const spec::Op& op);
google::protobuf::RepeatedPtrField<spec::Op>* MutableSubPipelineOf(spec::Op& op);

// The source of the second pipeline an op reads beside its input
// (OpKindDescription::second_source); null for every other op.
const spec::Source* SecondSourceOf(const spec::Op& op);

// The function an op runs on each element (OpKindDescription::function); null for ops
// that run none.
const spec::WorkFunction* FunctionOf(const spec::Op& op);

// Whether `op` may give elements of other values or shapes than it takes (its kind's
// changes_values says so for it): what the validator, the simulator and simulate --print
// stop assuming of the elements after it.
bool ChangesValues(const spec::Op& op);

// The rows of each element an op gives where its kind batches (its batch_size knob, at
// least 1); 0 for an op that does not batch.
int64_t BatchSizeOf(const spec::Op& op);

// "map keeps order (unless deterministic: false); one element per element in".
std::string DescribeForPeople(const OpKindDescription& d);

}  // namespace pipescope::engine
