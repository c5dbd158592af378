#pragma once
// Factories of the simulator's ops, one per op kind of the spec, with tf.data's semantics
// (see the engine's ops/ for the real ones they mirror).

#include <cstdint>
#include <optional>
#include <string>

#include "engine/runtime/dataloader_rules.h"
#include "engine/sim/sim_iterator.h"

namespace pipescope::sim {

// The values a source's records carry: record i is start + step * i (a range's numbers;
// other sources' records carry their index), or the i-th of `listed` (from_tensor_slices'
// values).
struct SimValues {
  int64_t start = 0;
  int64_t step = 1;
  std::shared_ptr<const std::vector<int64_t>> listed;
  int64_t At(int64_t i) const {
    return listed ? (*listed)[static_cast<size_t>(i)] : start + step * i;
  }
};
// Sources: `records` per pass (-1: endless). A file source (inside an interleave) pays its
// stage's open_wait on its first read.
SimDatasetPtr MakeSimSource(SimStage& stage, int64_t records, SimValues values = {});
// from_generator: 0, 1, ..., records - 1, one next() at a time, each costing the stage's
// CPU with its gil_share under the interpreter lock; with rows_per_yield > 1, that many rows
// a next(), as one batch (GeneratorRowsOfYield).
SimDatasetPtr MakeSimFromGenerator(SimStage& stage, int64_t records, int64_t rows_per_yield);
// list_files: its `files` in sorted order, or shuffled each pass (with `seed`, else with one
// drawn from the simulation's seed), in the order the engine's list_files gives them.
SimDatasetPtr MakeSimListFiles(SimStage& stage, int64_t files, bool shuffle,
                               std::optional<uint64_t> seed);
// from_tensors(x), or from_tensors(x).repeat(x) with `repeat_by_value`, or `slices` rows.
SimDatasetPtr MakeSimFromElement(SimStage& stage, bool repeat_by_value, int64_t slices);

SimDatasetPtr MakeSimSequentialMap(SimStage& stage, SimDatasetPtr input);
SimDatasetPtr MakeSimMap(SimStage& stage, SimDatasetPtr input, int64_t parallelism,
                         bool deterministic);  // parallelism 0: in the caller's thread
SimDatasetPtr MakeSimPrefetch(SimStage& stage, SimDatasetPtr input, int64_t buffer_size);
SimDatasetPtr MakeSimInterleave(SimStage& stage, SimDatasetPtr input, SimDatasetPtr per_element,
                                int64_t cycle_length, int64_t block_length, int64_t parallelism,
                                bool deterministic);

// filter: with `mod_equals` (where the builder knows the elements carry a range's values),
// the engine's rule on each value; otherwise a keep_fraction of elements by content.
struct SimModEquals {
  int64_t modulus = 1;
  int64_t remainder = 0;
};
SimDatasetPtr MakeSimFilter(SimStage& stage, SimDatasetPtr input,
                            std::optional<SimModEquals> mod_equals);
// `passes` as MakeShuffleDataset's.
SimDatasetPtr MakeSimShuffle(SimStage& stage, SimDatasetPtr input, int64_t buffer_size,
                             std::optional<uint64_t> seed, bool reshuffle_each_iteration,
                             int64_t passes);
// torch.utils.data.DataLoader (engine/runtime/dataloader_rules.h): getitem per item is the
// stage's cpu_per_row (and wait), collate its cpu per batch, under the interpreter lock of
// the process that runs them for the cost's gil_share.
SimDatasetPtr MakeSimDataLoader(SimStage& stage, SimDatasetPtr input,
                                const engine::DataLoaderRules& rules);
SimDatasetPtr MakeSimBatch(SimStage& stage, SimDatasetPtr input, int64_t batch_size,
                           bool drop_remainder);
SimDatasetPtr MakeSimUnbatch(SimStage& stage, SimDatasetPtr input);
SimDatasetPtr MakeSimShard(SimStage& stage, SimDatasetPtr input, int64_t num_shards, int64_t index);
SimDatasetPtr MakeSimCache(SimStage& stage, SimDatasetPtr input);
SimDatasetPtr MakeSimRepeat(SimStage& stage, SimDatasetPtr input, int64_t count);
SimDatasetPtr MakeSimTake(SimStage& stage, SimDatasetPtr input, int64_t count);
SimDatasetPtr MakeSimSkip(SimStage& stage, SimDatasetPtr input, int64_t count);
// zip: `second` is the pipeline zipped beside the input.
SimDatasetPtr MakeSimZip(SimStage& stage, SimDatasetPtr input, SimDatasetPtr second);

// A content key for record `index` of the stream opened for `parent` (0 at the top level).
inline uint64_t RecordKey(uint64_t parent_key, int64_t index) {
  uint64_t z = parent_key * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(index) + 1;
  z = (z ^ (z >> 31)) * 0xBF58476D1CE4E5B9ull;
  return z ^ (z >> 29);
}

}  // namespace pipescope::sim
