#pragma once
// How one op spent an interval: its own work against time spent waiting on its input,
// from its spans. Shared by the per-op figures and gap attribution.

#include <cstdint>
#include <string_view>

#include "instrumentation/trace/model.h"

namespace pipescope::trace {

struct OpActivity {
  int64_t own_ns = 0;      // the op's work (kWork; a synchronous op's self time)
  int64_t input_ns = 0;    // waiting on its input (kWaitInput; a synchronous op's input time)
  int64_t blocked_ns = 0;  // workers blocked on a full output buffer
  int64_t idle_ns = 0;     // workers parked beyond the parallelism
  // Its threads waiting for their process's interpreter lock (kLockWait), inside own_ns.
  int64_t lock_wait_ns = 0;
  // The main process receiving what its worker processes sent (kReceive: unpickling
  // batches), on its caller's thread or on a receiver's thread of its own (pin-memory,
  // Keras's result handler); not in own_ns: the workers' busy share is theirs alone.
  int64_t receive_ns = 0;
  int call_threads = 0;  // threads that called a synchronous op in the interval
  // Worker processes starting (kTraitWorkerProcesses: their kWork on no element), not in
  // own_ns: how many began in the interval, and their time in it.
  int startups = 0;
  int64_t startup_ns = 0;
  // The time in the interval when at least one was starting: about one start-up an epoch
  // where workers start side by side, their sum where they start one after another (a
  // spawned DataLoader's large dataset).
  int64_t startup_covered_ns = 0;
};

OpActivity ActivityOf(const Model& model, const record::StageDef& stage, int64_t t0, int64_t t1);

// The threads a synchronous op's busy share in [t0, t1) is measured against: 1 where its
// callers take turns (the input of a parallel map's workers, fetched under one lock); where
// their calls overlap, the threads that called it, at most the workers of the asynchronous
// op whose sub-pipeline it is in (an interleave's num_parallel_calls).
int ConcurrentCallThreads(const Model& model, const record::StageDef& stage, int64_t t0,
                          int64_t t1);

// The knob that sets an asynchronous op's worker count ("num_parallel_calls", a DataLoader's
// "num_workers"), and its average over [t0, t1).
std::string_view ParallelismKnob(const record::StageDef& stage);
double AverageParallelism(const Model& model, const record::StageDef& stage, int64_t t0,
                          int64_t t1);

}  // namespace pipescope::trace
