#include "engine/spec/op_kinds.h"

#include <array>

#include "engine/spec/spec_loader.h"

namespace pipescope::engine {
namespace {

using spec::Op;

constexpr int64_t kMaxParallelism = 256;

constexpr std::array kInterleaveKnobs = {
    KnobDescription{.name = "cycle_length",
                    .min = 1,
                    .max = 1024,
                    .autotune = true,
                    .starts_at_cpu_budget = true},
    KnobDescription{.name = "block_length",
                    .min = 1,
                    .max = 1 << 20,
                    .fixed_because = "block_length decides the output order",
                    .decides_output = true},
    KnobDescription{.name = "num_parallel_calls",
                    .min = 0,
                    .max = kMaxParallelism,
                    .tune_min = 1,
                    .autotune = true,
                    .starts_at_cpu_budget = true},
};
constexpr std::array kMapKnobs = {
    KnobDescription{.name = "num_parallel_calls",
                    .min = 0,
                    .max = kMaxParallelism,
                    .tune_min = 1,
                    .autotune = true,
                    .starts_at_cpu_budget = true},
};
constexpr std::array kShuffleKnobs = {
    KnobDescription{.name = "buffer_size",
                    .min = 1,
                    .max = int64_t{1} << 30,
                    .fixed_because = "the buffer size decides how random the order is",
                    .decides_output = true},
};
constexpr std::array kBatchKnobs = {
    KnobDescription{.name = "batch_size",
                    .min = 1,
                    .max = 1 << 20,
                    .fixed_because = "the batch size is part of the output",
                    .decides_output = true},
};
constexpr std::array kPrefetchKnobs = {
    KnobDescription{
        .name = "buffer_size", .min = 0, .max = 1 << 20, .autotune = true, .autotune_start = 2},
};
constexpr std::array kShardKnobs = {
    KnobDescription{.name = "num_shards",
                    .min = 1,
                    .max = int64_t{1} << 30,
                    .fixed_because = "it is part of the output",
                    .decides_output = true},
    // Its upper bound is num_shards - 1: the validator checks the pair.
    KnobDescription{.name = "index",
                    .min = 0,
                    .max = int64_t{1} << 30,
                    .fixed_because = "it is part of the output",
                    .decides_output = true},
};
constexpr std::array kRepeatKnobs = {
    KnobDescription{.name = "count",
                    .min = -1,
                    .max = INT64_MAX,
                    .fixed_because = "use -1 (or leave count out) for forever",
                    .decides_output = true},
};
constexpr std::array kTakeKnobs = {
    KnobDescription{.name = "count",
                    .min = -1,
                    .max = INT64_MAX,
                    .fixed_because = "use -1 for all",
                    .decides_output = true},
};
constexpr std::array kSkipKnobs = kTakeKnobs;

const std::array kKinds = {
    OpKindDescription{.kind = "interleave",
                      .kind_case = Op::kInterleave,
                      .knobs = kInterleaveKnobs,
                      .order = ElementOrder::kKeptIfDeterministic,
                      .ratio = OutputRatio::kPerSubDataset,
                      .parallel_work = ParallelWork::kSubPipelines,
                      .omissible = "cycle_length: AUTOTUNE; block_length: 1; deterministic: true"},
    OpKindDescription{
        .kind = "flat_map", .kind_case = Op::kFlatMap, .ratio = OutputRatio::kPerSubDataset},
    OpKindDescription{.kind = "map",
                      .kind_case = Op::kMap,
                      .knobs = kMapKnobs,
                      .order = ElementOrder::kKeptIfDeterministic,
                      .parallel_work = ParallelWork::kFunction,
                      .omissible = "deterministic: true"},
    OpKindDescription{.kind = "filter", .kind_case = Op::kFilter, .ratio = OutputRatio::kAtMostOne},
    OpKindDescription{.kind = "shuffle",
                      .kind_case = Op::kShuffle,
                      .knobs = kShuffleKnobs,
                      .order = ElementOrder::kRandom,
                      .random = true,
                      .omissible = "seed: a fresh seed every run; reshuffle_each_iteration: true",
                      .addable = true,
                      .new_op_knob = "buffer_size",
                      .new_op_value = 1000},
    OpKindDescription{.kind = "batch",
                      .kind_case = Op::kBatch,
                      .knobs = kBatchKnobs,
                      .ratio = OutputRatio::kOneOverBatch,
                      .addable = true,
                      .new_op_knob = "batch_size",
                      .new_op_value = 32},
    OpKindDescription{.kind = "unbatch",
                      .kind_case = Op::kUnbatch,
                      .ratio = OutputRatio::kRowsPerElement,
                      .addable = true},
    OpKindDescription{.kind = "prefetch",
                      .kind_case = Op::kPrefetch,
                      .knobs = kPrefetchKnobs,
                      .parallel_work = ParallelWork::kOneProducer,
                      .addable = true,
                      .new_op_knob = "buffer_size",
                      .new_op_value = 2},
    OpKindDescription{.kind = "shard",
                      .kind_case = Op::kShard,
                      .knobs = kShardKnobs,
                      .ratio = OutputRatio::kCounted,
                      .addable = true,
                      .new_op_knob = "num_shards",
                      .new_op_value = 2},
    OpKindDescription{.kind = "cache", .kind_case = Op::kCache, .replays = true, .addable = true},
    OpKindDescription{.kind = "repeat",
                      .kind_case = Op::kRepeat,
                      .knobs = kRepeatKnobs,
                      .ratio = OutputRatio::kTimesCount,
                      .omissible = "count: forever",
                      .addable = true},
    OpKindDescription{.kind = "take",
                      .kind_case = Op::kTake,
                      .knobs = kTakeKnobs,
                      .ratio = OutputRatio::kCounted,
                      .addable = true,
                      .new_op_knob = "count",
                      .new_op_value = 1000},
    OpKindDescription{.kind = "skip",
                      .kind_case = Op::kSkip,
                      .knobs = kSkipKnobs,
                      .ratio = OutputRatio::kCounted,
                      .addable = true,
                      .new_op_knob = "count",
                      .new_op_value = 100},
};

}  // namespace

std::span<const OpKindDescription> AllOpKinds() { return kKinds; }

const OpKindDescription* DescribeOpKind(std::string_view kind) {
  for (const OpKindDescription& d : kKinds) {
    if (d.kind == kind) return &d;
  }
  return nullptr;
}

const OpKindDescription* DescribeOp(const spec::Op& op) {
  for (const OpKindDescription& d : kKinds) {
    if (d.kind_case == op.kind_case()) return &d;
  }
  return nullptr;
}

const KnobDescription* DescribeKnob(std::string_view kind, std::string_view name) {
  const OpKindDescription* d = DescribeOpKind(kind);
  if (!d) return nullptr;
  for (const KnobDescription& k : d->knobs) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

int64_t KnobStart(const KnobDescription& knob, int64_t value, int64_t cpu_budget) {
  if (value != kAutotune) return value;
  return knob.starts_at_cpu_budget ? cpu_budget : knob.autotune_start;
}

bool OutputBatched(const OpKindDescription& kind, bool input_batched, bool sub_batched) {
  switch (kind.ratio) {
    case OutputRatio::kOneOverBatch:
      return true;
    case OutputRatio::kRowsPerElement:
      return false;
    case OutputRatio::kPerSubDataset:
      return sub_batched;
    default:
      return input_batched;
  }
}

std::string DescribeForPeople(const OpKindDescription& d) {
  std::string text(d.kind);
  switch (d.order) {
    case ElementOrder::kKept:
      text += " keeps order";
      break;
    case ElementOrder::kKeptIfDeterministic:
      text += " keeps order (unless deterministic: false)";
      break;
    case ElementOrder::kRandom:
      text += " reorders at random";
      break;
  }
  switch (d.ratio) {
    case OutputRatio::kOne:
      text += "; one element per element in";
      break;
    case OutputRatio::kAtMostOne:
      text += "; at most one element per element in";
      break;
    case OutputRatio::kOneOverBatch:
      text += "; one element per batch_size in";
      break;
    case OutputRatio::kRowsPerElement:
      text += "; one element per row of each element in";
      break;
    case OutputRatio::kCounted:
      text += "; a counted part of its input";
      break;
    case OutputRatio::kTimesCount:
      text += "; its input, count times";
      break;
    case OutputRatio::kPerSubDataset:
      text += "; the elements of the dataset it opens per element in";
      break;
  }
  return text;
}

}  // namespace pipescope::engine
