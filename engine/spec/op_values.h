#pragma once
// What a spec's written and omitted values mean, as tf.data reads its arguments. The
// fields where "absent" and "0" differ are `optional` in pipeline_spec.proto; both builders,
// the validator and the tuners read them through these functions, so each meaning is
// written once.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "engine/spec/pipeline_spec.pb.h"
#include "engine/spec/spec_loader.h"

namespace pipescope::engine {

// range(start, stop): an unwritten step (0 in proto3) is 1.
inline int64_t RangeStep(const spec::RangeSource& r) { return r.step() == 0 ? 1 : r.step(); }
// A step trained on the host's CPU (device: cpu), not on an accelerator: it takes a core on
// both clocks, and pinned memory means nothing to it.
inline bool StepOnHost(const spec::TrainStep& step) { return step.device() == spec::cpu; }
// The elements of range(start, stop, step), as Python's len() counts them (step not 0).
inline int64_t RangeLength(int64_t start, int64_t stop, int64_t step) {
  return std::max<int64_t>(0, (stop - start + step - (step > 0 ? 1 : -1)) / step);
}

// repeat(): absent or -1 is forever, 0 is no elements at all.
inline int64_t RepeatCount(const spec::RepeatOp& op) { return op.has_count() ? op.count() : -1; }

// interleave(cycle_length=None) is AUTOTUNE; a written 0 is refused by the validator.
inline int64_t CycleLength(const spec::InterleaveOp& op) {
  return op.has_cycle_length() ? op.cycle_length() : kAutotune;
}

// interleave(block_length=None) is 1.
inline int64_t BlockLength(const spec::InterleaveOp& op) {
  return op.has_block_length() ? op.block_length() : 1;
}

// shuffle(seed=None) draws a fresh seed every run; any written seed, 0 included, is fixed.
inline std::optional<uint64_t> ShuffleSeed(const spec::ShuffleOp& op) {
  if (!op.has_seed()) return std::nullopt;
  return static_cast<uint64_t>(op.seed());
}

// from_tensor_slices: how many elements a pass gives (its entries, or its count).
inline int64_t SliceCount(const spec::FromTensorSlicesSource& s) {
  if (s.values_size() > 0) return s.values_size();
  if (s.strings_size() > 0) return s.strings_size();
  return s.count();
}

// shuffle(reshuffle_each_iteration=None) reshuffles every pass.
inline bool ReshufflesEachIteration(const spec::ShuffleOp& op) {
  return !op.has_reshuffle_each_iteration() || op.reshuffle_each_iteration();
}

// A shuffle whose one order comes back every epoch (reshuffle_each_iteration=False): nothing
// it draws differs from one epoch to the next, so a cache after it freezes nothing.
inline bool ShufflesInOneOrderEveryEpoch(const spec::Op& op) {
  return op.has_shuffle() && !ReshufflesEachIteration(op.shuffle());
}

// map(deterministic=None) and interleave(deterministic=None) keep their order.
template <class ParallelOp>
bool Deterministic(const ParallelOp& op) {
  return !op.has_deterministic() || op.deterministic();
}

// list_files(shuffle=None) shuffles.
// python(gil_share=None) holds the interpreter lock throughout: pure Python code.
inline double PythonGilShare(const spec::Python& p) {
  return p.has_gil_share() ? p.gil_share() : 1;
}
inline double PythonGilShare(const spec::FromGeneratorSource& g) {
  return g.has_gil_share() ? g.gil_share() : 1;
}

// The rows a generator's yield holds once it has yielded `yielded` rows of `records` (-1:
// endless): rows_per_yield (at least 1), fewer in the last; both clocks count by it.
inline int64_t GeneratorRowsOfYield(int64_t yielded, int64_t records, int64_t rows_per_yield) {
  const int64_t rows = rows_per_yield > 1 ? rows_per_yield : 1;
  return records < 0 ? rows : std::max<int64_t>(0, std::min(rows, records - yielded));
}

inline bool ListFilesShuffles(const spec::ListFilesSource& s) {
  return !s.has_shuffle() || s.shuffle();
}

inline std::optional<uint64_t> ListFilesSeed(const spec::ListFilesSource& s) {
  if (!s.has_seed()) return std::nullopt;
  return static_cast<uint64_t>(s.seed());
}

// DataLoader(prefetch_factor=None) with workers: 2; DataLoader(in_order=True).
inline constexpr int64_t kDefaultPrefetchFactor = 2;
inline int64_t DataLoaderPrefetchFactor(const spec::DataLoaderOp& op) {
  return op.has_prefetch_factor() ? op.prefetch_factor() : kDefaultPrefetchFactor;
}
inline bool DataLoaderInOrder(const spec::DataLoaderOp& op) {
  return !op.has_in_order() || op.in_order();
}

// fit(workers=1, max_queue_size=10): Keras's defaults.
inline constexpr int64_t kKerasDefaultWorkers = 1;
inline constexpr int64_t kKerasDefaultQueueSize = 10;
inline int64_t KerasWorkers(const spec::KerasFitOp& op) {
  return op.has_workers() ? op.workers() : kKerasDefaultWorkers;
}
inline int64_t KerasQueueSize(const spec::KerasFitOp& op) {
  return op.has_max_queue_size() ? op.max_queue_size() : kKerasDefaultQueueSize;
}

// An integer field of an op's message read by name (--set, the GUI's knobs), with an omitted
// optional field reading as what it means above.
inline int64_t IntFieldValue(const google::protobuf::Message& params,
                             const google::protobuf::FieldDescriptor& field) {
  const auto* r = params.GetReflection();
  if (field.has_presence() && !r->HasField(params, &field)) {
    if (const auto* il = dynamic_cast<const spec::InterleaveOp*>(&params)) {
      if (field.name() == "cycle_length") return CycleLength(*il);
      if (field.name() == "block_length") return BlockLength(*il);
    }
    if (const auto* repeat = dynamic_cast<const spec::RepeatOp*>(&params))
      return RepeatCount(*repeat);
    if (const auto* loader = dynamic_cast<const spec::DataLoaderOp*>(&params);
        loader && field.name() == "prefetch_factor") {
      return DataLoaderPrefetchFactor(*loader);
    }
    if (const auto* keras = dynamic_cast<const spec::KerasFitOp*>(&params)) {
      if (field.name() == "workers") return KerasWorkers(*keras);
      if (field.name() == "max_queue_size") return KerasQueueSize(*keras);
    }
  }
  return r->GetInt64(params, &field);
}

}  // namespace pipescope::engine
