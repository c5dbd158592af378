#pragma once
// The discrete-event simulator: runs a PipelineSpec on a CostModel in virtual time. Every
// op is simulated with its tf.data semantics (what it passes on, in which order, on which
// thread), every thread competes for the model's cores, and the run records the same trace
// a real one records (marked simulated by whoever writes the header), so every view and
// analysis works on it. Deterministic: the same spec, model and seed give the same trace.

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/core/status.h"
#include "engine/runtime/training_run.h"
#include "engine/sim/cost_model.h"
#include "engine/spec/pipeline_spec.pb.h"
#include "instrumentation/record/trace_sink.h"

namespace pipescope::sim {

struct SimulationOptions {
  double duration_s = 5;  // of virtual time; <= 0 with max_steps > 0: until that many steps
  int64_t max_steps = 0;  // 0: no limit
  uint64_t seed = 1;      // shuffles with seed 0, cost draws
  // Receive the trace, batch by batch (none: only the summary is made, which is faster).
  std::vector<record::TraceSink*> sinks;
  int64_t flush_period_ns = 100'000'000;  // of virtual time
  // Called after each flush with the share of the run done; returning false cancels.
  std::function<bool(double done)> progress;
};

struct SimulationResult {
  engine::RunSummary summary;  // as RunTraining counts a real run
  uint64_t events = 0;         // recorded
  double wall_s = 0;           // how long simulating took
  bool cancelled = false;
  // Nothing reached the training step long after the planned end (a filter that keeps
  // nothing of an endless input, ...): the run was stopped there.
  bool stalled = false;
};

// Errors: the spec uses something the simulator cannot build (the same errors as the
// engine's builder, with the op's name).
engine::Result<SimulationResult> Simulate(const spec::PipelineSpec& spec, const CostModel& model,
                                          const SimulationOptions& options);

}  // namespace pipescope::sim
