#pragma once
// torch.utils.data.DataLoader's rules (torch/utils/data/dataloader.py), one place for both
// clocks: how many batches are outstanding, which worker fetches a batch, when workers
// start, which finished batch is handed out next and what receiving one costs.
//
// - With workers, the main process keeps prefetch_factor * num_workers batches of indices
//   outstanding (the iterator's start puts that many; each batch handed out puts one more),
//   giving each to the next worker of a cycle (round-robin; each worker takes its own queue
//   in order). With in_order: false the cycle skips a worker that already holds
//   prefetch_factor batches not yet handed out (PyTorch's _try_put_index), so a slow batch
//   does not keep the other workers' batches waiting behind it.
// - Workers are processes, started when an epoch's iterator is made, every epoch unless
//   persistent_workers (then once, for the DataLoader's first iterator). Where they spawn
//   (or start from a fork server) each is sent the dataset pickled: the main process
//   pickles it for each worker in turn, and one larger than a pipe's buffer holds
//   Process.start() until the worker has started and read it, so such workers start one
//   after another (multiprocessing's popen_spawn_posix; pytorch#139792).
// - Batches are handed out in the order of their indices (in_order: true, the default); a
//   batch whose worker is slow holds back every later one that is already done. With
//   in_order: false, the first received.
// - A worker's batch crosses to the main process through a queue. Its tensors are in shared
//   memory (collate writes them there), so receiving is unpickling, not copying: the main
//   process's thread unpickles each batch as it arrives (while it waits for the next in
//   order too) or, with pin_memory, the pin-memory thread does; either holds the main
//   process's interpreter lock meanwhile.
// - num_workers 0: the main process fetches and collates a batch when asked for it.
// - An IterableDataset replicated in every worker (spec `replicated`: its __iter__ does not
//   split the items with get_worker_info) is iterated whole by each worker: every batch of
//   items is fetched once by each worker, worker after worker, and handed out in that order,
//   as torch's round-robin over the workers' own iterators gives them.
// - An IterableDataset split among the workers (spec `worker_split`: its __iter__ splits
//   the items by get_worker_info(), as PyTorch's documentation shows) is batched by each
//   worker from its own share (a contiguous chunk of ceil(items / num_workers) items, or
//   every num_workers-th item), so each worker's last batch may be short; the main process
//   takes each worker's next batch in turn, passing over those whose share is spent (torch
//   marks a worker whose iterator ended and puts no more indices to it): SplitBatches. The
//   items are taken from the input in its order, where worker i's are its share: the
//   batches' sizes, their number and their workers are torch's, which items share a batch
//   is not.
// - A dataset that makes a whole batch in one call (fetch_batches: its __getitems__, or a
//   sampler of index batches with batch_size=None) is called once per batch, not per item.
//
// Keras's OrderedEnqueuer (model.fit over a Sequence, keras_fit) runs on the same rules: one
// input element per batch, handed out as getitem made it (no stacking), max_queue_size
// batches outstanding, workers started each epoch, in order; its threads (without
// use_multiprocessing) run in the main process, under its interpreter lock, with nothing to
// start or unpickle. Keras's pool gives a task to whichever worker is free where the
// DataLoader's round-robin gives it to the next: the same while sequence[i] costs alike.
// Its worker processes' results come back through the multiprocessing.Pool's result pipe,
// read and unpickled by the pool's result-handler thread (Pool._handle_results) as they
// arrive, beside the training loop, which only waits on each AsyncResult (keras/utils/
// data_utils.py: queue.put(executor.apply_async(get_index, ...)), then .get()): a thread of
// its own receives, as the DataLoader's pin-memory thread does.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/core/duration.h"
#include "engine/core/status.h"
#include "engine/core/worker_process_costs.h"
#include "engine/spec/op_values.h"

