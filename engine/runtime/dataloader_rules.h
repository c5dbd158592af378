#pragma once
// torch.utils.data.DataLoader's rules (torch/utils/data/dataloader.py), one place for both
// clocks: how many batches are outstanding, which worker fetches a batch, when workers
// start, which finished batch is handed out next and what receiving one costs.
//
// - With workers, the main process keeps prefetch_factor * num_workers batches of indices
//   outstanding (the iterator's start puts that many; each batch handed out puts one more),
//   and gives batch k to worker k % num_workers: each worker takes its own queue in order.
// - Workers are processes, started when an epoch's iterator is made, every epoch unless
//   persistent_workers (then once, for the DataLoader's first iterator).
// - Batches are handed out in the order of their indices (in_order: true, the default); a
//   batch whose worker is slow holds back every later one that is already done. With
//   in_order: false, the first finished.
// - A worker's batch crosses to the main process through a queue: the receiver unpickles and
//   copies it, the main process's thread or, with pin_memory, the pin-memory thread.
// - num_workers 0: the main process fetches and collates a batch when asked for it.

#include <cstdint>

#include "engine/core/duration.h"
#include "engine/core/status.h"
#include "engine/spec/op_values.h"

namespace pipescope::engine {

// Defaults of the fields a spec may leave out, measured on the project's 2-core machine by
// scripts/measure-python-costs (85-94 ms and 47-50 us): a python3 process started with
// multiprocessing imported (a user's own imports, torch's above all, add to it), and
// pickle.loads of a MiB (the copy into place is charged as a copy: real in the engine,
// the simulator's copy cost).
inline constexpr int64_t kDefaultWorkerStartupNs = 90'000'000;
inline constexpr int64_t kDefaultReceiveNsPerMib = 50'000;
// The simulator's cost of copying a received batch into place, per byte (the cost model's
// memcpy-like work).
inline constexpr double kReceiveCopyNsPerByte = 0.1;

struct DataLoaderRules {
  int64_t batch_size = 1;
  bool drop_last = false;
  int64_t num_workers = 0;
  int64_t prefetch_factor = kDefaultPrefetchFactor;
  bool persistent_workers = false;
  bool pin_memory = false;
  bool in_order = true;
  int64_t worker_startup_ns = kDefaultWorkerStartupNs;
  int64_t receive_ns_per_mib = kDefaultReceiveNsPerMib;

  // Batches put to workers and not yet handed out, at most.
  int64_t Outstanding() const { return prefetch_factor * num_workers; }
  // The worker that fetches batch `task` (0, 1, ... in the sampler's order).
  int64_t WorkerOf(int64_t task) const { return num_workers > 0 ? task % num_workers : 0; }
  // Whether worker `worker` starts (pays its start-up) for a new iterator, where the first
  // `workers_started` workers of earlier iterators are still alive if persistent.
  bool Starts(int64_t worker, int64_t workers_started) const {
    return !persistent_workers || worker >= workers_started;
  }
  // CPU to unpickle a batch of `bytes` received from a worker (its copy is apart).
  int64_t ReceiveNs(int64_t bytes) const {
    return static_cast<int64_t>(static_cast<double>(bytes) *
                                static_cast<double>(receive_ns_per_mib) / (1 << 20));
  }
};

// The rules of `op` with its knobs' values (num_workers, prefetch_factor as planned or
// tuned); an unreadable duration fails, naming the field.
inline Result<DataLoaderRules> DataLoaderRulesOf(const spec::DataLoaderOp& op, int64_t num_workers,
                                                 int64_t prefetch_factor) {
  DataLoaderRules r;
  r.batch_size = op.batch_size() > 0 ? op.batch_size() : 1;
  r.drop_last = op.drop_last();
  r.num_workers = num_workers;
  r.prefetch_factor = prefetch_factor > 0 ? prefetch_factor : kDefaultPrefetchFactor;
  r.persistent_workers = op.persistent_workers();
  r.pin_memory = op.pin_memory();
  r.in_order = DataLoaderInOrder(op);
  if (!op.worker_startup().empty()) {
    ASSIGN_OR_RETURN(r.worker_startup_ns, ParseDurationNs(op.worker_startup()));
  }
  if (!op.receive_per_mb().empty()) {
    ASSIGN_OR_RETURN(r.receive_ns_per_mib, ParseDurationNs(op.receive_per_mb()));
  }
  return r;
}

}  // namespace pipescope::engine
