#include "engine/tuning/move_rules.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "engine/spec/op_kinds.h"
#include "engine/spec/op_values.h"
#include "engine/spec/spec_validator.h"
#include "engine/work/work_registry.h"

namespace pipescope::engine {
namespace {

using spec::Op;

const OpKindDescription& KindOf(const Op& op) {
  static constexpr OpKindDescription kNone{};
  const OpKindDescription* d = DescribeOp(op);
  return d ? *d : kNone;
}

bool IsRandomMap(const Op& op) {
  if (op.has_map() && op.map().random()) return true;
  const spec::WorkFunction* fn = FunctionOf(op);
  return fn && WorkFunctionIsRandom(*fn);
}
// Functions that do work without changing the element (they model CPU or I/O cost). A
// python function keeps Pipescope's values but stands for the user's code, which may not.
bool LeavesValuesUnchanged(const Op& op) {
  const spec::WorkFunction* fn = FunctionOf(op);
  return fn && WorkFunctionKeepsValue(*fn) && !fn->has_python();
}
// A function with a batched form gives the same output after a batch (vectorising).
bool HasBatchedForm(const Op& op) {
  const spec::WorkFunction* fn = FunctionOf(op);
  return fn && WorkFunctionHasBatchedForm(*fn);
}

// A repeat by its call, as the code writes it (the name of one import-code made for fit's or
// a loop's epochs, `fit_epochs`, is no name in the user's code); any other op by its name.
std::string Name(const Op& op) {
  if (op.has_repeat()) {
    const bool forever = !op.repeat().has_count() || op.repeat().count() < 0;
    return forever ? "repeat()" : "repeat(" + std::to_string(op.repeat().count()) + ")";
  }
  return "'" + op.name() + "' (" + OpKindName(op) + ")";
}

// What changes when `first` ends up directly before `second` where it used to be after it
// (nullopt: nothing does). The order of the arguments is the new order.
std::optional<std::string> SwapEffect(const Op& first, const Op& second) {
  if (OnlyBuffers(first) || OnlyBuffers(second)) return std::nullopt;
  // A shuffle's draws depend on its seed and its buffer's count, not on the values: across a
  // map of one element to another that draws nothing (decoding, parsing), the same elements
  // come in the same order (keras#19502: shuffling file names, not decoded images).
  const auto plain_map = [](const Op& op) { return op.has_map() && !IsRandomMap(op); };
  if ((Shuffles(first) && plain_map(second)) || (plain_map(first) && Shuffles(second))) {
    return std::nullopt;
  }
  // Counting ops across 1:1 maps count the same elements.
  if ((IsCounting(first) && RunsFunction(second)) || (RunsFunction(first) && IsCounting(second))) {
    return std::nullopt;
  }
  if (Batches(first) && Shuffles(second)) {
    return "Shuffling after " + Name(first) +
           " shuffles whole batches: the same elements are batched together in every epoch.";
  }
  if (Shuffles(first) && Batches(second)) {
    return "Batches will be drawn from shuffled elements instead of shuffled as whole "
           "batches, so their contents change.";
  }
  if (Shuffles(first) && Splits(second)) {
    return "Sharding after a shuffle gives each worker a share of a differently shuffled "
           "order: unless every worker uses the same seed, workers see overlapping elements "
           "and miss others.";
  }
  if (Splits(first) && Shuffles(second)) {
    return "Each worker will shuffle only its own shard, so the elements each worker sees "
           "change.";
  }
  // A random map's draws go to its elements in the order they come: shuffled on the other
  // side, each element gets other numbers, drawn alike (one sentence for every random map
  // crossed).
  if ((Shuffles(first) && IsRandomMap(second)) || (IsRandomMap(first) && Shuffles(second))) {
    return "The random maps draw their numbers for the elements in another order, so each "
           "element is augmented otherwise (alike in distribution).";
  }
  if ((Repeats(first) && Shuffles(second)) || (Shuffles(first) && Repeats(second))) {
    return Repeats(first)
               ? "Shuffling after repeat mixes elements across epoch boundaries: an element "
                 "can come twice before another comes once."
               : "Shuffling before repeat keeps epochs apart: every element comes once per "
                 "epoch, in a new order each epoch.";
  }
  // tf.data's guide: repeat before batch yields batches that straddle epoch boundaries.
  if (Repeats(first) && Batches(second)) {
    return "Batching after " + Name(first) +
           " fills batches across epoch ends: no epoch ends with a partial batch, and a batch "
           "may hold the end of one epoch and the start of the next.";
  }
  if (Batches(first) && Repeats(second)) {
    return "Batching before " + Name(second) +
           " batches each epoch on its own: an epoch's last batch may be partial.";
  }
  // A shuffle whose one order comes back each epoch gives it again over a cache's replay.
  if ((Replays(first) && Shuffles(second) && !Reshuffles(second)) ||
      (Shuffles(first) && !Reshuffles(first) && Replays(second))) {
    return std::nullopt;
  }
  if (Replays(first) && Shuffles(second)) {
    return "The cache will hold elements before shuffling, so each epoch is shuffled anew.";
  }
  if (Shuffles(first) && Replays(second)) {
    return "Caching after a shuffle freezes the first epoch's order: every later epoch "
           "repeats it.";
  }
  if (IsRandomMap(first) && Replays(second)) {
    return "Caching after the random map " + Name(first) +
           " freezes its augmentation: every epoch sees the first epoch's random results.";
  }
  if (Replays(first) && IsRandomMap(second)) return std::nullopt;  // the fix for the above
  if (Filters(first) && RunsFunction(second)) {
    if (LeavesValuesUnchanged(second)) return std::nullopt;
    return "The filter's predicate would read elements before " + Name(second) +
           " transforms them, so it keeps different elements.";
  }
  if (RunsFunction(first) && Filters(second)) {
    if (LeavesValuesUnchanged(first)) return std::nullopt;
    return "The filter's predicate would read the output of " + Name(first) +
           " instead of its input, so it keeps different elements.";
  }
  if (Batches(first) && RunsFunction(second)) {
    if (HasBatchedForm(second)) return std::nullopt;  // vectorised
    return Name(second) +
           " has no batched form: it would receive whole batches instead of "
           "single elements.";
  }
  if (RunsFunction(first) && Batches(second)) {
    return HasBatchedForm(first)
               ? std::nullopt
               : std::optional<std::string>(Name(first) +
                                            " will run once per element instead of on batches.");
  }
  if (IsCounting(first) || IsCounting(second)) {
    const bool now_before = IsCounting(first);  // the counting op now comes first
    const Op& counting = now_before ? first : second;
    const Op& other = now_before ? second : first;
    if (Replays(other)) return std::nullopt;
    std::string counts;
    if (Batches(other)) {
      counts = now_before ? "elements instead of batches" : "batches instead of elements";
    } else {
      counts = now_before ? "the input of " + Name(other) + " instead of the elements it produces"
                          : "the elements " + Name(other) + " produces instead of its input";
    }
    return Name(counting) + " will count " + counts +
           ", so different elements reach the training step.";
  }
  if (Replays(first) || Replays(second)) {
    const Op& other = Replays(first) ? second : first;
    if (RunsFunction(other) && !IsRandomMap(other)) return std::nullopt;  // what is cached moves
  }
  return "Moving " + Name(first) + " before " + Name(second) +
         " may change what reaches the training step.";
}

}  // namespace

std::string UnusedName(const spec::PipelineSpec& spec, const std::string& base) {
  std::set<std::string> names{spec.source().name()};
  for (const auto& op : spec.ops()) names.insert(op.name());
  std::string name = base;
  for (int i = 2; names.count(name); ++i) name = base + "_" + std::to_string(i);
  return name;
}

bool OnlyBuffers(const Op& op) { return KindOf(op).parallel_work == ParallelWork::kOneProducer; }
bool RunsFunction(const Op& op) { return FunctionOf(op) != nullptr; }
bool Batches(const Op& op) { return KindOf(op).ratio == OutputRatio::kOneOverBatch; }
bool Shuffles(const Op& op) { return KindOf(op).order == ElementOrder::kRandom; }
bool Splits(const Op& op) { return KindOf(op).splits_among_workers; }
bool Repeats(const Op& op) { return KindOf(op).ratio == OutputRatio::kTimesCount; }
bool Replays(const Op& op) { return KindOf(op).replays; }
bool Filters(const Op& op) { return KindOf(op).ratio == OutputRatio::kAtMostOne; }
bool IsCounting(const Op& op) { return KindOf(op).ratio == OutputRatio::kCounted; }

bool IsRandomOp(const Op& op) {
  const OpKindDescription* d = DescribeOp(op);
  return (d && d->random) || IsRandomMap(op);
}

bool Reshuffles(const Op& op) { return Shuffles(op) && !ShufflesInOneOrderEveryEpoch(op); }

bool DiffersEachEpoch(const Op& op) { return IsRandomOp(op) && (!Shuffles(op) || Reshuffles(op)); }

int ShufflePlaceBeforeItsMaps(const spec::PipelineSpec& spec, int shuffle) {
  const auto makes_or_buffers = [](const spec::Op& before) {
    return before.has_map() || OnlyBuffers(before) || Repeats(before) || before.has_batch() ||
           before.has_padded_batch();
  };
  int to = shuffle;
  while (to > 0 && makes_or_buffers(spec.ops(to - 1))) --to;
  // A prefetch or a repeat ahead of the maps stays ahead.
  while (to < shuffle && (OnlyBuffers(spec.ops(to)) || Repeats(spec.ops(to)))) ++to;
  return to < shuffle && spec.ops(to).has_map() ? to : shuffle;
}

spec::PipelineSpec MoveOp(spec::PipelineSpec spec, int from, int to) {
  auto* ops = spec.mutable_ops();
  const int step = to > from ? 1 : -1;
  for (int i = from; i != to; i += step) ops->SwapElements(i, i + step);
  return spec;
}

MoveAssessment AssessMove(const spec::PipelineSpec& spec, int from, int to) {
  const int n = spec.ops_size();
  if (from < 0 || from >= n || to < 0 || to >= n || from == to) return {true, "Nothing moves."};
  const Op& moved = spec.ops(from);
  const int step = to > from ? 1 : -1;
  // Each op it crosses, in the order crossed: a repeat moved before a batch and a shuffle
  // changes both (tensorflow#30646).
  std::string effects;
  for (int i = from + step; i != to + step; i += step) {
    const Op& crossed = spec.ops(i);
    // Moving earlier puts `moved` before `crossed`; moving later puts it after.
    const auto effect = step < 0 ? SwapEffect(moved, crossed) : SwapEffect(crossed, moved);
    if (effect && effects.find(*effect) == std::string::npos) {
      effects += (effects.empty() ? "" : " ") + *effect;
    }
  }
  if (!effects.empty()) return {false, effects};
  return {true, "Moving " + Name(moved) +
                    " keeps every element and its order; only timing "
                    "changes."};
}

MoveAssessment AssessChange(const spec::PipelineSpec& before, const spec::PipelineSpec& after) {
  std::map<std::string, int> in_before, in_after;
  for (int i = 0; i < before.ops_size(); ++i) in_before[before.ops(i).name()] = i;
  for (int i = 0; i < after.ops_size(); ++i) in_after[after.ops(i).name()] = i;
  // Ops removed or added: only prefetch (timing) and a cache with nothing before it that
  // differs between epochs keep the output.
  for (const auto* side : {&before, &after}) {
    const auto& other = side == &before ? in_after : in_before;
    for (int i = 0; i < side->ops_size(); ++i) {
      const Op& op = side->ops(i);
      if (other.count(op.name())) continue;
      const bool added = side == &after;
      if (OnlyBuffers(op)) continue;
      if (Replays(op)) {
        const Op* random_before = nullptr;
        for (int j = 0; j < i; ++j) {
          if (DiffersEachEpoch(side->ops(j))) random_before = &side->ops(j);
        }
        if (!random_before) continue;
        if (IsRandomMap(*random_before)) {
          return {false,
                  "A cache after a random map freezes its augmentation: every epoch sees "
                  "the first epoch's random results."};
        }
        return {false, "A cache after " + Name(*random_before) +
                           " freezes the first epoch's order: every later epoch repeats it."};
      }
      return {false, std::string(added ? "Adding " : "Removing ") + Name(op) +
                         " changes what reaches the training step."};
    }
  }
  // Reorder: replay it as single moves on the common ops, each assessed in turn.
  spec::PipelineSpec current = before;
  for (int i = current.ops_size() - 1; i >= 0; --i) {
    if (!in_after.count(current.ops(i).name())) current.mutable_ops()->DeleteSubrange(i, 1);
  }
  std::vector<std::string> target;
  for (const auto& op : after.ops()) {
    if (in_before.count(op.name())) target.push_back(op.name());
  }
  MoveAssessment result{true, "The order of the ops is unchanged."};
  for (int i = 0; i < static_cast<int>(target.size()); ++i) {
    int from = i;
    while (current.ops(from).name() != target[static_cast<size_t>(i)]) ++from;
    if (from == i) continue;
    MoveAssessment move = AssessMove(current, from, i);
    if (!move.keeps_output) return move;
    result = move;
    current = MoveOp(std::move(current), from, i);
  }
  return result;
}

}  // namespace pipescope::engine