namespace pipescope::engine {

// The defaults of the fields a spec may leave out (a worker's start, a batch's receipt) are
// in engine/core/worker_process_costs.h.

// How many times each batch of a loader's items is fetched: once, or by every worker of a
// replicated IterableDataset (each yields all of it).
inline int64_t CopiesOfEachBatch(bool replicated, int64_t num_workers) {
  return replicated && num_workers > 0 ? num_workers : 1;
}

// The batches of an epoch of an IterableDataset split among `workers` workers: worker w
// batches its share (the w-th contiguous chunk of ceil(items / workers) items, or every
// workers-th item from the w-th), and the workers' batches are taken in turn, a spent
// worker passed over.
class SplitBatches {
 public:
  SplitBatches(int64_t items, int64_t workers, int64_t batch_size, bool drop_last,
               spec::WorkerSplit split)
      : batch_size_(std::max<int64_t>(1, batch_size)), drop_last_(drop_last) {
    const int64_t n = std::max<int64_t>(1, workers);
    items = std::max<int64_t>(0, items);
    const int64_t chunk = (items + n - 1) / n;
    for (int64_t w = 0; w < n; ++w) {
      left_.push_back(split == spec::every_nth ? (items - w + n - 1) / n
                                               : std::clamp<int64_t>(items - w * chunk, 0, chunk));
    }
  }
  // The next batch's worker and rows; false once every worker's chunk is spent.
  bool Next(int64_t& worker, int64_t& rows) {
    const auto n = static_cast<int64_t>(left_.size());
    for (int64_t tried = 0; tried < n; ++tried) {
      const int64_t w = turn_;
      turn_ = (turn_ + 1) % n;
      int64_t& left = left_[static_cast<size_t>(w)];
      const int64_t take = std::min(left, batch_size_);
      left -= take;
      if (take == 0 || (drop_last_ && take < batch_size_)) continue;
      worker = w;
      rows = take;
      return true;
    }
    return false;
  }
  // The batches an epoch has.
  static int64_t Count(int64_t items, int64_t workers, int64_t batch_size, bool drop_last,
                       spec::WorkerSplit split) {
    SplitBatches s(items, workers, batch_size, drop_last, split);
    int64_t count = 0, worker = 0, rows = 0;
    while (s.Next(worker, rows)) ++count;
    return count;
  }

 private:
  int64_t batch_size_;
  bool drop_last_;
  std::vector<int64_t> left_;  // each worker's items not yet batched
  int64_t turn_ = 0;
};

// The main process's thread that receives each batch a worker process sent: the caller's
// (the DataLoader's iterator, as batches arrive), or one beside it: the DataLoader's
// pin-memory thread (pin_memory with an accelerator), the result-handler thread of Keras's
// multiprocessing.Pool.
enum class Receiver { kCaller, kPinMemoryThread, kResultHandlerThread };

struct DataLoaderRules {
  int64_t batch_size = 1;
  bool drop_last = false;
  int64_t num_workers = 0;
  int64_t prefetch_factor = kDefaultPrefetchFactor;
  bool persistent_workers = false;
  Receiver receiver = Receiver::kCaller;
  bool in_order = true;
  int64_t worker_startup_ns = kDefaultWorkerStartupNs;
  int64_t receive_ns_per_mib = kDefaultReceiveNsPerMib;
  int64_t receive_ns_per_batch = kDefaultReceiveNsPerBatch;
  spec::StartMethod start_method = spec::fork;
  int64_t dataset_bytes = 0;  // the dataset object pickled, its entries apart
  // The dataset's entries, one for each item of a pass (ImageFolder's samples), and the
  // bytes each pickles to.
  int64_t dataset_entries = 0;
  int64_t dataset_bytes_per_entry = 0;
  bool threads = false;  // workers are threads of the main process (Keras's default)
  // The workers fetch one batch at a time between them, each taking a lock around the whole
  // fetch: a Python generator's next() on Keras's threads (Keras 2.0 to 2.2's GeneratorEnqueuer
  // holds its lock around it; tf.keras's raises "Your generator is NOT thread-safe" unless a
  // lock the user adds does the same).
  bool one_fetch_at_a_time = false;
  bool stacks = true;  // false: a batch is its one item as getitem made it (Keras)
  // getitem runs once per batch on all of its indices and makes its items (__getitems__, or
  // a sampler of index batches with batch_size=None): no per-item call, nothing stacked.
  bool fetch_batches = false;
  int64_t queue_size = 0;   // batches outstanding where not prefetch_factor * num_workers
  bool replicated = false;  // each worker iterates the whole dataset (an IterableDataset)
  // An IterableDataset split among the workers, an epoch's items known: how many and how
  // they are shared; -1 otherwise (batches are the input's in order).
  int64_t split_items = -1;
  spec::WorkerSplit worker_split = spec::not_split;

