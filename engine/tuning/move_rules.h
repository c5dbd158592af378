#pragma once
// Which changes to a pipeline keep what reaches the training step, and which change it:
// the rules the Pipeline dock applies before it reorders, adds or removes an op live, and
// the autotuners' order advice. A move that keeps the output applies directly; one that
// changes it needs the user's confirmation, with one sentence saying what changes and why.
//
// Kept: prefetch anywhere; take, skip and shard moved across 1:1 maps; a map with a
// batched form moved across batch (vectorising it); a filter moved across a map that
// leaves elements unchanged (cpu_work, io_wait, identity); cache added where nothing
// random runs before it. Changed: shuffle <-> batch, shard after shuffle, repeat <-> shuffle, cache
// after a random map or a shuffle, a filter moved before the map whose output its predicate reads,
// batch moved before a map without a batched form, and anything these rules do not know
// (conservatively: the user is asked).

#include <string>

#include "engine/spec/pipeline_spec.pb.h"

namespace pipescope::engine {

struct MoveAssessment {
  bool keeps_output = true;
  std::string explanation;  // one sentence for people
};

// What an op is to the move rules and the order advice, from its kind's description
// (op_kinds.h), never its kind's name: a new kind with the same traits moves as the kinds
// it resembles.
bool OnlyBuffers(const spec::Op& op);   // only timing: one thread fills a buffer (prefetch)
bool RunsFunction(const spec::Op& op);  // a function on each element (map)
bool Batches(const spec::Op& op);       // one element of several (batch, padded_batch, DataLoader)
bool Shuffles(const spec::Op& op);
bool Splits(const spec::Op& op);  // each worker takes its share (shard)
bool Repeats(const spec::Op& op);
bool Replays(const spec::Op& op);     // hands out what it kept after one pass (cache)
bool Filters(const spec::Op& op);     // keeps or drops each element by a predicate
bool IsCounting(const spec::Op& op);  // take, skip, shard: what passes depends on a count

// Its output depends on a seed: its kind (shuffle) or its function (random augmentation).
bool IsRandomOp(const spec::Op& op);
// A shuffle that draws a new order each epoch (a DataLoader's RandomSampler; not
// shuffle(reshuffle_each_iteration=False), whose one order comes back every epoch).
bool Reshuffles(const spec::Op& op);
// Its output differs from one epoch to the next: a random op, but a shuffle only where it
// reshuffles. A cache after it would replay the first epoch's draws.
bool DiffersEachEpoch(const spec::Op& op);

// Where the shuffle at top-level index `shuffle` would go to fill its buffer with what the
// maps before it start from: before those maps, and the prefetches, batches and a repeat
// among them (a prefetch or a repeat ahead of the maps stays ahead). `shuffle` itself where
// no map comes before it so.
int ShufflePlaceBeforeItsMaps(const spec::PipelineSpec& spec, int shuffle);

// `spec` with its top-level op at index `from` moved to index `to`, the ops between
// shifting by one.
spec::PipelineSpec MoveOp(spec::PipelineSpec spec, int from, int to);
// `base`, or `base_2`, ...: a name neither the source nor an op of `spec` has (an op or a
// source a change adds).
std::string UnusedName(const spec::PipelineSpec& spec, const std::string& base);

// Moving the top-level op at index `from` to index `to` (indices of spec.ops()).
MoveAssessment AssessMove(const spec::PipelineSpec& spec, int from, int to);

// Turning `before` into `after`: the same ops (by name) in another order, or ops added or
// removed. A reorder is assessed as the moves that produce it.
MoveAssessment AssessChange(const spec::PipelineSpec& before, const spec::PipelineSpec& after);

}  // namespace pipescope::engine
