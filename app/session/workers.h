#pragma once
// Several data-parallel workers of one job on one host (tf.distribute's input pipeline per
// replica, one PyTorch DDP process per GPU): each runs its own copy of the pipeline with
// every shard's index set to its worker number, so that each reads its own share. `run`
// starts them at once, each a process of its own (its own interpreter lock), so that they
// share the machine's cores as real workers do; `simulate` gives each the cost model's
// cores divided among them. Lessons with workers run the same copies.

#include <memory>
#include <vector>

#include "app/session/recorded_run.h"
#include "app/session/simulated_run.h"
#include "engine/core/status.h"
#include "engine/sim/cost_model.h"

namespace pipescope::session {

inline constexpr int kMaxWorkers = 64;

// `spec` as worker `worker` of `workers` runs it: each top-level op that splits its input
// among workers (shard) takes the worker's number as its index. An error names the op where
// a worker would have no shard of its own.
engine::Result<spec::PipelineSpec> SpecForWorker(const spec::PipelineSpec& spec, int worker,
                                                 int workers);

// A worker's run after its first step (trace::AnalyzeSteady when recorded, the run's own
// steady counters when not), as the summary of a single run is graded.
struct WorkerFigures {
  int64_t steps = 0;
  double steps_per_s = 0;
  double elements_per_s = 0;
  double input_wait_fraction = 0;
  double device_busy_fraction = 0;
};

struct WorkersRun {
  std::vector<RecordedRunResult> workers;  // in worker order
  std::vector<spec::PipelineSpec> specs;   // what each ran (SpecForWorker)
  std::vector<WorkerFigures> figures;      // in worker order
  // Steps per second of all workers together, and of a synchronous job (an all-reduce each
  // step), which every step waits for the slowest worker: workers × the slowest's rate.
  double total_steps_per_s = 0;
  double synchronous_steps_per_s = 0;
  int slowest = 0;
};

// `workers` copies of `spec` run at once on this machine (`worker_options(w)` for each: its
// trace file, its element callback). Errors: a worker's spec or run could not be built.
engine::Result<WorkersRun> RunWorkersRecorded(
    const spec::PipelineSpec& spec, int workers,
    const std::function<RecordedRunOptions(int worker)>& worker_options);

// The same on the simulator's clock, one worker after another, each on cores / workers of
// `model` and seed + worker.
engine::Result<WorkersRun> RunWorkersSimulated(
    const spec::PipelineSpec& spec, const sim::CostModel& model, int workers,
    const std::function<SimulatedRunOptions(int worker)>& worker_options);

// Worker 0's run, which names the job's summary, with the first failure of any worker as its
// run status.
RecordedRunResult FirstWorkerResult(const WorkersRun& run);

// "run.pstrace" for worker 2 of several: "run-worker2.pstrace" (empty stays empty).
std::string WorkerTracePath(const std::string& path, int worker, int workers);

}  // namespace pipescope::session