  // Batches put to workers and not yet handed out, at most.
  // A thread of the main process receives batches while the caller goes on (its name's
  // suffix: "pin_memory", "result_handler"); the caller receives them where false.
  bool ReceivesOnItsOwnThread() const { return receiver != Receiver::kCaller; }
  const char* ReceiverThreadName() const {
    return receiver == Receiver::kPinMemoryThread ? "pin_memory" : "result_handler";
  }
  int64_t Outstanding() const {
    return queue_size > 0 ? queue_size : prefetch_factor * num_workers;
  }
  int64_t CopiesOfEachBatch() const { return engine::CopiesOfEachBatch(replicated, num_workers); }
  // Each worker batches its own chunk of the epoch's items (SplitBatches).
  bool SplitsByWorker() const { return split_items >= 0 && num_workers > 0; }
  SplitBatches SplitOfEpoch() const {
    return SplitBatches(split_items, num_workers, batch_size, drop_last, worker_split);
  }
  // The worker to give the next batch: the cycle's next (advancing `cycle`), skipping with
  // in_order: false those holding prefetch_factor batches not yet handed out (`held`, one
  // count per worker); -1 where every worker does. A replicated dataset's workers each
  // yield their own copy in turn: none is skipped.
  template <typename Counts>
  int64_t NextWorker(int64_t& cycle, const Counts& held) const {
    for (int64_t tried = 0; tried < num_workers; ++tried) {
      const int64_t worker = cycle;
      cycle = (cycle + 1) % num_workers;
      if (in_order || replicated || held[static_cast<size_t>(worker)] < prefetch_factor) {
        return worker;
      }
    }
    return -1;
  }
  // Whether worker `worker` starts (pays its start-up) for a new iterator, where the first
  // `workers_started` workers of earlier iterators are still alive if persistent.
  bool Starts(int64_t worker, int64_t workers_started) const {
    return !persistent_workers || worker >= workers_started;
  }
  // Whether each worker that starts is sent the dataset pickled (spawn, forkserver); fork
  // inherits it.
  bool SendsDataset() const { return !threads && start_method != spec::fork && DatasetBytes() > 0; }
  // The dataset's pickle, its entries included.
  int64_t DatasetBytes() const { return dataset_bytes + dataset_entries * dataset_bytes_per_entry; }
  // The main process's CPU to pickle the dataset for one worker that starts.
  int64_t PickleDatasetNs() const {
    return SendsDataset() ? OfBytes(DatasetBytes(), kDatasetPickleNsPerMib) +
                                dataset_entries * kDatasetPickleNsPerEntry
                          : 0;
  }
  // The rest of the dataset's sending, until the worker holds it: the pipe, its unpickling.
  int64_t ReadDatasetNs() const {
    return SendsDataset() ? OfBytes(DatasetBytes(), kDatasetSendNsPerMib) +
                                dataset_entries * kDatasetSendNsPerEntry
                          : 0;
  }
  // Process.start() returns only once the worker has started and read the dataset's pickle
  // (larger than the pipe's buffer): the main process starts its workers one after another.
  bool StartsOneAtATime() const { return SendsDataset() && DatasetBytes() > kPipeBufferBytes; }
  // CPU to receive a batch of `bytes` from a worker: its message, then unpickling.
  int64_t ReceiveNs(int64_t bytes) const {
    return receive_ns_per_batch + OfBytes(bytes, receive_ns_per_mib);
  }

