#pragma once
// Factories for every op's Dataset. Each op's Dataset and Iterator classes live in their
// own .cc file; this header is the one way to build them (the pipeline builder uses it).
// Knobs are passed as shared Tunables so the UI and autotuner can change them live.

#include <memory>
#include <optional>
#include <string>

#include "engine/io/byte_source.h"
#include "engine/io/fixed_length_record_reader.h"
#include "engine/runtime/dataloader_rules.h"
#include "engine/runtime/iterator.h"
#include "engine/runtime/storage_device.h"
#include "engine/runtime/tunable.h"
#include "engine/work/work_registry.h"

namespace pipescope::engine {

using StatsPtr = std::shared_ptr<StageStats>;
using TunablePtr = std::shared_ptr<Tunable>;

// ---- sources
DatasetPtr MakeRangeDataset(StatsPtr stats, int64_t start, int64_t stop, int64_t step);
// The scalar elements `slices`, in order, each pass.
// `element_bytes` > 0: each element a row of that many bytes in place of its slice.
DatasetPtr MakeFromTensorSlicesDataset(StatsPtr stats, std::vector<Tensor> slices,
                                       int64_t element_bytes = 0);
// Dataset.from_generator: 0, 1, ..., records - 1 (-1: endless), each after a call of
// `next` (the generator's Python), one at a time; with rows_per_yield > 1, that many a call,
// as one vector (GeneratorRowsOfYield). Each iterator first waits `first_wait_ns` (the
// generator's code before its first yield), cancellably, with no lock held.
DatasetPtr MakeFromGeneratorDataset(StatsPtr stats, int64_t records, int64_t rows_per_yield,
                                    int64_t first_wait_ns,
                                    std::shared_ptr<const WorkFunction> next);
// What a from_generator yields after `yielded` rows: the row's number, or with
// rows_per_yield > 1 a vector of the next rows' (GeneratorRowsOfYield); both clocks' values.
Tensor GeneratorYield(int64_t yielded, int64_t records, int64_t rows_per_yield);
// Shuffled each pass when `shuffle`, with `seed` or a fresh one per run; else sorted.
DatasetPtr MakeListFilesDataset(StatsPtr stats, std::string pattern, bool shuffle,
                                std::optional<uint64_t> seed);

struct SyntheticRecords {
  int64_t records = 1;  // -1: endless
  int64_t record_bytes = 0;
  int64_t open_latency_ns = 0;
  int64_t read_latency_ns = 0;       // per request (storage_requests.h)
  int64_t read_request_bytes = 0;    // 0: a request per record
  double read_latency_cv = 0;        // each request's latency's spread (log-normal)
  double bandwidth_bytes_per_s = 0;  // 0: unlimited
  uint64_t seed = 0;
  // The spec's disk, which reads each record (RecordsReadFromTheDisk); null: the latency and
  // bandwidth above alone.
  StorageDevicePtr storage;
};
DatasetPtr MakeSyntheticDataset(StatsPtr stats, SyntheticRecords config);
// Inside an interleave: records of the file named by the parent element.
DatasetPtr MakeSyntheticFileDataset(StatsPtr stats, SyntheticRecords config);
// TFRecordDataset(files) as a source, and per file inside an interleave. With `storage` (the
// spec's disk) each reader buffer the records need is a read of it, a file's first one
// opening the file, as synthetic files' are (storage_rules.h).
DatasetPtr MakeTfRecordDataset(StatsPtr stats, std::vector<std::string> files,
                               Compression compression, bool skip_corrupt,
                               StorageDevicePtr storage = nullptr);
DatasetPtr MakeTfRecordFileDataset(StatsPtr stats, Compression compression, bool skip_corrupt,
                                   StorageDevicePtr storage = nullptr);
// TextLineDataset(files): every line of each file in order; text_line_file: the lines of
// the file the input element names (inside an interleave).
DatasetPtr MakeTextLineDataset(StatsPtr stats, std::vector<std::string> files,
                               Compression compression);
DatasetPtr MakeTextLineFileDataset(StatsPtr stats, Compression compression);
// FixedLengthRecordDataset(files, ...) as a source, and per file inside an interleave; reads
// of the spec's disk as TFRecordDataset's.
DatasetPtr MakeFixedLengthRecordDataset(StatsPtr stats, std::vector<std::string> files,
                                        const FixedLengthRecordFormat& format,
                                        StorageDevicePtr storage = nullptr);
DatasetPtr MakeFixedLengthRecordFileDataset(StatsPtr stats, const FixedLengthRecordFormat& format,
                                            StorageDevicePtr storage = nullptr);
// Inside an interleave: Dataset.from_tensors(parent element), and with `repeat_by_value`
// .repeat(parent element) (which must then be an int64 scalar); with `slices` > 0, that
// many elements (from_tensor_slices of what the function made).
DatasetPtr MakeFromElementDataset(StatsPtr stats, bool repeat_by_value, int64_t slices);

// ---- transformations
// `parallelism` null: a sequential map on the caller's thread; otherwise a parallel map
// with that many workers. `batched_input`: the input is batched, so the batched form runs.
DatasetPtr MakeMapDataset(StatsPtr stats, DatasetPtr input, std::shared_ptr<const WorkFunction> fn,
                          bool batched_input, TunablePtr parallelism, bool deterministic);
// What a map does to one element: fn, or its batched form on a batch (`batched_input`).
// Errors name the op, the function and the element.
Status ApplyMapFunction(const WorkFunction& fn, Element& e, bool batched_input,
                        CancellationToken& cancellation, const std::string& op);
DatasetPtr MakeFilterDataset(StatsPtr stats, DatasetPtr input,
                             std::shared_ptr<const Predicate> predicate);
// `passes` over its input: 1 for a shuffle alone, the repeat's count (-1 forever) for one
// fused with the repeat after it (PlannedOp::shuffle_passes).
DatasetPtr MakeShuffleDataset(StatsPtr stats, DatasetPtr input, TunablePtr buffer_size,
                              std::optional<uint64_t> seed, bool reshuffle_each_iteration,
                              int64_t passes);
// Groups of batch_size elements (batch_rules.h), each component combined across the group
// by `combine`: stacked for batch, padded then stacked for padded_batch.
DatasetPtr MakeBatchDataset(StatsPtr stats, DatasetPtr input, TunablePtr batch_size,
                            bool drop_remainder, CombineComponent combine = Tensor::Stack);
DatasetPtr MakeUnbatchDataset(StatsPtr stats, DatasetPtr input);
// torch.utils.data.DataLoader (engine/runtime/dataloader_rules.h): `rules` as planned;
// num_workers and prefetch_factor are read from their knobs when an iterator (an epoch)
// starts. getitem runs per item, collate (may be null) per batch. Keras's enqueuer runs on
// it too: its workers and max_queue_size are the two knobs (rules.queue_size set).
struct DataLoaderFunctions {
  std::shared_ptr<const WorkFunction> getitem;
  std::shared_ptr<const WorkFunction> collate;
};
DatasetPtr MakeDataLoaderDataset(StatsPtr stats, DatasetPtr input, const DataLoaderRules& rules,
                                 TunablePtr num_workers, TunablePtr prefetch_factor,
                                 DataLoaderFunctions fns);
DatasetPtr MakePrefetchDataset(StatsPtr stats, DatasetPtr input, TunablePtr buffer_size);
DatasetPtr MakeShardDataset(StatsPtr stats, DatasetPtr input, int64_t num_shards, int64_t index);
DatasetPtr MakeCacheDataset(StatsPtr stats, DatasetPtr input);
DatasetPtr MakeRepeatDataset(StatsPtr stats, DatasetPtr input, int64_t count);
DatasetPtr MakeTakeDataset(StatsPtr stats, DatasetPtr input, int64_t count);
DatasetPtr MakeSkipDataset(StatsPtr stats, DatasetPtr input, int64_t count);
// `second` is the pipeline zipped beside the input; its value becomes `second_name`.
DatasetPtr MakeZipDataset(StatsPtr stats, DatasetPtr input, DatasetPtr second,
                          std::string second_name);

// `per_element` is the sub-pipeline opened for each input element (its source reads
// IteratorArgs::parent). `parallelism` null: synchronous interleave.
DatasetPtr MakeInterleaveDataset(StatsPtr stats, DatasetPtr input, DatasetPtr per_element,
                                 TunablePtr cycle_length, TunablePtr block_length,
                                 TunablePtr parallelism, bool deterministic);

}  // namespace pipescope::engine
