#pragma once
// What a stage of a built pipeline is, for its trace (record::StageTrait): read from its
// op kind's description, so both clocks' builders say the same and a new kind's stages say
// what they do without any analysis knowing the kind's name.

#include <cstdint>

#include "engine/spec/op_kinds.h"
#include "engine/spec/op_values.h"
#include "engine/work/work_registry.h"
#include "instrumentation/record/trace_sink.h"

namespace pipescope::engine {

// Sources, and the sources of an interleave's sub-pipelines.
inline constexpr uint32_t kSourceStageTraits = record::kTraitSource;

// An op of `kind`.
inline uint32_t StageTraitsOf(const OpKindDescription& kind) {
  uint32_t t = 0;
  if (kind.ratio == OutputRatio::kOneOverBatch) t |= record::kTraitBatches;
  if (kind.ratio == OutputRatio::kRowsPerElement) t |= record::kTraitUnbatches;
  if (kind.replays) t |= record::kTraitReplays;
  if (kind.order == ElementOrder::kRandom) t |= record::kTraitDrawsOrderFromBuffer;
  if (kind.ratio == OutputRatio::kTimesCount) t |= record::kTraitRepeats;
  if (kind.second_source) t |= record::kTraitZips;
  switch (kind.parallel_work) {
    case ParallelWork::kFunction:
      t |= record::kTraitParallelFunction;
      break;
    case ParallelWork::kSubPipelines:
      t |= record::kTraitParallelReads;
      break;
    case ParallelWork::kOneProducer:
      t |= record::kTraitOneProducer;
      break;
    case ParallelWork::kWorkerProcesses:
      t |= record::kTraitWorkerProcesses;
      break;
    case ParallelWork::kEnqueuerWorkers:
      t |= record::kTraitEnqueuerWorkers;
      break;
    case ParallelWork::kNone:
      break;
  }
  return t;
}

// Python that holds its process's interpreter lock for some of its time.
inline bool HoldsInterpreterLock(const spec::WorkFunction& fn) {
  return fn.has_python() && PythonGilShare(fn.python()) > 0;
}

// A Python generator's source (top-level, or an interleave's per element): it holds the lock.
inline uint32_t GeneratorStageTraits(const spec::FromGeneratorSource& g) {
  uint32_t t = kSourceStageTraits;
  if (PythonGilShare(g) > 0) t |= record::kTraitHoldsInterpreterLock;
  return t;
}

// A top-level source, with what its own fields add (a Python generator holds the lock).
inline uint32_t SourceStageTraits(const spec::Source& s) {
  return s.has_from_generator() ? GeneratorStageTraits(s.from_generator()) : kSourceStageTraits;
}

// An op of `kind`, with what its own fields add (a function that holds the interpreter lock,
// one that waits: on its own, or on `disk`, the spec's, for the files it reads).
inline uint32_t StageTraitsOf(const spec::Op& op, const OpKindDescription& kind, bool disk) {
  uint32_t t = StageTraitsOf(kind);
  if ((kind.random && !ShufflesInOneOrderEveryEpoch(op)) || (op.has_map() && op.map().random())) {
    t |= record::kTraitRandom;
  }
  if (const spec::WorkFunction* fn = FunctionOf(op)) {
    if (HoldsInterpreterLock(*fn)) t |= record::kTraitHoldsInterpreterLock;
    if (!WorkFunctionHasBatchedForm(*fn)) t |= record::kTraitOneElementFunction;
    if (WorkFunctionIsRandom(*fn)) t |= record::kTraitRandom;
    if (WorkFunctionWaits(*fn, disk)) t |= record::kTraitWaits;
  }
  if (kind.traits_of_fields) t |= kind.traits_of_fields(op);
  return t;
}

}  // namespace pipescope::engine