 private:
  // `bytes` at `ns_per_mib`.
  static int64_t OfBytes(int64_t bytes, int64_t ns_per_mib) {
    return static_cast<int64_t>(static_cast<double>(bytes) * static_cast<double>(ns_per_mib) /
                                (1 << 20));
  }
};

// Which worker fetches an epoch's next batch, and how many of the input's items it takes: the
// round-robin's next (DataLoaderRules::NextWorker) with batch_size items, or a split
// IterableDataset's next worker with items of its share left. Each clock keeps one per
// epoch's iterator.
class BatchDispatch {
 public:
  explicit BatchDispatch(const DataLoaderRules& rules) : rules_(rules) {
    if (rules.SplitsByWorker()) split_.emplace(rules.SplitOfEpoch());
  }
  enum class Next { kBatch, kAllHeld, kEpochEnds };
  // `held`: each worker's batches not yet handed out.
  template <typename Counts>
  Next Pick(const Counts& held, int64_t& worker, int64_t& rows) {
    rows = rules_.batch_size;
    if (split_) return split_->Next(worker, rows) ? Next::kBatch : Next::kEpochEnds;
    int64_t cycle = cycle_;
    worker = rules_.NextWorker(cycle, held);
    if (worker < 0) return Next::kAllHeld;
    cycle_ = cycle;
    return Next::kBatch;
  }

