#include "engine/tuning/move_rules.h"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "engine/spec/op_kinds.h"
#include "engine/spec/spec_validator.h"
#include "engine/work/work_registry.h"

namespace pipescope::engine {
namespace {

using spec::Op;

bool IsRandomMap(const Op& op) {
  return op.has_map() && (op.map().fn().has_random_crop() || op.map().fn().has_random_flip());
}
// Functions that do work without changing the element (they model CPU or I/O cost).
bool LeavesValuesUnchanged(const Op& op) {
  if (!op.has_map()) return false;
  const auto& fn = op.map().fn();
  return fn.has_identity() || fn.has_cpu_work() || fn.has_io_wait();
}
// take, skip and shard: which elements pass depends on how many came before.
bool IsCounting(const Op& op) {
  const OpKindDescription* d = DescribeOp(op);
  return d && d->ratio == OutputRatio::kCounted;
}

std::string Name(const Op& op) { return "'" + op.name() + "' (" + OpKindName(op) + ")"; }

// What changes when `first` ends up directly before `second` where it used to be after it
// (nullopt: nothing does). The order of the arguments is the new order.
std::optional<std::string> SwapEffect(const Op& first, const Op& second) {
  if (first.has_prefetch() || second.has_prefetch()) return std::nullopt;
  // Counting ops across 1:1 maps count the same elements.
  if ((IsCounting(first) && second.has_map()) || (first.has_map() && IsCounting(second))) {
    return std::nullopt;
  }
  if (first.has_batch() && second.has_shuffle()) {
    return "Shuffling after " + Name(first) +
           " shuffles whole batches: the same elements are batched together in every epoch.";
  }
  if (first.has_shuffle() && second.has_batch()) {
    return "Batches will be drawn from shuffled elements instead of shuffled as whole "
           "batches, so their contents change.";
  }
  if (first.has_shuffle() && second.has_shard()) {
    return "Sharding after a shuffle gives each worker a share of a differently shuffled "
           "order: unless every worker uses the same seed, workers see overlapping elements "
           "and miss others.";
  }
  if (first.has_shard() && second.has_shuffle()) {
    return "Each worker will shuffle only its own shard, so the elements each worker sees "
           "change.";
  }
  if ((first.has_repeat() && second.has_shuffle()) ||
      (first.has_shuffle() && second.has_repeat())) {
    return first.has_repeat()
               ? "Shuffling after repeat mixes elements across epoch boundaries: an element "
                 "can come twice before another comes once."
               : "Shuffling before repeat keeps epochs apart: every element comes once per "
                 "epoch, in a new order each epoch.";
  }
  if (first.has_cache() && second.has_shuffle()) {
    return "The cache will hold elements before shuffling, so each epoch is shuffled anew.";
  }
  if (first.has_shuffle() && second.has_cache()) {
    return "Caching after a shuffle freezes the first epoch's order: every later epoch "
           "repeats it.";
  }
  if (IsRandomMap(first) && second.has_cache()) {
    return "Caching after the random map " + Name(first) +
           " freezes its augmentation: every epoch sees the first epoch's random results.";
  }
  if (first.has_cache() && IsRandomMap(second)) return std::nullopt;  // the fix for the above
  if (first.has_filter() && second.has_map()) {
    if (LeavesValuesUnchanged(second)) return std::nullopt;
    return "The filter's predicate would read elements before " + Name(second) +
           " transforms them, so it keeps different elements.";
  }
  if (first.has_map() && second.has_filter()) {
    if (LeavesValuesUnchanged(first)) return std::nullopt;
    return "The filter's predicate would read the output of " + Name(first) +
           " instead of its input, so it keeps different elements.";
  }
  if (first.has_batch() && second.has_map()) {
    if (WorkFunctionHasBatchedForm(second.map().fn())) return std::nullopt;  // vectorised
    return Name(second) +
           " has no batched form: it would receive whole batches instead of "
           "single elements.";
  }
  if (first.has_map() && second.has_batch()) {
    return WorkFunctionHasBatchedForm(first.map().fn())
               ? std::nullopt
               : std::optional<std::string>(Name(first) +
                                            " will run once per element instead of on batches.");
  }
  if (IsCounting(first) || IsCounting(second)) {
    const Op& counting = IsCounting(first) ? first : second;
    const Op& other = IsCounting(first) ? second : first;
    if (other.has_cache()) return std::nullopt;
    return Name(counting) + " will count " +
           (other.has_batch() ? std::string("batches instead of elements")
                              : "the elements " + Name(other) + " produces instead of its input") +
           ", so different elements reach the training step.";
  }
  if (first.has_cache() || second.has_cache()) {
    const Op& other = first.has_cache() ? second : first;
    if (other.has_map() && !IsRandomMap(other)) return std::nullopt;  // what is cached moves
  }
  return "Moving " + Name(first) + " before " + Name(second) +
         " may change what reaches the training step.";
}

}  // namespace

bool IsRandomOp(const Op& op) {
  const OpKindDescription* d = DescribeOp(op);
  return (d && d->random) || IsRandomMap(op);
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
  for (int i = from + step; i != to + step; i += step) {
    const Op& crossed = spec.ops(i);
    // Moving earlier puts `moved` before `crossed`; moving later puts it after.
    const auto effect = step < 0 ? SwapEffect(moved, crossed) : SwapEffect(crossed, moved);
    if (effect) return {false, *effect};
  }
  return {true, "Moving " + Name(moved) +
                    " keeps every element and its order; only timing "
                    "changes."};
}

MoveAssessment AssessChange(const spec::PipelineSpec& before, const spec::PipelineSpec& after) {
  std::map<std::string, int> in_before, in_after;
  for (int i = 0; i < before.ops_size(); ++i) in_before[before.ops(i).name()] = i;
  for (int i = 0; i < after.ops_size(); ++i) in_after[after.ops(i).name()] = i;
  // Ops removed or added: only prefetch (timing) and a cache with nothing random before it
  // keep the output.
  for (const auto* side : {&before, &after}) {
    const auto& other = side == &before ? in_after : in_before;
    for (int i = 0; i < side->ops_size(); ++i) {
      const Op& op = side->ops(i);
      if (other.count(op.name())) continue;
      const bool added = side == &after;
      if (op.has_prefetch()) continue;
      if (op.has_cache()) {
        const Op* random_before = nullptr;
        for (int j = 0; j < i; ++j) {
          if (IsRandomOp(side->ops(j))) random_before = &side->ops(j);
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