 private:
  const DataLoaderRules& rules_;
  std::optional<SplitBatches> split_;
  int64_t cycle_ = 0;  // the next worker of the round-robin
};

// How many times an epoch of `spec` hands out each batch: once, or once per worker of a
// DataLoader over a replicated IterableDataset (a product where several are).
inline int64_t BatchCopies(const spec::PipelineSpec& spec) {
  int64_t copies = 1;
  for (const auto& op : spec.ops()) {
    if (op.has_dataloader()) {
      copies *= CopiesOfEachBatch(op.dataloader().replicated(), op.dataloader().num_workers());
    }
  }
  return copies;
}

// The rules of `op` with its knobs' values (num_workers, prefetch_factor as planned or
// tuned) and the elements its input gives in a pass, where known (a split IterableDataset's
// items); an unreadable duration fails, naming the field. Without an `accelerator` to copy
// to, pin_memory is dropped, as torch's iterator drops it (loader.pin_memory and an
// accelerator available): no pin-memory thread, the main process receives.
// Whether the loader's workers live on from one epoch to the next: persistent_workers keeps
// one loader's workers across its iterators, and a loader made anew each epoch is a new one.
inline bool WorkersPersist(const spec::DataLoaderOp& op) {
  return op.persistent_workers() && !op.made_each_epoch();
}

inline Result<DataLoaderRules> DataLoaderRulesOf(const spec::DataLoaderOp& op, int64_t num_workers,
                                                 int64_t prefetch_factor, bool accelerator,
                                                 std::optional<int64_t> input_elements) {
  DataLoaderRules r;
  r.batch_size = op.batch_size() > 0 ? op.batch_size() : 1;
  r.drop_last = op.drop_last();
  r.num_workers = num_workers;
  r.prefetch_factor = prefetch_factor > 0 ? prefetch_factor : kDefaultPrefetchFactor;
  r.persistent_workers = WorkersPersist(op);
  if (op.pin_memory() && accelerator) r.receiver = Receiver::kPinMemoryThread;
  r.in_order = DataLoaderInOrder(op);
  r.fetch_batches = op.fetch_batches();
  r.replicated = op.replicated();
  r.start_method = op.start_method();
  if (r.start_method == spec::spawn) r.worker_startup_ns = kSpawnedTorchWorkerStartupNs;
  r.dataset_bytes = op.dataset_bytes();
  if (op.dataset_bytes_per_item() > 0 && input_elements) {
    r.dataset_entries = *input_elements;
    r.dataset_bytes_per_entry = op.dataset_bytes_per_item();
  }
  if (op.worker_split() != spec::not_split && input_elements) {
    r.split_items = *input_elements;
    r.worker_split = op.worker_split();
  }
  if (!op.worker_startup().empty()) {
    ASSIGN_OR_RETURN(r.worker_startup_ns, ParseDurationNs(op.worker_startup()));
  }
  if (!op.receive_per_mb().empty()) {
    ASSIGN_OR_RETURN(r.receive_ns_per_mib, ParseDurationNs(op.receive_per_mb()));
  }
  if (!op.receive_per_batch().empty()) {
    ASSIGN_OR_RETURN(r.receive_ns_per_batch, ParseDurationNs(op.receive_per_batch()));
  }
  return r;
}

// The rules of Keras's OrderedEnqueuer for `op` with its knobs' values (workers,
// max_queue_size as planned or tuned).
inline Result<DataLoaderRules> KerasFitRulesOf(const spec::KerasFitOp& op, int64_t workers,
                                               int64_t queue_size) {
  DataLoaderRules r;
  r.batch_size = 1;
  r.num_workers = workers;
  r.queue_size = std::max<int64_t>(queue_size, 1);
  r.stacks = false;
  r.threads = !op.use_multiprocessing();
  if (r.threads) {
    r.one_fetch_at_a_time = op.generator();
    r.worker_startup_ns = 0;
    r.receive_ns_per_mib = 0;
    r.receive_ns_per_batch = 0;
    return r;
  }
  r.receiver = Receiver::kResultHandlerThread;
  r.receive_ns_per_mib = kDefaultPipeReceiveNsPerMib;  // a pipe's bytes, not shared memory
  if (!op.worker_startup().empty()) {
    ASSIGN_OR_RETURN(r.worker_startup_ns, ParseDurationNs(op.worker_startup()));
  }
  if (!op.receive_per_mb().empty()) {
    ASSIGN_OR_RETURN(r.receive_ns_per_mib, ParseDurationNs(op.receive_per_mb()));
  }
  if (!op.receive_per_batch().empty()) {
    ASSIGN_OR_RETURN(r.receive_ns_per_batch, ParseDurationNs(op.receive_per_batch()));
  }
  return r;
}

// A DataLoader whose workers start again at every epoch's iterator (it has workers that do
// not persist) over several epochs, a repeat after it: each epoch then begins with a wait
// like the run's start-up, which a run of long epochs may not reach to show. Its op's index
// in `spec`, its epochs (-1: endless) and whether the code makes it anew each epoch (else it
// lacks persistent_workers); nullopt where no loader restarts.
struct LoaderRestarts {
  int op = -1;
  int64_t epochs = 0;
  bool made_each_epoch = false;
};
inline std::optional<LoaderRestarts> LoaderRestartingEachEpoch(const spec::PipelineSpec& spec) {
  for (int i = 0; i < spec.ops_size(); ++i) {
    const spec::Op& op = spec.ops(i);
    if (!op.has_dataloader() || op.dataloader().num_workers() == 0 ||
        WorkersPersist(op.dataloader())) {
      continue;
    }
    for (int j = i + 1; j < spec.ops_size(); ++j) {
      if (!spec.ops(j).has_repeat()) continue;
      const spec::RepeatOp& repeat = spec.ops(j).repeat();
      const int64_t epochs = repeat.has_count() && repeat.count() >= 0 ? repeat.count() : -1;
      if (epochs == 0 || epochs == 1) break;  // one pass: nothing starts again
      return LoaderRestarts{i, epochs, op.dataloader().made_each_epoch()};
    }
  }
  return std::nullopt;
}

}  // namespace pipescope::engine
